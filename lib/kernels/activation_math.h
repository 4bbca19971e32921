// The per-element formulas of the activations of ops/activation.h and of their
// backward ops, shared by the CPU kernels (cpu/activation_extra.cpp) and the CUDA
// ones (cuda/elementwise/activation_extra.cu). Each is PyTorch's formula in
// opmath values (float for float16/bfloat16), so that both backends and torch
// round alike.
#pragma once
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/element_types.h"
#include "kernels/elementwise_math.h"

namespace ember {

// elu's coefficients as torch's kernel names them: negcoef = alpha * scale,
// poscoef = scale, negiptcoef = input_scale (selu and celu are elu with these).
template <typename T>
struct EluCoef {
  T negcoef, poscoef, negiptcoef;
};

// The coefficients as the kernels receive them (doubles, from the op's attrs
// alpha, scale, input_scale), converted to each dtype's opmath type per element.
struct EluParams {
  double negcoef, poscoef, negiptcoef;
  static EluParams from(double alpha, double scale, double input_scale) {
    return {alpha * scale, scale, input_scale};
  }
  template <typename T>
  EMBER_HOST_DEVICE EluCoef<T> as() const {
    return {static_cast<T>(negcoef), static_cast<T>(poscoef), static_cast<T>(negiptcoef)};
  }
};

template <typename T>
EMBER_HOST_DEVICE inline T elu_value(T x, EluCoef<T> k) {
  return x <= T(0) ? std::expm1(x * k.negiptcoef) * k.negcoef : x * k.poscoef;
}
template <typename T>
EMBER_HOST_DEVICE inline T elu_grad(T g, T x, EluCoef<T> k) {
  return x <= T(0) ? g * k.negiptcoef * k.negcoef * std::exp(x * k.negiptcoef) : g * k.poscoef;
}

// Clamp to [lo, hi]; nan stays nan.
template <typename T>
EMBER_HOST_DEVICE inline T hardtanh_value(T x, T lo, T hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}
// The gradient passes strictly inside (lo, hi), as in torch.
template <typename T>
EMBER_HOST_DEVICE inline T hardtanh_grad(T g, T x, T lo, T hi) {
  return (x <= lo || x >= hi) ? T(0) : g;
}

// min(max(x + 3, 0), 6): the relu6(x + 3) of hardsigmoid and hardswish.
template <typename T>
EMBER_HOST_DEVICE inline T relu6_shifted(T x) {
  T y = x + T(3);
  y = y < T(0) ? T(0) : y;
  return y > T(6) ? T(6) : y;
}
template <typename T>
EMBER_HOST_DEVICE inline T hardsigmoid_value(T x) {
  return relu6_shifted(x) / T(6);
}
template <typename T>
EMBER_HOST_DEVICE inline T hardsigmoid_grad(T g, T x) {
  return (x > T(-3) && x < T(3)) ? g * (T(1) / T(6)) : T(0);
}
template <typename T>
EMBER_HOST_DEVICE inline T hardswish_value(T x) {
  return x * relu6_shifted(x) / T(6);
}
// 0 up to -3, g from 3 on, as torch's (the ends belong to the flat pieces).
template <typename T>
EMBER_HOST_DEVICE inline T hardswish_grad(T g, T x) {
  if (x <= T(-3)) return T(0);
  if (x < T(3)) return g * (x / T(3) + T(0.5));
  return g;
}

// x tanh(softplus(x)).
template <typename T>
EMBER_HOST_DEVICE inline T mish_value(T x) {
  return x * std::tanh(std::log1p(std::exp(x)));
}
template <typename T>
EMBER_HOST_DEVICE inline T mish_grad(T g, T x) {
  T sig = T(1) / (T(1) + std::exp(-x));
  T t = std::tanh(std::log1p(std::exp(x)));
  return g * (t + x * sig * (T(1) - t * t));
}

// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): no overflow for either sign.
template <typename T>
EMBER_HOST_DEVICE inline T logsigmoid_value(T x) {
  T m = x < T(0) ? x : T(0);
  return m - std::log1p(std::exp(-std::abs(x)));
}
template <typename T>
EMBER_HOST_DEVICE inline T logsigmoid_grad(T g, T x) {
  T z = std::exp(-std::abs(x));
  bool negative = x < T(0);
  T max_deriv = negative ? T(1) : T(0);
  T sign = negative ? T(1) : T(-1);
  return g * (max_deriv - sign * (z / (T(1) + z)));
}

// x - lambd above lambd, x + lambd below -lambd, 0 between (x * 0 keeps nan).
template <typename T>
EMBER_HOST_DEVICE inline T softshrink_value(T x, T lambd) {
  return x > lambd ? x - lambd : (x < -lambd ? x + lambd : x * T(0));
}
template <typename T>
EMBER_HOST_DEVICE inline T hardshrink_value(T x, T lambd) {
  return (x >= -lambd && x <= lambd) ? T(0) : x;
}
// The mask of both shrinks: g where |x| > lambd.
template <typename T>
EMBER_HOST_DEVICE inline T shrink_grad(T g, T x, T lambd) {
  return (x >= -lambd && x <= lambd) ? T(0) : g;
}

template <typename T>
EMBER_HOST_DEVICE inline T threshold_value(T x, T threshold, T value) {
  return x <= threshold ? value : x;
}

}  // namespace ember
