// Advanced indexing on CUDA: index (x[i, j]), index_put_ (x[i, j] = v, with or
// without accumulate) and take. index and index_put_ follow the CPU kernels
// (lib/cpu/index.cpp, kernels/index_plan.h): the index tensors become one int64
// element offset per index position (negative indices wrapped, one out of range
// reported: IndexError at the next synchronization), then one thread per element
// of the result reads (or writes) self at "unindexed part + offset".
#include <cstring>

#include "kernels/dtype_dispatch.h"
#include "kernels/restride.h"
#include "kernels/index_plan.h"
#include "cuda/index/positions.cuh"
#include "ember/ops/factories.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::cuda {
namespace {

// Element offsets sum_k index_k * stride_k over the index shape, one launch per
// indexed dim. A bad index is reported and counts as 0 (the element is garbage
// until the error is raised, which happens before the host can read it).
Tensor index_offsets(cudaStream_t stream, const Tensor& self, const TensorList& indices,
                     const AdvancedIndexGeometry& g, OpId op) {
  Tensor offsets = empty(g.index_shape, TensorOptions(kInt64).device(self.device()));
  const DeviceErrorReporter err = device_error_reporter(self.device().index, op);
  for (int64_t k = 0; k < g.count; ++k) {
    const int64_t d = g.perm[g.before + k];
    const Tensor& idx = indices[d];
    const int64_t size = self.size(d), stride = self.stride(d);
    const bool first = k == 0;
    for_each_position<2>(stream, g.index_shape, {byte_strides(offsets), byte_strides(idx)},
                         {bytes_of(offsets), bytes_of(idx)}, [=] __device__(char* const(&p)[2]) {
      int64_t i = checked_index(*reinterpret_cast<const int64_t*>(p[1]), size, true, err);
      if (i < 0) i = 0;
      int64_t* off = reinterpret_cast<int64_t*>(p[0]);
      *off = (first ? 0 : *off) + i * stride;
    });
  }
  return offsets;
}

TensorList index_tensors(const OpCall& c, size_t first) {
  TensorList out;
  for (size_t i = first; i < c.inputs.size(); ++i) out.push_back(on_device(c.inputs[i], *c.device));
  return out;
}

struct Plan {
  AdvancedIndexGeometry geo;
  IndexViews views;
};

Plan plan_index(cudaStream_t stream, const Tensor& self, const TensorList& indices, OpId op) {
  Plan plan;
  plan.geo = advanced_index_geometry(self.sizes(), indices);
  plan.views = index_views(self, index_offsets(stream, self, indices, plan.geo, op), plan.geo);
  return plan;
}

void index_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  LaunchContext ctx(self);
  Plan plan = plan_index(ctx.stream, self, index_tensors(c, 1), opid::index);
  Tensor out = empty(plan.geo.result_shape, TensorOptions(self.dtype()).device(self.device()));
  const Tensor& sv = plan.views.self_view;
  const Tensor& ov = plan.views.offsets_view;
  EMBER_DISPATCH_ELEMENT_SIZE(out.element_size(), [&] {
    using T = elem_t;
    for_each_position<3>(ctx.stream, out.sizes(), {byte_strides(out), byte_strides(sv), byte_strides(ov)},
                         {bytes_of(out), bytes_of(sv), bytes_of(ov)},
                         [] __device__(char* const(&p)[3]) {
      const int64_t off = *reinterpret_cast<const int64_t*>(p[2]);
      *reinterpret_cast<T*>(p[0]) = reinterpret_cast<const T*>(p[1])[off];
    });
  });
  c.outputs.push_back(out);
}

// Repeated indices: without accumulate one write wins (unspecified which, as in
// PyTorch); with it every value is added atomically (positions.cuh: the order of
// float additions, hence their last bits, varies between runs, as in PyTorch).
void index_put_kernel(OpCall& c) {
  const Tensor& self = c.outputs[0];
  const Tensor values = on_device(c.in(1), *c.device);
  const IndexPutArgs a = IndexPutArgs::from(c);
  LaunchContext ctx(self);
  Plan plan = plan_index(ctx.stream, self, index_tensors(c, 2), opid::index_put_);
  const Tensor& sv = plan.views.self_view;
  const Tensor& ov = plan.views.offsets_view;
  if (sv.numel() == 0) return;
  const std::array<ByteStrides, 3> strides{
      byte_strides(sv), broadcast_byte_strides(values, sv.sizes()), byte_strides(ov)};
  const std::array<char*, 3> bases{bytes_of(sv), bytes_of(values), bytes_of(ov)};
  if (!a.accumulate) {
    EMBER_DISPATCH_ELEMENT_SIZE(self.element_size(), [&] {
      using T = elem_t;
      for_each_position<3>(ctx.stream, sv.sizes(), strides, bases, [] __device__(char* const(&p)[3]) {
        const int64_t off = *reinterpret_cast<const int64_t*>(p[2]);
        reinterpret_cast<T*>(p[0])[off] = *reinterpret_cast<const T*>(p[1]);
      });
    });
    return;
  }
  EMBER_DISPATCH_ALL(self.dtype(), "index_put_", [&] {
    for_each_position<3>(ctx.stream, sv.sizes(), strides, bases, [] __device__(char* const(&p)[3]) {
      const int64_t off = *reinterpret_cast<const int64_t*>(p[2]);
      atomic_add(reinterpret_cast<scalar_t*>(p[0]) + off,
                 static_cast<opmath_t<scalar_t>>(*reinterpret_cast<const scalar_t*>(p[1])));
    });
  });
}

// out[i] = self.flatten()[index[i]], negative indices from the end. A
// non-contiguous self is first copied into row-major order.
void take_kernel(OpCall& c) {
  const Tensor self = on_device(c.in(0), *c.device);
  const Tensor index = on_device(c.in(1), *c.device);
  Tensor out = empty(index.sizes(), TensorOptions(self.dtype()).device(self.device()));
  c.outputs.push_back(out);
  if (out.numel() == 0) return;
  Tensor flat = self;
  if (!self.is_contiguous()) {
    flat = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
    copy_into(flat, self);
  }
  LaunchContext ctx(out);
  const DeviceErrorReporter err = device_error_reporter(out.device().index, opid::take);
  const int64_t numel = self.numel();
  EMBER_DISPATCH_ELEMENT_SIZE(out.element_size(), [&] {
    using T = elem_t;
    const T* src = static_cast<const T*>(flat.data_ptr());
    for_each_position<2>(ctx.stream, out.sizes(), {byte_strides(out), byte_strides(index)},
                         {bytes_of(out), bytes_of(index)}, [=] __device__(char* const(&p)[2]) {
      const int64_t i = checked_index(*reinterpret_cast<const int64_t*>(p[1]), numel, true, err);
      if (i >= 0) *reinterpret_cast<T*>(p[0]) = src[i];
    });
  });
}

EMBER_REGISTER_KERNEL(index, CUDA, index_kernel);
EMBER_REGISTER_KERNEL(index_put_, CUDA, index_put_kernel);
EMBER_REGISTER_KERNEL(take, CUDA, take_kernel);

}  // namespace
}  // namespace ember::cuda
