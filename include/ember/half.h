// float16 and bfloat16 storage types. Arithmetic on them is done in float
// (see opmath_t in lib/kernels/element_types.h); these only convert, rounding to
// nearest-even as IEEE and PyTorch do.
//
// Every member is EMBER_HOST_DEVICE: CUDA kernels use the very same types, so a
// value converts to the same bits on the CPU and on the GPU. On the GPU the
// conversions are single PTX instructions (cvt), on the CPU the bit arithmetic below.
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

namespace ember {

namespace detail {
EMBER_HOST_DEVICE inline uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
EMBER_HOST_DEVICE inline float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}
}  // namespace detail

struct Half {
  uint16_t bits = 0;
  Half() = default;
  EMBER_HOST_DEVICE Half(float f) : bits(from_float(f)) {}
  EMBER_HOST_DEVICE operator float() const { return to_float(bits); }

  EMBER_HOST_DEVICE static uint16_t from_float(float f) {
#if defined(__CUDA_ARCH__)
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#else
    uint32_t x = detail::float_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) return sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u);  // inf/nan
    if (abs >= 0x477ff000u) return sign | 0x7c00u;  // rounds past the largest half: inf
    if (abs < 0x38800000u) {  // subnormal half (or zero): align to 2^-24 and round
      float af = detail::bits_float(abs);
      float scaled = af * 16777216.0f;  // 2^24
      uint32_t m = static_cast<uint32_t>(scaled);
      float rem = scaled - static_cast<float>(m);
      if (rem > 0.5f || (rem == 0.5f && (m & 1u))) ++m;
      return sign | m;
    }
    uint32_t mant_odd = (abs >> 13) & 1u;
    abs += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
    return sign | (abs >> 13);
#endif
  }
  EMBER_HOST_DEVICE static float to_float(uint16_t h) {
#if defined(__CUDA_ARCH__)
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(static_cast<unsigned short>(h)));
    return f;
#else
    uint32_t sign = (uint32_t(h) & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
      float f = static_cast<float>(mant) * 5.9604644775390625e-8f;  // 2^-24
      return sign ? -f : f;
    }
    if (exp == 31) return detail::bits_float(sign | 0x7f800000u | (mant << 13));
    return detail::bits_float(sign | ((exp + 112) << 23) | (mant << 13));
#endif
  }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  EMBER_HOST_DEVICE BFloat16(float f) : bits(from_float(f)) {}
  EMBER_HOST_DEVICE operator float() const { return detail::bits_float(uint32_t(bits) << 16); }

  EMBER_HOST_DEVICE static uint16_t from_float(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#else
    uint32_t x = detail::float_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet nan
    x += 0x7fffu + ((x >> 16) & 1u);  // round to nearest even
    return static_cast<uint16_t>(x >> 16);
#endif
  }
};

}  // namespace ember
