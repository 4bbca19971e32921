// CPU kernels of the statistical reductions: var, std, var_mean, std_mean
// (Welford), norm (every p) and logsumexp.
#include <cmath>

#include "cpu/reduce_loops.h"
#include "cpu/reduce_ops.h"
#include "cpu/reduce_outputs.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"
#include "ops/reduce_args.h"

namespace ember::cpu {
namespace {

using reduce::reduced_shape;

// var / std (take_sqrt), optionally with the mean as a second output.
void moments_kernel(OpCall& c, bool take_sqrt, bool with_mean, const char* name) {
  const Tensor& self = c.in(0);
  const DimVector& dims = c.attr(0).to_ints();
  const double correction = c.attr(1).to_double();
  DimVector shape = reduced_shape(self.sizes(), dims, c.attr(2).to_bool());
  Tensor var = output_for(c, 0, shape, self.dtype());
  Tensor mean = with_mean ? output_for(c, 1, shape, self.dtype()) : Tensor();
  EMBER_DISPATCH_FLOATING(self.dtype(), name, [&] {
    scalar_t* pv = static_cast<scalar_t*>(var.data_ptr());
    scalar_t* pm = with_mean ? static_cast<scalar_t*>(mean.data_ptr()) : nullptr;
    reduce_strided(self, dims, WelfordOps<scalar_t>{}, [&](int64_t o, const WelfordAcc& a) {
      // PyTorch divides by max(0, n - correction): inf or nan when that is 0.
      double v = a.m2 / std::max(0.0, a.n - correction);
      pv[o] = convert<scalar_t>(take_sqrt ? std::sqrt(v) : v);
      if (pm) pm[o] = convert<scalar_t>(a.n == 0 ? std::nan("") : a.mean);
    });
  });
  finish_output(c, 0, var);
  if (with_mean) finish_output(c, 1, mean);
}

void var_kernel(OpCall& c) { moments_kernel(c, false, false, "var"); }
void std_kernel(OpCall& c) { moments_kernel(c, true, false, "std"); }
void var_mean_kernel(OpCall& c) { moments_kernel(c, false, true, "var_mean"); }
void std_mean_kernel(OpCall& c) { moments_kernel(c, true, true, "std_mean"); }

template <typename T, typename Ops, typename Project>
void norm_into(const Tensor& x, const DimVector& dims, const Tensor& out, const Ops& ops,
               const Project& project) {
  T* po = static_cast<T*>(out.data_ptr());
  reduce_strided(x, dims, ops, [&](int64_t o, const typename Ops::acc_t& a) {
    po[o] = convert<T>(project(a));
  });
}

void norm_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const double p = c.attr(0).to_double();
  const DimVector& dims = c.attr(1).to_ints();
  DType out_dtype = c.attr(3).to_dtype();
  Tensor out = output_for(c, 0, reduced_shape(self.sizes(), dims, c.attr(2).to_bool()), out_dtype);
  Tensor x = self.dtype() == out_dtype ? self : self.to(out_dtype);
  EMBER_DISPATCH_FLOATING(out_dtype, "norm", [&] {
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
  finish_output(c, 0, out);
}

void logsumexp_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const DimVector& dims = c.attr(0).to_ints();
  Tensor out = output_for(c, 0, reduced_shape(self.sizes(), dims, c.attr(1).to_bool()), self.dtype());
  EMBER_DISPATCH_FLOATING(self.dtype(), "logsumexp", [&] {
    using Ops = LogSumExpOps<scalar_t>;
    scalar_t* po = static_cast<scalar_t*>(out.data_ptr());
    reduce_strided(self, dims, Ops{}, [&](int64_t o, const typename Ops::acc_t& a) {
      po[o] = convert<scalar_t>(Ops::finish(a));
    });
  });
  finish_output(c, 0, out);
}

EMBER_REGISTER_KERNEL(var, CPU, var_kernel);
EMBER_REGISTER_KERNEL(std, CPU, std_kernel);
EMBER_REGISTER_KERNEL(var_mean, CPU, var_mean_kernel);
EMBER_REGISTER_KERNEL(std_mean, CPU, std_mean_kernel);
EMBER_REGISTER_KERNEL(norm, CPU, norm_kernel);
EMBER_REGISTER_KERNEL(logsumexp, CPU, logsumexp_kernel);

}  // namespace
}  // namespace ember::cpu
