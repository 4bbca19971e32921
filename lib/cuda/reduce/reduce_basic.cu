// CUDA kernels of the plain reductions: sum, mean, prod, amax/amin, aminmax,
// max/min over a dim (values and first indices), argmax/argmin, any/all,
// count_nonzero. Output dtypes, shapes and preset outputs from reduce_meta; the
// op functions (lib/ops/reduce.cpp) already rejected empty max/argmax ranges.
#include "kernels/reduce_meta.h"
#include "cuda/reduce/reduce_ops.cuh"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"

namespace ember::cuda::reduce {
namespace {

// Outputs, dtypes and the cast input come from reduce_meta (kernels/reduce_meta.h),
// shared with the CPU kernels; prepare_reduce lays the input out for the launch.
template <bool Prod>
void sum_like_kernel(OpCall& c, bool divide, const char* name) {
  const ReduceMeta m = reduce_meta(c);
  const Tensor& out = m.outputs[0];
  const DType out_dtype = out.dtype();
  ReduceInput in = prepare_reduce(m.x, m.dims);
  const int64_t n = m.n;
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
  m.finish(c);
}

void sum_kernel(OpCall& c) { sum_like_kernel<false>(c, false, "sum"); }
void mean_kernel(OpCall& c) { sum_like_kernel<false>(c, true, "mean"); }
void prod_kernel(OpCall& c) { sum_like_kernel<true>(c, false, "prod"); }

template <bool Max>
void amax_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  ReduceInput in = prepare_reduce(m.x, m.dims);
  EMBER_DISPATCH_ALL(m.x.dtype(), Max ? "amax" : "amin", [&] {
    run_reduce(in.x, in.shape, MinMaxOps<scalar_t, Max>{ptr<scalar_t>(m.outputs[0])});
  });
  m.finish(c);
}

void aminmax_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  ReduceInput in = prepare_reduce(m.x, m.dims);
  EMBER_DISPATCH_ALL(m.x.dtype(), "aminmax", [&] {
    run_reduce(in.x, in.shape, AminmaxOps<scalar_t>{ptr<scalar_t>(m.outputs[0]), ptr<scalar_t>(m.outputs[1])});
  });
  m.finish(c);
}

// Values and first-occurrence indices along one dim (max_dim, min_dim), or the
// indices alone (argmax, argmin: the last output; every dim: the flat index, as R
// is the row-major position over the reduced dims).
template <bool Max>
void arg_reduce_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  const bool with_values = m.outputs.size() == 2;
  ReduceInput in = prepare_reduce(m.x, m.dims);
  EMBER_DISPATCH_ALL(m.x.dtype(), c.name(), [&] {
    scalar_t* pv = with_values ? ptr<scalar_t>(m.outputs[0]) : nullptr;
    run_reduce(in.x, in.shape, ArgOps<scalar_t, Max>{pv, ptr<int64_t>(m.outputs.back())});
  });
  m.finish(c);
}

template <bool Any>
void any_all_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  const Tensor& out = m.outputs[0];
  ReduceInput in = prepare_reduce(m.x, m.dims);
  EMBER_DISPATCH_ALL(m.x.dtype(), Any ? "any" : "all", [&] {
    if constexpr (std::is_same_v<scalar_t, uint8_t>)
      run_reduce(in.x, in.shape, AnyAllOps<scalar_t, Any, uint8_t>{ptr<uint8_t>(out)});
    else
      run_reduce(in.x, in.shape, AnyAllOps<scalar_t, Any, bool>{ptr<bool>(out)});
  });
  m.finish(c);
}

void count_nonzero_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  ReduceInput in = prepare_reduce(m.x, m.dims);
  EMBER_DISPATCH_ALL(m.x.dtype(), "count_nonzero", [&] {
    run_reduce(in.x, in.shape,
               SumOps<scalar_t, int64_t, int64_t, SumMap::Nonzero>{ptr<int64_t>(m.outputs[0]), 1, 0, 0});
  });
  m.finish(c);
}

EMBER_REGISTER_KERNEL(sum, CUDA, sum_kernel);
EMBER_REGISTER_KERNEL(mean, CUDA, mean_kernel);
EMBER_REGISTER_KERNEL(prod, CUDA, prod_kernel);
EMBER_REGISTER_KERNEL(amax, CUDA, amax_kernel<true>);
EMBER_REGISTER_KERNEL(amin, CUDA, amax_kernel<false>);
EMBER_REGISTER_KERNEL(aminmax, CUDA, aminmax_kernel);
EMBER_REGISTER_KERNEL(max_dim, CUDA, arg_reduce_kernel<true>);
EMBER_REGISTER_KERNEL(min_dim, CUDA, arg_reduce_kernel<false>);
EMBER_REGISTER_KERNEL(argmax, CUDA, arg_reduce_kernel<true>);
EMBER_REGISTER_KERNEL(argmin, CUDA, arg_reduce_kernel<false>);
EMBER_REGISTER_KERNEL(any, CUDA, any_all_kernel<true>);
EMBER_REGISTER_KERNEL(all, CUDA, any_all_kernel<false>);
EMBER_REGISTER_KERNEL(count_nonzero, CUDA, count_nonzero_kernel);

}  // namespace
}  // namespace ember::cuda::reduce
