// ember.set_num_threads / ember.get_num_threads / ember.set_flush_denormal, and the
// private switch between the thread pool and OpenMP regions.
#include "bindings.h"
#include "cpu/thread_pool.h"
#include "ember/float_environment.h"

namespace ember::python {

void bind_threads(py::module_& m) {
  m.def("set_num_threads", &set_num_threads, py::arg("num_threads"));
  m.def("get_num_threads", &get_num_threads);
  m.def("set_flush_denormal", &set_flush_denormal, py::arg("mode"));
  // bench/contention.py: ember's thread pool ("pool") against OpenMP regions ("openmp"),
  // side by side in one process (lib/cpu/thread_pool.h).
  m.def("_set_thread_pool", [](const std::string& mode) {
    if (mode != "pool" && mode != "openmp")
      throw py::value_error("_set_thread_pool: mode must be 'pool' or 'openmp', got '" + mode + "'");
    cpu::set_openmp_regions(mode == "openmp");
  }, py::arg("mode"));
}

}  // namespace ember::python
