// Python bindings of the nn group.
#include "bindings.h"

namespace ember::python {

void bind_nn(py::module_& m, TensorClass& cls) {}

}  // namespace ember::python
