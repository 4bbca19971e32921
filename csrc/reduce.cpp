// Python bindings of the reduce group.
#include "bindings.h"

namespace ember::python {

void bind_reduce(py::module_& m, TensorClass& cls) {}

}  // namespace ember::python
