// copy_: dst[i] = convert(src[i]) for any two dtypes, strides and a broadcast src;
// float -> integer by the rule of kernels/float_to_int.h, as the CUDA kernel does.
#include <algorithm>
#include <cstring>
#include <utility>

#include "kernels/dense_layout.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/float_to_int.h"
#include "cpu/float_to_int_convert.h"
#include "cpu/half_convert.h"
#include "cpu/loops.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"

namespace ember::cpu {

namespace {

// Whether dst[i] and src[i] lie at the same offset of two dense blocks, so that the
// copy is one flat pass over the blocks: both contiguous, or both laid out alike
// (the same shape and strides, as a gradient copied into a transposed view).
bool flat_alike(const Tensor& dst, const Tensor& src) {
  if (dst.numel() != src.numel()) return false;
  if (dst.is_contiguous() && src.is_contiguous()) return true;
  if (dst.sizes() != src.sizes()) return false;
  for (int64_t d = 0; d < dst.dim(); ++d)
    if (dst.size(d) != 1 && dst.stride(d) != src.stride(d)) return false;
  return dense_and_non_overlapping(dst);
}

// Fast path: same dtype, flat_alike -> memcpy in parallel chunks.
bool try_memcpy(const Tensor& dst, const Tensor& src) {
  if (dst.dtype() != src.dtype() || !flat_alike(dst, src)) return false;
  char* d = static_cast<char*>(dst.data_ptr());
  const char* s = static_cast<const char*>(src.data_ptr());
  if (d == s) return true;
  int64_t nbytes = dst.nbytes();
  // Overlapping ranges (a shifted view of the same storage) are undefined for memcpy:
  // the general path copies from a clone instead (found by AddressSanitizer).
  if (d < s + nbytes && s < d + nbytes) return false;
  parallel_for(0, nbytes, kGrainSize * 16, [&](int64_t b, int64_t e) {
    std::memcpy(d + b, s + b, static_cast<size_t>(e - b));
  });
  return true;
}

// Fast path: float32 <-> float16 / bfloat16, flat_alike, converted
// in bulk (vector converters of half_convert.h).
bool try_half_convert(const Tensor& dst, const Tensor& src) {
  if (!flat_alike(dst, src)) return false;
  DType d = dst.dtype(), s = src.dtype();
  bool reduced_d = d == DType::Float16 || d == DType::BFloat16;
  bool reduced_s = s == DType::Float16 || s == DType::BFloat16;
  bool to_reduced = reduced_d && s == DType::Float32;
  if (!to_reduced && !(reduced_s && d == DType::Float32)) return false;
  parallel_for(0, dst.numel(), kGrainSize, [&](int64_t b, int64_t e) {
    if (to_reduced) {
      const float* from = static_cast<const float*>(src.data_ptr()) + b;
      if (d == DType::Float16) float_to_half(static_cast<Half*>(dst.data_ptr()) + b, from, e - b);
      else float_to_bfloat16(static_cast<BFloat16*>(dst.data_ptr()) + b, from, e - b);
    } else {
      float* to = static_cast<float*>(dst.data_ptr()) + b;
      if (s == DType::Float16) half_to_float(to, static_cast<const Half*>(src.data_ptr()) + b, e - b);
      else bfloat16_to_float(to, static_cast<const BFloat16*>(src.data_ptr()) + b, e - b);
    }
  });
  return true;
}

// Fast path: contiguous float -> int32/int16/int8/uint8 of the same numel, in bulk
// (the same rule, float_to_int.h, as the element loop below).
bool try_float_to_int(const Tensor& dst, const Tensor& src) {
  if (!dst.is_contiguous() || !src.is_contiguous() || dst.numel() != src.numel() ||
      !float_to_int_has_bulk(dst.dtype(), src.dtype()))
    return false;
  char* d = static_cast<char*>(dst.data_ptr());
  const char* s = static_cast<const char*>(src.data_ptr());
  const int64_t dsize = dst.element_size(), ssize = src.element_size();
  parallel_for(0, dst.numel(), kGrainSize, [&](int64_t b, int64_t e) {
    float_to_int_contiguous(d + b * dsize, dst.dtype(), s + b * ssize, src.dtype(), e - b);
  });
  return true;
}

// A 2-d transpose (size-1 dims aside, dst walks its rows where src walks its columns,
// as .contiguous() of a .t() or a cast of one): the element loop reads one side a
// cache line per element; kTile x kTile tiles touch each line once.
constexpr int64_t kTile = 32;

template <typename F>
bool try_transpose_copy(const Tensor& dst, const Tensor& src, const F& f) {
  using out_t = typename function_traits<F>::result;
  using in_t = std::tuple_element_t<0, typename function_traits<F>::args>;
  if (dst.sizes() != src.sizes() || dst.numel() < kTile * kTile) return false;
  int64_t n[2], ds[2], ss[2];
  int k = 0;
  for (int64_t d = 0; d < dst.dim(); ++d) {
    if (dst.size(d) == 1) continue;
    if (k == 2) return false;
    n[k] = dst.size(d), ds[k] = dst.stride(d), ss[k] = src.stride(d);
    ++k;
  }
  if (k != 2 || !((ds[1] == 1 && ss[0] == 1) || (ds[0] == 1 && ss[1] == 1))) return false;
  out_t* o = static_cast<out_t*>(dst.data_ptr());
  const in_t* x = static_cast<const in_t*>(src.data_ptr());
  const int64_t row_tiles = (n[0] + kTile - 1) / kTile;
  parallel_for(0, row_tiles, std::max<int64_t>(1, kGrainSize / (kTile * n[1])), [&](int64_t t0, int64_t t1) {
    for (int64_t ti = t0; ti < t1; ++ti) {
      const int64_t i1 = std::min(n[0], (ti + 1) * kTile);
      for (int64_t j0 = 0; j0 < n[1]; j0 += kTile) {
        const int64_t j1 = std::min(n[1], j0 + kTile);
        for (int64_t i = ti * kTile; i < i1; ++i)
          for (int64_t j = j0; j < j1; ++j) o[i * ds[0] + j * ds[1]] = f(x[i * ss[0] + j * ss[1]]);
      }
    }
  });
  return true;
}

void copy_kernel(OpCall& c) {
  const Tensor& dst = c.outputs[0];
  const Tensor& src = c.in(1);
  EMBER_CHECK(src.is_cpu() && dst.is_cpu(), "copy_: no CUDA backend in this build (copy from ",
              src.device().str(), " to ", dst.device().str(), ")");
  if (dst.numel() == 0 || try_memcpy(dst, src)) return;
  if (src.impl()->storage() != dst.impl()->storage() &&
      (try_half_convert(dst, src) || try_float_to_int(dst, src)))
    return;
  // Copying a tensor onto an overlapping view of itself would read values already overwritten.
  Tensor source = src;
  if (src.impl()->storage() == dst.impl()->storage() && !src.is_same(dst)) source = src.clone();
  EMBER_DISPATCH_ALL(dst.dtype(), "copy_", [&] {
    using dst_t = scalar_t;
    EMBER_DISPATCH_ALL(source.dtype(), "copy_", [&] {
      auto f = [](scalar_t v) -> dst_t { return cast_element<dst_t>(v); };
      if (!try_transpose_copy(dst, source, f)) cpu_kernel(dst, {&source}, f);
    });
  });
}

EMBER_REGISTER_KERNEL(copy_, CPU, copy_kernel);

}  // namespace
}  // namespace ember::cpu
