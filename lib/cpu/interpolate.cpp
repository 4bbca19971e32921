// interpolate: nearest and (bi/tri)linear resampling of [N, C, *spatial]
// inputs with 1 to 3 spatial dims and any strides. Each spatial dim gets a
// table of source indices (and, for linear, two neighbours with weights)
// computed with PyTorch's exact coordinate rules (ATen UpSample.h), so the
// outputs match it bit for bit up to the summation order.
#include <cmath>

#include "kernels/dtype_dispatch.h"
#include "kernels/interpolate_index.h"
#include "cpu/parallel.h"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/factories.h"

namespace ember::cpu {
namespace {

// The output as rows: (plane n*C + c, outer spatial positions) x last spatial dim.
struct RowGeometry {
  int64_t k = 0;  // spatial dims
  DimVector out_sizes;
  int64_t rows = 0, inner = 0;
};

RowGeometry row_geometry(const Tensor& x, const DimVector& out_spatial) {
  RowGeometry g;
  g.k = static_cast<int64_t>(out_spatial.size());
  g.out_sizes = DimVector{x.size(0), x.size(1)};
  for (int64_t s : out_spatial) g.out_sizes.push_back(s);
  g.inner = out_spatial.back();
  // Saturating: with an empty output (a zero size elsewhere) the other sizes may be
  // huge, and rows is then never used.
  g.rows = x.size(0);
  if (__builtin_mul_overflow(g.rows, x.size(1), &g.rows)) g.rows = INT64_MAX;
  for (int64_t d = 0; d + 1 < g.k; ++d)
    if (__builtin_mul_overflow(g.rows, out_spatial[d], &g.rows)) g.rows = INT64_MAX;
  return g;
}

// Splits a row number into the input offset of its plane and its outer spatial indices.
inline int64_t split_row(const Tensor& x, const RowGeometry& g, int64_t r, int64_t* outer) {
  for (int64_t d = g.k - 2; d >= 0; --d) {
    outer[d] = r % g.out_sizes[2 + d];
    r /= g.out_sizes[2 + d];
  }
  const int64_t c = r % x.size(1), n = r / x.size(1);
  return n * x.stride(0) + c * x.stride(1);
}

template <typename T>
void nearest_kernel(const Tensor& x, const Tensor& out, const RowGeometry& g,
                    const std::vector<std::vector<int64_t>>& idx) {
  const T* src = static_cast<const T*>(x.data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  const int64_t last_stride = x.stride(2 + g.k - 1);
  const std::vector<int64_t>& last = idx[g.k - 1];
  parallel_for(0, g.rows, std::max<int64_t>(1, kGrainSize / g.inner), [&](int64_t r0, int64_t r1) {
    int64_t outer[3];
    for (int64_t r = r0; r < r1; ++r) {
      int64_t offset = split_row(x, g, r, outer);
      for (int64_t d = 0; d + 1 < g.k; ++d) offset += idx[d][outer[d]] * x.stride(2 + d);
      const T* in_row = src + offset;
      T* row = dst + r * g.inner;
      for (int64_t i = 0; i < g.inner; ++i) row[i] = in_row[last[i] * last_stride];
    }
  });
}

template <typename T>
void linear_kernel(const Tensor& x, const Tensor& out, const RowGeometry& g,
                   const std::vector<LinearTable<opmath_t<T>>>& tab) {
  using acc_t = opmath_t<T>;
  const T* src = static_cast<const T*>(x.data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  const int64_t ls = x.stride(2 + g.k - 1);
  const LinearTable<acc_t>& last = tab[g.k - 1];
  parallel_for(0, g.rows, std::max<int64_t>(1, kGrainSize / (4 * g.inner)), [&](int64_t r0, int64_t r1) {
    int64_t outer[3];
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t plane = split_row(x, g, r, outer);
      // The 2^(k-1) corners of the outer dims: input offsets and weights, in
      // PyTorch's nesting order (first outer dim slowest).
      int64_t corner_offset[4] = {plane};
      acc_t corner_weight[4] = {1};
      int64_t corners = 1;
      for (int64_t d = 0; d + 1 < g.k; ++d) {
        const LinearTable<acc_t>& t = tab[d];
        const int64_t o = outer[d], s = x.stride(2 + d);
        for (int64_t q = corners - 1; q >= 0; --q) {
          corner_offset[2 * q + 1] = corner_offset[q] + t.i1[o] * s;
          corner_weight[2 * q + 1] = corner_weight[q] * t.w1[o];
          corner_offset[2 * q] = corner_offset[q] + t.i0[o] * s;
          corner_weight[2 * q] = corner_weight[q] * t.w0[o];
        }
        corners *= 2;
      }
      T* row = dst + r * g.inner;
      for (int64_t i = 0; i < g.inner; ++i) {
        const int64_t a = last.i0[i] * ls, b = last.i1[i] * ls;
        acc_t v = 0;
        for (int64_t q = 0; q < corners; ++q) {
          const T* p = src + corner_offset[q];
          v += corner_weight[q] * (last.w0[i] * static_cast<acc_t>(p[a]) +
                                   last.w1[i] * static_cast<acc_t>(p[b]));
        }
        row[i] = convert<T>(v);
      }
    }
  });
}

void interpolate_kernel(OpCall& c) {
  const Tensor& x = c.in(0);
  const InterpolateArgs a = InterpolateArgs::from(c);
  const bool nearest = a.mode == "nearest";
  const RowGeometry g = row_geometry(x, a.output_size);
  Tensor out = empty(g.out_sizes, TensorOptions(x.dtype()));
  c.outputs.push_back(out);
  if (out.numel() == 0) return;
  if (nearest) {
    std::vector<std::vector<int64_t>> idx;
    for (int64_t d = 0; d < g.k; ++d)
      idx.push_back(nearest_indices(x.size(2 + d), a.output_size[d], a.scales[d], g.k == 2));
    if (x.dtype() == kUInt8) return nearest_kernel<uint8_t>(x, out, g, idx);
    EMBER_DISPATCH_FLOATING(x.dtype(), "interpolate", [&] { nearest_kernel<scalar_t>(x, out, g, idx); });
    return;
  }
  EMBER_DISPATCH_FLOATING(x.dtype(), "interpolate", [&] {
    using acc_t = opmath_t<scalar_t>;
    std::vector<LinearTable<acc_t>> tab;
    for (int64_t d = 0; d < g.k; ++d)
      tab.push_back(linear_table<acc_t>(x.size(2 + d), a.output_size[d], a.align_corners, a.scales[d]));
    linear_kernel<scalar_t>(x, out, g, tab);
  });
}

EMBER_REGISTER_KERNEL(interpolate, CPU, interpolate_kernel);

}  // namespace
}  // namespace ember::cpu
