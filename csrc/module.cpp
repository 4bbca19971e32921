// The extension module ember._C. python/ember/ re-exports what it defines.
#include "bindings.h"

namespace ember::python {
void bind_linalg_lapack(py::module_& m);  // csrc/linalg_lapack.cpp
}

namespace ember::python {
void bind_storage(py::module_& m);  // storage_bindings.cpp (ember.UntypedStorage's helpers)
void bind_special_functions(py::module_& m, TensorClass& cls);  // special_functions.cpp
void bind_profiler(py::module_& m);  // profiler.cpp (ember.profiler's recording)
void bind_distributed(py::module_& m);  // distributed.cpp (ember.distributed's C++ half)
void bind_autocast(py::module_& m);  // autocast.cpp (ember.autocast's per-thread state)
void bind_out_variants(py::module_& m);  // out_variants.cpp (ember._C._OutVariant)
void bind_numpy_arg_names(py::module_& m);  // numpy_arg_names.cpp (ember._C._NumpyArgNames)
void bind_saved_tensor_hooks(py::module_& m);  // saved_tensor_hooks.cpp (autograd.graph's hooks)
void bind_conv_backend(py::module_& m);  // conv_backend.cpp (the CPU conv backend switch)
}

PYBIND11_MODULE(_C, m) {
  using namespace ember::python;
  m.doc() = "ember's C++ core";
  bind_errors(m);
  bind_types(m);
  TensorClass cls = bind_tensor(m);
  bind_factories(m);
  bind_memory(m);
  bind_elementwise(m, cls);
  bind_reduce(m, cls);
  bind_linalg(m, cls);
  bind_statistics(m, cls);
  bind_linalg_extra(m, cls);
  bind_linalg_lapack(m);
  bind_nn(m, cls);
  bind_nn_backward(m);
  bind_shape_index(m, cls);
  bind_interop(m, cls);
  bind_autograd(m, cls);
  bind_serialize(m);
  bind_random(m, cls);
  bind_threads(m);
  bind_optim(m);
  bind_rnn(m);
  bind_attention(m);
  bind_cuda(m, cls);
  bind_backends(m);
  bind_op_schema(m);
  bind_jit(m);
  bind_activation(m, cls);
  bind_structured_ops(m, cls);  // generated from the schema rows with kernel = ...
  bind_special_functions(m, cls);
  bind_tensor_api(m, cls);
  bind_storage(m);
  bind_profiler(m);
  bind_distributed(m);
  bind_autocast(m);
  bind_out_variants(m);
  bind_numpy_arg_names(m);
  bind_saved_tensor_hooks(m);
  bind_conv_backend(m);
  install_fast_calls(cls);  // last: it wraps bindings made above
}
