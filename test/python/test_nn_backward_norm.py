"""Backward primitives of layer_norm, batch_norm and group_norm against torch's
autograd on the same inputs (statistics from ember's own forward, as the
autograd layer will pass them), and against float64 finite differences of
ember's forward ops."""
import itertools

import numpy as np
import pytest

import ember
from nn_backward_refs import (C, E, FLOAT_DTYPES, N, TF, check, check_fd, e64, grads, rounded, tdtype,
                              torch)

torch.manual_seed(7)
MASKS = [m for m in itertools.product([True, False], repeat=3) if any(m)]


def leaf(t):
    return t.detach().clone().requires_grad_(True)


# ---- layer_norm --------------------------------------------------------------------------

def run_layer_norm(x, ns, w, b, dtype, g, mask=(True, True, True), noncontig=False):
    """(ember grads, torch grads) for input x, normalized_shape ns, params w, b."""
    xr = leaf(rounded(x, dtype))
    wr = None if w is None else leaf(rounded(w, dtype))
    br = None if b is None else leaf(rounded(b, dtype))
    y = TF.layer_norm(xr, ns, wr, br, eps=1e-5)
    gr = rounded(g, dtype)
    exp = grads(y, [t for t in (xr, wr, br) if t is not None], gr)
    exp = list(exp)
    full = [exp.pop(0), exp.pop(0) if wr is not None else None, exp.pop(0) if br is not None else None]
    ex = E(x, dtype)
    ew = None if w is None else E(w, dtype)
    eb = None if b is None else E(b, dtype)
    _, mean, rstd = ember.native_layer_norm(ex, ns, ew, eb, 1e-5)
    got = C._native_layer_norm_backward(E(g, dtype, noncontig), ex, ns, mean, rstd, ew, eb, list(mask))
    return got, full


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape, k", [((4, 6), 1), ((2, 3, 5), 2), ((3, 2, 2, 4), 1), ((7,), 1), ((2, 3, 4), 3),
                                      ((5, 300), 1)])
@pytest.mark.parametrize("affine", ["none", "weight", "both"])
def test_layer_norm_backward(dtype, shape, k, affine):
    x = torch.randn(*shape, dtype=torch.float64) * 2 + 0.5
    ns = list(shape[-k:])
    w = None if affine == "none" else torch.randn(*ns, dtype=torch.float64)
    b = torch.randn(*ns, dtype=torch.float64) if affine == "both" else None
    g = torch.randn(*shape, dtype=torch.float64)
    got, exp = run_layer_norm(x, ns, w, b, dtype, g)
    assert got[0].dtype == getattr(ember, dtype)
    scale = 4 if dtype in ("float16", "bfloat16") else 1
    check(got[0], exp[0], dtype, scale)
    for i in (1, 2):
        if exp[i] is not None:
            check(got[i], exp[i], dtype, scale * 4)


@pytest.mark.parametrize("mask", MASKS)
def test_layer_norm_backward_mask_and_noncontiguous_grad(mask):
    x, w, b = torch.randn(6, 5, dtype=torch.float64), torch.randn(5, dtype=torch.float64), torch.randn(5, dtype=torch.float64)
    g = torch.randn(6, 5, dtype=torch.float64)
    got, exp = run_layer_norm(x, [5], w, b, "float64", g, mask, noncontig=True)
    for i in range(3):
        if mask[i]:
            check(got[i], exp[i])
        else:
            assert got[i] is None


def test_layer_norm_backward_large_mean_float32():
    x = torch.randn(8, 64, dtype=torch.float64) * 1e-2 + 1e3
    w = torch.randn(64, dtype=torch.float64)
    g = torch.randn(8, 64, dtype=torch.float64)
    got, exp = run_layer_norm(x, [64], w, None, "float64", g)
    check(got[0], exp[0], scale=100)  # the statistics of 1e3 + noise carry ~1e-13 relative error
    # float32: the centred form keeps the digits that x * c1 + c2 would lose
    got32, _ = run_layer_norm(x, [64], w, None, "float32", g)
    np.testing.assert_allclose(N(got32[0]), exp[0].numpy(), rtol=2e-3, atol=2e-3 * np.abs(exp[0].numpy()).max())


def test_layer_norm_backward_half_with_float_params():
    x, w = torch.randn(4, 8), torch.randn(8)
    g = torch.randn(4, 8)
    ex, ew = E(x, "bfloat16"), E(w, "float32")
    _, mean, rstd = ember.native_layer_norm(ex, [8], ew, None, 1e-5)
    dx, dw, db = C._native_layer_norm_backward(E(g, "bfloat16"), ex, [8], mean, rstd, ew, None, [True] * 3)
    assert dx.dtype == ember.bfloat16 and dw.dtype == ember.float32 and db.dtype == ember.float32
    xr, wr = leaf(rounded(x, "bfloat16")), leaf(w.double())
    y = TF.layer_norm(xr, [8], wr)
    ex_, ew_ = grads(y, [xr, wr], rounded(g, "bfloat16"))
    check(dx, ex_, "bfloat16", 4)
    check(dw, ew_, "float32", 100)  # from bfloat16 inputs


def test_layer_norm_backward_empty_batch():
    x, w, b = torch.zeros(0, 4, dtype=torch.float64), torch.randn(4, dtype=torch.float64), torch.randn(4, dtype=torch.float64)
    got, exp = run_layer_norm(x, [4], w, b, "float64", torch.zeros(0, 4, dtype=torch.float64))
    for i in range(3):
        check(got[i], exp[i])


def test_layer_norm_backward_finite_differences():
    rng = np.random.default_rng(3)
    x, w, b, g = rng.standard_normal((3, 4, 5)), rng.standard_normal((4, 5)), rng.standard_normal((4, 5)), rng.standard_normal((3, 4, 5))
    fwd = lambda v: N(ember.layer_norm(e64(v), [4, 5], e64(w), e64(b), 1e-5))
    _, mean, rstd = ember.native_layer_norm(e64(x), [4, 5], e64(w), e64(b), 1e-5)
    dx, dw, db = C._native_layer_norm_backward(e64(g), e64(x), [4, 5], mean, rstd, e64(w), e64(b), [True] * 3)
    check_fd(fwd, x, g, N(dx))
    check_fd(lambda v: N(ember.layer_norm(e64(x), [4, 5], e64(v), e64(b), 1e-5)), w, g, N(dw))
    check_fd(lambda v: N(ember.layer_norm(e64(x), [4, 5], e64(w), e64(v), 1e-5)), b, g, N(db))


# ---- batch_norm --------------------------------------------------------------------------

def run_batch_norm(x, w, b, rm, rv, train, dtype, g, mask=(True, True, True), noncontig=False, param_dtype=None):
    xr = leaf(rounded(x, dtype))
    pd = param_dtype or dtype
    wr = None if w is None else leaf(rounded(w, pd))
    br = None if b is None else leaf(rounded(b, pd))
    y = TF.batch_norm(xr, rounded(rm, pd), rounded(rv, pd), wr, br, training=train, eps=1e-5)
    exp = list(grads(y, [t for t in (xr, wr, br) if t is not None], rounded(g, dtype)))
    full = [exp.pop(0), exp.pop(0) if wr is not None else None, exp.pop(0) if br is not None else None]
    ex = E(x, dtype)
    ew = None if w is None else E(w, pd)
    eb = None if b is None else E(b, pd)
    erm, erv = E(rm, pd), E(rv, pd)
    _, save_mean, save_invstd = ember.native_batch_norm(ex, ew, eb, erm, erv, train, 0.1, 1e-5)
    if train:  # the forward updated them; the backward does not read them in training
        erm, erv = None, None
    got = C._native_batch_norm_backward(E(g, dtype, noncontig), ex, ew, erm, erv, save_mean if train else None,
                                        save_invstd if train else None, train, 1e-5, list(mask))
    return got, full


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
# (at least 3 values per channel: with 2, x_hat = +-1 and the gradient is all cancellation)
@pytest.mark.parametrize("shape", [(8, 4), (3, 4, 5), (2, 4, 3, 3), (3, 4, 1, 1), (64, 3), (1, 3, 40), (4, 1, 9)])
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_backward(dtype, shape, train, affine):
    c = shape[1]
    x = torch.randn(*shape, dtype=torch.float64) * 1.5 - 0.3
    w = torch.randn(c, dtype=torch.float64) if affine else None
    b = torch.randn(c, dtype=torch.float64) if affine else None
    rm, rv = torch.randn(c, dtype=torch.float64), torch.rand(c, dtype=torch.float64) + 0.5
    g = torch.randn(*shape, dtype=torch.float64)
    got, exp = run_batch_norm(x, w, b, rm, rv, train, dtype, g)
    scale = 4 if dtype in ("float16", "bfloat16") else 1
    check(got[0], exp[0], dtype, scale)
    if affine:
        check(got[1], exp[1], dtype, scale * 8)
        check(got[2], exp[2], dtype, scale * 8)
    else:
        # no weight: the gradients of an implicit weight of ones / bias of zeros, input's dtype
        assert got[1].dtype == getattr(ember, dtype) and tuple(got[1].shape) == (c,)


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("train", [True, False])
def test_batch_norm_backward_mask_noncontiguous_grad(mask, train):
    x, w, b = torch.randn(5, 3, 4, dtype=torch.float64), torch.randn(3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
    rm, rv = torch.randn(3, dtype=torch.float64), torch.rand(3, dtype=torch.float64) + 0.5
    got, exp = run_batch_norm(x, w, b, rm, rv, train, "float64", torch.randn(5, 3, 4, dtype=torch.float64), mask, True)
    for i in range(3):
        if mask[i]:
            check(got[i], exp[i])
        else:
            assert got[i] is None


def test_batch_norm_backward_half_input_float_params():
    x, w, b = torch.randn(6, 3, 4), torch.randn(3), torch.randn(3)
    rm, rv = torch.zeros(3), torch.ones(3)
    got, exp = run_batch_norm(x, w, b, rm, rv, True, "bfloat16", torch.randn(6, 3, 4), param_dtype="float32")
    assert got[0].dtype == ember.bfloat16 and got[1].dtype == ember.float32
    check(got[0], exp[0], "bfloat16", 4)
    check(got[1], exp[1], "bfloat16", 4)


def test_batch_norm_backward_empty_batch():
    x = torch.zeros(0, 3, 4, dtype=torch.float64)
    w, b = torch.randn(3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
    xr, wr, br = leaf(x), leaf(w), leaf(b)
    y = TF.batch_norm(xr, None, None, wr, br, training=True)
    exp = grads(y, [xr, wr, br], torch.zeros_like(y))
    ex = E(x)
    _, sm, si = ember.native_batch_norm(ex, E(w), E(b), None, None, True, 0.1, 1e-5)
    got = C._native_batch_norm_backward(E(torch.zeros_like(y)), ex, E(w), None, None, sm, si, True, 1e-5, [True] * 3)
    for i in range(3):
        check(got[i], exp[i])


def test_batch_norm_backward_large_mean():
    x = torch.randn(16, 3, 8, dtype=torch.float64) * 1e-2 + 1e3
    w = torch.randn(3, dtype=torch.float64)
    got, exp = run_batch_norm(x, w, None, torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64),
                              True, "float64", torch.randn(16, 3, 8, dtype=torch.float64))
    check(got[0], exp[0], scale=100)  # the forward's statistics of 1e3 + noise carry ~1e-13 relative error


@pytest.mark.parametrize("train", [True, False])
def test_batch_norm_backward_finite_differences(train):
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((4, 3, 5)), rng.standard_normal(3), rng.standard_normal(3)
    rm, rv = rng.standard_normal(3), rng.random(3) + 0.5
    g = rng.standard_normal((4, 3, 5))

    def fwd(xv, wv=w, bv=b):  # running stats copied: training updates them in place
        return N(ember.batch_norm(e64(xv), e64(rm), e64(rv), e64(wv), e64(bv), train, 0.1, 1e-5))

    _, sm, si = ember.native_batch_norm(e64(x), e64(w), e64(b), e64(rm), e64(rv), train, 0.1, 1e-5)
    dx, dw, db = C._native_batch_norm_backward(e64(g), e64(x), e64(w), e64(rm), e64(rv), sm if train else None,
                                               si if train else None, train, 1e-5, [True] * 3)
    check_fd(fwd, x, g, N(dx))
    check_fd(lambda v: fwd(x, wv=v), w, g, N(dw))
    check_fd(lambda v: fwd(x, bv=v), b, g, N(db))


# ---- group_norm --------------------------------------------------------------------------

def run_group_norm(x, groups, w, b, dtype, g, mask=(True, True, True), noncontig=False):
    xr = leaf(rounded(x, dtype))
    wr = None if w is None else leaf(rounded(w, dtype))
    br = None if b is None else leaf(rounded(b, dtype))
    y = TF.group_norm(xr, groups, wr, br, eps=1e-5)
    exp = list(grads(y, [t for t in (xr, wr, br) if t is not None], rounded(g, dtype)))
    full = [exp.pop(0), exp.pop(0) if wr is not None else None, exp.pop(0) if br is not None else None]
    ex = E(x, dtype)
    ew = None if w is None else E(w, dtype)
    eb = None if b is None else E(b, dtype)
    n, c = x.shape[:2]
    hxw = int(np.prod(x.shape[2:]))
    _, mean, rstd = ember.native_group_norm(ex, ew, eb, n, c, hxw, groups, 1e-5)
    got = C._native_group_norm_backward(E(g, dtype, noncontig), ex, mean, rstd, ew, n, c, hxw, groups, list(mask))
    return got, full


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape, groups", [((2, 6, 5), 3), ((3, 6, 4, 5), 2), ((4, 6), 2), ((1, 8, 2, 2, 2), 4),
                                           ((2, 4, 7), 1), ((2, 4, 7), 4)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_backward(dtype, shape, groups, affine):
    c = shape[1]
    x = torch.randn(*shape, dtype=torch.float64) + 0.7
    w = torch.randn(c, dtype=torch.float64) if affine else None
    b = torch.randn(c, dtype=torch.float64) if affine else None
    g = torch.randn(*shape, dtype=torch.float64)
    got, exp = run_group_norm(x, groups, w, b, dtype, g)
    scale = 4 if dtype in ("float16", "bfloat16") else 1
    check(got[0], exp[0], dtype, scale)
    if affine:
        check(got[1], exp[1], dtype, scale * 4)
        check(got[2], exp[2], dtype, scale * 4)


@pytest.mark.parametrize("mask", MASKS)
def test_group_norm_backward_mask_noncontiguous_grad(mask):
    x = torch.randn(3, 4, 5, dtype=torch.float64)
    w, b = torch.randn(4, dtype=torch.float64), torch.randn(4, dtype=torch.float64)
    got, exp = run_group_norm(x, 2, w, b, "float64", torch.randn(3, 4, 5, dtype=torch.float64), mask, True)
    for i in range(3):
        if mask[i]:
            check(got[i], exp[i])
        else:
            assert got[i] is None


def test_group_norm_backward_empty_batch():
    x = torch.zeros(0, 4, 3, dtype=torch.float64)
    w, b = torch.randn(4, dtype=torch.float64), torch.randn(4, dtype=torch.float64)
    got, exp = run_group_norm(x, 2, w, b, "float64", torch.zeros(0, 4, 3, dtype=torch.float64))
    for i in range(3):
        check(got[i], exp[i])


def test_group_norm_backward_finite_differences():
    rng = np.random.default_rng(11)
    x, w, b, g = rng.standard_normal((2, 6, 3)), rng.standard_normal(6), rng.standard_normal(6), rng.standard_normal((2, 6, 3))
    fwd = lambda v, wv=w, bv=b: N(ember.group_norm(e64(v), 3, e64(wv), e64(bv), 1e-5))
    _, mean, rstd = ember.native_group_norm(e64(x), e64(w), e64(b), 2, 6, 3, 3, 1e-5)
    dx, dw, db = C._native_group_norm_backward(e64(g), e64(x), mean, rstd, e64(w), 2, 6, 3, 3, [True] * 3)
    check_fd(fwd, x, g, N(dx))
    check_fd(lambda v: fwd(x, wv=v), w, g, N(dw))
    check_fd(lambda v: fwd(x, bv=v), b, g, N(db))
