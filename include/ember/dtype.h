// DType: the element types ember stores, their sizes and names, and PyTorch's
// type-promotion rule (which follows numpy's).
#pragma once
#include <cstdint>
#include <string>

#include "ember/half.h"

namespace ember {

enum class DType : uint8_t {
  Bool, UInt8, Int8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64,
};
constexpr int kNumDTypes = 10;

constexpr DType kBool = DType::Bool;
constexpr DType kUInt8 = DType::UInt8;
constexpr DType kInt8 = DType::Int8;
constexpr DType kInt16 = DType::Int16;
constexpr DType kInt32 = DType::Int32;
constexpr DType kInt64 = DType::Int64;
constexpr DType kFloat16 = DType::Float16;
constexpr DType kBFloat16 = DType::BFloat16;
constexpr DType kFloat32 = DType::Float32;
constexpr DType kFloat64 = DType::Float64;

inline size_t itemsize(DType t) {
  constexpr size_t sizes[kNumDTypes] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  return sizes[static_cast<int>(t)];
}
inline bool is_floating(DType t) { return t >= DType::Float16; }
inline bool is_integral(DType t, bool include_bool = false) {
  return t == DType::Bool ? include_bool : t <= DType::Int64;
}
inline bool is_signed(DType t) { return t != DType::Bool && t != DType::UInt8; }

// "float32", "int64", ... as PyTorch names them after "torch.".
const char* dtype_name(DType t);
// "Float", "Long", "BFloat16", ...: PyTorch's ScalarType names, as its messages and
// its graph listings spell a dtype.
const char* scalar_type_name(DType t);
// Parses "float32", "float", "half", "long", ...; throws TypeError for unknown names.
DType dtype_from_name(const std::string& name);

// The smallest type both a and b convert to without losing range (torch.promote_types).
DType promote_types(DType a, DType b);

// The default floating dtype used by factories and int->float ops (torch.get_default_dtype).
DType default_dtype();
void set_default_dtype(DType t);

// C++ type <-> DType.
template <typename T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = kBool; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = kUInt8; };
template <> struct dtype_of<int8_t> { static constexpr DType value = kInt8; };
template <> struct dtype_of<int16_t> { static constexpr DType value = kInt16; };
template <> struct dtype_of<int32_t> { static constexpr DType value = kInt32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = kInt64; };
template <> struct dtype_of<Half> { static constexpr DType value = kFloat16; };
template <> struct dtype_of<BFloat16> { static constexpr DType value = kBFloat16; };
template <> struct dtype_of<float> { static constexpr DType value = kFloat32; };
template <> struct dtype_of<double> { static constexpr DType value = kFloat64; };

}  // namespace ember
