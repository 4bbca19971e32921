// Scalar: a Python-style number (bool, int or float) passed to an op.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ember/dtype.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool b) : kind_(Kind::Bool) { v_.i = b; }
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T i) : kind_(Kind::Int) { v_.i = static_cast<int64_t>(i); }
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T d) : kind_(Kind::Float) { v_.d = static_cast<double>(d); }
  Scalar(Half h) : Scalar(static_cast<float>(h)) {}
  Scalar(BFloat16 h) : Scalar(static_cast<float>(h)) {}

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_float() const { return kind_ == Kind::Float; }

  double to_double() const { return kind_ == Kind::Float ? v_.d : static_cast<double>(v_.i); }
  int64_t to_int() const { return kind_ == Kind::Float ? static_cast<int64_t>(v_.d) : v_.i; }
  bool to_bool() const { return kind_ == Kind::Float ? v_.d != 0.0 : v_.i != 0; }
  template <typename T> T to() const {
    if constexpr (std::is_same_v<T, bool>) return to_bool();
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(to_int());
    else return static_cast<T>(static_cast<float>(to_double()));
  }

  // The dtype a 0-dim tensor made from this number gets (bool, int64 or float64).
  DType dtype() const { return kind_ == Kind::Bool ? kBool : kind_ == Kind::Int ? kInt64 : kFloat64; }

 private:
  Kind kind_;
  union { int64_t i; double d; } v_;
};

template <> inline double Scalar::to<double>() const { return to_double(); }

}  // namespace ember
