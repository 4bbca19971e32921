// CPU kernels of the plain reductions: sum, mean, prod, amax/amin, max/min over
// a dim (values and indices), argmax/argmin, any/all, count_nonzero. Each picks
// its Ops (reduce_ops.h) by dtype and runs reduce_strided (reduce_loops.h).
#include "cpu/reduce_loops.h"
#include "cpu/reduce_ops.h"
#include "cpu/reduce_outputs.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"
#include "ops/reduce_args.h"

namespace ember::cpu {
namespace {

using reduce::reduced_shape;

// Accumulator of sum and prod: int64 for integers, float for float16/bfloat16.
template <typename T>
using sum_acc_t = std::conditional_t<is_float_v<T>, opmath_t<T>, int64_t>;

// Runs ops over x and stores project(acc) into out (contiguous, dtype out_t).
template <typename out_t, typename Ops, typename Project>
void reduce_into(const Tensor& x, const DimVector& dims, const Tensor& out, const Ops& ops,
                 const Project& project) {
  out_t* po = static_cast<out_t*>(out.data_ptr());
  reduce_strided(x, dims, ops, [&](int64_t o, const typename Ops::acc_t& a) { po[o] = project(a); });
}

// sum, mean and prod read the input as the output dtype (PyTorch casts first).
// Integers and bool read directly into an int64 result; other pairs are cast.
Tensor input_as(const Tensor& self, DType out_dtype) {
  bool direct = self.dtype() == out_dtype || (out_dtype == kInt64 && is_integral(self.dtype(), true));
  return direct ? self : self.to(out_dtype);
}

template <template <typename, typename> class Ops>
void sum_like_kernel(OpCall& c, bool divide, const char* name) {
  const Tensor& self = c.in(0);
  const DimVector& dims = c.attr(0).to_ints();
  DType out_dtype = c.attr(2).to_dtype();
  Tensor out = output_for(c, 0, reduced_shape(self.sizes(), dims, c.attr(1).to_bool()), out_dtype);
  Tensor x = input_as(self, out_dtype);
  const int64_t n = reduce::reduced_numel(self.sizes(), dims);
  if (x.dtype() != out_dtype) {  // integers into int64
    EMBER_DISPATCH_INTEGRAL(x.dtype(), name, [&] {
      reduce_into<int64_t>(x, dims, out, Ops<scalar_t, int64_t>{}, [](int64_t a) { return a; });
    });
  } else {
    EMBER_DISPATCH_ALL(out_dtype, name, [&] {
      using acc_t = sum_acc_t<scalar_t>;
      if constexpr (is_float_v<scalar_t>) {
        acc_t scale = divide ? acc_t(1) / static_cast<acc_t>(n) : acc_t(1);
        if (divide && n == 0) scale = std::numeric_limits<acc_t>::quiet_NaN();
        reduce_into<scalar_t>(x, dims, out, Ops<scalar_t, acc_t>{},
                              [scale](acc_t a) { return convert<scalar_t>(a * scale); });
      } else {
        reduce_into<scalar_t>(x, dims, out, Ops<scalar_t, acc_t>{},
                              [](acc_t a) { return convert<scalar_t>(a); });
      }
    });
  }
  finish_output(c, 0, out);
}

template <typename T, typename A> using PlainSum = SumOps<T, A>;

void sum_kernel(OpCall& c) { sum_like_kernel<PlainSum>(c, false, "sum"); }
void mean_kernel(OpCall& c) { sum_like_kernel<PlainSum>(c, true, "mean"); }
void prod_kernel(OpCall& c) { sum_like_kernel<ProdOps>(c, false, "prod"); }

template <bool Max>
void amax_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const DimVector& dims = c.attr(0).to_ints();
  Tensor out = output_for(c, 0, reduced_shape(self.sizes(), dims, c.attr(1).to_bool()), self.dtype());
  EMBER_DISPATCH_ALL(self.dtype(), Max ? "amax" : "amin", [&] {
    reduce_into<scalar_t>(self, dims, out, MinMaxOps<scalar_t, Max>{},
                          [](opmath_t<scalar_t> a) { return convert<scalar_t>(a); });
  });
  finish_output(c, 0, out);
}

void aminmax_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const DimVector& dims = c.attr(0).to_ints();
  DimVector shape = reduced_shape(self.sizes(), dims, c.attr(1).to_bool());
  Tensor lo = output_for(c, 0, shape, self.dtype()), hi = output_for(c, 1, shape, self.dtype());
  EMBER_DISPATCH_ALL(self.dtype(), "aminmax", [&] {
    using Ops = AminmaxOps<scalar_t>;
    scalar_t* pl = static_cast<scalar_t*>(lo.data_ptr());
    scalar_t* ph = static_cast<scalar_t*>(hi.data_ptr());
    reduce_strided(self, dims, Ops{}, [&](int64_t o, const typename Ops::acc_t& a) {
      pl[o] = convert<scalar_t>(a.lo);
      ph[o] = convert<scalar_t>(a.hi);
    });
  });
  finish_output(c, 0, lo);
  finish_output(c, 1, hi);
}

// Values and first-occurrence indices along one dim (max_dim, min_dim), or the
// indices alone (argmax, argmin). With every dim reduced the position in the
// range is the flat index, since reduce_strided keeps row-major order.
template <bool Max>
void arg_reduce(OpCall& c, const DimVector& dims, const DimVector& shape, bool with_values,
                const char* name) {
  const Tensor& self = c.in(0);
  Tensor values = with_values ? output_for(c, 0, shape, self.dtype()) : Tensor();
  Tensor indices = output_for(c, with_values ? 1 : 0, shape, kInt64);
  int64_t* pi = indices.data_ptr<int64_t>();
  EMBER_DISPATCH_ALL(self.dtype(), name, [&] {
    using Ops = ArgMinMaxOps<scalar_t, Max>;
    scalar_t* pv = with_values ? static_cast<scalar_t*>(values.data_ptr()) : nullptr;
    reduce_strided(self, dims, Ops{}, [&](int64_t o, const typename Ops::acc_t& a) {
      if (pv) pv[o] = convert<scalar_t>(a.value);
      pi[o] = a.index < 0 ? 0 : a.index;
    });
  });
  if (with_values) finish_output(c, 0, values);
  finish_output(c, with_values ? 1 : 0, indices);
}

// 0-dim tensors have no dim to reduce: their one element is its own result.
DimVector one_dim(const Tensor& self, int64_t dim) {
  return self.dim() > 0 ? DimVector{dim} : DimVector{};
}

template <bool Max>
void max_dim_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  DimVector dims = one_dim(self, c.attr(0).to_int());
  arg_reduce<Max>(c, dims, reduced_shape(self.sizes(), dims, c.attr(1).to_bool()), true,
                  Max ? "max" : "min");
}

template <bool Max>
void argmax_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  bool keepdim = c.attr(1).to_bool();
  const char* name = Max ? "argmax" : "argmin";
  if (!c.attr(0).is_none()) {
    DimVector dims = one_dim(self, c.attr(0).to_int());
    arg_reduce<Max>(c, dims, reduced_shape(self.sizes(), dims, keepdim), false, name);
    return;
  }
  DimVector all;
  for (int64_t d = 0; d < self.dim(); ++d) all.push_back(d);
  arg_reduce<Max>(c, all, keepdim ? DimVector(self.dim(), 1) : DimVector{}, false, name);
}

template <bool Any>
void any_all_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const DimVector& dims = c.attr(0).to_ints();
  DType out_dtype = self.dtype() == kUInt8 ? kUInt8 : kBool;
  Tensor out = output_for(c, 0, reduced_shape(self.sizes(), dims, c.attr(1).to_bool()), out_dtype);
  EMBER_DISPATCH_ALL(self.dtype(), Any ? "any" : "all", [&] {
    if (out_dtype == kUInt8)
      reduce_into<uint8_t>(self, dims, out, AnyAllOps<scalar_t, Any>{}, [](bool a) { return uint8_t(a); });
    else
      reduce_into<bool>(self, dims, out, AnyAllOps<scalar_t, Any>{}, [](bool a) { return a; });
  });
  finish_output(c, 0, out);
}

void count_nonzero_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const DimVector& dims = c.attr(0).to_ints();
  Tensor out = output_for(c, 0, reduced_shape(self.sizes(), dims, false), kInt64);
  EMBER_DISPATCH_ALL(self.dtype(), "count_nonzero", [&] {
    reduce_into<int64_t>(self, dims, out, SumOps<scalar_t, int64_t, NonzeroMap<int64_t>>{},
                         [](int64_t a) { return a; });
  });
  finish_output(c, 0, out);
}

EMBER_REGISTER_KERNEL(sum, CPU, sum_kernel);
EMBER_REGISTER_KERNEL(mean, CPU, mean_kernel);
EMBER_REGISTER_KERNEL(prod, CPU, prod_kernel);
EMBER_REGISTER_KERNEL(amax, CPU, amax_kernel<true>);
EMBER_REGISTER_KERNEL(amin, CPU, amax_kernel<false>);
EMBER_REGISTER_KERNEL(aminmax, CPU, aminmax_kernel);
EMBER_REGISTER_KERNEL(max_dim, CPU, max_dim_kernel<true>);
EMBER_REGISTER_KERNEL(min_dim, CPU, max_dim_kernel<false>);
EMBER_REGISTER_KERNEL(argmax, CPU, argmax_kernel<true>);
EMBER_REGISTER_KERNEL(argmin, CPU, argmax_kernel<false>);
EMBER_REGISTER_KERNEL(any, CPU, any_all_kernel<true>);
EMBER_REGISTER_KERNEL(all, CPU, any_all_kernel<false>);
EMBER_REGISTER_KERNEL(count_nonzero, CPU, count_nonzero_kernel);

}  // namespace
}  // namespace ember::cpu
