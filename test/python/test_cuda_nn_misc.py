"""dropout, embedding, one_hot, pad and interpolate (lib/cuda/nn/) on CUDA against the
CPU kernels, for what the op database's device check
(test_opdb.py::test_device_matches_cpu: the samples of each row and of its backward
row, every dtype the row claims, strided, empty and 0-dim inputs, padding_idx,
scale_grad_by_freq, every pad mode, every interpolate mode with sizes, scale factors
and align_corners, the fused LSTM / GRU cells and modules) does not reach: dropout's
mask, which the same seed makes the same on both devices (the database runs random
rows on a device without comparing them), and how many elements it keeps; an
embedding row looked up hundreds of times; negative (cropping) pads in the reflect
and replicate modes; interpolation from and to a size of 1, a large upsampling and
an empty batch; and the data-dependent index errors. The per-op dtype and argument
grids live in the op database. Skipped without a GPU."""
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
@pytest.mark.parametrize("p", [0.0, 0.2, 0.5])
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

def test_embedding_scale_grad_by_freq_and_hot_row():
    idx = ember.from_numpy(np.array([1] * 300 + [0, 2, 1]))
    check_against_cpu(lambda w, i: F.embedding(i, w, scale_grad_by_freq=True), randn(3, 16, dtype=ember.float64),
                      idx, grad=True)
    check_against_cpu(lambda w, i: F.embedding(i, w), randn(3, 16), idx, grad=True)


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


@pytest.mark.parametrize("bad, num_classes", [(-1, 5), (5, 5), (-2, -1)])
def test_one_hot_bad_class_raises(bad, num_classes):
    idx = ember.from_numpy(np.array([0, bad, 1])).to("cuda")
    with pytest.raises((IndexError, RuntimeError)):
        F.one_hot(idx, num_classes).cpu()


# ---- pad -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape, pad", [((2, 2, 5), (-1, 2)), ((2, 3, 4), (-1, -1, 1, -2))])
def test_pad_negative_pads_crop_in_reflect_and_replicate(mode, shape, pad):
    check_against_cpu(lambda x: F.pad(x, pad, mode=mode), randn(*shape, dtype=ember.float64), grad=True)
    check_against_cpu(lambda x: F.pad(x.transpose(-1, -2).contiguous().transpose(-1, -2), pad, mode=mode),
                      randn(*shape), grad=True)


# ---- interpolate ---------------------------------------------------------------------

@pytest.mark.parametrize("mode, align", [("nearest", None), ("bilinear", False), ("bilinear", True)])
def test_interpolate_from_and_to_size_one(mode, align):
    # [1, 4] -> [3, 1]: an input dim of 1, and an output dim of 1 (align_corners: scale 0)
    check_against_cpu(lambda x: F.interpolate(x, size=[3, 1], mode=mode, align_corners=align),
                      randn(2, 3, 1, 4, dtype=ember.float64), grad=True)


def test_interpolate_large_upsample_and_empty_batch():
    # 40 outputs per input: the backward gathers each input's run of outputs
    check_against_cpu(lambda x: F.interpolate(x, scale_factor=40.0, mode="linear", align_corners=True),
                      randn(1, 2, 3), grad=True)
    check_against_cpu(lambda x: F.interpolate(x, size=(3, 3), mode="bilinear"), randn(0, 2, 4, 4), grad=True)
