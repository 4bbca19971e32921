"""Backward primitives of embedding, dropout, pad and interpolate against
torch's autograd on the same inputs, and against float64 finite differences
of ember's forward ops."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from nn_backward_refs import (C, E, FLOAT_DTYPES, N, TF, check, check_fd, e64, finite_difference, grads, rounded,
                              torch)

torch.manual_seed(5)


def leaf(t):
    return t.detach().clone().requires_grad_(True)


# ---- embedding ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("ishape", [(5,), (3, 4), (), (0,), (2, 3, 4)])
@pytest.mark.parametrize("padding_idx", [None, 0, 3])
@pytest.mark.parametrize("by_freq", [False, True])
def test_embedding_backward(dtype, ishape, padding_idx, by_freq):
    v, d = 7, 5
    idx = torch.randint(0, v, ishape)
    w = leaf(torch.randn(v, d, dtype=torch.float64))
    y = TF.embedding(idx, w, padding_idx=padding_idx, scale_grad_by_freq=by_freq)
    g = torch.randn(y.shape, dtype=torch.float64)
    (exp,) = grads(y, [w], rounded(g, dtype))
    got = C._embedding_dense_backward(E(g, dtype, noncontig=len(ishape) >= 1), E(idx), v,
                                      -1 if padding_idx is None else padding_idx, by_freq)
    assert got.dtype == getattr(ember, dtype)
    check(got, exp, dtype, 4)


@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
@pytest.mark.parametrize("by_freq", [False, True])
def test_embedding_backward_many_duplicates(index_dtype, by_freq):
    # enough positions for several threads, most on a few rows (one hot row across parts)
    v, d = 50, 64
    idx = torch.where(torch.rand(40000) < 0.6, torch.tensor(7), torch.randint(0, v, (40000,))).to(index_dtype)
    w = leaf(torch.randn(v, d, dtype=torch.float64))
    y = TF.embedding(idx.long(), w, padding_idx=3, scale_grad_by_freq=by_freq)
    g = torch.randn(y.shape, dtype=torch.float64)
    (exp,) = grads(y, [w], g)
    got = C._embedding_dense_backward(E(g), E(idx), v, 3, by_freq)
    check(got, exp, scale=100)  # sums of ~24000 terms
    assert np.all(N(got)[3] == 0)
    again = C._embedding_dense_backward(E(g), E(idx), v, 3, by_freq)
    np.testing.assert_array_equal(N(got), N(again))  # the same sums on every run


def test_embedding_backward_finite_differences():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((6, 3))
    idx = ember.from_numpy(np.array([[1, 4, 1], [0, 5, 1]]))
    g = rng.standard_normal((2, 3, 3))
    got = C._embedding_dense_backward(e64(g), idx, 6, 5)
    # padding_idx: the forward still reads the row; its gradient is defined to be zero
    exp_fd_rows = [r for r in range(6) if r != 5]
    fwd = lambda wv: N(F.embedding(idx, e64(wv)))
    _, fd = finite_difference(fwd, w, g, max_points=18)
    fd = fd.reshape(6, 3)
    np.testing.assert_allclose(N(got)[exp_fd_rows], fd[exp_fd_rows], rtol=1e-6, atol=1e-7)
    assert np.all(N(got)[5] == 0)


def test_embedding_backward_out_of_range():
    with pytest.raises(IndexError, match="embedding_dense_backward: index 9 is out of range"):
        C._embedding_dense_backward(E(torch.randn(2, 3)), E(torch.tensor([1, 9])), 5)


# ---- dropout -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_dropout_backward(dtype, p):
    g = torch.randn(6, 7, dtype=torch.float64)
    mask = torch.rand(6, 7) > p
    scale = 0.0 if p == 1.0 else 1 / (1 - p)
    exp = torch.ops.aten.native_dropout_backward(rounded(g, dtype), mask, scale)
    got = C._native_dropout_backward(E(g, dtype, noncontig=True), E(mask), scale)
    assert got.dtype == getattr(ember, dtype)
    check(got, exp, dtype)


def test_dropout_backward_with_the_forward_mask():
    x = ember.randn(50, 40, dtype=ember.float64)
    y, mask = ember.native_dropout(x, 0.4, True)
    g = ember.ones(50, 40, dtype=ember.float64)
    got = C._native_dropout_backward(g, mask, 1 / 0.6)
    # y = x * dy/dx element-wise: the gradient of sum(y) is y / x
    np.testing.assert_allclose(N(got), N(y) / N(x), rtol=1e-12)


def test_dropout_backward_nan_gradient_stays_nan():
    g = torch.tensor([float("nan"), 1.0])
    got = C._native_dropout_backward(E(g), E(torch.tensor([False, True])), 2.0)
    assert np.isnan(N(got)[0]) and N(got)[1] == 2.0


# ---- pad ---------------------------------------------------------------------------------

PAD_CASES = [
    ((2, 3, 6), (2, 3)), ((3, 6), (1, 2)), ((2, 3, 6), (-1, 2)),
    ((2, 3, 5, 6), (2, 1, 3, 4)), ((3, 5, 6), (1, 0, 0, 2)), ((2, 3, 5, 6), (2, -1, -2, 3)),
    ((1, 2, 4, 5, 6), (1, 2, 3, 0, 2, 1)), ((2, 4, 5, 6), (1, 1, 1, 1, 1, 1)), ((1, 1, 5, 6, 7), (-1, -1, 2, 0, 1, -2)),
    ((0, 3, 6), (2, 3)),
]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
@pytest.mark.parametrize("shape, pad", PAD_CASES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
def test_pad_backward(mode, shape, pad, dtype):
    x = leaf(rounded(torch.randn(*shape, dtype=torch.float64), dtype))
    y = TF.pad(x, pad, mode=mode)
    g = torch.randn(y.shape, dtype=torch.float64)
    (exp,) = grads(y, [x], rounded(g, dtype))
    got = C._pad_backward(E(g, dtype, noncontig=True), list(shape), list(pad), mode)
    assert got.dtype == getattr(ember, dtype)
    check(got, exp, dtype, 2)


def test_pad_backward_replicate_wide_pad():
    # one edge element receives many output positions
    x = leaf(torch.randn(2, 3, 4, dtype=torch.float64))
    y = TF.pad(x, (9, 7), mode="replicate")
    g = torch.randn(y.shape, dtype=torch.float64)
    (exp,) = grads(y, [x], g)
    check(C._pad_backward(E(g), [2, 3, 4], [9, 7], "replicate"), exp)


def test_pad_backward_large_single_plane():
    x = leaf(torch.randn(1, 1, 300, 200, dtype=torch.float64))
    y = TF.pad(x, (3, 5, 7, 2), mode="reflect")
    g = torch.randn(y.shape, dtype=torch.float64)
    (exp,) = grads(y, [x], g)
    check(C._pad_backward(E(g), [1, 1, 300, 200], [3, 5, 7, 2], "reflect"), exp)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_backward_finite_differences(mode):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 4, 5))
    pad = [2, 3, 1, 2]
    g = rng.standard_normal((2, 4 + 3, 5 + 5))
    got = C._pad_backward(e64(g), [2, 4, 5], pad, mode)
    check_fd(lambda v: N(F.pad(e64(v), pad, mode)), x, g, N(got))


# ---- interpolate -------------------------------------------------------------------------

INTERP_CASES = [
    ("nearest", (2, 3, 7), dict(size=12)), ("nearest", (2, 3, 7), dict(size=3)),
    ("nearest", (2, 3, 5, 7), dict(size=(9, 4))), ("nearest", (1, 2, 4, 3), dict(size=(8, 6))),
    ("nearest", (1, 2, 3, 4, 5), dict(size=(5, 3, 8))), ("nearest", (2, 2, 5, 6), dict(scale_factor=1.7)),
    ("nearest", (2, 2, 5), dict(scale_factor=0.6)),
    ("linear", (2, 3, 5), dict(size=11)), ("linear", (2, 3, 9), dict(size=4)), ("linear", (2, 3, 5), dict(size=5)),
    ("linear", (2, 3, 5), dict(scale_factor=2.5)),
    ("bilinear", (2, 3, 5, 7), dict(size=(9, 4))), ("bilinear", (1, 2, 6, 6), dict(size=(6, 13))),
    ("bilinear", (2, 2, 5, 6), dict(scale_factor=(1.5, 0.7))), ("bilinear", (1, 1, 1, 5), dict(size=(3, 1))),
    ("trilinear", (1, 2, 3, 4, 5), dict(size=(5, 3, 8))), ("trilinear", (1, 1, 4, 4, 4), dict(scale_factor=1.5)),
    ("nearest", (0, 2, 5), dict(size=7)), ("bilinear", (0, 2, 3, 4), dict(size=(5, 2))),
]


def scales_of(kw, k):
    s = kw.get("scale_factor")
    if s is None:
        return []
    return list(s) if isinstance(s, tuple) else [float(s)] * k


@pytest.mark.parametrize("mode, shape, kw, align_corners",
                         [c + (ac,) for c in INTERP_CASES for ac in (False, True) if c[0] != "nearest" or not ac])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_interpolate_backward(mode, shape, kw, align_corners, dtype):
    ac = align_corners if mode != "nearest" else None
    x = leaf(rounded(torch.randn(*shape, dtype=torch.float64), dtype))
    y = TF.interpolate(x, mode=mode, align_corners=ac, recompute_scale_factor=False if "scale_factor" in kw else None, **kw)
    g = torch.randn(y.shape, dtype=torch.float64)
    (exp,) = grads(y, [x], rounded(g, dtype))
    got = C._interpolate_backward(E(g, dtype, noncontig=True), list(shape), mode, bool(ac),
                                  scales_of(kw, len(shape) - 2))
    assert got.dtype == getattr(ember, dtype)
    check(got, exp, dtype, 4)


def test_interpolate_backward_large_single_plane():
    x = leaf(torch.randn(1, 1, 64, 80, dtype=torch.float64))
    y = TF.interpolate(x, size=(150, 33), mode="bilinear", align_corners=False)
    g = torch.randn(y.shape, dtype=torch.float64)
    (exp,) = grads(y, [x], g)
    check(C._interpolate_backward(E(g), [1, 1, 64, 80], "bilinear", False), exp)


def test_interpolate_nearest_backward_follows_the_forward():
    # 1-d, in 2, scale 1.3: out 2 reading [x0, x0] (PyTorch's forward), so the
    # gradient is [g0 + g1, 0]. (PyTorch's backward maps out == in to the
    # identity here and gives [g0, g1], which is not its forward's gradient.)
    x = ember.from_numpy(np.array([[[1.0, 2.0]]]))
    y = F.interpolate(x, scale_factor=1.3, mode="nearest")
    assert N(y).tolist() == [[[1.0, 1.0]]]
    got = C._interpolate_backward(e64([[[1.0, 10.0]]]), [1, 1, 2], "nearest", False, [1.3])
    assert N(got).tolist() == [[[11.0, 0.0]]]


@pytest.mark.parametrize("mode, shape, size, ac", [("bilinear", (1, 2, 3, 4), (5, 7), False),
                                                   ("bilinear", (1, 2, 3, 4), (5, 2), True),
                                                   ("trilinear", (1, 1, 2, 3, 3), (3, 4, 2), False),
                                                   ("nearest", (1, 2, 3, 4), (7, 3), None),
                                                   ("linear", (2, 1, 4), (7,), True)])
def test_interpolate_backward_finite_differences(mode, shape, size, ac):
    rng = np.random.default_rng(10)
    x = rng.standard_normal(shape)
    g = rng.standard_normal(shape[:2] + size)
    got = C._interpolate_backward(e64(g), list(shape), mode, bool(ac))
    check_fd(lambda v: N(F.interpolate(e64(v), size=list(size), mode=mode, align_corners=ac)), x, g, N(got))
