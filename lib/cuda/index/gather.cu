// gather and index_select on CUDA: out[p] = self[p with index[p] along dim], one
// thread per output element (lib/cpu/index_dim.cpp decides the same outputs).
// Indices are not wrapped: a negative or too large one is reported (IndexError at
// the next synchronization) and its output element is left unwritten.
#include "kernels/restride.h"
#include "cuda/index/positions.cuh"
#include "ember/ops/factories.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::cuda {
namespace {

// out[p] = self[p + index[p] * dim stride] over the positions of out, where self's
// view has stride 0 along dim and index has out's shape (any strides).
void gather_along(const Tensor& out, const Tensor& self, const Tensor& index, int64_t dim, OpId op) {
  LaunchContext ctx(out);
  const DeviceErrorReporter err = device_error_reporter(out.device().index, op);
  const int64_t size = self.size(dim), step = self.stride(dim) * self.element_size();
  EMBER_DISPATCH_ELEMENT_SIZE(out.element_size(), [&] {
    using T = elem_t;
    for_each_position<3>(ctx.stream, out.sizes(), {byte_strides(out), byte_strides(self, dim),
                                                   byte_strides(index)},
                         {bytes_of(out), bytes_of(self), bytes_of(index)},
                         [=] __device__(char* const(&p)[3]) {
                           const int64_t i = checked_index(*reinterpret_cast<const int64_t*>(p[2]),
                                                           size, false, err);
                           if (i >= 0)
                             *reinterpret_cast<T*>(p[0]) = *reinterpret_cast<const T*>(p[1] + i * step);
                         });
  });
}

void gather_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const Tensor& index = c.in(1);
  const GatherArgs a = GatherArgs::from(c);
  Tensor out = empty(index.sizes(), TensorOptions(self.dtype()).device(self.device()));
  if (out.numel()) gather_along(out, self, index, a.dim, opid::gather);
  c.outputs.push_back(out);
}

// The 1-d index laid along dim of out (stride 0 over the other dims).
void index_select_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const Tensor& index = c.in(1);
  const IndexSelectArgs a = IndexSelectArgs::from(c);
  DimVector sizes = self.sizes();
  sizes[a.dim] = index.numel();
  Tensor out = empty(sizes, TensorOptions(self.dtype()).device(self.device()));
  if (out.numel()) {
    DimVector strides(out.dim(), 0);
    strides[a.dim] = index.dim() ? index.stride(0) : 0;
    gather_along(out, self, restride(index, sizes, strides, index.storage_offset()), a.dim,
                 opid::index_select);
  }
  c.outputs.push_back(out);
}

EMBER_REGISTER_KERNEL(gather, CUDA, gather_kernel);
EMBER_REGISTER_KERNEL(index_select, CUDA, index_select_kernel);

}  // namespace
}  // namespace ember::cuda
