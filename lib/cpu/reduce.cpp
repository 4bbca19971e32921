// CPU kernels of the plain reductions: sum, mean, prod, amax/amin, max/min over
// a dim (values and indices), argmax/argmin, any/all, count_nonzero. Each picks
// its Ops (reduce_ops.h) by dtype and runs reduce_strided (reduce_loops.h).
#include "cpu/reduce_loops.h"
#include "cpu/reduce_ops.h"
#include "kernels/reduce_meta.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"

namespace ember::cpu {
namespace {

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

// Outputs, dtypes and the cast input come from reduce_meta (kernels/reduce_meta.h),
// shared with the CUDA kernels; what is left here is the loop.
template <template <typename, typename> class Ops>
void sum_like_kernel(OpCall& c, bool divide, const char* name) {
  const ReduceMeta m = reduce_meta(c);
  const Tensor& out = m.outputs[0];
  const DType out_dtype = out.dtype();
  if (m.x.dtype() != out_dtype) {  // integers into int64
    EMBER_DISPATCH_INTEGRAL(m.x.dtype(), name, [&] {
      reduce_into<int64_t>(m.x, m.dims, out, Ops<scalar_t, int64_t>{}, [](int64_t a) { return a; });
    });
  } else {
    EMBER_DISPATCH_ALL(out_dtype, name, [&] {
      using acc_t = sum_acc_t<scalar_t>;
      if constexpr (is_float_v<scalar_t>) {
        acc_t scale = divide ? acc_t(1) / static_cast<acc_t>(m.n) : acc_t(1);
        if (divide && m.n == 0) scale = std::numeric_limits<acc_t>::quiet_NaN();
        reduce_into<scalar_t>(m.x, m.dims, out, Ops<scalar_t, acc_t>{},
                              [scale](acc_t a) { return convert<scalar_t>(a * scale); });
      } else {
        reduce_into<scalar_t>(m.x, m.dims, out, Ops<scalar_t, acc_t>{},
                              [](acc_t a) { return convert<scalar_t>(a); });
      }
    });
  }
  m.finish(c);
}

template <typename T, typename A> using PlainSum = SumOps<T, A>;

void sum_kernel(OpCall& c) { sum_like_kernel<PlainSum>(c, false, "sum"); }
void mean_kernel(OpCall& c) { sum_like_kernel<PlainSum>(c, true, "mean"); }
void prod_kernel(OpCall& c) { sum_like_kernel<ProdOps>(c, false, "prod"); }

template <bool Max>
void amax_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  EMBER_DISPATCH_ALL(m.x.dtype(), Max ? "amax" : "amin", [&] {
    reduce_into<scalar_t>(m.x, m.dims, m.outputs[0], MinMaxOps<scalar_t, Max>{},
                          [](opmath_t<scalar_t> a) { return convert<scalar_t>(a); });
  });
  m.finish(c);
}

void aminmax_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  EMBER_DISPATCH_ALL(m.x.dtype(), "aminmax", [&] {
    using Ops = AminmaxOps<scalar_t>;
    scalar_t* pl = static_cast<scalar_t*>(m.outputs[0].data_ptr());
    scalar_t* ph = static_cast<scalar_t*>(m.outputs[1].data_ptr());
    reduce_strided(m.x, m.dims, Ops{}, [&](int64_t o, const typename Ops::acc_t& a) {
      pl[o] = convert<scalar_t>(a.lo);
      ph[o] = convert<scalar_t>(a.hi);
    });
  });
  m.finish(c);
}

// Values and first-occurrence indices along one dim (max_dim, min_dim), or the
// indices alone (argmax, argmin: the last output). With every dim reduced the
// position in the range is the flat index, since reduce_strided keeps row-major order.
template <bool Max>
void arg_reduce_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  const bool with_values = m.outputs.size() == 2;
  int64_t* pi = m.outputs.back().data_ptr<int64_t>();
  EMBER_DISPATCH_ALL(m.x.dtype(), c.name(), [&] {
    using Ops = ArgMinMaxOps<scalar_t, Max>;
    scalar_t* pv = with_values ? static_cast<scalar_t*>(m.outputs[0].data_ptr()) : nullptr;
    reduce_strided(m.x, m.dims, Ops{}, [&](int64_t o, const typename Ops::acc_t& a) {
      if (pv) pv[o] = convert<scalar_t>(a.value);
      pi[o] = a.index < 0 ? 0 : a.index;
    });
  });
  m.finish(c);
}

template <bool Any>
void any_all_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  const Tensor& out = m.outputs[0];
  EMBER_DISPATCH_ALL(m.x.dtype(), Any ? "any" : "all", [&] {
    if (out.dtype() == kUInt8)
      reduce_into<uint8_t>(m.x, m.dims, out, AnyAllOps<scalar_t, Any>{}, [](bool a) { return uint8_t(a); });
    else
      reduce_into<bool>(m.x, m.dims, out, AnyAllOps<scalar_t, Any>{}, [](bool a) { return a; });
  });
  m.finish(c);
}

void count_nonzero_kernel(OpCall& c) {
  const ReduceMeta m = reduce_meta(c);
  EMBER_DISPATCH_ALL(m.x.dtype(), "count_nonzero", [&] {
    reduce_into<int64_t>(m.x, m.dims, m.outputs[0], SumOps<scalar_t, int64_t, NonzeroMap<int64_t>>{},
                         [](int64_t a) { return a; });
  });
  m.finish(c);
}

EMBER_REGISTER_KERNEL(sum, CPU, sum_kernel);
EMBER_REGISTER_KERNEL(mean, CPU, mean_kernel);
EMBER_REGISTER_KERNEL(prod, CPU, prod_kernel);
EMBER_REGISTER_KERNEL(amax, CPU, amax_kernel<true>);
EMBER_REGISTER_KERNEL(amin, CPU, amax_kernel<false>);
EMBER_REGISTER_KERNEL(aminmax, CPU, aminmax_kernel);
EMBER_REGISTER_KERNEL(max_dim, CPU, arg_reduce_kernel<true>);
EMBER_REGISTER_KERNEL(min_dim, CPU, arg_reduce_kernel<false>);
EMBER_REGISTER_KERNEL(argmax, CPU, arg_reduce_kernel<true>);
EMBER_REGISTER_KERNEL(argmin, CPU, arg_reduce_kernel<false>);
EMBER_REGISTER_KERNEL(any, CPU, any_all_kernel<true>);
EMBER_REGISTER_KERNEL(all, CPU, any_all_kernel<false>);
EMBER_REGISTER_KERNEL(count_nonzero, CPU, count_nonzero_kernel);

}  // namespace
}  // namespace ember::cpu
