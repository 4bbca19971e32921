// The writes along a dim through an index on CUDA: scatter_ (tensor or value,
// reduce "", "add" or "multiply"), scatter_add_, scatter_reduce_, index_copy_, index_fill_ and
// index_add_ (lib/cpu/index_dim.cpp has the same rules). One thread per position
// of the index (spread over source's or self's shape for the index_* ops).
//
// Repeated indices: a plain write lets one of the writers win (unspecified which,
// as in PyTorch); the reductions update atomically (positions.cuh: atomic_add,
// atomic_update), so float sums may differ in their last bits between runs, as
// PyTorch's CUDA scatter_add_ / index_add_ do. Indices are wrapped for index_fill_
// only (as on the CPU); one out of range is reported (IndexError at the next
// synchronization) and skipped.
#include <cstring>
#include <string>
#include <type_traits>

#include "kernels/dtype_dispatch.h"
#include "kernels/restride.h"
#include "kernels/scatter_reduce.h"
#include "cuda/index/positions.cuh"
#include "dispatch/args/shape_index.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::cuda {
namespace {

using Reduce = ScatterReduce;
Reduce parse_reduce(const std::string& s) { return parse_scatter_reduce(s); }

// max/min that propagate NaN from either side (torch's amax/amin do).
struct MaxOp {
  template <typename A>
  __device__ A operator()(A a, A b) const {
    if constexpr (std::is_floating_point_v<A>) if (b != b) return b;
    return b > a ? b : a;
  }
};
struct MinOp {
  template <typename A>
  __device__ A operator()(A a, A b) const {
    if constexpr (std::is_floating_point_v<A>) if (b != b) return b;
    return b < a ? b : a;
  }
};

// The operands of a scatter over the positions of `index`: self with stride 0
// along dim (the index supplies that coordinate), the index, and src (or, for a
// value, the index again with zero strides: never read).
struct ScatterOperands {
  Tensor self, index, src;  // src undefined: value
  int64_t dim = 0;
  bool wrap = false;
  OpId op;
};

struct ScatterLaunch {
  std::array<ByteStrides, 3> strides;
  std::array<char*, 3> bases;
  int64_t size, step;  // self's size along dim and its byte stride there
  DeviceErrorReporter err;
};

ScatterLaunch prepare(const ScatterOperands& a) {
  ScatterLaunch l;
  const bool has_src = a.src.defined();
  l.strides = {byte_strides(a.self, a.dim), byte_strides(a.index),
               has_src ? byte_strides(a.src) : ByteStrides(static_cast<size_t>(a.index.dim()), 0)};
  l.bases = {bytes_of(a.self), bytes_of(a.index), has_src ? bytes_of(a.src) : bytes_of(a.index)};
  l.size = a.self.size(a.dim);
  l.step = a.self.stride(a.dim) * a.self.element_size();
  l.err = device_error_reporter(a.self.device().index, a.op);
  return l;
}

// self[.., index, ..] = src (or the value's bits): moves elements of self's size.
void scatter_plain(const ScatterOperands& a, uint64_t value_bits) {
  LaunchContext ctx(a.self);
  const ScatterLaunch l = prepare(a);
  const bool has_src = a.src.defined(), wrap = a.wrap;
  const int64_t size = l.size, step = l.step;
  const DeviceErrorReporter err = l.err;
  EMBER_DISPATCH_ELEMENT_SIZE(a.self.element_size(), [&] {
    using T = elem_t;
    T value;
    std::memcpy(&value, &value_bits, sizeof(T));  // little-endian: the low bytes
    for_each_position<3>(ctx.stream, a.index.sizes(), l.strides, l.bases,
                         [=] __device__(char* const(&p)[3]) {
                           const int64_t i = checked_index(*reinterpret_cast<const int64_t*>(p[1]),
                                                           size, wrap, err);
                           if (i < 0) return;
                           *reinterpret_cast<T*>(p[0] + i * step) =
                               has_src ? *reinterpret_cast<const T*>(p[2]) : value;
                         });
  });
}

// self[.., index, ..] (op)= alpha * src (or value), atomically.
void scatter_reduce(const ScatterOperands& a, Reduce reduce, const Scalar& value, const Scalar& alpha) {
  LaunchContext ctx(a.self);
  const ScatterLaunch l = prepare(a);
  const bool has_src = a.src.defined(), wrap = a.wrap;
  const int64_t size = l.size, step = l.step;
  const DeviceErrorReporter err = l.err;
  EMBER_DISPATCH_ALL(a.self.dtype(), op_name(a.op), [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t v = has_src ? acc_t{} : static_cast<acc_t>(value.to<scalar_t>());
    const acc_t scale = alpha.to<acc_t>();
    for_each_position<3>(ctx.stream, a.index.sizes(), l.strides, l.bases,
                         [=] __device__(char* const(&p)[3]) {
                           const int64_t i = checked_index(*reinterpret_cast<const int64_t*>(p[1]),
                                                           size, wrap, err);
                           if (i < 0) return;
                           scalar_t* dst = reinterpret_cast<scalar_t*>(p[0] + i * step);
                           const acc_t x =
                               has_src ? wrap_mul(scale, static_cast<acc_t>(*reinterpret_cast<const scalar_t*>(p[2])))
                                       : v;
                           switch (reduce) {
                             case Reduce::Add: atomic_add(dst, x); break;
                             case Reduce::Multiply: atomic_update(dst, x, MulOp{}); break;
                             case Reduce::Max: atomic_update(dst, x, MaxOp{}); break;
                             default: atomic_update(dst, x, MinOp{}); break;
                           }
                         });
  });
}

void run_scatter(const ScatterOperands& a, Reduce reduce, const Scalar& value, const Scalar& alpha = Scalar(1)) {
  if (a.index.numel() == 0) return;
  if (reduce != Reduce::None) return scatter_reduce(a, reduce, value, alpha);
  uint64_t bits = 0;
  if (!a.src.defined()) {
    EMBER_DISPATCH_ALL(a.self.dtype(), op_name(a.op), [&] {
      scalar_t typed = value.to<scalar_t>();
      std::memcpy(&bits, &typed, sizeof(scalar_t));
    });
  }
  scatter_plain(a, bits);
}

// The 1-d index laid along dim of a tensor of like's sizes (stride 0 elsewhere).
Tensor spread_index(const Tensor& index, const Tensor& like, int64_t dim) {
  DimVector sizes = like.sizes(), strides(like.dim(), 0);
  sizes[dim] = index.numel();
  strides[dim] = index.dim() ? index.stride(0) : 0;
  return restride(index, sizes, strides, index.storage_offset());
}

void scatter_kernel(OpCall& c) {
  const ScatterArgs a = ScatterArgs::from(c);
  run_scatter({c.outputs[0], c.in(1), c.in(2), a.dim, false, opid::scatter_},
              parse_reduce(a.reduce), Scalar());
}

void scatter_value_kernel(OpCall& c) {
  const ScatterValueArgs a = ScatterValueArgs::from(c);
  run_scatter({c.outputs[0], c.in(1), Tensor(), a.dim, false, opid::scatter_value_},
              parse_reduce(a.reduce), a.value);
}

void scatter_add_kernel(OpCall& c) {
  const ScatterAddArgs a = ScatterAddArgs::from(c);
  run_scatter({c.outputs[0], c.in(1), c.in(2), a.dim, false, opid::scatter_add_},
              Reduce::Add, Scalar());
}

// scatter_reduce_ (sum, prod, amax, amin): with include_self false, the positions
// the index names first take the reduction's identity.
void scatter_reduce_kernel(OpCall& c) {
  const ScatterReduceArgs a = ScatterReduceArgs::from(c);
  const Reduce reduce = parse_reduce(a.reduce);
  const ScatterOperands operands{c.outputs[0], c.in(1), c.in(2), a.dim, false, opid::scatter_reduce_};
  if (!a.include_self) {
    ScatterOperands fill = operands;
    fill.src = Tensor();
    run_scatter(fill, Reduce::None, scatter_reduce_identity(reduce, c.outputs[0].dtype(), c.name()));
  }
  run_scatter(operands, reduce, Scalar());
}

void index_copy_kernel(OpCall& c) {
  const Tensor& source = c.in(2);
  const IndexCopyArgs a = IndexCopyArgs::from(c);
  run_scatter({c.outputs[0], spread_index(c.in(1), source, a.dim), source, a.dim, false, opid::index_copy_},
              Reduce::None, Scalar());
}

void index_fill_kernel(OpCall& c) {
  const Tensor& self = c.outputs[0];
  const IndexFillArgs a = IndexFillArgs::from(c);
  run_scatter({self, spread_index(c.in(1), self, a.dim), Tensor(), a.dim, /*wrap=*/true, opid::index_fill_},
              Reduce::None, a.value);
}

// self[.., index[j], ..] += alpha * source[.., j, ..].
void index_add_kernel(OpCall& c) {
  const Tensor& source = c.in(2);
  const IndexAddArgs a = IndexAddArgs::from(c);
  if (source.numel() == 0) return;
  run_scatter({c.outputs[0], spread_index(c.in(1), source, a.dim), source, a.dim, false, opid::index_add_},
              Reduce::Add, Scalar(), a.alpha);
}

EMBER_REGISTER_KERNEL(scatter_, CUDA, scatter_kernel);
EMBER_REGISTER_KERNEL(scatter_value_, CUDA, scatter_value_kernel);
EMBER_REGISTER_KERNEL(scatter_add_, CUDA, scatter_add_kernel);
EMBER_REGISTER_KERNEL(scatter_reduce_, CUDA, scatter_reduce_kernel);
EMBER_REGISTER_KERNEL(index_copy_, CUDA, index_copy_kernel);
EMBER_REGISTER_KERNEL(index_fill_, CUDA, index_fill_kernel);
EMBER_REGISTER_KERNEL(index_add_, CUDA, index_add_kernel);

}  // namespace
}  // namespace ember::cuda
