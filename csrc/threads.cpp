// ember.set_num_threads / ember.get_num_threads / ember.set_flush_denormal.
#include "bindings.h"
#include "ember/float_environment.h"

namespace ember::python {

void bind_threads(py::module_& m) {
  m.def("set_num_threads", &set_num_threads, py::arg("num_threads"));
  m.def("get_num_threads", &get_num_threads);
  m.def("set_flush_denormal", &set_flush_denormal, py::arg("mode"));
}

}  // namespace ember::python
