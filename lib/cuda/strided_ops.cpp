// strided_copy / strided_fill: describe the tensors to the kernels of
// strided_kernels.cu in as few dims as their strides allow.
#include "cuda/strided_ops.h"

#include "cuda/strided_kernels.h"

namespace ember::cuda {

namespace {

// src's strides when broadcast to `sizes` (a broadcast dim steps by 0).
DimVector broadcast_strides(const Tensor& src, const DimVector& sizes) {
  DimVector strides(sizes.size(), 0);
  size_t lead = sizes.size() - static_cast<size_t>(src.dim());
  for (int64_t d = 0; d < src.dim(); ++d)
    strides[lead + d] = src.size(d) == 1 ? 0 : src.stride(d);
  return strides;
}

// Size-1 dims are dropped, and a dim is merged into the one before it where both
// tensors step through the two as through one.
StridedGeometry geometry_of(const Tensor& dst, const DimVector& src_strides) {
  StridedGeometry g;
  int n = 0;
  for (int64_t d = 0; d < dst.dim(); ++d) {
    int64_t size = dst.size(d), ds = dst.stride(d), ss = src_strides[d];
    if (size == 1) continue;
    if (n > 0 && g.dst_strides[n - 1] == size * ds && g.src_strides[n - 1] == size * ss) {
      g.sizes[n - 1] *= size;
      g.dst_strides[n - 1] = ds;
      g.src_strides[n - 1] = ss;
      continue;
    }
    EMBER_CHECK_AS(NotImplementedError, n < kMaxStridedDims, "CUDA copy/fill: a tensor whose ",
                   "strides need more than ", kMaxStridedDims, " dims is not supported (shape ",
                   shape_str(dst.sizes()), ")");
    g.sizes[n] = size;
    g.dst_strides[n] = ds;
    g.src_strides[n] = ss;
    ++n;
  }
  g.ndim = n;
  return g;
}

}  // namespace

void strided_copy(const Tensor& dst, const Tensor& src, const Stream& stream) {
  StridedGeometry g = geometry_of(dst, broadcast_strides(src, dst.sizes()));
  if (dst.dtype() == src.dtype())
    launch_strided_copy(dst.data_ptr(), src.data_ptr(), static_cast<size_t>(dst.element_size()), g,
                        dst.numel(), stream.handle());
  else
    launch_strided_convert(dst.data_ptr(), dst.dtype(), src.data_ptr(), src.dtype(), g,
                           dst.numel(), stream.handle());
}

void strided_fill(const Tensor& dst, uint64_t value_bits, const Stream& stream) {
  launch_strided_fill(dst.data_ptr(), value_bits, static_cast<size_t>(dst.element_size()),
                      geometry_of(dst, dst.strides()), dst.numel(), stream.handle());
}

}  // namespace ember::cuda
