"""Convolutions and pooling against straightforward numpy float64 references
(and against torch when it is installed) over many parameter combinations."""
import math

import numpy as np
import pytest

import ember
from _helpers import assert_close
from test_linalg import to_ember, to_numpy

rng = np.random.default_rng(7)


def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


# ---- numpy references ----------------------------------------------------------------------------

def conv2d_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    (s0, s1), (d0, d1) = pair(stride), pair(dilation)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    if padding == "valid":
        padding = 0
    if padding == "same":  # the extra zero of an odd total goes at the end
        tot = (d0 * (kh - 1), d1 * (kw - 1))
        pads = ((tot[0] // 2, tot[0] - tot[0] // 2), (tot[1] // 2, tot[1] - tot[1] // 2))
    else:
        p0, p1 = pair(padding)
        pads = ((p0, p0), (p1, p1))
    xp = np.pad(x, ((0, 0), (0, 0)) + pads)
    oh = (xp.shape[2] - d0 * (kh - 1) - 1) // s0 + 1
    ow = (xp.shape[3] - d1 * (kw - 1) - 1) // s1 + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        xg, wg = xp[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og]
        for i in range(kh):
            for j in range(kw):
                patch = xg[:, :, i * d0:i * d0 + s0 * (oh - 1) + 1:s0, j * d1:j * d1 + s1 * (ow - 1) + 1:s1]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, wg[:, :, i, j])
    if b is not None:
        out += b[None, :, None, None]
    return out


def conv_transpose2d_ref(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    (s0, s1), (p0, p1), (q0, q1), (d0, d1) = map(pair, (stride, padding, output_padding, dilation))
    n, cin, h, wd = x.shape
    _, og, kh, kw = w.shape
    cg = cin // groups
    full = np.zeros((n, og * groups, (h - 1) * s0 + d0 * (kh - 1) + 1 + q0,
                     (wd - 1) * s1 + d1 * (kw - 1) + 1 + q1))
    for g in range(groups):
        xg, wg = x[:, g * cg:(g + 1) * cg], w[g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                full[:, g * og:(g + 1) * og, i * d0:i * d0 + s0 * (h - 1) + 1:s0,
                     j * d1:j * d1 + s1 * (wd - 1) + 1:s1] += np.einsum("nchw,co->nohw", xg, wg[:, :, i, j])
    oh = (h - 1) * s0 - 2 * p0 + d0 * (kh - 1) + q0 + 1
    ow = (wd - 1) * s1 - 2 * p1 + d1 * (kw - 1) + q1 + 1
    out = full[:, :, p0:p0 + oh, p1:p1 + ow]
    if b is not None:
        out = out + b[None, :, None, None]
    return out


def pool_out(size, k, p, s, d, ceil):
    span = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    out = span // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def max_pool2d_ref(x, k, stride=None, padding=0, dilation=1, ceil_mode=False):
    (k0, k1), (p0, p1), (d0, d1) = pair(k), pair(padding), pair(dilation)
    s0, s1 = pair(stride if stride is not None else k)
    n, c, h, w = x.shape
    oh, ow = pool_out(h, k0, p0, s0, d0, ceil_mode), pool_out(w, k1, p1, s1, d1, ceil_mode)
    vals, idx = np.zeros((n, c, oh, ow), x.dtype), np.zeros((n, c, oh, ow), np.int64)
    for i in range(oh):
        rows = [i * s0 - p0 + a * d0 for a in range(k0) if 0 <= i * s0 - p0 + a * d0 < h]
        for j in range(ow):
            cols = [j * s1 - p1 + a * d1 for a in range(k1) if 0 <= j * s1 - p1 + a * d1 < w]
            win = x[:, :, rows][:, :, :, cols].reshape(n, c, -1)
            arg = win.argmax(-1)
            vals[:, :, i, j] = np.take_along_axis(win, arg[..., None], -1)[..., 0]
            idx[:, :, i, j] = np.array(rows)[arg // len(cols)] * w + np.array(cols)[arg % len(cols)]
    return vals, idx


def avg_pool2d_ref(x, k, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    (k0, k1), (p0, p1) = pair(k), pair(padding)
    s0, s1 = pair(stride if stride is not None else k)
    n, c, h, w = x.shape
    oh, ow = pool_out(h, k0, p0, s0, 1, ceil_mode), pool_out(w, k1, p1, s1, 1, ceil_mode)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        hs, he = i * s0 - p0, min(i * s0 - p0 + k0, h + p0)
        for j in range(ow):
            ws, we = j * s1 - p1, min(j * s1 - p1 + k1, w + p1)
            size = (he - hs) * (we - ws)
            h0, h1, w0, w1 = max(hs, 0), min(he, h), max(ws, 0), min(we, w)
            total = x[:, :, h0:h1, w0:w1].sum(axis=(2, 3))
            div = divisor_override or (size if count_include_pad else (h1 - h0) * (w1 - w0))
            out[:, :, i, j] = total / div
    return out


def adaptive_avg_pool2d_ref(x, size):
    n, c, h, w = x.shape
    oh, ow = size
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        h0, h1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            w0, w1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return out


def randn(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# ---- conv2d ------------------------------------------------------------------------------------

CONV2D_CASES = [
    dict(x=(2, 3, 8, 8), o=4, k=(3, 3)),
    dict(x=(2, 3, 8, 8), o=4, k=(3, 3), padding=1),
    dict(x=(2, 3, 9, 7), o=4, k=(3, 2), stride=(2, 1), padding=(1, 0)),
    dict(x=(1, 4, 10, 10), o=6, k=(3, 3), dilation=2, padding=2),
    dict(x=(2, 3, 11, 9), o=5, k=(3, 3), dilation=(2, 1), stride=(1, 3), padding=(0, 2)),
    dict(x=(2, 4, 8, 8), o=6, k=(3, 3), groups=2, stride=2),
    dict(x=(2, 4, 8, 8), o=4, k=(3, 3), groups=4, padding=1),  # depthwise
    dict(x=(2, 4, 8, 8), o=8, k=(3, 3), groups=4, padding=1, bias=False),
    dict(x=(3, 6, 5, 5), o=3, k=(1, 1)),  # pointwise: no im2col
    dict(x=(2, 6, 5, 5), o=4, k=(1, 1), groups=2, bias=False),
    dict(x=(2, 3, 8, 8), o=4, k=(1, 1), stride=2),
    dict(x=(2, 3, 8, 8), o=4, k=(1, 1), padding=1),
    dict(x=(2, 3, 7, 7), o=4, k=(3, 3), padding="same"),
    dict(x=(2, 3, 7, 6), o=4, k=(4, 2), padding="same", dilation=(1, 2)),  # odd total padding
    dict(x=(2, 3, 7, 6), o=4, k=(2, 2), padding="same"),
    dict(x=(2, 3, 7, 7), o=4, k=(3, 3), padding="valid"),
    dict(x=(3, 8, 8), o=4, k=(3, 3), padding=1),  # unbatched
    dict(x=(0, 3, 8, 8), o=4, k=(3, 3)),  # empty batch
    dict(x=(2, 3, 5, 5), o=4, k=(5, 5)),  # kernel as large as the input
    dict(x=(5, 3, 6, 6), o=2, k=(3, 3), padding=1),  # batch not divisible by the threads
    dict(x=(1, 2, 4, 4), o=3, k=(2, 2), stride=3, padding=1),
    dict(x=(1, 64, 40, 300), o=4, k=(3, 3), padding=1),  # several row bands of columns
    dict(x=(4, 16, 20, 20), o=32, k=(3, 3), padding=1, stride=2),
    # one or few images: split into bands of output rows shared by the threads
    dict(x=(1, 8, 64, 64), o=8, k=(3, 3), padding=1),
    dict(x=(1, 8, 64, 64), o=6, k=(1, 1)),
    dict(x=(3, 4, 70, 40), o=4, k=(3, 3), stride=2, padding=1, groups=2),
]


def case_id(c):
    return ",".join(f"{k}={v}" for k, v in c.items())


def conv_inputs(case):
    x = randn(*case["x"])
    cin = case["x"][-3]
    groups = case.get("groups", 1)
    w = randn(case["o"], cin // groups, *case["k"])
    b = randn(case["o"]) if case.get("bias", True) else None
    kwargs = {k: case[k] for k in ("stride", "padding", "dilation", "groups") if k in case}
    return x, w, b, kwargs


@pytest.mark.parametrize("case", CONV2D_CASES, ids=case_id)
def test_conv2d(case):
    x, w, b, kw = conv_inputs(case)
    x4 = x if x.ndim == 4 else x[None]
    expected = conv2d_ref(x4.astype(np.float64), w.astype(np.float64),
                          None if b is None else b.astype(np.float64), **kw)
    if x.ndim == 3:
        expected = expected[0]
    got = ember.conv2d(to_ember(x), to_ember(w), None if b is None else to_ember(b), **kw)
    assert_close(got, expected, rtol=1e-4, atol=1e-4, check_dtype=ember.float32)


@pytest.mark.parametrize("dtype, rtol, atol", [(ember.float64, 1e-10, 1e-10), (ember.float16, 1e-2, 3e-2),
                                              (ember.bfloat16, 3e-2, 1e-1)])
def test_conv2d_dtypes(dtype, rtol, atol):
    x, w, b = randn(2, 4, 7, 7), randn(6, 2, 3, 3), randn(6)
    xe, we, be = (to_ember(a).to(dtype) for a in (x, w, b))
    xs, ws, bs = (to_numpy(t.double()) for t in (xe, we, be))  # the values in dtype
    got = ember.conv2d(xe, we, be, stride=(2, 1), padding=1, groups=2)
    assert got.dtype == dtype
    assert_close(got, conv2d_ref(xs, ws, bs, stride=(2, 1), padding=1, groups=2), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", [ember.int64, ember.int32])
def test_conv2d_integers(dtype):
    x = rng.integers(-3, 4, (2, 3, 6, 6))
    w = rng.integers(-2, 3, (4, 3, 3, 3))
    b = rng.integers(-5, 5, (4,))
    np_dt = np.int64 if dtype == ember.int64 else np.int32
    got = ember.conv2d(to_ember(x.astype(np_dt)), to_ember(w.astype(np_dt)), to_ember(b.astype(np_dt)), padding=1)
    assert got.dtype == dtype
    np.testing.assert_array_equal(to_numpy(got), conv2d_ref(x, w, b, padding=1).astype(np_dt))


def test_conv2d_noncontiguous_inputs():
    x, w, b = randn(2, 3, 8, 8), randn(4, 3, 3, 3), randn(4)
    xt = to_ember(np.ascontiguousarray(x.transpose(0, 1, 3, 2))).transpose(2, 3)  # strided view
    wt = to_ember(np.ascontiguousarray(w.transpose(1, 0, 2, 3))).transpose(0, 1)
    got = ember.conv2d(xt, wt, to_ember(b), padding=1)
    assert_close(got, conv2d_ref(x.astype(np.float64), w.astype(np.float64), b.astype(np.float64), padding=1),
                 rtol=1e-4, atol=1e-4)


# ---- conv1d ----------------------------------------------------------------------------------------

CONV1D_CASES = [
    dict(x=(2, 3, 10), o=4, k=3),
    dict(x=(2, 3, 10), o=4, k=3, stride=2, padding=1),
    dict(x=(2, 4, 12), o=6, k=3, dilation=3, groups=2),
    dict(x=(3, 10), o=4, k=5, padding="same"),
    dict(x=(2, 3, 9), o=2, k=4, padding="same"),
    dict(x=(2, 3, 9), o=2, k=1, bias=False),
]


@pytest.mark.parametrize("case", CONV1D_CASES, ids=case_id)
def test_conv1d(case):
    x = randn(*case["x"])
    groups = case.get("groups", 1)
    w = randn(case["o"], case["x"][-2] // groups, case["k"])
    b = randn(case["o"]) if case.get("bias", True) else None
    kw = {k: case[k] for k in ("stride", "padding", "dilation", "groups") if k in case}
    # the reference: a conv2d over a height of 1
    kw2 = dict(kw)
    for name in ("stride", "dilation"):
        if name in kw:
            kw2[name] = (1, kw[name])
    if isinstance(kw.get("padding"), int):
        kw2["padding"] = (0, kw["padding"])
    x4 = (x if x.ndim == 3 else x[None])[:, :, None]
    expected = conv2d_ref(x4.astype(np.float64), w[:, :, None].astype(np.float64),
                          None if b is None else b.astype(np.float64), **kw2)[:, :, 0]
    if x.ndim == 2:
        expected = expected[0]
    got = ember.conv1d(to_ember(x), to_ember(w), None if b is None else to_ember(b), **kw)
    assert_close(got, expected, rtol=1e-4, atol=1e-4)


# ---- conv_transpose2d ----------------------------------------------------------------------------

CONVT_CASES = [
    dict(x=(2, 3, 5, 5), o=4, k=(3, 3)),
    dict(x=(2, 3, 5, 5), o=4, k=(3, 3), stride=2),
    dict(x=(2, 3, 5, 6), o=4, k=(3, 2), stride=(2, 3), padding=(1, 0), output_padding=(1, 2)),
    dict(x=(2, 4, 5, 5), o=2, k=(3, 3), groups=2, stride=2, padding=1, output_padding=1),
    dict(x=(1, 2, 4, 4), o=3, k=(3, 3), dilation=2, padding=1),
    dict(x=(2, 2, 4, 4), o=3, k=(2, 2), dilation=(2, 1), stride=2, output_padding=(1, 0)),
    dict(x=(2, 6, 5, 5), o=4, k=(1, 1), bias=False),  # pointwise
    dict(x=(2, 6, 5, 5), o=4, k=(1, 1), groups=3),
    dict(x=(2, 3, 5, 5), o=4, k=(1, 1), dilation=2, output_padding=1),  # 1x1 yet larger output
    dict(x=(3, 5, 5), o=4, k=(3, 3), stride=2),  # unbatched
    dict(x=(0, 3, 5, 5), o=4, k=(3, 3)),
    dict(x=(1, 32, 40, 200), o=4, k=(3, 3), stride=2, padding=1),  # several row bands
]


@pytest.mark.parametrize("case", CONVT_CASES, ids=case_id)
def test_conv_transpose2d(case):
    x = randn(*case["x"])
    groups = case.get("groups", 1)
    w = randn(case["x"][-3], case["o"], *case["k"])
    b = randn(case["o"] * groups) if case.get("bias", True) else None
    kw = {k: case[k] for k in ("stride", "padding", "output_padding", "groups", "dilation") if k in case}
    x4 = x if x.ndim == 4 else x[None]
    expected = conv_transpose2d_ref(x4.astype(np.float64), w.astype(np.float64),
                                    None if b is None else b.astype(np.float64), **kw)
    if x.ndim == 3:
        expected = expected[0]
    got = ember.conv_transpose2d(to_ember(x), to_ember(w), None if b is None else to_ember(b), **kw)
    assert_close(got, expected, rtol=1e-4, atol=1e-4)


def test_conv_transpose2d_float64_and_int():
    x, w = randn(2, 4, 5, 5).astype(np.float64), randn(4, 3, 3, 3).astype(np.float64)
    got = ember.conv_transpose2d(to_ember(x), to_ember(w), stride=2, padding=1)
    assert_close(got, conv_transpose2d_ref(x, w, stride=2, padding=1), rtol=1e-10, atol=1e-10)
    xi, wi = rng.integers(-3, 4, (1, 2, 4, 4)), rng.integers(-3, 4, (2, 2, 3, 3))
    got = ember.conv_transpose2d(to_ember(xi), to_ember(wi), stride=2)
    np.testing.assert_array_equal(to_numpy(got), conv_transpose2d_ref(xi, wi, stride=2).astype(np.int64))


def test_conv_transpose2d_is_adjoint_of_conv2d():
    """<conv2d(x, w), y> == <x, conv_transpose2d(y, w)>: conv_transpose2d is conv2d's input gradient."""
    x, w = randn(2, 4, 9, 8).astype(np.float64), randn(6, 2, 3, 3).astype(np.float64)
    kw = dict(stride=2, padding=1, dilation=(1, 2), groups=2)
    y = ember.conv2d(to_ember(x), to_ember(w), **kw)
    g = randn(*y._shape).astype(np.float64)
    out_pad = tuple(x.shape[2 + d] - ((y._shape[2 + d] - 1) * 2 - 2 + (1, 2)[d] * 2 + 1) for d in range(2))
    xt = ember.conv_transpose2d(to_ember(g), to_ember(w), output_padding=out_pad, **kw)
    lhs = (to_numpy(y) * g).sum()
    rhs = (x * to_numpy(xt)).sum()
    assert math.isclose(lhs, rhs, rel_tol=1e-9)


# ---- pooling ---------------------------------------------------------------------------------------

MAXPOOL_CASES = [
    dict(k=2), dict(k=3), dict(k=2, stride=1), dict(k=3, stride=2, padding=1),
    dict(k=(3, 2), stride=(2, 1), padding=(1, 0)), dict(k=3, dilation=2), dict(k=2, dilation=(2, 3), padding=1),
    dict(k=2, ceil_mode=True), dict(k=3, stride=2, ceil_mode=True), dict(k=3, stride=2, padding=1, ceil_mode=True),
    dict(k=(2, 3), stride=(3, 2), padding=(1, 1), dilation=(1, 2), ceil_mode=True), dict(k=1),
]


@pytest.mark.parametrize("case", MAXPOOL_CASES, ids=case_id)
@pytest.mark.parametrize("shape", [(2, 3, 9, 10), (3, 7, 8)])
def test_max_pool2d(case, shape):
    x = randn(*shape)
    kw = {k: v for k, v in case.items() if k != "k"}
    x4 = x if x.ndim == 4 else x[None]
    vals, idx = max_pool2d_ref(x4, case["k"], **kw)
    if x.ndim == 3:
        vals, idx = vals[0], idx[0]
    xe = to_ember(x)
    assert_close(ember.max_pool2d(xe, case["k"], **kw), vals, rtol=0, atol=0)
    v, i = ember.max_pool2d(xe, case["k"], **kw, return_indices=True)
    assert_close(v, vals, rtol=0, atol=0)
    assert i.dtype == ember.int64
    np.testing.assert_array_equal(to_numpy(i), idx)
    v2, i2 = ember.max_pool2d_with_indices(xe, case["k"], **kw)
    np.testing.assert_array_equal(to_numpy(i2), idx)


@pytest.mark.parametrize("dtype", [ember.float64, ember.float16, ember.bfloat16, ember.int64, ember.int32,
                                   ember.uint8, ember.int8])
def test_max_pool2d_dtypes(dtype):
    x = rng.integers(0, 50, (2, 3, 6, 7)).astype(np.float32)
    vals, idx = max_pool2d_ref(x, 3, stride=2, padding=1)
    v, i = ember.max_pool2d(to_ember(x).to(dtype), 3, stride=2, padding=1, return_indices=True)
    assert v.dtype == dtype
    assert_close(v.float(), vals, rtol=0, atol=0)
    np.testing.assert_array_equal(to_numpy(i), idx)


def test_max_pool2d_nan_and_inf():
    x = np.full((1, 1, 4, 4), -np.inf, np.float32)
    x[0, 0, 0, 1] = np.nan
    v, i = ember.max_pool2d(to_ember(x), 2, return_indices=True)
    out, ind = to_numpy(v), to_numpy(i)
    assert np.isnan(out[0, 0, 0, 0]) and ind[0, 0, 0, 0] == 1  # NaN propagates
    assert out[0, 0, 1, 1] == -np.inf and ind[0, 0, 1, 1] == 2 * 4 + 2  # all -inf: first position


def test_max_pool2d_noncontiguous_and_empty_batch():
    x = randn(2, 3, 8, 6)
    xt = to_ember(np.ascontiguousarray(x.transpose(0, 1, 3, 2))).transpose(2, 3)
    assert_close(ember.max_pool2d(xt, 2), max_pool2d_ref(x, 2)[0], rtol=0, atol=0)
    assert tuple(ember.max_pool2d(ember.zeros(0, 3, 8, 8), 2)._shape) == (0, 3, 4, 4)


AVGPOOL_CASES = [
    dict(k=2), dict(k=3, stride=1), dict(k=3, stride=2, padding=1),
    dict(k=3, stride=2, padding=1, count_include_pad=False), dict(k=(3, 2), stride=(2, 1), padding=(1, 1)),
    dict(k=2, ceil_mode=True), dict(k=3, stride=2, padding=1, ceil_mode=True),
    dict(k=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(k=3, stride=2, padding=1, divisor_override=2), dict(k=2, divisor_override=3, ceil_mode=True),
]


@pytest.mark.parametrize("case", AVGPOOL_CASES, ids=case_id)
@pytest.mark.parametrize("shape", [(2, 3, 9, 10), (3, 7, 8)])
def test_avg_pool2d(case, shape):
    x = randn(*shape)
    kw = {k: v for k, v in case.items() if k != "k"}
    x4 = x if x.ndim == 4 else x[None]
    expected = avg_pool2d_ref(x4.astype(np.float64), case["k"], **kw)
    if x.ndim == 3:
        expected = expected[0]
    assert_close(ember.avg_pool2d(to_ember(x), case["k"], **kw), expected, rtol=1e-5, atol=1e-6)


def test_avg_pool2d_dtypes():
    x = rng.integers(0, 50, (2, 3, 6, 7))
    got = ember.avg_pool2d(to_ember(x), 2)
    assert got.dtype == ember.int64  # integer averages truncate
    np.testing.assert_array_equal(to_numpy(got), np.trunc(avg_pool2d_ref(x.astype(np.float64), 2)).astype(np.int64))
    xf = x.astype(np.float32)
    for dtype, tol in [(ember.float64, 1e-12), (ember.float16, 2e-2), (ember.bfloat16, 2e-1)]:
        got = ember.avg_pool2d(to_ember(xf).to(dtype), 3, stride=2, padding=1)
        assert got.dtype == dtype
        assert_close(got.double(), avg_pool2d_ref(xf.astype(np.float64), 3, stride=2, padding=1), rtol=tol, atol=tol)


@pytest.mark.parametrize("size, expected", [
    (1, (1, 1)), ((1, 1), (1, 1)), ((3, 5), (3, 5)), ((None, 2), (7, 2)), ((4, None), (4, 10)),
    (7, (7, 7)), ((10, 20), (10, 20)), ((0, 3), (0, 3))])
def test_adaptive_avg_pool2d(size, expected):
    x = randn(2, 3, 7, 10)
    got = ember.adaptive_avg_pool2d(to_ember(x), size)
    assert tuple(got._shape) == (2, 3) + expected
    assert_close(got, adaptive_avg_pool2d_ref(x.astype(np.float64), expected), rtol=1e-5, atol=1e-6)
    got3 = ember.adaptive_avg_pool2d(to_ember(x[0]), size)  # unbatched
    assert_close(got3, adaptive_avg_pool2d_ref(x[:1].astype(np.float64), expected)[0], rtol=1e-5, atol=1e-6)


def test_adaptive_avg_pool2d_dtypes():
    x = randn(2, 3, 7, 10)
    for dtype, tol in [(ember.float64, 1e-6), (ember.float16, 1e-2), (ember.bfloat16, 5e-2)]:
        got = ember.adaptive_avg_pool2d(to_ember(x).to(dtype), (3, 4))
        assert got.dtype == dtype
        assert_close(got.double(), adaptive_avg_pool2d_ref(x.astype(np.float64), (3, 4)), rtol=tol, atol=tol)


# ---- against torch, when it is installed ----------------------------------------------------------

@pytest.mark.filterwarnings("ignore:Using padding='same'")
def test_against_torch():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    t = torch.from_numpy
    for case in CONV2D_CASES:
        x, w, b, kw = conv_inputs(case)
        if x.size > 200000:
            continue
        exp = F.conv2d(t(x), t(w), None if b is None else t(b), **kw).numpy()
        got = ember.conv2d(to_ember(x), to_ember(w), None if b is None else to_ember(b), **kw)
        assert_close(got, exp, rtol=1e-4, atol=1e-4)
    for case in CONVT_CASES:
        x = randn(*case["x"])
        groups = case.get("groups", 1)
        w = randn(case["x"][-3], case["o"], *case["k"])
        kw = {k: case[k] for k in ("stride", "padding", "output_padding", "groups", "dilation") if k in case}
        if x.size > 200000:
            continue
        assert_close(ember.conv_transpose2d(to_ember(x), to_ember(w), **kw),
                     F.conv_transpose2d(t(x), t(w), **kw).numpy(), rtol=1e-4, atol=1e-4)
    for case in CONV1D_CASES:
        x = randn(*case["x"])
        groups = case.get("groups", 1)
        w = randn(case["o"], case["x"][-2] // groups, case["k"])
        kw = {k: case[k] for k in ("stride", "padding", "dilation", "groups") if k in case}
        assert_close(ember.conv1d(to_ember(x), to_ember(w), **kw), F.conv1d(t(x), t(w), **kw).numpy(),
                     rtol=1e-4, atol=1e-4)
    x = randn(2, 3, 9, 10)
    for case in MAXPOOL_CASES:
        kw = {k: v for k, v in case.items() if k != "k"}
        tv, ti = F.max_pool2d(t(x), case["k"], **kw, return_indices=True)
        v, i = ember.max_pool2d(to_ember(x), case["k"], **kw, return_indices=True)
        assert_close(v, tv.numpy(), rtol=0, atol=0)
        np.testing.assert_array_equal(to_numpy(i), ti.numpy())
    for case in AVGPOOL_CASES:
        kw = {k: v for k, v in case.items() if k != "k"}
        assert_close(ember.avg_pool2d(to_ember(x), case["k"], **kw), F.avg_pool2d(t(x), case["k"], **kw).numpy(),
                     rtol=1e-5, atol=1e-6)
    for size in [(3, 5), (None, 2), 4, (12, 13)]:
        assert_close(ember.adaptive_avg_pool2d(to_ember(x), size), F.adaptive_avg_pool2d(t(x), size).numpy(),
                     rtol=1e-5, atol=1e-6)
