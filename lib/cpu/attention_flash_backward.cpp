// scaled_dot_product_flash_attention_backward on the CPU: the gradients wrt q, k and
// v of the fused attention (attention_flash.cpp), block by block as its forward.
//
// The weights are never stored: each block's P = exp(scale * Q K^T + mask - lse) is
// recomputed from the logsumexp the forward saved. With Pd = P * keep (dropout's
// mask and 1 / (1 - p), regenerated from the same Philox counters) and
// D_i = sum_c dO_ic O_ic (= sum_j Pd_ij dPd_ij):
//   dV += Pd^T dO,  dPd = dO V^T,  dS = P * (dPd * keep - D),
//   dQ += scale * dS K,  dK += scale * dS^T Q.
// A task is one key/value head (with enable_gqa, the query heads sharing it run in
// the same task) and a chunk of its query blocks: dQ rows belong to one task, dK and
// dV to one task per chunk (see flash_backward).
#include "cpu/attention_flash_common.h"
#include "cpu/blas.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"
#include "kernels/attention_dropout.h"

namespace ember::cpu {
namespace {

using namespace flash;

template <typename A>
struct BackwardScratch {
  std::vector<A> p = std::vector<A>(kBwdBlockQ * kBwdBlockK);     // weights P
  std::vector<A> pd = std::vector<A>(kBwdBlockQ * kBwdBlockK);    // dropped weights Pd
  std::vector<A> keep = std::vector<A>(kBwdBlockQ * kBwdBlockK);  // dropout's factors
  std::vector<A> dp = std::vector<A>(kBwdBlockQ * kBwdBlockK);    // dPd, then dS
};

template <typename A>
void flash_backward(const Layout& lay, const A* dout, const A* q, const A* k, const A* v,
                    const MaskView<A>& mask, const A* out, const A* lse, A scale, double dropout_p,
                    uint64_t seed, uint64_t offset, A* dq, A* dk, A* dv) {
  const int64_t L = lay.L, S = lay.S, E = lay.E, Ev = lay.Ev, BH = lay.BH, G = lay.groups;
  // D_i = dO_i . O_i
  std::vector<A> D(static_cast<size_t>(BH * L));
  for (int64_t r = 0; r < BH * L; ++r) {
    A s = 0;
    for (int64_t c = 0; c < Ev; ++c) s += dout[r * Ev + c] * out[r * Ev + c];
    D[static_cast<size_t>(r)] = s;
  }
  const bool dropout = dropout_p > 0.0;
  const uint64_t threshold = philox_sample::dropout_threshold(dropout_p);
  const A keep_scale = dropout_p < 1.0 ? A(1.0 / (1.0 - dropout_p)) : A(0);
  const bool parallel = BH * L * S * (E + Ev) >= (1 << 18);
  // Tasks: (key/value head, chunk of query blocks). With few heads, each head's query
  // blocks are split in C chunks, so that a thread the OS deschedules holds up a small
  // task only; chunk c > 0 accumulates its dK, dV into a partial buffer of its own, and
  // the partials are added in chunk order afterwards (the same sums on every run).
  const int64_t KV = BH / G, q_blocks = (L + kBwdBlockQ - 1) / kBwdBlockQ;
  const int threads = parallel ? max_threads() : 1;
  int64_t C = threads > 1 ? std::clamp<int64_t>((8 * threads + KV - 1) / KV, 1, std::max<int64_t>(q_blocks, 1)) : 1;
  while (C > 1 && (C - 1) * KV * S * (E + Ev) > (int64_t(1) << 24)) --C;  // partials: at most 16M elements
  std::vector<A> part_k(static_cast<size_t>((C - 1) * KV * S * E), A(0));
  std::vector<A> part_v(static_cast<size_t>((C - 1) * KV * S * Ev), A(0));
  run_tasks<BackwardScratch<A>>(KV * C, parallel, [&](int64_t task, BackwardScratch<A>& w) {
    const int64_t kv = task / C, c = task % C;
    A* dkb = c == 0 ? dk + kv * S * E : part_k.data() + ((c - 1) * KV + kv) * S * E;
    A* dvb = c == 0 ? dv + kv * S * Ev : part_v.data() + ((c - 1) * KV + kv) * S * Ev;
    const int64_t ib0 = c * q_blocks / C, ib1 = (c + 1) * q_blocks / C;
    for (int64_t bh = kv * G; bh < (kv + 1) * G; ++bh) {
      const A* kb = k + lay.k_off[bh];
      const A* vb = v + lay.v_off[bh];
      const int64_t m_off = lay.m_off.empty() ? 0 : lay.m_off[bh];
      for (int64_t i0 = ib0 * kBwdBlockQ; i0 < std::min(L, ib1 * kBwdBlockQ); i0 += kBwdBlockQ) {
        const int64_t nq = std::min(kBwdBlockQ, L - i0);
        const A* qb = q + lay.q_off[bh] + i0 * lay.q_ld;
        const A* dob = dout + (bh * L + i0) * Ev;
        const A* lse_b = lse + bh * L + i0;
        const A* D_b = D.data() + bh * L + i0;
        A* dqb = dq + (bh * L + i0) * E;
        const int64_t s_end = mask.causal ? std::min(S, i0 + nq) : S;
        for (int64_t j0 = 0; j0 < s_end; j0 += kBwdBlockK) {
          const int64_t nk = std::min(kBwdBlockK, s_end - j0);
          A* p = w.p.data();
          A* dp = w.dp.data();
          blas::gemm(false, true, nq, nk, E, scale, qb, lay.q_ld, kb + j0 * lay.k_ld, lay.k_ld, A(0), p, nk);
          if (!(mask.causal && causal_block_visible(i0, j0, nk))) mask_block(p, nq, nk, i0, j0, mask, m_off);
          for (int64_t r = 0; r < nq; ++r) exp_sub(p + r * nk, nk, lse_b[r]);
          const A* pd = p;
          if (dropout) {
            for (int64_t r = 0; r < nq; ++r) {
              A* kr = w.keep.data() + r * nk;
              attention_dropout::row_keep(kr, nk, seed, offset, bh, i0 + r, j0, L, S, threshold, keep_scale);
              for (int64_t c = 0; c < nk; ++c) w.pd[r * nk + c] = p[r * nk + c] * kr[c];
            }
            pd = w.pd.data();
          }
          blas::gemm(true, false, nk, Ev, nq, A(1), pd, nk, dob, Ev, A(1), dvb + j0 * Ev, Ev);
          blas::gemm(false, true, nq, nk, Ev, A(1), dob, Ev, vb + j0 * lay.v_ld, lay.v_ld, A(0), dp, nk);
          for (int64_t r = 0; r < nq; ++r) {
            A* dr = dp + r * nk;
            const A* pr = p + r * nk;
            const A d = D_b[r];
            if (dropout) {
              const A* kr = w.keep.data() + r * nk;
              for (int64_t c = 0; c < nk; ++c) dr[c] = pr[c] * (dr[c] * kr[c] - d);
            } else {
              for (int64_t c = 0; c < nk; ++c) dr[c] = pr[c] * (dr[c] - d);
            }
          }
          blas::gemm(false, false, nq, E, nk, scale, dp, nk, kb + j0 * lay.k_ld, lay.k_ld, A(1), dqb, E);
          blas::gemm(true, false, nk, E, nq, scale, dp, nk, qb, lay.q_ld, A(1), dkb + j0 * E, E);
        }
      }
    }
  });
  if (C > 1) {
    struct NoScratch {};
    run_tasks<NoScratch>(KV, parallel, [&](int64_t kv, NoScratch&) {
      for (int64_t c = 1; c < C; ++c) {
        const A* pk = part_k.data() + ((c - 1) * KV + kv) * S * E;
        const A* pv = part_v.data() + ((c - 1) * KV + kv) * S * Ev;
        A* dkb = dk + kv * S * E;
        A* dvb = dv + kv * S * Ev;
        for (int64_t i = 0; i < S * E; ++i) dkb[i] += pk[i];
        for (int64_t i = 0; i < S * Ev; ++i) dvb[i] += pv[i];
      }
    });
  }
}

// in: grad_out (contiguous), query, key, value, attn_mask?, output, logsumexp (both
// contiguous, the forward's); attrs: as the forward's. out: grad_query, grad_key,
// grad_value, contiguous, in the shapes of query, key, value.
void sdpa_flash_backward_kernel(OpCall& call) {
  const Tensor& dout = call.in(0);
  const Tensor& q = call.in(1);
  const Tensor& k = call.in(2);
  const Tensor& v = call.in(3);
  const Tensor& mask = call.in(4);
  const Tensor& out = call.in(5);
  const Tensor& lse = call.in(6);
  const auto a = ScaledDotProductFlashAttentionBackwardArgs::from(call);
  const TensorOptions opts(q.dtype());
  auto zeros_of = [&](const Tensor& t) { return zeros(IntList(t.sizes().begin(), t.sizes().end()), opts); };
  Tensor dq = zeros_of(q), dk = zeros_of(k), dv = zeros_of(v);
  const Layout lay = make_layout(q, k, v, mask, a.groups);
  auto run = [&](auto zero) {
    using A = decltype(zero);
    const MaskView<A> mv = make_mask_view<A>(mask, a.is_causal, lay);
    auto ptr = [](const Tensor& t) { return static_cast<const A*>(t.data_ptr()); };
    flash_backward<A>(lay, ptr(dout), ptr(q), ptr(k), ptr(v), mv, ptr(out), ptr(lse), static_cast<A>(a.scale),
                      a.dropout_p, static_cast<uint64_t>(a.seed), static_cast<uint64_t>(a.offset),
                      static_cast<A*>(dq.data_ptr()), static_cast<A*>(dk.data_ptr()),
                      static_cast<A*>(dv.data_ptr()));
  };
  if (q.dtype() == kFloat32)
    run(0.0f);
  else
    run(0.0);
  call.outputs.push_back(dq);
  call.outputs.push_back(dk);
  call.outputs.push_back(dv);
}

EMBER_REGISTER_KERNEL(scaled_dot_product_flash_attention_backward, CPU, sdpa_flash_backward_kernel);

}  // namespace
}  // namespace ember::cpu
