// Python bindings of the elementwise group.
#include "bindings.h"

namespace ember::python {

void bind_elementwise(py::module_& m, TensorClass& cls) {}

}  // namespace ember::python
