// Loops shared by the shape and indexing kernels (lib/cpu/shape.cpp, index*.cpp,
// sort.cpp): restrided views built without dispatching, copies through the copy_
// kernel, type switches on the element size for ops that only move elements, and
// a parallel loop over the positions of a shape in blocks (for ops along a dim).
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "cpu/parallel.h"
#include "dispatch/dispatcher.h"
#include "ember/tensor.h"

namespace ember::cpu {

// A tensor over t's storage with the given geometry (strides in elements, may be
// negative or 0). Kernel-internal: users never see these views.
inline Tensor restride(const Tensor& t, DimVector sizes, DimVector strides, int64_t offset) {
  return Tensor(make_intrusive<TensorImpl>(t.impl()->storage(), offset, std::move(sizes),
                                           std::move(strides), t.dtype()));
}

// dst <- src (cast, broadcast) by the copy_ kernel of dst's device, below the
// tracer and autograd layers: a kernel's internal copy is not an op of its own.
inline void copy_into(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  OpCall call(OpId::copy_, {dst, src}, {Attr(false)});
  call.outputs.push_back(dst);
  call.device = dst.device();
  dispatch_backend(call);
}

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

// Records the first bad index seen inside a parallel loop (kernels may not throw
// there, Note in parallel.h); the kernel throws after the loop.
struct BadIndex {
  std::atomic<bool> set{false};
  int64_t value = 0;
  void record(int64_t v) {
    bool expected = false;
    if (set.compare_exchange_strong(expected, true)) value = v;
  }
  explicit operator bool() const { return set.load(); }
};

// Byte strides of t for the dims of `sizes` except `skip` (-1: none); a 0-dim t has none.
inline DimVector byte_strides_without(const Tensor& t, int64_t skip) {
  DimVector out;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (d != skip) out.push_back(t.strides()[d] * t.element_size());
  return out;
}

// Calls f(first, n, offs) for consecutive blocks of the positions [begin, end) of
// `sizes` (row-major), where offs[k][i] is operand k's byte offset (strides[k] are
// byte strides, one per dim of sizes) at position first + i. Runs serially.
template <size_t N, typename F>
void for_each_block_in(const DimVector& sizes, const std::array<DimVector, N>& strides,
                       int64_t begin, int64_t end, const F& f) {
  constexpr int64_t kBlock = 256;
  const int64_t nd = static_cast<int64_t>(sizes.size());
  if (begin >= end) return;
  std::array<std::vector<int64_t>, N> offs;
  std::array<const int64_t*, N> ptrs;
  for (size_t k = 0; k < N; ++k) {
    offs[k].resize(static_cast<size_t>(std::min(kBlock, end - begin)));
    ptrs[k] = offs[k].data();
  }
  DimVector idx(nd, 0);
  std::array<int64_t, N> cur{};
  int64_t rem = begin;
  for (int64_t d = nd - 1; d >= 0; --d) {
    idx[d] = rem % sizes[d];
    rem /= sizes[d];
    for (size_t k = 0; k < N; ++k) cur[k] += idx[d] * strides[k][d];
  }
  for (int64_t first = begin; first < end; first += kBlock) {
    int64_t n = std::min(kBlock, end - first);
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < N; ++k) offs[k][i] = cur[k];
      for (int64_t d = nd - 1; d >= 0; --d) {  // odometer step
        for (size_t k = 0; k < N; ++k) cur[k] += strides[k][d];
        if (++idx[d] < sizes[d]) break;
        for (size_t k = 0; k < N; ++k) cur[k] -= strides[k][d] * sizes[d];
        idx[d] = 0;
      }
    }
    f(first, n, ptrs);
  }
}

// for_each_block_in over all positions of sizes, split across threads; work is
// the cost of one position in elements (sets the grain).
template <size_t N, typename F>
void for_each_block(const DimVector& sizes, const std::array<DimVector, N>& strides,
                    int64_t work, const F& f) {
  int64_t total = 1;
  for (int64_t s : sizes) total *= s;
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work));
  parallel_for(0, total, grain, [&](int64_t begin, int64_t end) {
    for_each_block_in<N>(sizes, strides, begin, end, f);
  });
}

}  // namespace ember::cpu
