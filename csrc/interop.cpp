// Python bindings of the interop group.
#include "bindings.h"

namespace ember::python {

void bind_interop(py::module_& m, TensorClass& cls) {}

}  // namespace ember::python
