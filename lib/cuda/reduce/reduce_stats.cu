// CUDA kernels of the statistical reductions: var, std, var_mean, std_mean
// (Welford in double, as the CPU), norm (every p) and logsumexp. Output dtypes,
// shapes and preset outputs as cpu/reduce_stats.cpp.
#include <cmath>

#include "cpu/reduce_outputs.h"
#include "cuda/reduce/reduce_ops.cuh"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"
#include "ops/reduce_args.h"

namespace ember::cuda::reduce {
namespace {

using cpu::finish_output;
using cpu::output_for;
using ember::reduce::reduced_shape;

void moments_kernel(OpCall& c, bool take_sqrt, bool with_mean, const char* name) {
  const Tensor& self = c.in(0);
  const DimVector& dims = c.attr(0).to_ints();
  const double correction = c.attr(1).to_double();
  DimVector shape = reduced_shape(self.sizes(), dims, c.attr(2).to_bool());
  Tensor var = output_for(c, 0, shape, self.dtype());
  Tensor mean = with_mean ? output_for(c, 1, shape, self.dtype()) : Tensor();
  ReduceInput in = prepare_reduce(self, dims);
  EMBER_DISPATCH_FLOATING(self.dtype(), name, [&] {
    scalar_t* pm = with_mean ? ptr<scalar_t>(mean) : nullptr;
    run_reduce(in.x, in.shape, WelfordOps<scalar_t>{ptr<scalar_t>(var), pm, correction, take_sqrt});
  });
  finish_output(c, 0, var);
  if (with_mean) finish_output(c, 1, mean);
}

void var_kernel(OpCall& c) { moments_kernel(c, false, false, "var"); }
void std_kernel(OpCall& c) { moments_kernel(c, true, false, "std"); }
void var_mean_kernel(OpCall& c) { moments_kernel(c, false, true, "var_mean"); }
void std_mean_kernel(OpCall& c) { moments_kernel(c, true, true, "std_mean"); }

void norm_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const double p = c.attr(0).to_double();
  const DimVector& dims = c.attr(1).to_ints();
  const DType out_dtype = c.attr(3).to_dtype();
  Tensor out = output_for(c, 0, reduced_shape(self.sizes(), dims, c.attr(2).to_bool()), out_dtype);
  ReduceInput in = prepare_reduce(self.dtype() == out_dtype ? self : self.to(out_dtype), dims);
  EMBER_DISPATCH_FLOATING(out_dtype, "norm", [&] {
    using T = scalar_t;
    using A = opmath_t<T>;
    T* po = ptr<T>(out);
    if (p == 2) {
      run_reduce(in.x, in.shape, SumOps<T, A, T, SumMap::Square, SumPost::Sqrt>{po, A(1), A(0), A(0)});
    } else if (p == 1) {
      run_reduce(in.x, in.shape, SumOps<T, A, T, SumMap::Abs>{po, A(1), A(0), A(0)});
    } else if (p == 0) {
      run_reduce(in.x, in.shape, SumOps<T, A, T, SumMap::Nonzero>{po, A(1), A(0), A(0)});
    } else if (std::isinf(p)) {
      if (p > 0) run_reduce(in.x, in.shape, MinMaxOps<T, true, true>{po});
      else run_reduce(in.x, in.shape, MinMaxOps<T, false, true>{po});
    } else {
      const A pa = static_cast<A>(p);
      run_reduce(in.x, in.shape,
                 SumOps<T, A, T, SumMap::AbsPow, SumPost::Pow>{po, A(1), pa, A(1) / pa});
    }
  });
  finish_output(c, 0, out);
}

void logsumexp_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const DimVector& dims = c.attr(0).to_ints();
  Tensor out = output_for(c, 0, reduced_shape(self.sizes(), dims, c.attr(1).to_bool()), self.dtype());
  ReduceInput in = prepare_reduce(self, dims);
  EMBER_DISPATCH_FLOATING(self.dtype(), "logsumexp", [&] {
    run_reduce(in.x, in.shape, LogSumExpOps<scalar_t>{ptr<scalar_t>(out)});
  });
  finish_output(c, 0, out);
}

EMBER_REGISTER_KERNEL(var, CUDA, var_kernel);
EMBER_REGISTER_KERNEL(std, CUDA, std_kernel);
EMBER_REGISTER_KERNEL(var_mean, CUDA, var_mean_kernel);
EMBER_REGISTER_KERNEL(std_mean, CUDA, std_mean_kernel);
EMBER_REGISTER_KERNEL(norm, CUDA, norm_kernel);
EMBER_REGISTER_KERNEL(logsumexp, CUDA, logsumexp_kernel);

}  // namespace
}  // namespace ember::cuda::reduce
