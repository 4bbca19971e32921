"""The LAPACK-backed linear algebra (ember.linalg's decompositions, solvers, inverse,
determinants and what is built on them; the torch-level and Tensor-method spellings)
against PyTorch: values on random well-conditioned, batched, broadcast, non-contiguous
and empty inputs in float32 and float64; decompositions through invariants where signs
are not unique (A == Q R, V diag(L) V^T, U diag(S) Vh); gradients against torch's and
float64 finite differences (ember.autograd.gradcheck); errors of the same kind as torch's.
Skipped without torch."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

DTYPES = [np.float32, np.float64]


def rnd(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed + 31 * len(shape) + sum(shape)).standard_normal(shape).astype(dtype)


def well(*shape, seed=0, dtype=np.float64):
    """A random matrix (batch) with a dominant diagonal: well-conditioned and non-singular."""
    a = rnd(*shape, seed=seed)
    n = shape[-1]
    if shape[-2] == n:
        a = a + 2 * np.sqrt(max(n, 1)) * np.eye(n)
    return a.astype(dtype)


def spd(*shape, seed=0, dtype=np.float64):
    a = rnd(*shape, seed=seed)
    n = shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def pair(a, requires_grad=False):
    a = np.array(a)
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if requires_grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def tol(dtype):
    return dict(rtol=2e-4, atol=2e-4) if dtype == np.float32 or str(dtype).endswith("float32") else \
        dict(rtol=1e-9, atol=1e-9)


def check(e, t, rtol=None, atol=None):
    t = t.detach()
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (e.dtype, t.dtype)
    kw = tol(str(t.dtype))
    if rtol is not None:
        kw = dict(rtol=rtol, atol=atol if atol is not None else rtol)
    np.testing.assert_allclose(e.detach().numpy(), t.numpy(), equal_nan=True, **kw)


def np_of(x):
    return x.detach().numpy()


def compare_grads(fn, *arrays, rtol=1e-7, fd=True):
    """fn(lib, *tensors) -> a tensor or tuple; a fixed random weighting of every output is
    summed into a loss: ember's gradients match torch's, and float64 finite differences."""
    es, ts = zip(*(pair(a, True) for a in arrays))
    er, tr = fn(ember, *es), fn(torch, *ts)
    er = er if isinstance(er, tuple) else (er,)
    tr = tr if isinstance(tr, tuple) else (tr,)
    rng = np.random.default_rng(5)
    weights = [rng.standard_normal(tuple(t.shape)) for t in tr]
    le = sum((e * ember.from_numpy(w.copy())).sum() for e, w in zip(er, weights))
    lt = sum((t * torch.from_numpy(w.copy())).sum() for t, w in zip(tr, weights))
    ge = ember.autograd.grad(le, es, allow_unused=True)
    gt = torch.autograd.grad(lt, ts, allow_unused=True)
    for a, b in zip(ge, gt):
        if b is None:
            assert a is None or not np.any(np_of(a))
            continue
        np.testing.assert_allclose(np_of(a), b.numpy(), rtol=rtol, atol=rtol)
    if fd:
        def loss(*xs):
            out = fn(ember, *xs)
            out = out if isinstance(out, tuple) else (out,)
            return sum((o * ember.from_numpy(w.copy())).sum() for o, w in zip(out, weights))
        leaves = [ember.from_numpy(np.array(a, dtype=np.float64).copy()).requires_grad_(True) for a in arrays]
        assert ember.autograd.gradcheck(loss, leaves, eps=1e-6, atol=1e-5, rtol=1e-4)


# ---- determinants, inverse, solve ----------------------------------------------------------------

SQUARE_SHAPES = [(3, 3), (1, 1), (2, 4, 4), (2, 3, 5, 5), (0, 3, 3), (0, 0), (2, 0, 0)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SQUARE_SHAPES)
def test_det_slogdet_logdet_inv(shape, dtype):
    a = rnd(*shape, dtype=dtype) if shape[-1] else np.zeros(shape, dtype)
    e, t = pair(a)
    check(ember.linalg.det(e), torch.linalg.det(t))
    check(ember.det(e), torch.det(t))
    check(e.det(), t.det())
    se, le = ember.linalg.slogdet(e)
    st, lt = torch.linalg.slogdet(t)
    check(se, st)
    check(le, lt)
    check(ember.logdet(e), torch.logdet(t))
    check(e.logdet(), t.logdet())
    w = well(*shape, dtype=dtype) if shape[-1] else np.zeros(shape, dtype)
    e, t = pair(w)
    check(ember.linalg.inv(e), torch.linalg.inv(t))
    check(ember.inverse(e), torch.inverse(t))
    check(e.inverse(), t.inverse())
    inv, info = ember.linalg.inv_ex(e)
    check(inv, torch.linalg.inv_ex(t).inverse)
    check(info, torch.linalg.inv_ex(t).info)


def test_det_non_contiguous_and_singular():
    a = rnd(3, 4, 4)
    e, t = pair(a)
    check(ember.linalg.det(e.mT), torch.linalg.det(t.mT))
    check(ember.linalg.inv(e.transpose(0, 2)[..., :3, :3] + 0), torch.linalg.inv(t.transpose(0, 2)[..., :3, :3] + 0))
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    e, t = pair(s)
    check(ember.linalg.det(e), torch.linalg.det(t))
    check(ember.linalg.slogdet(e).logabsdet, torch.linalg.slogdet(t).logabsdet)
    check(ember.linalg.slogdet(e).sign, torch.linalg.slogdet(t).sign)
    neg = np.diag([-1.0, 2.0])
    check(ember.logdet(pair(neg)[0]), torch.logdet(pair(neg)[1]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_broadcast_vector_left(dtype):
    A = well(2, 1, 3, 3, dtype=dtype)
    B = rnd(4, 3, 2, dtype=dtype)
    (ea, ta), (eb, tb) = pair(A), pair(B)
    check(ember.linalg.solve(ea, eb), torch.linalg.solve(ta, tb))
    check(ember.linalg.solve(ea, eb.mT, left=False), torch.linalg.solve(ta, tb.mT, left=False))
    v = rnd(3, dtype=dtype)
    (ev, tv) = pair(v)
    check(ember.linalg.solve(ea, ev), torch.linalg.solve(ta, tv))
    A2, b2 = well(2, 3, 3, dtype=dtype), rnd(2, 3, dtype=dtype)
    (ea2, ta2), (eb2, tb2) = pair(A2), pair(b2)
    check(ember.linalg.solve(ea2, eb2), torch.linalg.solve(ta2, tb2))
    x, info = ember.linalg.solve_ex(ea2, eb2)
    check(x, torch.linalg.solve_ex(ta2, tb2).result)
    check(info, torch.linalg.solve_ex(ta2, tb2).info)
    # empty batch and empty right-hand side
    (e0, t0), (b0, c0) = pair(np.zeros((0, 3, 3), dtype)), pair(np.zeros((0, 3, 2), dtype))
    check(ember.linalg.solve(e0, b0), torch.linalg.solve(t0, c0))
    (e1, t1), (b1, c1) = pair(well(3, 3, dtype=dtype)), pair(np.zeros((3, 0), dtype))
    check(ember.linalg.solve(e1, b1), torch.linalg.solve(t1, c1))


def test_out_arguments():
    a = well(3, 3)
    e, t = pair(a)
    out = ember.empty(0, dtype=ember.float64)
    r = ember.linalg.inv(e, out=out)
    assert r is out
    check(out, torch.linalg.inv(t))
    s, l = ember.empty(0, dtype=ember.float64), ember.empty(0, dtype=ember.float64)
    ember.linalg.slogdet(e, out=(s, l))
    check(l, torch.linalg.slogdet(t).logabsdet)


# ---- LU ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (5, 3), (3, 5), (0, 2, 2), (0, 0)])
def test_lu_factor_lu_unpack(shape, dtype):
    a = rnd(*shape, dtype=dtype)
    e, t = pair(a)
    LU, piv, info = ember.linalg.lu_factor_ex(e)
    tLU, tpiv, tinfo = torch.linalg.lu_factor_ex(t)
    check(LU, tLU)
    check(piv, tpiv)
    check(info, tinfo)
    P, L, U = ember.linalg.lu(e)
    tP, tL, tU = torch.linalg.lu(t)
    check(P, tP)
    check(L, tL)
    check(U, tU)
    uP, uL, uU = ember.lu_unpack(LU, piv)
    check(uP, tP)
    check(uL, tL)
    check(uU, tU)
    lu_old, piv_old = ember.lu(e)
    check(lu_old, tLU)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left,adjoint", [(True, False), (True, True), (False, False), (False, True)])
def test_lu_solve(left, adjoint, dtype):
    A = well(2, 4, 4, dtype=dtype)
    B = rnd(2, 4, 3, dtype=dtype) if left else rnd(2, 3, 4, dtype=dtype)
    (ea, ta), (eb, tb) = pair(A), pair(B)
    LU, piv = ember.linalg.lu_factor(ea)
    tLU, tpiv = torch.linalg.lu_factor(ta)
    check(ember.linalg.lu_solve(LU, piv, eb, left=left, adjoint=adjoint),
          torch.linalg.lu_solve(tLU, tpiv, tb, left=left, adjoint=adjoint))
    if left and not adjoint:
        check(ember.lu_solve(eb, LU, piv), torch.lu_solve(tb, tLU, tpiv))
        check(eb.lu_solve(LU, piv), tb.lu_solve(tLU, tpiv))


# ---- Cholesky, triangular solves --------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (0, 2, 2), (0, 0)])
def test_cholesky_family(shape, dtype):
    a = spd(*shape, dtype=dtype)
    e, t = pair(a)
    for upper in (False, True):
        check(ember.linalg.cholesky(e, upper=upper), torch.linalg.cholesky(t, upper=upper))
        L, info = ember.linalg.cholesky_ex(e, upper=upper)
        check(L, torch.linalg.cholesky_ex(t, upper=upper).L)
        check(info, torch.linalg.cholesky_ex(t, upper=upper).info)
        # torch 2.15 removed torch.cholesky; ember keeps it for older programs (same as linalg.cholesky)
        check(ember.cholesky(e, upper), torch.linalg.cholesky(t, upper=upper))
        check(e.cholesky(upper), torch.linalg.cholesky(t, upper=upper))
        fe, ft = ember.linalg.cholesky(e, upper=upper), torch.linalg.cholesky(t, upper=upper)
        check(ember.cholesky_inverse(fe, upper), torch.cholesky_inverse(ft, upper))
        check(fe.cholesky_inverse(upper), ft.cholesky_inverse(upper))
        b = rnd(*shape[:-1], 2, dtype=dtype)
        eb, tb = pair(b)
        check(ember.cholesky_solve(eb, fe, upper), torch.cholesky_solve(tb, ft, upper))
        check(eb.cholesky_solve(fe, upper), tb.cholesky_solve(ft, upper))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_solve_triangular(upper, left, unitriangular, dtype):
    A = well(2, 1, 4, 4, dtype=dtype)
    B = rnd(3, 4, 2, dtype=dtype) if left else rnd(3, 2, 4, dtype=dtype)
    (ea, ta), (eb, tb) = pair(A), pair(B)
    kw = dict(upper=upper, left=left, unitriangular=unitriangular)
    check(ember.linalg.solve_triangular(ea, eb, **kw), torch.linalg.solve_triangular(ta, tb, **kw))
    # non-contiguous operands
    check(ember.linalg.solve_triangular(ea.mT, eb, **kw), torch.linalg.solve_triangular(ta.mT, tb, **kw))


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("upper", [True, False])
def test_triangular_solve_old_api(transpose, upper):
    A, b = well(2, 3, 3), rnd(2, 3, 2)
    (ea, ta), (eb, tb) = pair(A), pair(b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tx, tc = torch.triangular_solve(tb, ta, upper=upper, transpose=transpose)
    ex, ec = ember.triangular_solve(eb, ea, upper=upper, transpose=transpose)
    check(ex, tx)
    check(ec, tc)
    check(eb.triangular_solve(ea, upper, transpose)[0], tx)


# ---- QR, eigh, SVD ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 5, 3), (0, 3, 2), (0, 3), (3, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(shape, mode, dtype):
    a = rnd(*shape, dtype=dtype)
    e, t = pair(a)
    Q, R = ember.linalg.qr(e, mode)
    tQ, tR = torch.linalg.qr(t, mode)
    check(R, tR)  # Householder QR is unique given LAPACK's sign convention
    check(Q, tQ)
    if mode != "r":
        np.testing.assert_allclose(np_of(ember.matmul(Q, R)), a, **tol(dtype))
    if mode != "r" and len(shape) == 2:
        q2, r2 = ember.qr(e, some=mode == "reduced")
        check(q2, tQ)
        check(r2, tR)


def test_geqrf_householder_product_ormqr():
    a = rnd(5, 3)
    e, t = pair(a)
    ea, etau = ember.geqrf(e)
    ta, ttau = torch.geqrf(t)
    check(ea, ta)
    check(etau, ttau)
    check(ember.linalg.householder_product(ea, etau), torch.linalg.householder_product(ta, ttau))
    check(ember.orgqr(ea, etau), torch.orgqr(ta, ttau))
    check(e.geqrf()[1], ttau)
    for left in (True, False):
        for transpose in (True, False):
            c = rnd(5, 2) if left else rnd(2, 5)
            ec, tc = pair(c)
            check(ember.ormqr(ea, etau, ec, left, transpose), torch.ormqr(ta, ttau, tc, left, transpose))
    compare_grads(lambda m, x, tau: m.linalg.householder_product(x, tau), rnd(4, 3), rnd(2) * 0.5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (1, 1), (0, 2, 2), (0, 0)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(shape, uplo, dtype):
    a = rnd(*shape, dtype=dtype)
    a = a + np.swapaxes(a, -1, -2)
    e, t = pair(a)
    L, V = ember.linalg.eigh(e, uplo)
    tL, tV = torch.linalg.eigh(t, uplo)
    check(L, tL)
    assert V.shape == tV.shape
    n = shape[-1]
    np.testing.assert_allclose(np_of(V) @ (np_of(L)[..., :, None] * np.swapaxes(np_of(V), -1, -2)), a, **tol(dtype))
    np.testing.assert_allclose(np.swapaxes(np_of(V), -1, -2) @ np_of(V), np.broadcast_to(np.eye(n), V.shape),
                               **tol(dtype))
    check(ember.linalg.eigvalsh(e, uplo), torch.linalg.eigvalsh(t, uplo))
    # only the named triangle is read
    junk = np.triu(rnd(*shape), 1) if uplo == "L" else np.tril(rnd(*shape), -1)
    check(ember.linalg.eigvalsh(pair((a + junk).astype(dtype))[0], uplo), tL)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 5, 3), (0, 3, 2), (0, 3), (3, 0)])
@pytest.mark.parametrize("full", [False, True])
def test_svd(shape, full, dtype):
    a = rnd(*shape, dtype=dtype)
    e, t = pair(a)
    U, S, Vh = ember.linalg.svd(e, full_matrices=full)
    tU, tS, tVh = torch.linalg.svd(t, full_matrices=full)
    check(S, tS)
    assert U.shape == tU.shape and Vh.shape == tVh.shape
    k = min(shape[-2:])
    recon = np_of(U)[..., :, :k] @ (np_of(S)[..., :, None] * np_of(Vh)[..., :k, :])
    np.testing.assert_allclose(recon, a, **tol(dtype))
    m, n = shape[-2:]
    ucols, vrows = U.shape[-1], Vh.shape[-2]
    np.testing.assert_allclose(np.swapaxes(np_of(U), -1, -2) @ np_of(U), np.broadcast_to(np.eye(ucols), U.shape[:-2] + (ucols, ucols)), **tol(dtype))
    np.testing.assert_allclose(np_of(Vh) @ np.swapaxes(np_of(Vh), -1, -2), np.broadcast_to(np.eye(vrows), Vh.shape[:-2] + (vrows, vrows)), **tol(dtype))
    check(ember.linalg.svdvals(e), torch.linalg.svdvals(t))
    if not full:
        eU, eS, eV = ember.svd(e)
        _, _, tV = torch.svd(t)
        assert eV.shape == tV.shape
        np.testing.assert_allclose(np_of(eU) @ (np_of(eS)[..., :, None] * np.swapaxes(np_of(eV), -1, -2)), a,
                                   **tol(dtype))
        zU, zS, zV = e.svd(compute_uv=False)
        tzU, tzS, tzV = t.svd(compute_uv=False)
        check(zU, tzU)
        check(zS, tzS)
        check(zV, tzV)


# ---- built from the decompositions ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_pinv_rank_cond_norms(dtype):
    a = rnd(2, 5, 3, dtype=dtype)
    low = (rnd(4, 2) @ rnd(2, 4)).astype(dtype)  # rank 2
    sym = (low + low.T).astype(dtype)
    for x in (a, low, np.zeros((0, 3), dtype)):
        e, t = pair(x)
        check(ember.linalg.matrix_rank(e), torch.linalg.matrix_rank(t))
        if x is low and dtype == np.float32:
            continue  # rounding-level singular values decide the float32 pseudo-inverse
        check(ember.linalg.pinv(e), torch.linalg.pinv(t), rtol=1e-3 if dtype == np.float32 else 1e-7)
        check(ember.pinverse(e), torch.pinverse(t), rtol=1e-3 if dtype == np.float32 else 1e-7)
    e, t = pair(sym)
    check(ember.linalg.pinv(e, hermitian=True), torch.linalg.pinv(t, hermitian=True), rtol=1e-3 if dtype == np.float32 else 1e-7)
    check(ember.linalg.matrix_rank(e, hermitian=True), torch.linalg.matrix_rank(t, hermitian=True))
    check(ember.linalg.matrix_rank(e, atol=1.0, rtol=0.0), torch.linalg.matrix_rank(t, atol=1.0, rtol=0.0))
    w = well(2, 4, 4, dtype=dtype)
    e, t = pair(w)
    for p in (None, 2, -2, "fro", "nuc", 1, -1, float("inf"), float("-inf")):
        check(ember.linalg.cond(e, p), torch.linalg.cond(t, p), rtol=1e-3 if dtype == np.float32 else 1e-7)
    for ordv in ("nuc", 2, -2):
        check(ember.linalg.matrix_norm(e, ordv), torch.linalg.matrix_norm(t, ordv))
        check(ember.linalg.matrix_norm(e, ordv, dim=(0, 2), keepdim=True),
              torch.linalg.matrix_norm(t, ordv, dim=(0, 2), keepdim=True))
    check(ember.linalg.norm(e[0], 2), torch.linalg.norm(t[0], 2))
    check(ember.linalg.norm(e, "nuc", dim=(1, 2)), torch.linalg.norm(t, "nuc", dim=(1, 2)))
    check(ember.nuclear_norm(e[0]), torch.nuclear_norm(t[0]))
    check(ember.frobenius_norm(e, dim=(1, 2)), torch.frobenius_norm(t, dim=(1, 2)))
    s = np.array([[1.0, 2.0], [2.0, 4.0]], dtype)
    check(ember.linalg.cond(pair(s)[0], "fro"), torch.linalg.cond(pair(s)[1], "fro"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_power_exp(dtype):
    a = well(2, 3, 3, dtype=dtype) / 4
    e, t = pair(a)
    for n in (-3, -1, 0, 1, 2, 5):
        check(ember.linalg.matrix_power(e, n), torch.linalg.matrix_power(t, n), rtol=1e-3 if dtype == np.float32 else 1e-8)
        check(e.matrix_power(n), t.matrix_power(n), rtol=1e-3 if dtype == np.float32 else 1e-8)
    for scale in (0.01, 1.0, 20.0):
        x = rnd(2, 4, 4, dtype=dtype) * scale
        e, t = pair(x)
        check(ember.linalg.matrix_exp(e), torch.linalg.matrix_exp(t), rtol=1e-3 if dtype == np.float32 else 1e-9)
        check(e.matrix_exp(), t.matrix_exp(), rtol=1e-3 if dtype == np.float32 else 1e-9)
    check(ember.matrix_exp(pair(np.zeros((0, 2, 2), dtype))[0]), torch.matrix_exp(pair(np.zeros((0, 2, 2), dtype))[1]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 4, 4), (2, 4, 1)), ((5, 3), (5,))])
def test_lstsq(shape, dtype):
    (ea, ta), (eb, tb) = pair(rnd(*shape[0], dtype=dtype)), pair(rnd(*shape[1], seed=1, dtype=dtype))
    r, tr = ember.linalg.lstsq(ea, eb), torch.linalg.lstsq(ta, tb)
    check(r.solution, tr.solution, rtol=1e-3 if dtype == np.float32 else 1e-8)
    check(r.rank, tr.rank)
    check(r.residuals, tr.residuals)
    r, tr = ember.linalg.lstsq(ea, eb, driver="gelsd"), torch.linalg.lstsq(ta, tb, driver="gelsd")
    check(r.solution, tr.solution, rtol=1e-3 if dtype == np.float32 else 1e-8)
    check(r.residuals, tr.residuals, rtol=1e-3 if dtype == np.float32 else 1e-8)
    check(r.singular_values, tr.singular_values)


def test_tensorinv_tensorsolve_vander():
    a = well(6, 6).reshape(2, 3, 6)
    e, t = pair(a)
    check(ember.linalg.tensorinv(e, ind=2), torch.linalg.tensorinv(t, ind=2))
    A = well(6, 6).reshape(2, 3, 6)
    B = rnd(2, 3)
    (ea, ta), (eb, tb) = pair(A), pair(B)
    check(ember.linalg.tensorsolve(ea, eb), torch.linalg.tensorsolve(ta, tb))
    A2 = well(6, 6).reshape(6, 2, 3)  # dims=(0,) moves its first dim last
    (ea, ta) = pair(A2)
    check(ember.linalg.tensorsolve(ea, eb, dims=(0,)), torch.linalg.tensorsolve(ta, tb, dims=(0,)))
    for x in (rnd(4), rnd(2, 3), np.array([1, 2, 3])):
        e, t = pair(x)
        check(ember.linalg.vander(e), torch.linalg.vander(t))
        check(ember.linalg.vander(e, N=5), torch.linalg.vander(t, N=5))


# ---- gradients -------------------------------------------------------------------------------

def test_grad_det_slogdet_inv_solve():
    a = well(2, 3, 3)
    compare_grads(lambda m, x: m.linalg.det(x), a)
    compare_grads(lambda m, x: m.linalg.slogdet(x).logabsdet, a)
    compare_grads(lambda m, x: m.logdet(x), spd(3, 3))
    compare_grads(lambda m, x: m.linalg.inv(x), a)
    compare_grads(lambda m, x, b: m.linalg.solve(x, b), well(2, 1, 3, 3), rnd(4, 3, 2))
    compare_grads(lambda m, x, b: m.linalg.solve(x, b, left=False), well(3, 3), rnd(2, 3))
    compare_grads(lambda m, x: m.linalg.lu_factor(x).LU, well(4, 4))
    for shape in ((5, 3), (3, 5), (2, 4, 2), (2, 2, 4)):  # rectangular LU
        compare_grads(lambda m, x: m.linalg.lu_factor_ex(x).LU, rnd(*shape))
        compare_grads(lambda m, x: tuple(m.linalg.lu(x))[1:], rnd(*shape))
    compare_grads(lambda m, x: m.linalg.lu(x).L * 2 + m.linalg.lu(x).U, well(2, 3, 3))
    compare_grads(lambda m, x, b: m.linalg.lu_solve(*m.linalg.lu_factor(x), b, adjoint=True), well(3, 3), rnd(3, 2))


def test_grad_det_singular():
    # Rank 2: det's gradient is the adjugate's transpose, not zero. PyTorch's own answer
    # here depends on its LAPACK build's pivots (some builds give zeros), so the reference
    # is the adjugate itself, from the cofactors.
    s = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]])
    x = ember.tensor(s, requires_grad=True)
    ember.linalg.det(x).backward()
    cofactors = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(s, i, 0), j, 1))
                           for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(x.grad.numpy(), cofactors, rtol=1e-12, atol=1e-12)
    z = np.zeros((3, 3))  # rank 0: a zero gradient
    compare_grads(lambda m, x: m.linalg.det(x), z, fd=False)


def test_grad_cholesky_triangular():
    compare_grads(lambda m, x: m.linalg.cholesky(x @ x.mT + 3 * m.eye(3, dtype=x.dtype)), rnd(2, 3, 3))
    compare_grads(lambda m, x: m.linalg.cholesky(x @ x.mT + 3 * m.eye(3, dtype=x.dtype), upper=True), rnd(3, 3))
    for upper in (True, False):
        for left in (True, False):
            for unit in (False, True):
                b = rnd(3, 2) if left else rnd(2, 3)
                compare_grads(lambda m, x, y: m.linalg.solve_triangular(x, y, upper=upper, left=left,
                                                                         unitriangular=unit), well(3, 3), b)
    compare_grads(lambda m, b, x: m.cholesky_solve(b, m.linalg.cholesky(x @ x.mT + 3 * m.eye(3, dtype=x.dtype))),
                  rnd(3, 2), rnd(3, 3))


@pytest.mark.parametrize("shape,mode", [((5, 3), "reduced"), ((4, 4), "complete"), ((3, 5), "reduced"),
                                        ((2, 3, 5), "complete"), ((2, 4, 3), "reduced")])
def test_grad_qr(shape, mode):
    compare_grads(lambda m, x: tuple(m.linalg.qr(x, mode)), rnd(*shape))


def test_grad_eigh_svd():
    sym = lambda m, x: x + x.mT  # noqa: E731
    # invariant to the eigenvectors' signs: eigenvalues and V diag(c) V^T
    c = [1.0, -2.0, 0.5, 3.0]

    def eig_loss(m, x):
        L, V = m.linalg.eigh(sym(m, x))
        return L, (V * m.tensor(c, dtype=x.dtype)) @ V.mT
    compare_grads(eig_loss, rnd(2, 4, 4))
    compare_grads(lambda m, x: m.linalg.eigvalsh(sym(m, x)), rnd(3, 3))

    def svd_loss(full):
        def f(m, x):
            U, S, Vh = m.linalg.svd(x, full_matrices=full)
            k = S.shape[-1]
            return S, (U[..., :, :k] * m.tensor(c[:k], dtype=x.dtype)) @ Vh[..., :k, :]
        return f
    for shape in ((4, 3), (3, 4), (2, 3, 3)):
        compare_grads(svd_loss(False), rnd(*shape))
    compare_grads(svd_loss(True), rnd(4, 3))
    compare_grads(lambda m, x: m.linalg.svdvals(x), rnd(4, 3))
    compare_grads(lambda m, x: m.linalg.matrix_norm(x, "nuc"), rnd(3, 4))
    compare_grads(lambda m, x: m.linalg.pinv(x), rnd(4, 3))
    compare_grads(lambda m, x: m.linalg.pinv(x + x.mT, hermitian=True), well(3, 3))


def test_grad_matrix_exp_power_lstsq():
    compare_grads(lambda m, x: m.linalg.matrix_exp(x), rnd(2, 3, 3))
    compare_grads(lambda m, x: m.linalg.matrix_exp(x), rnd(3, 3) * 5)
    compare_grads(lambda m, x: m.linalg.matrix_power(x, -2), well(3, 3))
    compare_grads(lambda m, x, b: m.linalg.lstsq(x, b).solution, rnd(5, 3), rnd(5, 2))


# ---- errors ----------------------------------------------------------------------------------

def same_error(fn):
    """fn(lib) raises the same kind of exception on ember as on torch (LinAlgError for
    torch.linalg.LinAlgError)."""
    with pytest.raises(Exception) as te:
        fn(torch)
    with pytest.raises(Exception) as ee:
        fn(ember)
    if isinstance(te.value, torch.linalg.LinAlgError):
        assert isinstance(ee.value, ember.linalg.LinAlgError), ee.value
        assert isinstance(ee.value, RuntimeError)
    else:
        assert type(ee.value) is type(te.value) or isinstance(ee.value, type(te.value)), (ee.value, te.value)
        assert not isinstance(ee.value, ember.linalg.LinAlgError)
    return ee.value


SINGULAR = [[1.0, 2.0], [2.0, 4.0]]


@pytest.mark.parametrize("case", [
    lambda m: m.linalg.inv(m.tensor(SINGULAR)),
    lambda m: m.linalg.inv(m.stack([m.eye(2), m.tensor(SINGULAR)])),
    lambda m: m.inverse(m.tensor(SINGULAR)),
    lambda m: m.linalg.solve(m.tensor(SINGULAR), m.ones(2)),
    lambda m: m.linalg.cholesky(m.tensor(SINGULAR)),
    lambda m: m.linalg.cholesky(m.stack([m.eye(2), -m.eye(2)])),
    lambda m: m.linalg.cholesky(m.full((2, 2), float("nan"))),
    lambda m: m.linalg.lu_factor(m.tensor(SINGULAR)),
    lambda m: m.linalg.inv(m.ones(2, 3)),
    lambda m: m.linalg.inv(m.ones(2)),
    lambda m: m.linalg.inv(m.ones(2, 2, dtype=m.int64)),
    lambda m: m.linalg.inv(m.ones(2, 2, dtype=m.float16)),
    lambda m: m.linalg.det(m.ones(2, 2, dtype=m.int64)),
    lambda m: m.linalg.det(m.ones(2, 3)),
    lambda m: m.linalg.det(m.ones(3)),
    lambda m: m.linalg.slogdet(m.ones(2, 3)),
    lambda m: m.linalg.cholesky(m.ones(2, 3)),
    lambda m: m.linalg.qr(m.ones(2, 2, dtype=m.int64)),
    lambda m: m.linalg.qr(m.ones(2)),
    lambda m: m.linalg.qr(m.ones(2, 2), mode="x"),
    lambda m: m.linalg.eigh(m.ones(2, 3)),
    lambda m: m.linalg.eigh(m.ones(2, 2), UPLO="X"),
    lambda m: m.linalg.svd(m.ones(2)),
    lambda m: m.linalg.svd(m.full((2, 2), float("nan"))),
    lambda m: m.linalg.solve_triangular(m.ones(2, 3), m.ones(2, 2), upper=True),
    lambda m: m.linalg.solve_triangular(m.ones(2, 2), m.ones(3, 2), upper=True),
    lambda m: m.linalg.solve_triangular(m.ones(2, 2), m.ones(2), upper=True),
    lambda m: m.linalg.solve(m.ones(2, 2), m.ones(3)),
    lambda m: m.linalg.solve(m.ones(2, 2), m.ones(2, dtype=m.float64)),
    lambda m: m.linalg.lu_factor(m.ones(2, 2), pivot=False),
    lambda m: m.linalg.matrix_exp(m.ones(2, 2, dtype=m.int64)),
    lambda m: m.linalg.householder_product(m.ones(2, 3), m.ones(2)),
    lambda m: m.linalg.vander(m.ones(1)),
    lambda m: m.linalg.tensorinv(m.ones(2, 3), ind=1),
    lambda m: m.linalg.qr(m.ones(4, 2, requires_grad=True), mode="r")[1].sum().backward(),
    lambda m: m.linalg.qr(m.ones(4, 2, requires_grad=True), mode="complete")[1].sum().backward(),
])
def test_errors_match_torch(case):
    same_error(case)


def test_failed_call_leaves_inputs_unchanged():
    a = ember.tensor(SINGULAR)
    before = a.clone()
    with pytest.raises(ember.linalg.LinAlgError):
        ember.linalg.inv(a)
    assert bool((a == before).all())
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)


# ---- tracing ---------------------------------------------------------------------------------

def test_traced_solve_replays_with_new_pivots():
    def f(a, b):
        return ember.linalg.solve(a, b) + ember.linalg.det(a).unsqueeze(-1).unsqueeze(-1)
    a1, b1 = ember.from_numpy(well(3, 3)), ember.from_numpy(rnd(3, 2))
    traced = ember.jit.trace(f, (a1, b1))
    a2 = ember.from_numpy(np.array([[0.0, 1.0, 2.0], [3.0, 0.5, 1.0], [1.0, 4.0, 0.0]]))
    np.testing.assert_allclose(np_of(traced(a2, b1)), np_of(f(a2, b1)), rtol=1e-10)
