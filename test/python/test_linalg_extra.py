"""einsum (a table of equations), tensordot, kron, trace, inner, vdot, cross, diff,
dist, cdist, cov, corrcoef, addmv, addr, baddbmm, addbmm, chain_matmul, matrix_power,
trapezoid, cumulative_trapezoid and ember.linalg against PyTorch: values on random,
non-contiguous, broadcast, 0-dim and empty inputs, and float64 gradients. Skipped
without torch."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def pair(a):
    a = np.array(a)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def rnd(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed + 7 * len(shape) + sum(shape)).standard_normal(shape).astype(dtype)


def check(e, t, rtol=1e-6, atol=1e-8):
    t = t.detach()
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (e.dtype, t.dtype)
    np.testing.assert_allclose(e.detach().numpy(), t.numpy(), rtol=rtol, atol=atol, equal_nan=True)


def grads(fn, *arrays):
    """fn(lib, *tensors) on ember and torch float64 leaves: values and gradients match."""
    es, ts = zip(*(pair(a) for a in arrays))
    for x in es + ts:
        x.requires_grad_(True)
    er, tr = fn(ember, *es), fn(torch, *ts)
    check(er, tr)
    rng = np.random.default_rng(1)
    w = rng.standard_normal(tuple(tr.shape))
    (er * ember.from_numpy(w.copy())).sum().backward()
    (tr * torch.from_numpy(w.copy())).sum().backward()
    for e, t in zip(es, ts):
        if e.grad is None and t.grad is not None:  # (a p=0 norm: torch gives zeros)
            assert not t.grad.any()
        elif t.grad is not None:
            check(e.grad, t.grad)
        else:
            assert e.grad is None


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ii->", [(4, 4)]),
    ("i,i->", [(5,), (5,)]),
    ("i,i", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,j", [(3,), (4,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bij,bjk->bk", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (3, 4, 2)]),
    ("...,...->...", [(2, 3), (3,)]),
    ("i...->...", [(3, 2, 4)]),
    ("...i->...", [(3, 2, 4)]),
    ("i...i->...", [(3, 2, 3)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ij,ij->i", [(3, 4), (3, 4)]),
    ("ij,ji->", [(3, 4), (4, 3)]),
    ("iij->ij", [(3, 3, 2)]),
    ("iji->j", [(3, 2, 3)]),
    ("iijj->ij", [(2, 2, 3, 3)]),
    ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 6)]),
    ("ab,bc,cd->", [(2, 3), (3, 4), (4, 2)]),
    ("i,i,i->i", [(4,), (4,), (4,)]),
    ("ij,j->i", [(3, 4), (4,)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("ij,ij", [(3, 4), (3, 4)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ij,jk->ik", [(1, 4), (4, 5)]),
    ("ij,ik->jk", [(3, 1), (1, 5)]),  # size-1 dims broadcast
    ("Ab,bC->AC", [(2, 3), (3, 4)]),
    ("ba", [(2, 3)]),
    ("aB", [(2, 3)]),
    (" i j , j k -> i k ", [(2, 3), (3, 2)]),
    ("i,->i", [(3,), ()]),
    (",->", [(), ()]),
    ("ij,jk->ik", [(0, 3), (3, 2)]),
    ("ij,jk->ik", [(2, 0), (0, 2)]),
    ("...->...", [()]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM)
def test_einsum(eq, shapes):
    arrays = [rnd(*s, seed=i) for i, s in enumerate(shapes)]
    grads(lambda L, *xs: L.einsum(eq, *xs), *arrays)


def test_einsum_forms():
    a, b = rnd(3, 4), rnd(4, 5)
    (ea, ta), (eb, tb) = pair(a), pair(b)
    check(ember.einsum("ij,jk->ik", [ea, eb]), torch.einsum("ij,jk->ik", [ta, tb]))
    check(ember.einsum(ea, [0, 1], eb, [1, 2], [0, 2]), torch.einsum(ta, [0, 1], tb, [1, 2], [0, 2]))
    check(ember.einsum(ea, [Ellipsis, 1], eb, [1, 2]), torch.einsum(ta, [Ellipsis, 1], tb, [1, 2]))
    check(ember.einsum("ij->ji", ea.t()), torch.einsum("ij->ji", ta.t()))
    check(ember.einsum("ij,jk", ea[:, ::2], eb[::2]), torch.einsum("ij,jk", ta[:, ::2], tb[::2]))
    ei, ti = pair(np.arange(12).reshape(3, 4))
    check(ember.einsum("ij,kj->ik", ei, ei), torch.einsum("ij,kj->ik", ti, ti))


def test_tensordot_kron_trace_inner_vdot():
    grads(lambda L, a, b: L.tensordot(a, b), rnd(2, 3, 4), rnd(3, 4, 5))
    grads(lambda L, a, b: L.tensordot(a, b, dims=1), rnd(2, 3), rnd(3, 4))
    grads(lambda L, a, b: L.tensordot(a, b, dims=0), rnd(2), rnd(3))
    grads(lambda L, a, b: L.tensordot(a, b, dims=([1, 0], [0, 2])), rnd(3, 4, 5), rnd(4, 2, 3))
    grads(lambda L, a, b: L.tensordot(a, b, dims=([-1], [0])), rnd(3, 4), rnd(4, 2))
    for sa, sb in (((2, 3), (4, 5)), ((2,), (3, 2)), ((2, 1, 3), (3, 2)), ((), (3,)), ((2, 3), ())):
        grads(lambda L, a, b: L.kron(a, b), rnd(*sa), rnd(*sb))
    grads(lambda L, a: L.trace(a), rnd(3, 5))
    grads(lambda L, a: a.trace(), rnd(4, 4))
    ei, ti = pair(np.arange(9, dtype=np.int32).reshape(3, 3))
    check(ember.trace(ei), torch.trace(ti))
    for sa, sb in (((3,), (3,)), ((2, 3), (4, 3)), ((2, 3, 4), (4,)), ((), (2, 3)), ((3,), ())):
        grads(lambda L, a, b: L.inner(a, b), rnd(*sa), rnd(*sb))
    grads(lambda L, a, b: L.vdot(a, b), rnd(4), rnd(4))
    grads(lambda L, a, b: a.vdot(b), rnd(4), rnd(4))


def test_cross():
    grads(lambda L, a, b: L.cross(a, b, dim=1), rnd(4, 3), rnd(4, 3))
    grads(lambda L, a, b: L.linalg.cross(a, b), rnd(2, 4, 3), rnd(1, 4, 3))
    grads(lambda L, a, b: L.linalg.cross(a, b, dim=0), rnd(3, 2), rnd(3, 2))
    grads(lambda L, a, b: a.cross(b, dim=-1), rnd(5, 3), rnd(5, 3))
    a, b = rnd(3, 3, 2), rnd(3, 3, 2)
    (ea, ta), (eb, tb) = pair(a), pair(b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(ember.cross(ea, eb), torch.cross(ta, tb))


def test_addmv_addr_baddbmm_addbmm():
    grads(lambda L, s, m, v: L.addmv(s, m, v, beta=0.5, alpha=2), rnd(3), rnd(3, 4), rnd(4))
    grads(lambda L, s, m, v: L.addmv(s, m, v), rnd(1), rnd(3, 4), rnd(4))
    grads(lambda L, s, m, v: s.addmv(m, v, alpha=-1), rnd(), rnd(3, 4), rnd(4))
    grads(lambda L, s, a, b: L.addr(s, a, b, beta=2), rnd(3, 4), rnd(3), rnd(4))
    grads(lambda L, s, a, b: s.addr(a, b), rnd(4), rnd(3), rnd(4))
    grads(lambda L, s, a, b: L.baddbmm(s, a, b, beta=0.5, alpha=3), rnd(2, 3, 5), rnd(2, 3, 4), rnd(2, 4, 5))
    grads(lambda L, s, a, b: s.baddbmm(a, b), rnd(3, 5), rnd(2, 3, 4), rnd(2, 4, 5))
    grads(lambda L, s, a, b: L.addbmm(s, a, b, beta=2, alpha=0.5), rnd(3, 5), rnd(2, 3, 4), rnd(2, 4, 5))
    grads(lambda L, s, a, b: s.addbmm(a, b), rnd(5), rnd(2, 3, 4), rnd(2, 4, 5))
    # beta = 0 ignores NaN in self
    nan = np.full((3, 5), np.nan)
    es, ts = pair(nan)
    (ea, ta), (eb, tb) = pair(rnd(2, 3, 4)), pair(rnd(2, 4, 5))
    check(ember.baddbmm(es, ea, eb, beta=0), torch.baddbmm(ts, ta, tb, beta=0))
    check(ember.addbmm(es, ea, eb, beta=0), torch.addbmm(ts, ta, tb, beta=0))
    (em, tm), (ev, tv) = pair(rnd(3, 4)), pair(rnd(4))
    check(ember.addmv(es[:, 0], em, ev, beta=0), torch.addmv(ts[:, 0], tm, tv, beta=0))
    check(ember.addr(es[:, :4], es[:, 0] * 0 + 1, ev, beta=0), torch.addr(ts[:, :4], ts[:, 0] * 0 + 1, tv, beta=0))


def test_chain_matmul_multi_dot_matrix_power():
    grads(lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), rnd(3), rnd(3, 4), rnd(4, 2))
    grads(lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), rnd(2, 3), rnd(3, 4), rnd(4))
    grads(lambda L, a, b: L.linalg.multi_dot([a, b]), rnd(3), rnd(3))
    grads(lambda L, a, b, c: L.chain_matmul(a, b, c), rnd(2, 3), rnd(3, 4), rnd(4, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grads(lambda L, a: L.chain_matmul(a), rnd(2, 3))
    for n in (0, 1, 2, 3, 5, 8):
        grads(lambda L, a: L.matrix_power(a, n), rnd(3, 3) / 2)
        grads(lambda L, a: a.matrix_power(n), rnd(2, 4, 4) / 2)
    ei, ti = pair(np.arange(4).reshape(2, 2))
    check(ember.matrix_power(ei, 3), torch.matrix_power(ti, 3))
    check(ember.matrix_power(ei, 0), torch.matrix_power(ti, 0))


def test_diff():
    a = rnd(4, 6)
    for kw in ({}, {"n": 2}, {"dim": 0}, {"n": 3, "dim": -2}, {"n": 0}, {"n": 7}):
        grads(lambda L, x: L.diff(x, **kw), a)
    grads(lambda L, x, p, q: L.diff(x, prepend=p, append=q), a, rnd(4, 2), rnd(4, 1))
    grads(lambda L, x, p: x.diff(n=2, dim=0, prepend=p), a, rnd(1, 6))
    eb, tb = pair(np.array([True, False, False, True]))
    check(ember.diff(eb), torch.diff(tb))
    ei, ti = pair(np.array([1, 4, 9, 16], dtype=np.int32))
    check(ember.diff(ei, 2), torch.diff(ti, 2))
    (en, tn) = pair(rnd(3, 4))
    check(ember.diff(en.t()), torch.diff(tn.t()))


def test_dist_cdist():
    (ea, ta), (eb, tb) = pair(rnd(3, 4)), pair(rnd(4))
    check(ember.dist(ea, eb, 0), torch.dist(ta, tb, 0))  # (torch's own p=0 backward fails)
    for p in (2, 1, 0, 3.5, float("inf")):
        if p != 0:
            grads(lambda L, a, b: L.dist(a, b, p), rnd(3, 4), rnd(4))
        grads(lambda L, a, b: L.cdist(a, b, p), rnd(5, 3), rnd(4, 3))
        grads(lambda L, a, b: L.cdist(a, b, p), rnd(2, 5, 3), rnd(1, 4, 3))
    # the matrix-product path (more than 25 rows) and the explicit modes
    grads(lambda L, a, b: L.cdist(a, b), rnd(30, 4), rnd(6, 4))
    for mode in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        grads(lambda L, a, b: L.cdist(a, b, compute_mode=mode), rnd(5, 3), rnd(4, 3))
    # zero distance: gradient zero there, as in torch
    x = rnd(3, 2)
    grads(lambda L, a, b: L.cdist(a, b), x, x.copy())
    grads(lambda L, a, b: L.dist(a, b), x, x.copy())
    ef, tf = pair(rnd(3, 4, dtype=np.float32))
    check(ember.cdist(ef, ef[:2]), torch.cdist(tf, tf[:2]), rtol=1e-4, atol=1e-3)
    check(ember.cdist(ef[:0], ef), torch.cdist(tf[:0], tf))


def test_cov_corrcoef():
    grads(lambda L, x: L.cov(x), rnd(3, 6))
    grads(lambda L, x: L.cov(x, correction=0), rnd(3, 6))
    grads(lambda L, x: x.cov(correction=2), rnd(6))
    fw = np.array([1, 2, 0, 3, 1, 1])
    aw = np.abs(rnd(6))
    (ef, tf), (ea, ta) = pair(fw), pair(aw)
    (ex, tx) = pair(rnd(3, 6))
    check(ember.cov(ex, fweights=ef), torch.cov(tx, fweights=tf))
    check(ember.cov(ex, aweights=ea), torch.cov(tx, aweights=ta))
    check(ember.cov(ex, fweights=ef, aweights=ea, correction=0), torch.cov(tx, fweights=tf, aweights=ta, correction=0))
    check(ember.cov(ex, fweights=ef, aweights=ea), torch.cov(tx, fweights=tf, aweights=ta))
    ei, ti = pair(np.arange(8).reshape(2, 4))
    check(ember.cov(ei), torch.cov(ti))
    grads(lambda L, x: L.corrcoef(x), rnd(3, 6))
    grads(lambda L, x: x.corrcoef(), rnd(6))
    check(ember.corrcoef(ei), torch.corrcoef(ti))


def test_trapezoid():
    y = rnd(3, 5)
    x = np.sort(rnd(5))
    for dim in (-1, 1):
        grads(lambda L, a: L.trapezoid(a, dim=dim), y)
        grads(lambda L, a: L.trapezoid(a, dx=0.5, dim=dim), y)
        grads(lambda L, a, b: L.trapezoid(a, b, dim=dim), y, x)
        grads(lambda L, a: L.cumulative_trapezoid(a, dim=dim), y)
        grads(lambda L, a: L.cumulative_trapezoid(a, dx=2.0, dim=dim), y)
        grads(lambda L, a, b: L.cumulative_trapezoid(a, b, dim=dim), y, x)
    grads(lambda L, a, b: L.trapezoid(a, b, dim=0), rnd(4, 2), rnd(4, 2))
    grads(lambda L, a, b: L.trapz(a, b), y, x)
    grads(lambda L, a: L.trapz(a, dx=3.0), y)
    ei, ti = pair(np.arange(6).reshape(2, 3))
    check(ember.trapezoid(ei), torch.trapezoid(ti))
    check(ember.cumulative_trapezoid(ei), torch.cumulative_trapezoid(ti))
    e0, t0 = pair(np.zeros((2, 0)))
    check(ember.trapezoid(e0), torch.trapezoid(t0))
    check(ember.cumulative_trapezoid(e0), torch.cumulative_trapezoid(t0))


def test_linalg_norms():
    a = rnd(3, 4)
    for ord in (2, 1, 0, 3.5, float("inf"), -float("inf")):
        grads(lambda L, x: L.linalg.vector_norm(x, ord), a)
        grads(lambda L, x: L.linalg.vector_norm(x, ord, dim=1, keepdim=True), a)
    for ord in ("fro", 1, -1, float("inf"), -float("inf")):
        grads(lambda L, x: L.linalg.matrix_norm(x, ord), a)
        grads(lambda L, x: L.linalg.matrix_norm(x, ord, dim=(1, 0), keepdim=True), a)
        grads(lambda L, x: L.linalg.matrix_norm(x, ord), rnd(2, 3, 4))
        grads(lambda L, x: L.linalg.norm(x, ord), a)
    for kw in ({}, {"dim": 1}, {"dim": (0, 1)}, {"ord": 3, "dim": 1}, {"ord": 1, "dim": 0}, {"ord": -1, "dim": (1, 0)}):
        grads(lambda L, x: L.linalg.norm(x, **kw), a)
    grads(lambda L, x: L.linalg.norm(x), rnd(2, 3, 4))
    grads(lambda L, x: L.linalg.norm(x, 4), rnd(5))
    ef, tf = pair(rnd(3, 4, dtype=np.float32))
    check(ember.linalg.vector_norm(ef, dtype=ember.float64), torch.linalg.vector_norm(tf, dtype=torch.float64))


def test_linalg_misc():
    grads(lambda L, x, y: L.linalg.vecdot(x, y), rnd(3, 4), rnd(4))
    grads(lambda L, x, y: L.linalg.vecdot(x, y, dim=0), rnd(3, 4), rnd(3, 1))
    grads(lambda L, x, y: L.linalg.matmul(x, y), rnd(3, 4), rnd(4))
    grads(lambda L, x: L.linalg.diagonal(x), rnd(2, 3, 4))
    grads(lambda L, x: L.linalg.diagonal(x, offset=1, dim1=0, dim2=2), rnd(2, 3, 4))
