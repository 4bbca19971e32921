#include "core/scalar_range.h"

#include <cmath>
#include <limits>

#include "ember/error.h"

namespace ember {
namespace {

// torch's spelling of each element type in its overflow message.
const char* c_type_name(DType t) {
  switch (t) {
    case kBool: return "bool";
    case kUInt8: return "uint8_t";
    case kInt8: return "int8_t";
    case kInt16: return "int16_t";
    case kInt32: return "int";
    case kInt64: return "int64_t";
    case kFloat16: return "c10::Half";
    case kBFloat16: return "c10::BFloat16";
    case kFloat32: return "float";
    case kFloat64: return "double";
  }
  return "?";
}

template <typename T>
bool int_fits(const Scalar& v) {
  using L = std::numeric_limits<T>;
  if (v.is_float()) {
    double d = v.to_double();
    return std::isfinite(d) && d >= double(L::lowest()) && d <= double(L::max());
  }
  int64_t i = v.to_int();
  if constexpr (!L::is_signed) {  // a negative integer wraps (two's complement), as torch allows
    if (i < 0) return uint64_t(-(i + 1)) < uint64_t(L::max());
    return uint64_t(i) <= uint64_t(L::max());
  } else {
    return i >= int64_t(L::lowest()) && i <= int64_t(L::max());
  }
}

bool float_fits(double d, double max) {
  if (std::isinf(d) || std::isnan(d)) return true;
  return std::fabs(d) <= max;
}

}  // namespace

bool scalar_fits(const Scalar& value, DType dtype) {
  if (value.is_bool()) return true;
  switch (dtype) {
    case kBool:
    case kFloat64: return true;
    case kUInt8: return int_fits<uint8_t>(value);
    case kInt8: return int_fits<int8_t>(value);
    case kInt16: return int_fits<int16_t>(value);
    case kInt32: return int_fits<int32_t>(value);
    case kInt64: return int_fits<int64_t>(value);
    case kFloat32: return float_fits(value.to_double(), std::numeric_limits<float>::max());
    case kFloat16: return float_fits(value.to_double(), 65504.0);
    case kBFloat16: return float_fits(value.to_double(), 3.3895313892515355e38);
  }
  return true;
}

double rounded_to(DType dtype, double v) {
  switch (dtype) {
    case kFloat16: return static_cast<float>(Half(static_cast<float>(v)));
    case kBFloat16: return static_cast<float>(BFloat16(static_cast<float>(v)));
    case kFloat32: return static_cast<float>(v);
    default: return v;
  }
}

void check_scalar_fits(const char* op, const Scalar& value, DType dtype) {
  if (!scalar_fits(value, dtype))
    throw Error(detail::str(op, ": value cannot be converted to type ", c_type_name(dtype),
                            " without overflow"));
}

}  // namespace ember
