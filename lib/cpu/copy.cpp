// copy_: dst[i] = convert(src[i]) for any two dtypes, strides and a broadcast src;
// float -> integer by the rule of kernels/float_to_int.h, as the CUDA kernel does.
#include "kernels/dtype_dispatch.h"
#include "kernels/float_to_int.h"
#include "cpu/float_to_int_convert.h"
#include "cpu/half_convert.h"
#include "cpu/loops.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"

namespace ember::cpu {

namespace {

// Fast path: same dtype, both contiguous, same numel -> memcpy in parallel chunks.
bool try_memcpy(const Tensor& dst, const Tensor& src) {
  if (dst.dtype() != src.dtype() || !dst.is_contiguous() || !src.is_contiguous() ||
      dst.numel() != src.numel())
    return false;
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

// Fast path: contiguous float32 <-> float16 of the same numel, converted in bulk.
bool try_half_convert(const Tensor& dst, const Tensor& src) {
  if (!dst.is_contiguous() || !src.is_contiguous() || dst.numel() != src.numel()) return false;
  bool to_half = dst.dtype() == DType::Float16 && src.dtype() == DType::Float32;
  bool from_half = dst.dtype() == DType::Float32 && src.dtype() == DType::Float16;
  if (!to_half && !from_half) return false;
  parallel_for(0, dst.numel(), kGrainSize, [&](int64_t b, int64_t e) {
    if (to_half)
      float_to_half(static_cast<Half*>(dst.data_ptr()) + b, static_cast<const float*>(src.data_ptr()) + b, e - b);
    else
      half_to_float(static_cast<float*>(dst.data_ptr()) + b, static_cast<const Half*>(src.data_ptr()) + b, e - b);
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
      cpu_kernel(dst, {&source}, [](scalar_t v) -> dst_t { return cast_element<dst_t>(v); });
    });
  });
}

EMBER_REGISTER_KERNEL(copy_, CPU, copy_kernel);

}  // namespace
}  // namespace ember::cpu
