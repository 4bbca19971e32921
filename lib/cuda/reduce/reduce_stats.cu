// CUDA kernels of the statistical reductions: var, std, var_mean, std_mean
// (Welford in double, as the CPU), norm (every p) and logsumexp. Output dtypes,
// shapes and preset outputs from reduce_meta.
#include <cmath>

#include "kernels/reduce_meta.h"
#include "cuda/reduce/reduce_ops.cuh"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"
#include "dispatch/args/reduce.h"

namespace ember::cuda::reduce {
namespace {

template <class Args>
void moments_kernel(OpCall& c, bool take_sqrt, const char* name) {
  const ReduceMeta m = reduce_meta(c);
  const double correction = Args::from(c).correction;
  const bool with_mean = m.outputs.size() == 2;
  ReduceInput in = prepare_reduce(m.x, m.dims);
  EMBER_DISPATCH_FLOATING(m.x.dtype(), name, [&] {
    scalar_t* pm = with_mean ? ptr<scalar_t>(m.outputs[1]) : nullptr;
    run_reduce(in.x, in.shape, WelfordOps<scalar_t>{ptr<scalar_t>(m.outputs[0]), pm, correction, take_sqrt});
  });
  m.finish(c);
}

void var_kernel(OpCall& c) { moments_kernel<VarArgs>(c, false, "var"); }
void std_kernel(OpCall& c) { moments_kernel<StdArgs>(c, true, "std"); }
void var_mean_kernel(OpCall& c) { moments_kernel<VarMeanArgs>(c, false, "var_mean"); }
void std_mean_kernel(OpCall& c) { moments_kernel<StdMeanArgs>(c, true, "std_mean"); }

void norm_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  const double p = NormArgs::from(c).p;
  const Tensor& out = m.outputs[0];
  ReduceInput in = prepare_reduce(m.x, m.dims);
  EMBER_DISPATCH_FLOATING(m.x.dtype(), "norm", [&] {
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
  m.finish(c);
}

void logsumexp_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  ReduceInput in = prepare_reduce(m.x, m.dims);
  EMBER_DISPATCH_FLOATING(m.x.dtype(), "logsumexp", [&] {
    run_reduce(in.x, in.shape, LogSumExpOps<scalar_t>{ptr<scalar_t>(m.outputs[0])});
  });
  m.finish(c);
}

EMBER_REGISTER_KERNEL(var, CUDA, var_kernel);
EMBER_REGISTER_KERNEL(std, CUDA, std_kernel);
EMBER_REGISTER_KERNEL(var_mean, CUDA, var_mean_kernel);
EMBER_REGISTER_KERNEL(std_mean, CUDA, std_mean_kernel);
EMBER_REGISTER_KERNEL(norm, CUDA, norm_kernel);
EMBER_REGISTER_KERNEL(logsumexp, CUDA, logsumexp_kernel);

}  // namespace
}  // namespace ember::cuda::reduce
