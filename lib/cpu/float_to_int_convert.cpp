#include "cpu/float_to_int_convert.h"

#include <type_traits>

#include "cpu/half_convert.h"
#include "ember/half.h"
#include "kernels/float_to_int.h"

#if defined(__x86_64__)
#include <immintrin.h>  // SSE2 is part of every x86-64 CPU; AVX2 is checked at run time
#define EMBER_FLOAT_TO_INT_SSE2 1
#endif

namespace ember::cpu {

#ifdef EMBER_FLOAT_TO_INT_SSE2
namespace {

// Four source values as the rule's int32 results: cvttps2dq / cvttpd2dq truncate and
// return INT32_MIN for NaN, +-inf and values out of int32 range, as float_to_int does.
inline __m128i int32x4(const float* s) { return _mm_cvttps_epi32(_mm_loadu_ps(s)); }
inline __m128i int32x4(const double* s) {
  return _mm_unpacklo_epi64(_mm_cvttpd_epi32(_mm_loadu_pd(s)), _mm_cvttpd_epi32(_mm_loadu_pd(s + 2)));
}
// A bfloat16 is the high half of its float32: zeros interleaved below the bits widen it.
inline __m128i int32x4(const BFloat16* s) {
  const __m128i bits = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s));
  return _mm_cvttps_epi32(_mm_castsi128_ps(_mm_unpacklo_epi16(_mm_setzero_si128(), bits)));
}

// The low 16 / 8 bits of each int32, sign- or zero-extended, so that the saturating
// packs below keep them as they are (the wrap of the rule).
inline __m128i low16(__m128i x) { return _mm_srai_epi32(_mm_slli_epi32(x, 16), 16); }
inline __m128i low8_signed(__m128i x) { return _mm_srai_epi32(_mm_slli_epi32(x, 24), 24); }
inline __m128i low8_unsigned(__m128i x) { return _mm_and_si128(x, _mm_set1_epi32(0xff)); }

inline void store(void* d, __m128i v) { _mm_storeu_si128(static_cast<__m128i*>(d), v); }

// Each converts the leading multiple of its vector width and returns how many.
template <typename F>
int64_t to_int32(int32_t* d, const F* s, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) store(d + i, int32x4(s + i));
  return i;
}

template <typename F>
int64_t to_int16(int16_t* d, const F* s, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) store(d + i, _mm_packs_epi32(low16(int32x4(s + i)), low16(int32x4(s + i + 4))));
  return i;
}

template <typename F>
int64_t to_int8(int8_t* d, const F* s, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i lo = _mm_packs_epi32(low8_signed(int32x4(s + i)), low8_signed(int32x4(s + i + 4)));
    __m128i hi = _mm_packs_epi32(low8_signed(int32x4(s + i + 8)), low8_signed(int32x4(s + i + 12)));
    store(d + i, _mm_packs_epi16(lo, hi));
  }
  return i;
}

// float32 (and bfloat16) only: the rule wraps uint8 through int64, whose low byte
// equals the int32 result's for every float32 (float_to_int.h); not for float64.
template <typename F>
int64_t to_uint8(uint8_t* d, const F* s, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i lo = _mm_packs_epi32(low8_unsigned(int32x4(s + i)), low8_unsigned(int32x4(s + i + 4)));
    __m128i hi = _mm_packs_epi32(low8_unsigned(int32x4(s + i + 8)), low8_unsigned(int32x4(s + i + 12)));
    store(d + i, _mm_packus_epi16(lo, hi));
  }
  return i;
}

// AVX2, float32 only: eight values per conversion. The packs work within each 128-bit
// half, so a permute puts the halves' results back in order.
bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

#define EMBER_AVX2 __attribute__((target("avx2")))
EMBER_AVX2 inline __m256i int32x8(const float* s) { return _mm256_cvttps_epi32(_mm256_loadu_ps(s)); }
EMBER_AVX2 inline __m256i low16x8(__m256i x) { return _mm256_srai_epi32(_mm256_slli_epi32(x, 16), 16); }
EMBER_AVX2 inline __m256i low8x8(__m256i x, bool is_signed) {
  return is_signed ? _mm256_srai_epi32(_mm256_slli_epi32(x, 24), 24) : _mm256_and_si256(x, _mm256_set1_epi32(0xff));
}
EMBER_AVX2 inline void store32(void* d, __m256i v) { _mm256_storeu_si256(static_cast<__m256i*>(d), v); }

EMBER_AVX2 int64_t avx2_float_to_int(void* dst, DType dst_dtype, const float* s, int64_t n) {
  int64_t i = 0;
  switch (dst_dtype) {
    case DType::Int32:
      for (; i + 8 <= n; i += 8) store32(static_cast<int32_t*>(dst) + i, int32x8(s + i));
      break;
    case DType::Int16:
      for (; i + 16 <= n; i += 16) {
        const __m256i packed = _mm256_packs_epi32(low16x8(int32x8(s + i)), low16x8(int32x8(s + i + 8)));
        store32(static_cast<int16_t*>(dst) + i, _mm256_permute4x64_epi64(packed, 0xd8));  // qwords 0 2 1 3
      }
      break;
    case DType::Int8:
    case DType::UInt8: {
      const bool is_signed = dst_dtype == DType::Int8;
      const __m256i dword_order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
      for (; i + 32 <= n; i += 32) {
        const __m256i lo = _mm256_packs_epi32(low8x8(int32x8(s + i), is_signed), low8x8(int32x8(s + i + 8), is_signed));
        const __m256i hi =
            _mm256_packs_epi32(low8x8(int32x8(s + i + 16), is_signed), low8x8(int32x8(s + i + 24), is_signed));
        const __m256i bytes = is_signed ? _mm256_packs_epi16(lo, hi) : _mm256_packus_epi16(lo, hi);
        store32(static_cast<uint8_t*>(dst) + i, _mm256_permutevar8x32_epi32(bytes, dword_order));
      }
      break;
    }
    default: break;
  }
  return i;
}
#undef EMBER_AVX2

template <typename I, typename F>
void tail(void* dst, const F* s, int64_t from, int64_t n) {
  I* d = static_cast<I*>(dst);
  for (int64_t i = from; i < n; ++i) d[i] = cast_element<I>(s[i]);
}

// F is float, double or BFloat16; float_to_int_has_bulk(dst, F's dtype) holds.
template <typename F>
void convert_all(void* dst, DType dst_dtype, const F* s, int64_t n) {
  if constexpr (std::is_same_v<F, float>) {
    if (has_avx2()) {
      const int64_t done = avx2_float_to_int(dst, dst_dtype, s, n);
      dst = static_cast<char*>(dst) + done * static_cast<int64_t>(itemsize(dst_dtype));
      s += done;
      n -= done;
    }
  }
  switch (dst_dtype) {
    case DType::Int32: return tail<int32_t>(dst, s, to_int32(static_cast<int32_t*>(dst), s, n), n);
    case DType::Int16: return tail<int16_t>(dst, s, to_int16(static_cast<int16_t*>(dst), s, n), n);
    case DType::Int8: return tail<int8_t>(dst, s, to_int8(static_cast<int8_t*>(dst), s, n), n);
    case DType::UInt8:
      if constexpr (!std::is_same_v<F, double>) return tail<uint8_t>(dst, s, to_uint8(static_cast<uint8_t*>(dst), s, n), n);
      [[fallthrough]];
    default: return;
  }
}

// float16: widened to float32 (exactly, with F16C where the CPU has it) a block at a
// time on the stack.
void convert_half(void* dst, DType dst_dtype, const Half* s, int64_t n) {
  constexpr int64_t kBlock = 1024;
  alignas(16) float block[kBlock];
  const size_t dst_size = itemsize(dst_dtype);
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t k = n - i < kBlock ? n - i : kBlock;
    half_to_float(block, s + i, k);
    convert_all(static_cast<char*>(dst) + i * dst_size, dst_dtype, block, k);
  }
}

}  // namespace

bool float_to_int_has_bulk(DType dst, DType src) {
  if (!is_floating(src)) return false;
  if (dst == DType::UInt8) return src != DType::Float64;
  return dst == DType::Int32 || dst == DType::Int16 || dst == DType::Int8;
}

bool float_to_int_contiguous(void* dst, DType dst_dtype, const void* src, DType src_dtype, int64_t n) {
  if (!float_to_int_has_bulk(dst_dtype, src_dtype)) return false;
  switch (src_dtype) {
    case DType::Float32: convert_all(dst, dst_dtype, static_cast<const float*>(src), n); return true;
    case DType::Float64: convert_all(dst, dst_dtype, static_cast<const double*>(src), n); return true;
    case DType::Float16: convert_half(dst, dst_dtype, static_cast<const Half*>(src), n); return true;
    case DType::BFloat16: convert_all(dst, dst_dtype, static_cast<const BFloat16*>(src), n); return true;
    default: return false;
  }
}
#else
bool float_to_int_has_bulk(DType, DType) { return false; }
bool float_to_int_contiguous(void*, DType, const void*, DType, int64_t) { return false; }
#endif

}  // namespace ember::cpu
