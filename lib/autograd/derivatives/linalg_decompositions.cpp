// Derivative rows of the LAPACK primitives (lib/dispatch/schema/linalg.toml, the
// "matrix decompositions" rows). The formulas are PyTorch's (FunctionsManual.cpp:
// linalg_lu_backward, linalg_det_backward, linalg_solve_triangular_backward,
// cholesky_backward, linalg_qr_backward, linalg_eig_backward, svd_backward) for real
// inputs, written with ember ops so that they are differentiable themselves.
#include <algorithm>

#include "autograd/derivatives.h"
#include "dispatch/args/linalg.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/linalg_decompositions.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/tensor_api.h"
#include "ember/ops/views.h"

namespace ember::autograd {
namespace {

Tensor half_diagonal(const Tensor& x) { return diag_embed(diagonal(x, 0, -2, -1)) * Scalar(0.5); }

// (P X)[perm[i]] = X[i] for the permutation P of LAPACK's pivots.
Tensor permute_rows_by_pivots(const Tensor& x, const Tensor& pivots) {
  Tensor perm = lu_pivots_to_permutation(pivots, x.size(-2));
  Tensor rows = expand(unsqueeze(perm, -1), IntList(x.sizes().begin(), x.sizes().end()));
  return scatter(zeros_like(x), -2, rows, x);
}

EMBER_DERIVATIVE_FULL(linalg_lu_factor_ex, save_none(), save_inputs({0, 1}), {
  Tensor lu = ctx.output(0), pivots = ctx.output(1), g = ctx.grad(0);
  int64_t m = lu.size(-2), n = lu.size(-1), k = std::min(m, n);
  // A = P L U with L [m, k] unit lower, U [k, n] upper, both packed in LU (and in its gradient).
  Tensor l = narrow(tril(lu, -1), -1, 0, k) + eye(m, k, TensorOptions(lu.dtype()).device(lu.device()));
  Tensor u = narrow(triu(lu), -2, 0, k);
  Tensor gl = narrow(tril(g, -1), -1, 0, k), gu = narrow(triu(g), -2, 0, k);
  Tensor ga;
  if (m == n) {
    // phi = tril(L^T gL, -1) + triu(gU U^T), gA = P L^{-T} phi U^{-T}.
    Tensor phi = tril(matmul(l.mT(), gl), -1) + triu(matmul(gu, u.mT()));
    ga = linalg_solve_triangular(l.mT(), phi, true, true, true);
    ga = linalg_solve_triangular(u.mT(), ga, false, false);
  } else if (m < n) {
    // Wide, U = [U1 U2]: gA = P L^{-T} [gU1 + tril(L^T gL - gU U^T, -1) U1^{-T}, gU2].
    Tensor u1 = narrow(u, -1, 0, k);
    ga = tril(matmul(l.mT(), gl) - matmul(gu, u.mT()), -1);
    ga = linalg_solve_triangular(u1.mT(), ga, false, false);
    ga = cat({ga + narrow(gu, -1, 0, k), narrow(gu, -1, k, n - k)}, -1);
    ga = linalg_solve_triangular(l.mT(), ga, true, true, true);
  } else {
    // Tall, L = [L1; L2]: gA = P [gL1 + L1^{-T} triu(gU U^T - L^T gL); gL2] U^{-T}.
    Tensor l1 = narrow(l, -2, 0, k);
    ga = triu(matmul(gu, u.mT()) - matmul(l.mT(), gl));
    ga = linalg_solve_triangular(l1.mT(), ga, true, true, true);
    ga = cat({ga + narrow(gl, -2, 0, k), narrow(gl, -2, k, m - k)}, -2);
    ga = linalg_solve_triangular(u.mT(), ga, false, false);
  }
  return {permute_rows_by_pivots(ga, pivots)};
});

// d det = det * tr(A^{-1} dA): gA = g det A^{-T}. Where some det is exactly zero, the
// cofactor matrix from the SVD A = U S Vh: det(U) det(Vh) U diag(prod_{j != i} S_j) Vh.
EMBER_DERIVATIVE_FULL(linalg_det, save_inputs({0}), save_inputs({0}), {
  Tensor a = ctx.input(0), det_ = ctx.output(0), g = ctx.grad(0);
  if (a.numel() == 0) return {zeros_like(a)};
  bool singular = any(eq(det_, Scalar(0))).cpu().item<bool>();
  Tensor scale = unsqueeze(unsqueeze(g * det_, -1), -1);
  if (!singular) return {scale * linalg_inv(a).mT()};
  auto [u, s, vh] = linalg_svd(a, false, true);
  int64_t k = s.size(-1);
  Tensor on_diagonal = eye(k, std::nullopt, TensorOptions(kBool).device(a.device()));
  IntList square(s.sizes().begin(), s.sizes().end());
  square.push_back(k);
  Tensor others = prod(where(on_diagonal, Scalar(1), expand(unsqueeze(s, -2), square)), IntList{-1});
  Tensor alpha = linalg_det(u) * linalg_det(vh);
  Tensor coef = unsqueeze(g * alpha, -1) * others;
  return {matmul(u * unsqueeze(coef, -2), vh)};
});

EMBER_DERIVATIVE_FULL(linalg_solve_triangular, save_inputs({0}), save_inputs({0}), {
  const auto args = LinalgSolveTriangularArgs::from(ctx);
  Tensor a = ctx.input(0), x = ctx.output(0), g = ctx.grad(0);
  // left: A X = B, gB = A^{-T} g, gA = -gB X^T; right: X A = B, gB = g A^{-T}, gA = -X^T gB.
  Tensor gb = linalg_solve_triangular(a.mT(), g, !args.upper, args.left, args.unitriangular);
  Tensor ga;
  if (ctx.needs_grad(0)) {
    ga = -(args.left ? matmul(gb, x.mT()) : matmul(x.mT(), gb));
    int64_t off = args.unitriangular ? 1 : 0;
    ga = args.upper ? triu(ga, off) : tril(ga, -off);
  }
  return {ga, ctx.needs_grad(1) ? gb : Tensor()};
});

EMBER_DERIVATIVE_FULL(linalg_cholesky_ex, save_none(), save_inputs({0}), {
  const auto args = LinalgCholeskyExArgs::from(ctx);
  Tensor l = ctx.output(0), g = ctx.grad(0);
  if (args.upper) {
    l = l.mT();
    g = g.mT();
  }
  // phi = tril(L^T gL) with its diagonal halved; gA = sym(L^{-T} phi L^{-1}).
  Tensor phi = matmul(l.mT(), g);
  phi = tril(phi) - half_diagonal(phi);
  Tensor ga = linalg_solve_triangular(l.mT(), phi, true, true);
  ga = linalg_solve_triangular(l, ga, false, false);
  return {(ga + ga.mT()) * Scalar(0.5)};
});

// QR of a square or tall A (m >= n): gA = (gQ + Q syminvadj(triu(gR R^T - Q^T gQ))) R^{-T},
// syminvadj(X) = X + X^T - diag(X).
Tensor qr_backward_tall(const Tensor& gq, const Tensor& gr, const Tensor& q, const Tensor& r) {
  Tensor m = triu(matmul(gr, r.mT()) - matmul(q.mT(), gq));
  Tensor sym = m + m.mT() - half_diagonal(m) * Scalar(2);
  Tensor ga = matmul(q, sym) + gq;
  return linalg_solve_triangular(r.mT(), ga, false, false);
}

EMBER_DERIVATIVE_FULL(linalg_qr, save_none(), save_inputs({0, 1}), {
  const std::string mode = LinalgQrArgs::from(ctx).mode;
  Tensor q = ctx.output(0), r = ctx.output(1);
  EMBER_CHECK(mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
              "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  int64_t m = q.size(-2), n = r.size(-1);
  EMBER_CHECK(mode == "reduced" || m <= n,
              "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  Tensor gq = ctx.grad(0), gr = ctx.grad(1);
  if (m >= n) return {qr_backward_tall(gq, gr, q, r)};
  // Wide: A = Q [R1 R2] with A1 = Q R1 square and R2 = Q^T A2, so A2 feeds Q's gradient too.
  Tensor r1 = narrow(r, -1, 0, m), r2 = narrow(r, -1, m, n - m);
  Tensor gr1 = narrow(gr, -1, 0, m), gr2 = narrow(gr, -1, m, n - m);
  Tensor a2 = matmul(q, r2);
  Tensor ga1 = qr_backward_tall(gq + matmul(a2, gr2.mT()), gr1, q, r1);
  return {cat({ga1, matmul(q, gr2)}, -1)};
});

// gA = V (skew(V^T gV) / E + diag(gL)) V^T, E_ij = L_j - L_i (1 on the diagonal),
// skew(X) = (X - X^T) / 2.
EMBER_DERIVATIVE_FULL(linalg_eigh, save_none(), save_inputs({0, 1}), {
  Tensor l = ctx.output(0), v = ctx.output(1);
  Tensor inner;
  if (ctx.has_grad(1)) {
    Tensor vgv = matmul(v.mT(), ctx.grad(1));
    Tensor e = unsqueeze(l, -2) - unsqueeze(l, -1);
    e = e + eye(l.size(-1), std::nullopt, TensorOptions(l.dtype()).device(l.device()));
    inner = (vgv - vgv.mT()) * Scalar(0.5) / e;
  }
  if (ctx.has_grad(0)) inner = inner.defined() ? inner + diag_embed(ctx.grad(0)) : diag_embed(ctx.grad(0));
  if (!inner.defined()) return {zeros_like(ctx.output(1))};
  return {matmul(v, matmul(inner, v.mT()))};
});

// svd_backward for m >= n (a wide A is handled through its transpose), U and Vh cut to
// their first k = min(m, n) singular vectors.
Tensor svd_backward_tall(const Tensor& gu, const Tensor& gs, const Tensor& gvh, const Tensor& u, const Tensor& s,
                         const Tensor& vh) {
  if (!gu.defined() && !gvh.defined()) return matmul(u, unsqueeze(gs, -1) * vh);
  Tensor s2 = s * s;
  Tensor e = unsqueeze(s2, -2) - unsqueeze(s2, -1);
  e = e + eye(s.size(-1), std::nullopt, TensorOptions(s.dtype()).device(s.device()));
  Tensor ga;
  if (gu.defined()) {
    Tensor ugu = matmul(u.mT(), gu);
    ga = (ugu - ugu.mT()) * unsqueeze(s, -2) / e;
  }
  if (gvh.defined()) {
    Tensor vgv = matmul(vh, gvh.mT());
    Tensor term = unsqueeze(s, -1) * (vgv - vgv.mT()) / e;
    ga = ga.defined() ? ga + term : term;
  }
  if (gs.defined()) ga = ga + diag_embed(gs);
  ga = matmul(u, ga);
  if (gu.defined() && u.size(-2) > u.size(-1)) {
    // The part of gU outside U's span: (I - U U^T) gU S^{-1}.
    Tensor gus = gu / unsqueeze(s, -2);
    ga = ga + gus - matmul(u, matmul(u.mT(), gus));
  }
  return matmul(ga, vh);
}

EMBER_DERIVATIVE_FULL(linalg_svd, save_none(), save_inputs({0, 1, 2}), {
  const auto args = LinalgSvdArgs::from(ctx);
  EMBER_CHECK(args.compute_uv, "linalg.svd: the derivative needs U and Vh, which compute_uv=False does not "
              "compute; use linalg.svdvals or compute_uv=True");
  Tensor u = ctx.output(0), s = ctx.output(1), vh = ctx.output(2);
  int64_t m = u.size(-2), n = vh.size(-1), k = s.size(-1);
  Tensor gu = ctx.has_grad(0) ? narrow(ctx.grad(0), -1, 0, k) : Tensor();
  Tensor gvh = ctx.has_grad(2) ? narrow(ctx.grad(2), -2, 0, k) : Tensor();
  Tensor gs = ctx.has_grad(1) ? ctx.grad(1) : zeros_like(s);
  u = narrow(u, -1, 0, k);
  vh = narrow(vh, -2, 0, k);
  if (m >= n) return {svd_backward_tall(gu, gs, gvh, u, s, vh)};
  // A^T = V S U^T.
  Tensor gat = svd_backward_tall(gvh.defined() ? gvh.mT() : Tensor(), gs, gu.defined() ? gu.mT() : Tensor(),
                                 vh.mT(), s, u.mT());
  return {gat.mT()};
});

}  // namespace
}  // namespace ember::autograd
