// CPU kernels of the statistical reductions: var, std, var_mean, std_mean
// (Welford), norm (every p) and logsumexp.
#include <cmath>

#include "cpu/reduce_loops.h"
#include "cpu/reduce_ops.h"
#include "kernels/reduce_meta.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"
#include "dispatch/args/reduce.h"

namespace ember::cpu {
namespace {

// var / std (take_sqrt), optionally with the mean as a second output.
template <class Args>
void moments_kernel(OpCall& c, bool take_sqrt, const char* name) {
  const ReduceMeta m = reduce_meta(c);
  const double correction = Args::from(c).correction;
  const bool with_mean = m.outputs.size() == 2;
  EMBER_DISPATCH_FLOATING(m.x.dtype(), name, [&] {
    scalar_t* pv = static_cast<scalar_t*>(m.outputs[0].data_ptr());
    scalar_t* pm = with_mean ? static_cast<scalar_t*>(m.outputs[1].data_ptr()) : nullptr;
    reduce_strided(m.x, m.dims, WelfordOps<scalar_t>{}, [&](int64_t o, const WelfordAcc& a) {
      // PyTorch divides by max(0, n - correction): inf or nan when that is 0.
      double v = a.m2 / std::max(0.0, a.n - correction);
      pv[o] = convert<scalar_t>(take_sqrt ? std::sqrt(v) : v);
      if (pm) pm[o] = convert<scalar_t>(a.n == 0 ? std::nan("") : a.mean);
    });
  });
  m.finish(c);
}

void var_kernel(OpCall& c) { moments_kernel<VarArgs>(c, false, "var"); }
void std_kernel(OpCall& c) { moments_kernel<StdArgs>(c, true, "std"); }
void var_mean_kernel(OpCall& c) { moments_kernel<VarMeanArgs>(c, false, "var_mean"); }
void std_mean_kernel(OpCall& c) { moments_kernel<StdMeanArgs>(c, true, "std_mean"); }

template <typename T, typename Ops, typename Project>
void norm_into(const Tensor& x, const DimVector& dims, const Tensor& out, const Ops& ops,
               const Project& project) {
  T* po = static_cast<T*>(out.data_ptr());
  reduce_strided(x, dims, ops, [&](int64_t o, const typename Ops::acc_t& a) {
    po[o] = convert<T>(project(a));
  });
}

void norm_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  const double p = NormArgs::from(c).p;
  const Tensor &x = m.x, &out = m.outputs[0];
  const DimVector& dims = m.dims;
  EMBER_DISPATCH_FLOATING(x.dtype(), "norm", [&] {
    using A = opmath_t<scalar_t>;
    using T = scalar_t;
    if (p == 2) {
      norm_into<T>(x, dims, out, SumOps<T, A, SquareMap<A>>{}, [](A a) { return std::sqrt(a); });
    } else if (p == 1) {
      norm_into<T>(x, dims, out, SumOps<T, A, AbsMap<A>>{}, [](A a) { return a; });
    } else if (p == 0) {
      norm_into<T>(x, dims, out, SumOps<T, A, NonzeroMap<A>>{}, [](A a) { return a; });
    } else if (std::isinf(p)) {
      auto abs = [](A a) { return a; };
      if (p > 0) norm_into<T>(x, dims, out, MinMaxOps<T, true, AbsMap<A>>{}, abs);
      else norm_into<T>(x, dims, out, MinMaxOps<T, false, AbsMap<A>>{}, abs);
    } else {
      A inv = A(1) / static_cast<A>(p);
      norm_into<T>(x, dims, out, SumOps<T, A, AbsPowMap<A>>{{static_cast<A>(p)}},
                   [inv](A a) { return std::pow(a, inv); });
    }
  });
  m.finish(c);
}

void logsumexp_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  EMBER_DISPATCH_FLOATING(m.x.dtype(), "logsumexp", [&] {
    using Ops = LogSumExpOps<scalar_t>;
    scalar_t* po = static_cast<scalar_t*>(m.outputs[0].data_ptr());
    reduce_strided(m.x, m.dims, Ops{}, [&](int64_t o, const typename Ops::acc_t& a) {
      po[o] = convert<scalar_t>(Ops::finish(a));
    });
  });
  m.finish(c);
}

EMBER_REGISTER_KERNEL(var, CPU, var_kernel);
EMBER_REGISTER_KERNEL(std, CPU, std_kernel);
EMBER_REGISTER_KERNEL(var_mean, CPU, var_mean_kernel);
EMBER_REGISTER_KERNEL(std_mean, CPU, std_mean_kernel);
EMBER_REGISTER_KERNEL(norm, CPU, norm_kernel);
EMBER_REGISTER_KERNEL(logsumexp, CPU, logsumexp_kernel);

}  // namespace
}  // namespace ember::cpu
