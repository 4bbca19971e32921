"""ember.nn.functional dropout, embedding, one_hot, pad and interpolate against
numpy references (interpolate's coordinate rules written out from PyTorch's
definition), and against PyTorch where it is installed."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from _helpers import to_ember, to_numpy
from nn_refs import FLOAT_DTYPES, TF, close, make, needs_torch, noncontiguous, rounded, torch, torch_of

rng = np.random.default_rng(7)


def randn(*shape):
    return rng.standard_normal(shape)


def idx(t, dtype=np.int64):
    return to_ember(np.asarray(t, dtype=dtype))


# ---- dropout -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_dropout_mask_and_scale(dtype, p):
    x = ember.randn(40, 50).to(getattr(ember, dtype))
    out, mask = ember.native_dropout(x, p, True)
    assert mask.dtype == ember.bool and out.dtype == x.dtype
    xv, ov, mv = to_numpy(x).astype(np.float64), to_numpy(out).astype(np.float64), to_numpy(mask)
    kept = mv.mean()
    assert abs(kept - (1 - p)) < 4 * np.sqrt(p * (1 - p) / mv.size)  # within 4 sigma
    exp = np.where(mv, rounded(xv, dtype) / (1 - p), 0.0)
    close(out, exp, dtype, scale=2)


def test_dropout_functional_is_native_dropout_output():
    x = ember.randn(30)
    ember.manual_seed(5)
    a = F.dropout(x, 0.3)
    ember.manual_seed(5)
    b, mask = ember.native_dropout(x, 0.3, True)
    np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
    c = F.dropout(x, 0.3)  # the generator moved on
    assert not np.array_equal(to_numpy(a), to_numpy(c))


def test_dropout_reproducible_with_seed():
    x = ember.ones(1000)
    ember.manual_seed(123)
    a = to_numpy(F.dropout(x, 0.5))
    ember.manual_seed(123)
    b = to_numpy(F.dropout(x, 0.5))
    np.testing.assert_array_equal(a, b)
    assert set(np.unique(a)) == {0.0, 2.0}


def test_dropout_eval_p0_p1():
    x = make(randn(4, 5))
    for y in (F.dropout(x, 0.5, training=False), F.dropout(x, 0.0)):
        assert y.data_ptr() == x.data_ptr()
    np.testing.assert_array_equal(to_numpy(F.dropout(x, 1.0)), np.zeros((4, 5), np.float32))
    out, mask = ember.native_dropout(x, 0.5, False)
    assert to_numpy(mask).all() and np.array_equal(to_numpy(out), to_numpy(x))
    # p = 1 multiplies by 0: NaN stays NaN as in PyTorch
    nan = F.dropout(make(np.array([np.nan, 1.0])), 1.0)
    assert np.isnan(to_numpy(nan)[0]) and to_numpy(nan)[1] == 0


def test_dropout_inplace_and_noncontiguous():
    x = make(randn(6, 8))
    before = to_numpy(x).copy()
    v = x._version
    y = F.dropout(x, 0.5, inplace=True)
    assert y.data_ptr() == x.data_ptr() and x._version > v
    after = to_numpy(x)
    assert np.all((after == 0) | np.isclose(after, before * 2))
    nc = noncontiguous(make(randn(5, 7)))
    vals = to_numpy(nc).copy()
    F.dropout(nc, 0.5, inplace=True)
    got = to_numpy(nc)
    assert np.all((got == 0) | np.isclose(got, vals * 2)) and (got == 0).any()
    out = F.dropout(make(randn(5, 7), noncontig=True), 0.25)
    assert out.is_contiguous() and tuple(out._shape) == (5, 7)


def test_dropout_empty():
    assert tuple(F.dropout(ember.zeros(0, 3), 0.5)._shape) == (0, 3)


# ---- embedding ---------------------------------------------------------------------------

@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
@pytest.mark.parametrize("ishape", [(), (5,), (2, 3), (0,)])
@pytest.mark.parametrize("wdtype", ["float32", "float64", "bfloat16"])
def test_embedding(index_dtype, ishape, wdtype):
    w = randn(7, 4)
    i = rng.integers(0, 7, size=ishape)
    got = F.embedding(idx(i, index_dtype), make(w, wdtype))
    assert tuple(got._shape) == ishape + (4,)
    close(got, rounded(w, wdtype)[i], wdtype)


def test_embedding_noncontiguous_weight_int_table_padding_idx():
    w = randn(5, 3)
    i = np.array([[4, 0], [2, 2]])
    close(F.embedding(idx(i), make(w, "float64", noncontig=True), padding_idx=1), w[i], "float64")
    wi = to_ember(np.arange(12, dtype=np.int64).reshape(6, 2))
    np.testing.assert_array_equal(to_numpy(F.embedding(idx([5, 0]), wi, padding_idx=-1)),
                                  [[10, 11], [0, 1]])


@needs_torch
def test_embedding_matches_torch():
    w, i = randn(10, 6), rng.integers(0, 10, (3, 4))
    close(F.embedding(idx(i), make(w)), TF.embedding(torch.tensor(i), torch_of(w)).double().numpy(), "float32")


# ---- one_hot -----------------------------------------------------------------------------

@pytest.mark.parametrize("ishape", [(), (6,), (2, 3)])
@pytest.mark.parametrize("num_classes", [-1, 9])
def test_one_hot(ishape, num_classes):
    i = rng.integers(0, 5, size=ishape)
    got = F.one_hot(idx(i), num_classes)
    n = int(i.max()) + 1 if num_classes == -1 else num_classes
    assert got.dtype == ember.int64
    np.testing.assert_array_equal(to_numpy(got), np.eye(n, dtype=np.int64)[i])


def test_one_hot_empty_and_noncontiguous():
    assert tuple(F.one_hot(idx(np.zeros((0,))), 3)._shape) == (0, 3)
    i = np.array([[0, 1, 2], [2, 1, 0]])
    t = idx(i).transpose(0, 1)
    np.testing.assert_array_equal(to_numpy(F.one_hot(t)), np.eye(3, dtype=np.int64)[i.T])


# ---- pad -----------------------------------------------------------------------------------

NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def ref_pad(x, pad, mode, value=0.0):
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    pos = [(max(a, 0), max(b, 0)) for a, b in widths]
    crop = tuple(slice(-min(a, 0), n - (-min(b, 0))) for n, (a, b) in zip(x.shape, widths))
    kw = {"constant_values": value} if mode == "constant" else {}
    if mode == "circular":  # PyTorch crops first, then wraps around what is left
        return np.pad(x[crop], pos, mode="wrap")
    y = np.pad(x, pos, mode=NP_MODE[mode], **kw)
    crop = tuple(slice(-min(a, 0), n - (-min(b, 0))) for n, (a, b) in zip(y.shape, widths))
    return y[crop]


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, pad", [((2, 5), (1, 2)), ((1, 2, 5), (3, 0)), ((2, 3, 4), (1, 2, 2, 1)),
                                        ((1, 2, 3, 4), (2, 1, 0, 2)), ((1, 1, 3, 3, 4), (1, 1, 2, 0, 1, 2)),
                                        ((2, 2, 5), (-1, 2)), ((2, 3, 4), (-1, -1, 1, -2))])
@pytest.mark.parametrize("noncontig", [False, True])
def test_pad_modes(mode, shape, pad, noncontig):
    x = randn(*shape)
    got = F.pad(make(x, "float64", noncontig=noncontig), pad, mode=mode)
    close(got, ref_pad(x, pad, mode), "float64")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int64", "int8", "bool", "uint8"])
def test_pad_constant_dtypes(dtype):
    x = rng.integers(0, 2, (3, 4))
    t = to_ember(x).to(getattr(ember, dtype))
    got = F.pad(t, (2, 1, 1, 0), value=1)
    assert got.dtype == getattr(ember, dtype)
    np.testing.assert_array_equal(to_numpy(got).astype(np.int64), ref_pad(x, (2, 1, 1, 0), "constant", 1))


def test_pad_constant_any_rank_crop_and_value():
    x = randn(2, 3, 4)
    close(F.pad(make(x, "float64"), (1, 1, 0, 0, 2, 1), value=-2.5), ref_pad(x, (1, 1, 0, 0, 2, 1), "constant", -2.5), "float64")
    close(F.pad(make(x, "float64"), (-2, -2)), x[:, :, 2:2], "float64")
    close(F.pad(make(x, "float64"), ()), x, "float64")
    got = F.pad(to_ember(np.array([[1, 2]], dtype=np.int64)), (1, 0), value=2.7)  # truncated like PyTorch
    np.testing.assert_array_equal(to_numpy(got), [[2, 1, 2]])


@needs_torch
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_matches_torch(mode):
    x = randn(2, 3, 5, 6)
    for pad in [(1, 2, 2, 1), (2, 1, 3, 0), (-1, 2, 1, -2), (4, 4, 4, 4)]:
        exp = TF.pad(torch_of(x), pad, mode=mode).double().numpy()
        close(F.pad(make(x), pad, mode=mode), exp, "float32")


# ---- interpolate ----------------------------------------------------------------------------

def nearest_idx(n_in, n_out, scale, shortcuts):
    o = np.arange(n_out)
    if shortcuts and n_out == n_in:  # PyTorch's 2-d kernel only
        return o
    if shortcuts and n_out == 2 * n_in:
        return o >> 1
    s = np.float32(1.0 / scale) if scale else np.float32(n_in) / np.float32(n_out)
    return np.minimum(np.floor(o.astype(np.float32) * s).astype(np.int64), n_in - 1)


def linear_table(n_in, n_out, align, scale, acc):
    o = np.arange(n_out)
    if n_out == n_in:
        return o, o, np.ones(n_out), np.zeros(n_out)
    if align:
        s = acc(n_in - 1) / acc(n_out - 1) if n_out > 1 else acc(0)
        real = s * o.astype(acc)
    else:
        s = acc(1.0 / scale) if scale else acc(n_in) / acc(n_out)
        real = np.maximum(s * (o.astype(acc) + acc(0.5)) - acc(0.5), acc(0))
    i0 = np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), n_in - 1)
    lam = np.clip(real - i0.astype(acc), 0, 1).astype(np.float64)
    i1 = i0 + (i0 < n_in - 1)
    return i0, i1, 1 - lam, lam


def ref_interpolate(x, out_sizes, mode, align=False, scales=None, acc=np.float32):
    y = x
    for d, n_out in enumerate(out_sizes):
        axis, n_in = 2 + d, x.shape[2 + d]
        scale = scales[d] if scales else None
        if mode == "nearest":
            y = np.take(y, nearest_idx(n_in, n_out, scale, len(out_sizes) == 2), axis=axis)
        else:
            i0, i1, w0, w1 = linear_table(n_in, n_out, align, scale, acc)
            shape = [1] * y.ndim
            shape[axis] = n_out
            y = np.take(y, i0, axis=axis) * w0.reshape(shape) + np.take(y, i1, axis=axis) * w1.reshape(shape)
    return y


LINEAR_FOR = {3: "linear", 4: "bilinear", 5: "trilinear"}


@pytest.mark.parametrize("in_spatial, out_spatial", [((5,), (8,)), ((6,), (3,)), ((4,), (8,)), ((7,), (7,)),
                                                     ((4, 5), (7, 3)), ((3, 3), (6, 6)), ((5, 4), (2, 9)),
                                                     ((2, 3, 4), (3, 5, 2)), ((1, 4), (3, 1))])
@pytest.mark.parametrize("mode", ["nearest", "linear"])
@pytest.mark.parametrize("align", [False, True])
def test_interpolate_size(in_spatial, out_spatial, mode, align):
    if mode == "nearest" and align:
        pytest.skip("align_corners is for the linear modes")
    x = randn(2, 3, *in_spatial)
    m = "nearest" if mode == "nearest" else LINEAR_FOR[x.ndim]
    got = F.interpolate(make(x, "float64"), size=list(out_spatial), mode=m,
                        align_corners=None if mode == "nearest" else align)
    close(got, ref_interpolate(x, out_spatial, mode, align, acc=np.float64), "float64")


@pytest.mark.parametrize("scale", [2.0, 1.7, 0.5, 3.0, 0.75])
@pytest.mark.parametrize("mode", ["nearest", "linear"])
@pytest.mark.parametrize("recompute", [None, True])
def test_interpolate_scale_factor(scale, mode, recompute):
    x = randn(1, 2, 5, 6)
    m = "nearest" if mode == "nearest" else "bilinear"
    got = F.interpolate(make(x), scale_factor=scale, mode=m, recompute_scale_factor=recompute)
    out = (int(np.floor(5 * scale)), int(np.floor(6 * scale)))
    exp = ref_interpolate(rounded(x, "float32"), out, mode, scales=None if recompute else [scale, scale])
    close(got, exp, "float32")


@pytest.mark.parametrize("spatial", [(2,), (2, 2), (2, 5, 2)])
def test_interpolate_nearest_unchanged_size_with_scale_factor(spatial):
    # PyTorch's 2-d nearest maps out == in to the identity; its 1-d and 3-d do not
    x = randn(1, 1, *spatial)
    got = F.interpolate(make(x, "float64"), scale_factor=1.3)
    out = tuple(int(np.floor(n * 1.3)) for n in spatial)
    close(got, ref_interpolate(x, out, "nearest", scales=[1.3] * len(spatial)), "float64")
    last = to_numpy(got)[(0, 0) + (0,) * (len(spatial) - 1)]  # along the last dim: 2 -> 2
    if len(spatial) == 2:
        np.testing.assert_array_equal(last, x[0, 0, 0])
    else:
        np.testing.assert_array_equal(last, [x.reshape(-1)[0]] * 2)


def test_interpolate_per_dim_scale_and_int_size():
    x = randn(1, 1, 4, 6)
    got = F.interpolate(make(x, "float64"), scale_factor=(1.5, 0.5), mode="bilinear", align_corners=False)
    close(got, ref_interpolate(x, (6, 3), "linear", scales=[1.5, 0.5], acc=np.float64), "float64")
    got = F.interpolate(make(x, "float64"), size=5)
    close(got, ref_interpolate(x, (5, 5), "nearest"), "float64")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_interpolate_dtypes_noncontig(dtype, mode):
    x = randn(2, 2, 4, 5)
    got = F.interpolate(make(x, dtype, noncontig=True), size=(6, 3), mode=mode)
    assert got.dtype == getattr(ember, dtype)
    acc = np.float64 if dtype == "float64" else np.float32
    exp = ref_interpolate(rounded(x, dtype), (6, 3), "nearest" if mode == "nearest" else "linear", acc=acc)
    close(got, exp, dtype, scale=2)


def test_interpolate_uint8_nearest_and_empty_batch():
    x = rng.integers(0, 255, (1, 2, 3, 3)).astype(np.uint8)
    got = F.interpolate(to_ember(x), size=(5, 2))
    np.testing.assert_array_equal(to_numpy(got), ref_interpolate(x, (5, 2), "nearest"))
    assert tuple(F.interpolate(ember.zeros(0, 3, 4, 4), size=2, mode="bilinear")._shape) == (0, 3, 2, 2)


@needs_torch
@pytest.mark.parametrize("mode", ["nearest", "linear", "bilinear", "trilinear"])
@pytest.mark.parametrize("align", [None, False, True])
def test_interpolate_matches_torch(mode, align):
    if mode == "nearest" and align is not None:
        pytest.skip("align_corners is for the linear modes")
    for dims in ([1, 2, 3] if mode == "nearest" else [{"linear": 1, "bilinear": 2, "trilinear": 3}[mode]]):
        x = randn(2, 3, *([5, 2, 3][:dims]))
        for kw in [{"size": [7] * dims}, {"size": [3] * dims}, {"scale_factor": 1.6}, {"scale_factor": 0.6},
                   {"scale_factor": 1.3}, {"scale_factor": 2.5, "recompute_scale_factor": True}]:
            got = F.interpolate(make(x), mode=mode, align_corners=align, **kw)
            exp = TF.interpolate(torch_of(x), mode=mode, align_corners=align, **kw).double().numpy()
            close(got, exp, "float32", scale=2)
