// The numerics switches behind ember.backends (python/ember/backends/) and
// ember.set_float32_matmul_precision / get_float32_matmul_precision (ember/cuda.h).
// The Python side checks the types (bool only, as torch) before calling these.
#include "bindings.h"

namespace ember::python {

void bind_backends(py::module_& m) {
  m.def("set_float32_matmul_precision", &set_float32_matmul_precision, py::arg("precision"));
  m.def("get_float32_matmul_precision", &get_float32_matmul_precision);
  m.def("_get_matmul_allow_tf32", &cuda::matmul_allow_tf32);
  m.def("_set_matmul_allow_tf32", &cuda::set_matmul_allow_tf32, py::arg("allow"));
  m.def("_get_cudnn_allow_tf32", &cuda::cudnn_allow_tf32);
  m.def("_set_cudnn_allow_tf32", &cuda::set_cudnn_allow_tf32, py::arg("allow"));
  m.def("_get_cudnn_benchmark", &cuda::cudnn_benchmark);
  m.def("_set_cudnn_benchmark", &cuda::set_cudnn_benchmark, py::arg("benchmark"));
}

}  // namespace ember::python
