// Switching on a dtype inside a kernel: the body is instantiated once per C++
// element type, with `scalar_t` naming it. Float16 and bfloat16 compute in
// float (opmath_t, kernels/element_types.h), as PyTorch does. The CUDA kernels
// switch with the same macros (on the host, before a launch).
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/element_types.h"
#include "ember/dtype.h"
#include "ember/error.h"

namespace ember {

// "op: not implemented for dtype X" (NotImplementedError), the switches' default.
[[noreturn]] void throw_unsupported_dtype(const char* op, DType dtype);

// f(T{}) with T an unsigned type of the given byte size: for kernels that only
// move elements, one instantiation serves every dtype of that size.
template <typename F>
void with_element_size(int64_t size, const F& f) {
  switch (size) {
    case 1: f(uint8_t{}); break;
    case 2: f(uint16_t{}); break;
    case 4: f(uint32_t{}); break;
    default: f(uint64_t{}); break;
  }
}

}  // namespace ember

#define EMBER_DTYPE_CASE(enumerator, type, ...) \
  case ::ember::DType::enumerator: {            \
    using scalar_t = type;                      \
    (void)sizeof(scalar_t);                     \
    __VA_ARGS__();                              \
    break;                                      \
  }

#define EMBER_FLOAT_CASES(...)                                 \
  EMBER_DTYPE_CASE(Float32, float, __VA_ARGS__)                \
  EMBER_DTYPE_CASE(Float64, double, __VA_ARGS__)               \
  EMBER_DTYPE_CASE(Float16, ::ember::Half, __VA_ARGS__)        \
  EMBER_DTYPE_CASE(BFloat16, ::ember::BFloat16, __VA_ARGS__)

#define EMBER_INT_CASES(...)                     \
  EMBER_DTYPE_CASE(UInt8, uint8_t, __VA_ARGS__)  \
  EMBER_DTYPE_CASE(Int8, int8_t, __VA_ARGS__)    \
  EMBER_DTYPE_CASE(Int16, int16_t, __VA_ARGS__)  \
  EMBER_DTYPE_CASE(Int32, int32_t, __VA_ARGS__)  \
  EMBER_DTYPE_CASE(Int64, int64_t, __VA_ARGS__)

// EMBER_DISPATCH_ALL(dtype, "op", [&] { ... scalar_t ... });
#define EMBER_DISPATCH_ALL(dtype, op, ...)                      \
  switch (dtype) {                                              \
    EMBER_DTYPE_CASE(Bool, bool, __VA_ARGS__)                   \
    EMBER_INT_CASES(__VA_ARGS__)                                \
    EMBER_FLOAT_CASES(__VA_ARGS__)                              \
    default: ::ember::throw_unsupported_dtype(op, dtype);  \
  }

// Every type but bool.
#define EMBER_DISPATCH_NUMERIC(dtype, op, ...)                  \
  switch (dtype) {                                              \
    EMBER_INT_CASES(__VA_ARGS__)                                \
    EMBER_FLOAT_CASES(__VA_ARGS__)                              \
    default: ::ember::throw_unsupported_dtype(op, dtype);  \
  }

#define EMBER_DISPATCH_FLOATING(dtype, op, ...)                 \
  switch (dtype) {                                              \
    EMBER_FLOAT_CASES(__VA_ARGS__)                              \
    default: ::ember::throw_unsupported_dtype(op, dtype);  \
  }

// Integers and bool (bitwise ops).
#define EMBER_DISPATCH_INTEGRAL(dtype, op, ...)                 \
  switch (dtype) {                                              \
    EMBER_DTYPE_CASE(Bool, bool, __VA_ARGS__)                   \
    EMBER_INT_CASES(__VA_ARGS__)                                \
    default: ::ember::throw_unsupported_dtype(op, dtype);  \
  }
