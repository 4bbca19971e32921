// scaled_dot_product_flash_attention on the CPU: attention as one pass over blocks
// (the flash attention scheme), never holding more of the [L, S] weights than one
// block of kBlockQ queries against kBlockK keys.
//
// For each (batch * head, block of queries), a task: for each block of keys, scores
// = scale * Q K^T (one gemm), masked; each row keeps its running max m and sum l of
// exp(score - m); when a block raises a row's max, the row's output accumulator
// and l are rescaled by exp(m_old - m_new); then acc += P V (one gemm). At the end
// out = acc / l and logsumexp = m + log(l), which the backward uses to recompute the
// weights block by block. is_causal skips the key blocks a query block cannot see.
// A query that sees no key (all masked) gives zeros and logsumexp -inf, as the
// composite's safe softmax does. Dropout zeroes weights after the normalizer
// (sum) is taken, as dropout(softmax(s)) @ v does; which ones: kernels/attention_dropout.h.
//
// float32 and float64 compute in their own type (the accumulators are the output's
// type), the gemms are blas::gemm's (oneDNN / OpenBLAS on the calling thread).
#include "cpu/attention_flash_common.h"
#include "cpu/blas.h"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/factories.h"
#include "kernels/attention_dropout.h"

namespace ember::cpu {
namespace {

using namespace flash;

template <typename A>
struct ForwardScratch {
  std::vector<A> s = std::vector<A>(kBlockQ * kBlockK);    // scores, then weights
  std::vector<A> acc;                                      // [kBlockQ, Ev] output rows
  std::vector<A> m = std::vector<A>(kBlockQ), l = std::vector<A>(kBlockQ);
  std::vector<A> keep = std::vector<A>(kBlockK);           // one row of the dropout mask
};

template <typename A>
void flash_forward(const Layout& lay, const A* q, const A* k, const A* v, const MaskView<A>& mask,
                   A scale, double dropout_p, uint64_t seed, uint64_t offset, A* out, A* lse) {
  const int64_t L = lay.L, S = lay.S, E = lay.E, Ev = lay.Ev;
  const int64_t q_blocks = (L + kBlockQ - 1) / kBlockQ;
  const bool dropout = dropout_p > 0.0;
  const uint64_t threshold = philox_sample::dropout_threshold(dropout_p);
  const A keep_scale = dropout_p < 1.0 ? A(1.0 / (1.0 - dropout_p)) : A(0);
  constexpr A kNegInf = -std::numeric_limits<A>::infinity();
  // Two threads pay from about a 64 x 64 x 64 problem on.
  const bool parallel = lay.BH * L * S * (E + Ev) >= (1 << 19);
  run_tasks<ForwardScratch<A>>(lay.BH * q_blocks, parallel, [&](int64_t task, ForwardScratch<A>& w) {
    const int64_t bh = task / q_blocks, i0 = (task % q_blocks) * kBlockQ;
    const int64_t nq = std::min(kBlockQ, L - i0);
    const A* qb = q + lay.q_off[bh] + i0 * lay.q_ld;
    const int64_t m_off = lay.m_off.empty() ? 0 : lay.m_off[bh];
    w.acc.assign(static_cast<size_t>(nq * Ev), A(0));
    std::fill(w.m.begin(), w.m.end(), kNegInf);
    std::fill(w.l.begin(), w.l.end(), A(0));
    // Causal: the last query of the block sees keys up to i0 + nq - 1.
    const int64_t s_end = mask.causal ? std::min(S, i0 + nq) : S;
    for (int64_t j0 = 0; j0 < s_end; j0 += kBlockK) {
      const int64_t nk = std::min(kBlockK, s_end - j0);
      A* s = w.s.data();
      blas::gemm(false, true, nq, nk, E, scale, qb, lay.q_ld, k + lay.k_off[bh] + j0 * lay.k_ld, lay.k_ld,
                 A(0), s, nk);
      if (!(mask.causal && causal_block_visible(i0, j0, nk))) mask_block(s, nq, nk, i0, j0, mask, m_off);
      for (int64_t r = 0; r < nq; ++r) {
        A* sr = s + r * nk;
        const A m_new = std::max(w.m[r], row_max(sr, nk));
        if (m_new == kNegInf) {  // nothing visible yet: the row's weights are 0
          std::fill(sr, sr + nk, A(0));
          continue;
        }
        const A corr = exp_acc(w.m[r] - m_new);  // 0 on the first visible block
        w.l[r] = w.l[r] * corr + exp_sub_sum(sr, nk, m_new);
        w.m[r] = m_new;
        if (corr != A(1)) {
          A* ar = w.acc.data() + r * Ev;
          for (int64_t c = 0; c < Ev; ++c) ar[c] *= corr;
        }
        if (dropout) {
          attention_dropout::row_keep(w.keep.data(), nk, seed, offset, bh, i0 + r, j0, L, S, threshold,
                                      keep_scale);
          for (int64_t c = 0; c < nk; ++c) sr[c] *= w.keep[c];
        }
      }
      blas::gemm(false, false, nq, Ev, nk, A(1), s, nk, v + lay.v_off[bh] + j0 * lay.v_ld, lay.v_ld, A(1),
                 w.acc.data(), Ev);
    }
    A* ob = out + (bh * L + i0) * Ev;
    for (int64_t r = 0; r < nq; ++r) {
      const bool seen = w.l[r] > A(0);
      const A inv = seen ? A(1) / w.l[r] : A(0);
      for (int64_t c = 0; c < Ev; ++c) ob[r * Ev + c] = w.acc[r * Ev + c] * inv;
      lse[bh * L + i0 + r] = seen ? w.m[r] + std::log(w.l[r]) : kNegInf;
    }
  });
}

// in: query, key, value, attn_mask?; attrs: dropout_p, is_causal, scale, groups, seed,
// offset. out: output [lead..., L, Ev] (contiguous), logsumexp [lead..., L].
void sdpa_flash_kernel(OpCall& call) {
  const Tensor& q = call.in(0);
  const Tensor& k = call.in(1);
  const Tensor& v = call.in(2);
  const Tensor& mask = call.in(3);
  const auto a = ScaledDotProductFlashAttentionArgs::from(call);
  DimVector out_shape(q.sizes().begin(), q.sizes().end() - 1);
  const DimVector lse_shape = out_shape;
  out_shape.push_back(v.size(-1));
  Tensor out = empty(out_shape, TensorOptions(q.dtype()));
  Tensor lse = empty(lse_shape, TensorOptions(q.dtype()));
  const Layout lay = make_layout(q, k, v, mask, a.groups);
  auto run = [&](auto zero) {
    using A = decltype(zero);
    const MaskView<A> mv = make_mask_view<A>(mask, a.is_causal, lay);
    flash_forward<A>(lay, static_cast<const A*>(q.data_ptr()), static_cast<const A*>(k.data_ptr()),
                     static_cast<const A*>(v.data_ptr()), mv, static_cast<A>(a.scale), a.dropout_p,
                     static_cast<uint64_t>(a.seed), static_cast<uint64_t>(a.offset),
                     static_cast<A*>(out.data_ptr()), static_cast<A*>(lse.data_ptr()));
  };
  if (q.dtype() == kFloat32)
    run(0.0f);
  else
    run(0.0);
  call.outputs.push_back(out);
  call.outputs.push_back(lse);
}

EMBER_REGISTER_KERNEL(scaled_dot_product_flash_attention, CPU, sdpa_flash_kernel);

}  // namespace
}  // namespace ember::cpu
