// The gradient of a separable resampling (pad's index maps, interpolate's
// nearest / linear tables): along each of the k trailing dims, output index o
// took w times input index j, for a list of (o, j, w) contributions, so
//   grad_in[p, j0, .., jk] = sum of w0 .. wk grad_out[p, o0, .., ok].
// Work is split by (plane p, input index j0 of the first dim); each item owns
// its slab of grad_in and gathers the contributions to it (found through an
// index of the first dim's list by j), so threads never write the same
// element and every element is summed in the same order on every run.
#pragma once
#include <vector>

#include "cpu/parallel.h"

namespace ember::cpu {

template <typename Acc>
struct AxisMap {
  int64_t in = 0, out = 0;      // sizes of the dim in grad_in and grad_out
  std::vector<int64_t> o, j;    // contribution c: output index o[c] -> input index j[c]
  std::vector<Acc> w;           // with weight w[c]
  void add(int64_t oi, int64_t ji, Acc wi) {
    o.push_back(oi);
    j.push_back(ji);
    w.push_back(wi);
  }
};

namespace scatter_impl {

// Adds the contributions of grad_out's block src (dims axes[0..k)) into
// grad_in's block dst, scaled by w. Strides in elements of the remaining dims.
template <typename T, typename Acc>
void scatter_block(const T* src, Acc* dst, const AxisMap<Acc>* axes, const int64_t* out_strides,
                   const int64_t* in_strides, int64_t k, Acc w) {
  const AxisMap<Acc>& a = axes[0];
  const int64_t n = static_cast<int64_t>(a.o.size());
  if (k == 1) {
    for (int64_t c = 0; c < n; ++c) dst[a.j[c]] += w * a.w[c] * static_cast<Acc>(src[a.o[c]]);
    return;
  }
  for (int64_t c = 0; c < n; ++c)
    scatter_block(src + a.o[c] * out_strides[0], dst + a.j[c] * in_strides[0], axes + 1, out_strides + 1,
                  in_strides + 1, k - 1, w * a.w[c]);
}

}  // namespace scatter_impl

// grad_out: P planes of the output dims (contiguous); grad_in: P planes of the
// input dims (contiguous, zeroed). 1 <= axes.size() <= 3 in practice, any works.
template <typename T, typename Acc>
void separable_scatter(const T* grad_out, Acc* grad_in, int64_t planes, const std::vector<AxisMap<Acc>>& axes) {
  const int64_t k = static_cast<int64_t>(axes.size());
  std::vector<int64_t> out_strides(k, 1), in_strides(k, 1);  // of dims 1.. (per element of dim d)
  for (int64_t d = k - 2; d >= 0; --d) {
    out_strides[d] = out_strides[d + 1] * axes[d + 1].out;
    in_strides[d] = in_strides[d + 1] * axes[d + 1].in;
  }
  const int64_t out_slab = out_strides[0], in_slab = in_strides[0];
  // The first dim's contributions grouped by input index (stable: by output index within).
  const AxisMap<Acc>& first = axes[0];
  const int64_t in0 = first.in, n0 = static_cast<int64_t>(first.o.size());
  std::vector<int64_t> start(static_cast<size_t>(in0 + 1), 0), order(static_cast<size_t>(n0));
  for (int64_t c = 0; c < n0; ++c) ++start[first.j[c] + 1];
  for (int64_t i = 0; i < in0; ++i) start[i + 1] += start[i];
  std::vector<int64_t> fill(start.begin(), start.end() - 1);
  for (int64_t c = 0; c < n0; ++c) order[fill[first.j[c]]++] = c;
  const int64_t per_item = std::max<int64_t>(1, out_slab * std::max<int64_t>(n0, 1) / std::max<int64_t>(in0, 1));
  parallel_for(0, planes * in0, std::max<int64_t>(1, kGrainSize / per_item), [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t p = item / in0, j0 = item % in0;
      Acc* dst = grad_in + item * in_slab;
      for (int64_t q = start[j0]; q < start[j0 + 1]; ++q) {
        const int64_t c = order[q];
        const T* src = grad_out + (p * first.out + first.o[c]) * out_slab;
        if (k == 1) *dst += first.w[c] * static_cast<Acc>(*src);
        else scatter_impl::scatter_block(src, dst, axes.data() + 1, out_strides.data() + 1,
                                         in_strides.data() + 1, k - 1, first.w[c]);
      }
    }
  });
}

}  // namespace ember::cpu
