// Python bindings of the shape_index group.
#include "bindings.h"

namespace ember::python {

void bind_shape_index(py::module_& m, TensorClass& cls) {}

}  // namespace ember::python
