// CUDA kernels of the plain reductions: sum, mean, prod, amax/amin, aminmax,
// max/min over a dim (values and first indices), argmax/argmin, any/all,
// count_nonzero. Output dtypes, shapes and preset outputs as cpu/reduce.cpp; the
// op functions (lib/ops/reduce.cpp) already rejected empty max/argmax ranges.
#include "cpu/reduce_outputs.h"
#include "cuda/reduce/reduce_ops.cuh"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"
#include "ops/reduce_args.h"

namespace ember::cuda::reduce {
namespace {

using cpu::finish_output;
using cpu::output_for;
using ember::reduce::reduced_numel;
using ember::reduce::reduced_shape;

// sum, mean and prod read the input as the output dtype (PyTorch casts first);
// integers and bool read directly into an int64 result.
Tensor input_as(const Tensor& self, DType out_dtype) {
  bool direct = self.dtype() == out_dtype || (out_dtype == kInt64 && is_integral(self.dtype(), true));
  return direct ? self : self.to(out_dtype);
}

template <bool Prod>
void sum_like_kernel(OpCall& c, bool divide, const char* name) {
  const Tensor& self = c.in(0);
  const DimVector& dims = c.attr(0).to_ints();
  const DType out_dtype = c.attr(2).to_dtype();
  Tensor out = output_for(c, 0, reduced_shape(self.sizes(), dims, c.attr(1).to_bool()), out_dtype);
  ReduceInput in = prepare_reduce(input_as(self, out_dtype), dims);
  const int64_t n = reduced_numel(self.sizes(), dims);
  if (in.x.dtype() != out_dtype) {  // integers and bool into int64
    EMBER_DISPATCH_INTEGRAL(in.x.dtype(), name, [&] {
      if constexpr (Prod) run_reduce(in.x, in.shape, ProdOps<scalar_t, int64_t, int64_t>{ptr<int64_t>(out)});
      else run_reduce(in.x, in.shape, SumOps<scalar_t, int64_t, int64_t>{ptr<int64_t>(out), 1, 0, 0});
    });
  } else {
    EMBER_DISPATCH_ALL(out_dtype, name, [&] {
      using T = scalar_t;
      using A = std::conditional_t<is_float_v<T>, opmath_t<T>, int64_t>;
      if constexpr (Prod) {
        run_reduce(in.x, in.shape, ProdOps<T, A>{ptr<T>(out)});
      } else {
        A scale = A(1);
        if constexpr (is_float_v<T>) {
          if (divide) scale = n == 0 ? std::numeric_limits<A>::quiet_NaN() : A(1) / static_cast<A>(n);
        }
        run_reduce(in.x, in.shape, SumOps<T, A, T>{ptr<T>(out), scale, A(0), A(0)});
      }
    });
  }
  finish_output(c, 0, out);
}

void sum_kernel(OpCall& c) { sum_like_kernel<false>(c, false, "sum"); }
void mean_kernel(OpCall& c) { sum_like_kernel<false>(c, true, "mean"); }
void prod_kernel(OpCall& c) { sum_like_kernel<true>(c, false, "prod"); }

template <bool Max>
void amax_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const DimVector& dims = c.attr(0).to_ints();
  Tensor out = output_for(c, 0, reduced_shape(self.sizes(), dims, c.attr(1).to_bool()), self.dtype());
  ReduceInput in = prepare_reduce(self, dims);
  EMBER_DISPATCH_ALL(self.dtype(), Max ? "amax" : "amin", [&] {
    run_reduce(in.x, in.shape, MinMaxOps<scalar_t, Max>{ptr<scalar_t>(out)});
  });
  finish_output(c, 0, out);
}

void aminmax_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const DimVector& dims = c.attr(0).to_ints();
  DimVector shape = reduced_shape(self.sizes(), dims, c.attr(1).to_bool());
  Tensor lo = output_for(c, 0, shape, self.dtype()), hi = output_for(c, 1, shape, self.dtype());
  ReduceInput in = prepare_reduce(self, dims);
  EMBER_DISPATCH_ALL(self.dtype(), "aminmax", [&] {
    run_reduce(in.x, in.shape, AminmaxOps<scalar_t>{ptr<scalar_t>(lo), ptr<scalar_t>(hi)});
  });
  finish_output(c, 0, lo);
  finish_output(c, 1, hi);
}

// Values and first-occurrence indices along dims (max_dim, min_dim: one dim), or
// the indices alone (argmax, argmin; every dim: the flat index, as R is the
// row-major position over the reduced dims).
template <bool Max>
void arg_reduce(OpCall& c, const DimVector& dims, const DimVector& shape, bool with_values, const char* name) {
  const Tensor& self = c.in(0);
  Tensor values = with_values ? output_for(c, 0, shape, self.dtype()) : Tensor();
  Tensor indices = output_for(c, with_values ? 1 : 0, shape, kInt64);
  ReduceInput in = prepare_reduce(self, dims);
  EMBER_DISPATCH_ALL(self.dtype(), name, [&] {
    scalar_t* pv = with_values ? ptr<scalar_t>(values) : nullptr;
    run_reduce(in.x, in.shape, ArgOps<scalar_t, Max>{pv, ptr<int64_t>(indices)});
  });
  if (with_values) finish_output(c, 0, values);
  finish_output(c, with_values ? 1 : 0, indices);
}

DimVector one_dim(const Tensor& self, int64_t dim) { return self.dim() > 0 ? DimVector{dim} : DimVector{}; }

template <bool Max>
void max_dim_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  DimVector dims = one_dim(self, c.attr(0).to_int());
  arg_reduce<Max>(c, dims, reduced_shape(self.sizes(), dims, c.attr(1).to_bool()), true, Max ? "max" : "min");
}

template <bool Max>
void argmax_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const bool keepdim = c.attr(1).to_bool();
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
  const DType out_dtype = self.dtype() == kUInt8 ? kUInt8 : kBool;
  Tensor out = output_for(c, 0, reduced_shape(self.sizes(), dims, c.attr(1).to_bool()), out_dtype);
  ReduceInput in = prepare_reduce(self, dims);
  EMBER_DISPATCH_ALL(self.dtype(), Any ? "any" : "all", [&] {
    if constexpr (std::is_same_v<scalar_t, uint8_t>)
      run_reduce(in.x, in.shape, AnyAllOps<scalar_t, Any, uint8_t>{ptr<uint8_t>(out)});
    else
      run_reduce(in.x, in.shape, AnyAllOps<scalar_t, Any, bool>{ptr<bool>(out)});
  });
  finish_output(c, 0, out);
}

void count_nonzero_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const DimVector& dims = c.attr(0).to_ints();
  Tensor out = output_for(c, 0, reduced_shape(self.sizes(), dims, false), kInt64);
  ReduceInput in = prepare_reduce(self, dims);
  EMBER_DISPATCH_ALL(self.dtype(), "count_nonzero", [&] {
    run_reduce(in.x, in.shape,
               SumOps<scalar_t, int64_t, int64_t, SumMap::Nonzero>{ptr<int64_t>(out), 1, 0, 0});
  });
  finish_output(c, 0, out);
}

EMBER_REGISTER_KERNEL(sum, CUDA, sum_kernel);
EMBER_REGISTER_KERNEL(mean, CUDA, mean_kernel);
EMBER_REGISTER_KERNEL(prod, CUDA, prod_kernel);
EMBER_REGISTER_KERNEL(amax, CUDA, amax_kernel<true>);
EMBER_REGISTER_KERNEL(amin, CUDA, amax_kernel<false>);
EMBER_REGISTER_KERNEL(aminmax, CUDA, aminmax_kernel);
EMBER_REGISTER_KERNEL(max_dim, CUDA, max_dim_kernel<true>);
EMBER_REGISTER_KERNEL(min_dim, CUDA, max_dim_kernel<false>);
EMBER_REGISTER_KERNEL(argmax, CUDA, argmax_kernel<true>);
EMBER_REGISTER_KERNEL(argmin, CUDA, argmax_kernel<false>);
EMBER_REGISTER_KERNEL(any, CUDA, any_all_kernel<true>);
EMBER_REGISTER_KERNEL(all, CUDA, any_all_kernel<false>);
EMBER_REGISTER_KERNEL(count_nonzero, CUDA, count_nonzero_kernel);

}  // namespace
}  // namespace ember::cuda::reduce
