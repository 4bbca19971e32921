// ember.set_num_threads / ember.get_num_threads.
#include "bindings.h"

namespace ember::python {

void bind_threads(py::module_& m) {
  m.def("set_num_threads", &set_num_threads, py::arg("num_threads"));
  m.def("get_num_threads", &get_num_threads);
}

}  // namespace ember::python
