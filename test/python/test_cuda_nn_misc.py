"""dropout, embedding, one_hot, pad and interpolate (and their backwards) on CUDA
against the CPU kernels (lib/cuda/nn/): same values, same gradients (dropout: the
same mask for the same seed), contiguous and non-contiguous inputs, every dtype the
CPU supports, empty inputs and the data-dependent index errors. Skipped without a GPU."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from cuda_compare import check_against_cpu

pytestmark = pytest.mark.cuda

FLOATS = [ember.float16, ember.bfloat16, ember.float32, ember.float64]
RNG = np.random.default_rng(0)


def randn(*shape, dtype=ember.float32):
    return ember.from_numpy(RNG.standard_normal(shape)).to(dtype)


# ---- dropout -------------------------------------------------------------------------

def seeded_dropout(p, seed=11, **kw):
    def fn(x):
        ember.manual_seed(seed)
        return F.dropout(x, p, **kw)
    return fn


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("p", [0.0, 0.2, 0.5, 1.0])
def test_dropout_same_seed_same_mask_and_grad(dtype, p):
    check_against_cpu(seeded_dropout(p), randn(37, 29, dtype=dtype), grad=True)


def test_dropout_native_mask_and_noncontiguous():
    def fn(x):
        ember.manual_seed(3)
        return ember._C.native_dropout(x.t()[:, ::2], 0.4, True)
    check_against_cpu(fn, randn(40, 31), grad=True)


def test_dropout_inplace_and_empty_and_zero_dim():
    def inplace(x):
        ember.manual_seed(5)
        y = x.clone()
        F.dropout(y, 0.5, inplace=True)
        return y
    check_against_cpu(inplace, randn(8, 9))
    check_against_cpu(seeded_dropout(0.5), randn(0, 4), grad=True)
    check_against_cpu(seeded_dropout(0.5), randn(), grad=True)


def test_dropout_keeps_about_one_minus_p():
    ember.manual_seed(0)
    _, mask = ember._C.native_dropout(ember.ones(100000, device="cuda"), 0.3, True)
    assert abs(mask.cpu().to(ember.float64).numpy().mean() - 0.7) < 0.01


# ---- embedding / one_hot -------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("index_dtype", [ember.int64, ember.int32])
def test_embedding_forward_and_backward(dtype, index_dtype):
    idx = ember.from_numpy(RNG.integers(0, 10, (6, 7))).to(index_dtype)
    check_against_cpu(lambda w, i: F.embedding(i, w), randn(10, 5, dtype=dtype), idx, grad=True)


def test_embedding_padding_idx_repeats_noncontiguous():
    idx = ember.from_numpy(np.array([[0, 2, 2, 2], [3, 0, 2, 1]]))
    w = randn(4, 6, dtype=ember.float64)
    check_against_cpu(lambda w, i: F.embedding(i.t(), w.t().contiguous().t(), padding_idx=2), w, idx, grad=True)
    check_against_cpu(lambda w, i: F.embedding(i, w, padding_idx=-1), w, idx, grad=True)


def test_embedding_scale_grad_by_freq_and_hot_row():
    idx = ember.from_numpy(np.array([1] * 300 + [0, 2, 1]))
    check_against_cpu(lambda w, i: F.embedding(i, w, scale_grad_by_freq=True), randn(3, 16, dtype=ember.float64),
                      idx, grad=True)
    check_against_cpu(lambda w, i: F.embedding(i, w), randn(3, 16), idx, grad=True)


def test_embedding_int_table_and_empty():
    table = ember.arange(20, dtype=ember.int16).reshape(5, 4)
    idx = ember.from_numpy(np.array([4, 0, 3]))
    check_against_cpu(lambda w, i: F.embedding(i, w), table, idx)
    check_against_cpu(lambda w, i: F.embedding(i, w), randn(5, 3), ember.zeros(0, 2, dtype=ember.int64), grad=True)


@pytest.mark.parametrize("bad", [10, -1])
def test_embedding_index_out_of_range_raises_index_error(bad):
    w = randn(10, 3).to("cuda")
    idx = ember.from_numpy(np.array([1, bad, 2])).to("cuda")
    with pytest.raises(IndexError):
        F.embedding(idx, w).cpu()
    # the device stays usable
    assert F.embedding(idx[:1], w).cpu().shape == (1, 3)
    with pytest.raises(IndexError):
        ember._C._embedding_dense_backward(ember.ones(3, 3, device="cuda"), idx, 10, -1, False).cpu()


@pytest.mark.parametrize("num_classes", [-1, 6])
def test_one_hot(num_classes):
    idx = ember.from_numpy(RNG.integers(0, 5, (3, 4)))
    check_against_cpu(lambda i: F.one_hot(i, num_classes), idx)
    check_against_cpu(lambda i: F.one_hot(i.t(), num_classes), idx)
    check_against_cpu(lambda i: F.one_hot(i, 3), ember.zeros(0, dtype=ember.int64))


@pytest.mark.parametrize("bad, num_classes", [(-1, 5), (5, 5), (-2, -1)])
def test_one_hot_bad_class_raises(bad, num_classes):
    idx = ember.from_numpy(np.array([0, bad, 1])).to("cuda")
    with pytest.raises((IndexError, RuntimeError)):
        F.one_hot(idx, num_classes).cpu()


# ---- pad -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, pad", [((2, 5), (1, 2)), ((1, 2, 5), (3, 0)), ((2, 3, 4), (1, 2, 2, 1)),
                                        ((1, 2, 3, 4), (2, 1, 0, 2)), ((1, 1, 3, 3, 4), (1, 1, 2, 0, 1, 2)),
                                        ((2, 2, 5), (-1, 2)), ((2, 3, 4), (-1, -1, 1, -2))])
def test_pad_modes_forward_backward(mode, shape, pad):
    check_against_cpu(lambda x: F.pad(x, pad, mode=mode), randn(*shape, dtype=ember.float64), grad=True)
    check_against_cpu(lambda x: F.pad(x.transpose(-1, -2).contiguous().transpose(-1, -2), pad, mode=mode),
                      randn(*shape), grad=True)


@pytest.mark.parametrize("dtype", FLOATS + [ember.int64, ember.int8, ember.bool, ember.uint8])
def test_pad_constant_dtypes_and_value(dtype):
    x = randn(3, 4).to(dtype)
    check_against_cpu(lambda x: F.pad(x, (2, 1, 1, 0), value=1), x)
    check_against_cpu(lambda x: F.pad(x, (1, 1, 0, 0, 2, 1)), randn(2, 3, 4).to(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_backward_dtypes(dtype, mode):
    check_against_cpu(lambda x: F.pad(x, (2, 3, 1, 1), mode=mode), randn(2, 3, 5, 6, dtype=dtype), grad=True)


def test_pad_empty_and_crop():
    check_against_cpu(lambda x: F.pad(x, (-2, -2)), randn(2, 3, 4), grad=True)
    check_against_cpu(lambda x: F.pad(x, (1, 1)), randn(0, 3, 4), grad=True)
    check_against_cpu(lambda x: F.pad(x, ()), randn(2, 3), grad=True)


# ---- interpolate ---------------------------------------------------------------------

LINEAR_FOR = {3: "linear", 4: "bilinear", 5: "trilinear"}


@pytest.mark.parametrize("in_spatial, out_spatial", [((5,), (8,)), ((6,), (3,)), ((4,), (8,)), ((7,), (7,)),
                                                     ((4, 5), (7, 3)), ((3, 3), (6, 6)), ((5, 4), (2, 9)),
                                                     ((2, 3, 4), (3, 5, 2)), ((1, 4), (3, 1))])
@pytest.mark.parametrize("mode", ["nearest", "linear"])
@pytest.mark.parametrize("align", [False, True])
def test_interpolate_size_forward_backward(in_spatial, out_spatial, mode, align):
    if mode == "nearest" and align:
        pytest.skip("align_corners is for the linear modes")
    m = "nearest" if mode == "nearest" else LINEAR_FOR[2 + len(in_spatial)]
    ac = None if mode == "nearest" else align
    check_against_cpu(lambda x: F.interpolate(x, size=list(out_spatial), mode=m, align_corners=ac),
                      randn(2, 3, *in_spatial, dtype=ember.float64), grad=True)


@pytest.mark.parametrize("scale", [2.0, 1.7, 0.5, 3.0, 0.75, 1.3])
@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_interpolate_scale_factor(scale, mode):
    check_against_cpu(lambda x: F.interpolate(x, scale_factor=scale, mode=mode), randn(1, 2, 5, 6), grad=True)
    check_against_cpu(lambda x: F.interpolate(x, scale_factor=scale, mode=mode, recompute_scale_factor=True),
                      randn(1, 2, 5, 6), grad=True)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_interpolate_dtypes_noncontiguous(dtype, mode):
    check_against_cpu(lambda x: F.interpolate(x.transpose(2, 3), size=(6, 3), mode=mode),
                      randn(2, 2, 5, 4, dtype=dtype), grad=True)


def test_interpolate_uint8_nearest_large_upsample_and_empty_batch():
    x = ember.arange(2 * 3 * 4 * 4, dtype=ember.uint8).reshape(2, 3, 4, 4)
    check_against_cpu(lambda x: F.interpolate(x, size=(7, 9)), x)
    check_against_cpu(lambda x: F.interpolate(x, scale_factor=40.0, mode="linear", align_corners=True),
                      randn(1, 2, 3), grad=True)
    check_against_cpu(lambda x: F.interpolate(x, size=(3, 3), mode="bilinear"), randn(0, 2, 4, 4), grad=True)


# ---- the fused LSTM step -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_lstm_cell_and_sequence(dtype):
    B, I, H = 6, 5, 7
    atol = 1e-2 if dtype in (ember.float16, ember.bfloat16) else 1e-5
    cell = lambda x, h, c, *w: ember._C.lstm_cell(x, [h, c], *w)  # noqa: E731
    check_against_cpu(cell, randn(B, I, dtype=dtype), randn(B, H, dtype=dtype), randn(B, H, dtype=dtype),
                      randn(4 * H, I, dtype=dtype), randn(4 * H, H, dtype=dtype), randn(4 * H, dtype=dtype),
                      randn(4 * H, dtype=dtype), grad=True, atol=atol, rtol=atol)
    lstm = lambda x, *p: ember._C._lstm(x, None, list(p), True, 1, 0.0, False, False, True)  # noqa: E731
    check_against_cpu(lstm, randn(3, 4, I, dtype=dtype), randn(4 * H, I, dtype=dtype),
                      randn(4 * H, H, dtype=dtype), randn(4 * H, dtype=dtype), randn(4 * H, dtype=dtype),
                      grad=True, atol=atol * 5, rtol=atol * 5)
    gru = lambda x, h, *w: ember._C.gru_cell(x, h, *w)  # noqa: E731
    check_against_cpu(gru, randn(B, I, dtype=dtype), randn(B, H, dtype=dtype), randn(3 * H, I, dtype=dtype),
                      randn(3 * H, H, dtype=dtype), randn(3 * H, dtype=dtype), randn(3 * H, dtype=dtype),
                      grad=True, atol=atol, rtol=atol)
