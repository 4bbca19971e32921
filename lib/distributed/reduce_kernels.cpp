#include "distributed/reduce_kernels.h"

#include <algorithm>

namespace ember::distributed::detail {

namespace {

template <typename T, typename F>
ReduceKernel elementwise(F f) {
  return [f](void* out, const void* a, const void* b, size_t n) {
    T* o = static_cast<T*>(out);
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    for (size_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
  };
}

// Integers and floats (half and bfloat16 compute in float and round back).
template <typename T>
ReduceKernel arithmetic_kernel(ReduceOp op) {
  using C = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: return elementwise<T>([](T a, T b) { return T(C(a) + C(b)); });
    case ReduceOp::PRODUCT: return elementwise<T>([](T a, T b) { return T(C(a) * C(b)); });
    case ReduceOp::MIN:  // NaN wins, as torch's min does
      return elementwise<T>([](T a, T b) {
        C x = C(a), y = C(b);
        if constexpr (std::is_floating_point_v<C>) { if (x != x) return a; if (y != y) return b; }
        return y < x ? b : a;
      });
    case ReduceOp::MAX:
      return elementwise<T>([](T a, T b) {
        C x = C(a), y = C(b);
        if constexpr (std::is_floating_point_v<C>) { if (x != x) return a; if (y != y) return b; }
        return y > x ? b : a;
      });
    case ReduceOp::BAND:
    case ReduceOp::BOR:
    case ReduceOp::BXOR:
      if constexpr (std::is_integral_v<T>) {
        if (op == ReduceOp::BAND) return elementwise<T>([](T a, T b) { return T(a & b); });
        if (op == ReduceOp::BOR) return elementwise<T>([](T a, T b) { return T(a | b); });
        return elementwise<T>([](T a, T b) { return T(a ^ b); });
      }
      break;
  }
  throw Error(std::string("reduce: ReduceOp.") + reduce_op_name(op) + " is not defined for dtype " +
              dtype_name(dtype_of<T>::value));
}

ReduceKernel bool_kernel(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::MAX:
    case ReduceOp::BOR: return elementwise<bool>([](bool a, bool b) { return a || b; });
    case ReduceOp::PRODUCT:
    case ReduceOp::MIN:
    case ReduceOp::BAND: return elementwise<bool>([](bool a, bool b) { return a && b; });
    case ReduceOp::BXOR: return elementwise<bool>([](bool a, bool b) { return a != b; });
    case ReduceOp::AVG: break;
  }
  throw Error("reduce: ReduceOp.AVG is not defined for dtype bool");
}

}  // namespace

ReduceKernel reduce_kernel(DType dtype, ReduceOp op) {
  switch (dtype) {
    case kBool: return bool_kernel(op);
    case kUInt8: return arithmetic_kernel<uint8_t>(op);
    case kInt8: return arithmetic_kernel<int8_t>(op);
    case kInt16: return arithmetic_kernel<int16_t>(op);
    case kInt32: return arithmetic_kernel<int32_t>(op);
    case kInt64: return arithmetic_kernel<int64_t>(op);
    case kFloat16: return arithmetic_kernel<Half>(op);
    case kBFloat16: return arithmetic_kernel<BFloat16>(op);
    case kFloat32: return arithmetic_kernel<float>(op);
    case kFloat64: return arithmetic_kernel<double>(op);
  }
  throw Error("reduce: unsupported dtype");
}

void reduce_in_rank_order(const ReduceKernel& kernel, void* out, const std::vector<void*>& inputs,
                          int self, size_t count) {
  size_t n = inputs.size();
  if (n < 2 || count == 0) return;
  // The running result lives in out once out's own input has been read (or from the
  // start when it is the first), else in inputs[0]'s scratch; the last step writes out.
  void* acc = self == 0 ? out : inputs[0];
  for (size_t i = 1; i < n; ++i) {
    void* dst = i + 1 == n ? out : acc;
    kernel(dst, acc, inputs[i], count);
    acc = dst;
  }
}

void divide_in_place(void* data, DType dtype, size_t count, int64_t divisor) {
  auto divide = [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    for (size_t i = 0; i < count; ++i) p[i] = T(float(p[i]) / float(divisor));
  };
  switch (dtype) {
    case kFloat16: divide(static_cast<Half*>(data)); return;
    case kBFloat16: divide(static_cast<BFloat16*>(data)); return;
    case kFloat32: {
      float* p = static_cast<float*>(data);
      for (size_t i = 0; i < count; ++i) p[i] /= static_cast<float>(divisor);
      return;
    }
    case kFloat64: {
      double* p = static_cast<double*>(data);
      for (size_t i = 0; i < count; ++i) p[i] /= static_cast<double>(divisor);
      return;
    }
    default: throw Error(std::string("ReduceOp.AVG: dtype ") + dtype_name(dtype) + " is not floating point");
  }
}

}  // namespace ember::distributed::detail
