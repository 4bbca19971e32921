// What the CPU flash attention kernels share (attention_flash.cpp: forward,
// attention_flash_backward.cpp: backward): where each (batch, head) matrix of q, k,
// v and the mask starts, the masking of one block of scores, the row max / exp-sum
// loops, and the parallel loop over tasks.
//
// Operands keep their strides (only the last dim must be dense: the op function
// copies otherwise), so MultiheadAttention's heads, views of a [L, N, E] projection,
// are read in place. The mask is read through its broadcast strides: a [L, S] mask
// serving every batch and head is never expanded in memory.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cpu/reduce_math.h"
#include "cpu/thread_pool.h"
#include "ember/tensor.h"

namespace ember::cpu::flash {

// Block sizes. Forward: 64 queries against 512 keys (a 128 KiB block of scores, in
// L2; a sequence of up to 512 keys is one block, so no rescaling). Larger key blocks
// mean fewer, larger gemm calls: 64 x 128 ran 10% slower at 2048 x 2048 and 64 x 512
// to 128 x 1024 within noise of each other. Backward: 64 x 256 (four such buffers per
// thread); 64 x 128 to 128 x 128 within 5%. Key blocks are multiples of 4 for the
// dropout's groups (kernels/attention_dropout.h).
constexpr int64_t kBlockQ = 64;
constexpr int64_t kBlockK = 512;
constexpr int64_t kBwdBlockQ = 64;
constexpr int64_t kBwdBlockK = 256;

struct Layout {
  int64_t BH = 0, L = 0, S = 0, E = 0, Ev = 0;
  int64_t groups = 1;                          // query heads per key/value head
  std::vector<int64_t> q_off, k_off, v_off;    // per bh: element offset of its matrix
  std::vector<int64_t> m_off;                  // per bh: the mask's, when there is one
  int64_t q_ld = 0, k_ld = 0, v_ld = 0;        // row strides
  int64_t m_ld = 0, m_cs = 0;                  // the mask's row and column strides
};

// Element offsets, for each index of q's leading dims `lead` (flattened row-major),
// of the matrix of a tensor with these strides for its leading dims: lead's shape,
// except its heads dim (the last leading one), which is lead's divided by groups.
inline std::vector<int64_t> lead_offsets(const int64_t* strides, const DimVector& lead, int64_t groups) {
  int64_t n = 1;
  for (int64_t s : lead) n *= s;
  std::vector<int64_t> off(static_cast<size_t>(n), 0);
  const int64_t nd = static_cast<int64_t>(lead.size());
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat, o = 0;
    for (int64_t d = nd - 1; d >= 0; --d) {
      int64_t idx = rest % lead[d];
      rest /= lead[d];
      if (d == nd - 1) idx /= groups;
      o += idx * strides[d];
    }
    off[static_cast<size_t>(flat)] = o;
  }
  return off;
}

// mask's strides as seen broadcast to `to` (0 along the dims it is broadcast over).
inline DimVector broadcast_strides(const Tensor& mask, const DimVector& to) {
  const int64_t nd = static_cast<int64_t>(to.size()), md = mask.dim();
  DimVector st(to.size(), 0);
  for (int64_t d = 0; d < md; ++d) {
    const int64_t td = nd - md + d;
    st[td] = mask.size(d) == 1 && to[td] != 1 ? 0 : mask.stride(d);
  }
  return st;
}

// The layout of a call: q [lead..., L, E], k [.., S, E], v [.., S, Ev], the mask (if
// defined) broadcast to [lead..., L, S].
inline Layout make_layout(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                          int64_t groups) {
  Layout l;
  DimVector lead(q.sizes().begin(), q.sizes().end() - 2);
  l.L = q.size(-2);
  l.E = q.size(-1);
  l.S = k.size(-2);
  l.Ev = v.size(-1);
  l.groups = groups;
  l.BH = 1;
  for (int64_t s : lead) l.BH *= s;
  l.q_off = lead_offsets(q.strides().data(), lead, 1);
  l.k_off = lead_offsets(k.strides().data(), lead, groups);
  l.v_off = lead_offsets(v.strides().data(), lead, groups);
  l.q_ld = q.stride(-2);
  l.k_ld = k.stride(-2);
  l.v_ld = v.stride(-2);
  if (mask.defined()) {
    DimVector scores = lead;
    scores.push_back(l.L);
    scores.push_back(l.S);
    const DimVector st = broadcast_strides(mask, scores);
    l.m_off = lead_offsets(st.data(), lead, 1);
    l.m_ld = st[st.size() - 2];
    l.m_cs = st[st.size() - 1];
  }
  return l;
}

// How a block of scores is masked.
template <typename A>
struct MaskView {
  bool causal = false;
  const bool* bool_mask = nullptr;  // false = may not attend
  const A* add_mask = nullptr;      // added to the scores
  int64_t ld = 0, cs = 0;
};

// The mask of a call (an undefined mask: causal or none) as the kernels read it.
template <typename A>
inline MaskView<A> make_mask_view(const Tensor& mask, bool causal, const Layout& lay) {
  MaskView<A> mv;
  mv.causal = causal;
  if (mask.defined()) {
    if (mask.dtype() == kBool)
      mv.bool_mask = static_cast<const bool*>(mask.data_ptr());
    else
      mv.add_mask = static_cast<const A*>(mask.data_ptr());
    mv.ld = lay.m_ld;
    mv.cs = lay.m_cs;
  }
  return mv;
}

// Masks scores s [nq, nk] (row stride nk) of queries i0.. against keys j0..:
// -inf where a query may not attend, plus the additive mask.
template <typename A>
inline void mask_block(A* s, int64_t nq, int64_t nk, int64_t i0, int64_t j0, const MaskView<A>& m,
                       int64_t m_off) {
  constexpr A kNegInf = -std::numeric_limits<A>::infinity();
  if (m.causal) {
    // Key j is visible to query i when j <= i (torch's tril(ones(L, S))).
    for (int64_t r = 0; r < nq; ++r) {
      const int64_t first_hidden = std::max<int64_t>(0, i0 + r + 1 - j0);
      for (int64_t c = first_hidden; c < nk; ++c) s[r * nk + c] = kNegInf;
    }
  } else if (m.bool_mask) {
    for (int64_t r = 0; r < nq; ++r) {
      const bool* mr = m.bool_mask + m_off + (i0 + r) * m.ld + j0 * m.cs;
      A* sr = s + r * nk;
      for (int64_t c = 0; c < nk; ++c)
        if (!mr[c * m.cs]) sr[c] = kNegInf;
    }
  } else if (m.add_mask) {
    for (int64_t r = 0; r < nq; ++r) {
      const A* mr = m.add_mask + m_off + (i0 + r) * m.ld + j0 * m.cs;
      A* sr = s + r * nk;
      if (m.cs == 1)
        for (int64_t c = 0; c < nk; ++c) sr[c] += mr[c];
      else
        for (int64_t c = 0; c < nk; ++c) sr[c] += mr[c * m.cs];
    }
  }
}

// Whether a causal block of queries i0..i0+nq-1 and keys j0..j0+nk-1 hides nothing.
inline bool causal_block_visible(int64_t i0, int64_t j0, int64_t nk) { return j0 + nk - 1 <= i0; }

// Lanes of the row loops: independent partial results that the compiler keeps in
// vector registers (a plain float sum does not vectorize without -ffast-math).
constexpr int kLanes = 16;

template <typename A>
static EMBER_VECTOR_CLONES A row_max(const A* x, int64_t n) {
  A part[kLanes];
  for (int t = 0; t < kLanes; ++t) part[t] = -std::numeric_limits<A>::infinity();
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int t = 0; t < kLanes; ++t) part[t] = x[j + t] > part[t] ? x[j + t] : part[t];
  A m = -std::numeric_limits<A>::infinity();
  for (; j < n; ++j) m = x[j] > m ? x[j] : m;
  for (int t = 0; t < kLanes; ++t) m = part[t] > m ? part[t] : m;
  return m;
}

// x[j] = exp(x[j] - m); returns their sum.
template <typename A>
static EMBER_VECTOR_CLONES A exp_sub_sum(A* x, int64_t n, A m) {
  A part[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int t = 0; t < kLanes; ++t) {
      A p = exp_acc(x[j + t] - m);
      x[j + t] = p;
      part[t] += p;
    }
  A s = 0;
  for (; j < n; ++j) {
    x[j] = exp_acc(x[j] - m);
    s += x[j];
  }
  for (int t = 0; t < kLanes; ++t) s += part[t];
  return s;
}

// x[j] = exp(x[j] - lse) (lse = -inf: a query that sees no key, all zeros).
template <typename A>
static EMBER_VECTOR_CLONES void exp_sub(A* x, int64_t n, A lse) {
  if (lse == -std::numeric_limits<A>::infinity()) {
    std::fill(x, x + n, A(0));
    return;
  }
  for (int64_t j = 0; j < n; ++j) x[j] = exp_acc(x[j] - lse);
}

// Runs f(task, scratch) for task in [0, n) on ember's threads (cpu/thread_pool.h: tasks
// are claimed one at a time, so causal tasks of unequal cost balance, and a blas call
// inside a task runs on its thread). Each thread of the region has its own Scratch.
// parallel: whether the call has enough work to wake the other threads.
template <typename Scratch, typename F>
void run_tasks(int64_t n, bool parallel, const F& f) {
  const int threads = parallel ? static_cast<int>(std::min<int64_t>(max_threads(), n)) : 1;
  std::vector<Scratch> scratch(static_cast<size_t>(std::max(threads, 1)));
  if (threads <= 1) {
    for (int64_t t = 0; t < n; ++t) f(t, scratch[0]);
    return;
  }
  run_parallel(n, threads, [&](int64_t t, int slot) { f(t, scratch[static_cast<size_t>(slot)]); });
}

}  // namespace ember::cpu::flash
