// Python bindings of the linalg group.
#include "bindings.h"

namespace ember::python {

void bind_linalg(py::module_& m, TensorClass& cls) {}

}  // namespace ember::python
