"""ember.nn.functional normalization ops (batch_norm, layer_norm, group_norm)
against float64 numpy references, and against PyTorch where it is installed."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from _helpers import to_numpy
from nn_refs import (FLOAT_DTYPES, TF, close, make, needs_torch, ref_batch_norm, ref_group_norm,
                     ref_layer_norm, rounded, torch, torch_of)

rng = np.random.default_rng(1234)


def randn(*shape, scale=1.0, shift=0.0):
    return rng.standard_normal(shape) * scale + shift


# ---- layer_norm --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape, k", [((4, 6), 1), ((2, 3, 5), 2), ((3, 2, 2, 4), 1), ((7,), 1),
                                      ((2, 3, 4), 3)])
@pytest.mark.parametrize("affine", ["none", "weight", "both"])
def test_layer_norm_values(dtype, shape, k, affine):
    x = randn(*shape, scale=2.0, shift=0.5)
    ns = list(shape[-k:])
    w = randn(*ns) if affine != "none" else None
    b = randn(*ns) if affine == "both" else None
    got = F.layer_norm(make(x, dtype), ns, None if w is None else make(w, dtype),
                       None if b is None else make(b, dtype), eps=1e-5)
    assert got.dtype == getattr(ember, dtype)
    xr = rounded(x, dtype)
    exp = ref_layer_norm(xr, k, None if w is None else rounded(w, dtype),
                         None if b is None else rounded(b, dtype))
    close(got, exp, dtype, scale=4)


def test_layer_norm_large_mean_is_stable():
    # a two-pass variance: E[x^2] - E[x]^2 would lose every digit here
    x = randn(3, 64, scale=1e-3, shift=1e4)
    close(F.layer_norm(make(x, "float64"), [64]), ref_layer_norm(x, 1), "float64", scale=1e4)


def test_layer_norm_noncontiguous_and_eps():
    x = randn(5, 6)
    got = F.layer_norm(make(x, noncontig=True), [6], eps=0.5)
    close(got, ref_layer_norm(rounded(x, "float32"), 1, eps=0.5), "float32")


def test_layer_norm_empty_batch():
    got = F.layer_norm(ember.zeros(0, 4), [4])
    assert tuple(got._shape) == (0, 4)


def test_layer_norm_half_with_float_params():
    x = randn(3, 8)
    w = randn(8)
    got = F.layer_norm(make(x, "float16"), [8], make(w, "float32"))
    assert got.dtype == ember.float16
    close(got, ref_layer_norm(rounded(x, "float16"), 1, w), "float16")


def test_native_layer_norm_stats():
    x = randn(2, 3, 4)
    out, mean, rstd = ember.native_layer_norm(make(x, "float64"), [4], None, None, 1e-5)
    assert tuple(mean._shape) == (2, 3, 1) and tuple(rstd._shape) == (2, 3, 1)
    close(mean, x.mean(axis=2, keepdims=True), "float64")
    close(rstd, 1 / np.sqrt(x.var(axis=2, keepdims=True) + 1e-5), "float64")
    close(out, ref_layer_norm(x, 1), "float64")


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_layer_norm_matches_torch(dtype):
    x, w, b = randn(4, 3, 10), randn(3, 10), randn(3, 10)
    got = F.layer_norm(make(x, dtype), [3, 10], make(w, dtype), make(b, dtype))
    exp = TF.layer_norm(torch_of(x, dtype), [3, 10], torch_of(w, dtype), torch_of(b, dtype))
    close(got, exp.double().numpy(), dtype, scale=2)


# ---- batch_norm --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 4, 3, 3), (2, 2, 2, 2, 3)])
@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("affine", [False, True])
def test_batch_norm_values(dtype, shape, training, affine):
    c = shape[1]
    x = randn(*shape, scale=1.5, shift=-0.7)
    rm, rv = randn(c) * 0.1, rng.uniform(0.5, 2.0, c)
    w, b = (randn(c), randn(c)) if affine else (None, None)
    # running stats stay float32 for the reduced dtypes (PyTorch's mixed-dtype rule)
    pdt = "float32" if dtype in ("float16", "bfloat16") else dtype
    erm, erv = make(rm, pdt), make(rv, pdt)
    got = F.batch_norm(make(x, dtype), erm, erv, None if w is None else make(w, pdt),
                       None if b is None else make(b, pdt), training=training, momentum=0.3, eps=1e-3)
    prm, prv = rounded(rm, pdt), rounded(rv, pdt)
    exp, new_rm, new_rv = ref_batch_norm(rounded(x, dtype), prm, prv,
                                         None if w is None else rounded(w, pdt),
                                         None if b is None else rounded(b, pdt), training, 0.3, 1e-3)
    close(got, exp, dtype, scale=4)
    close(erm, new_rm, pdt, scale=4)
    close(erv, new_rv, pdt, scale=4)


def test_batch_norm_training_without_running_stats():
    x = randn(5, 4, 2)
    got = F.batch_norm(make(x, "float64"), None, None, training=True)
    close(got, ref_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)[0], "float64")


def test_batch_norm_updates_in_place_and_bumps_version():
    rm, rv = ember.zeros(3), ember.ones(3)
    v0 = rm._version
    F.batch_norm(make(randn(4, 3)), rm, rv, training=True)
    assert rm._version > v0
    assert not np.allclose(to_numpy(rm), 0)
    v1 = rm._version
    F.batch_norm(make(randn(4, 3)), rm, rv, training=False)
    assert rm._version == v1


def test_batch_norm_noncontiguous_input_and_stats():
    x = randn(3, 4)
    rm = make(randn(4) * 0.1, noncontig=True)
    rv = make(rng.uniform(0.5, 1.5, 4), noncontig=True)
    rm0, rv0 = to_numpy(rm).astype(np.float64), to_numpy(rv).astype(np.float64)
    got = F.batch_norm(make(x, noncontig=True), rm, rv, training=True, momentum=0.5)
    exp, nrm, nrv = ref_batch_norm(rounded(x, "float32"), rm0, rv0, None, None, True, 0.5, 1e-5)
    close(got, exp, "float32", scale=4)
    close(rm, nrm, "float32", scale=4)
    close(rv, nrv, "float32", scale=4)


def test_batch_norm_empty_batch_keeps_running_stats():
    rm, rv = ember.zeros(3), ember.ones(3)
    out = F.batch_norm(ember.zeros(0, 3), rm, rv, training=True)
    assert tuple(out._shape) == (0, 3)
    close(rm, np.zeros(3))
    close(rv, np.ones(3))
    out = F.batch_norm(ember.zeros(0, 3, 4), rm, rv)
    assert tuple(out._shape) == (0, 3, 4)


def test_native_batch_norm_saved_stats():
    x = randn(6, 2, 3)
    out, mean, invstd = ember.native_batch_norm(make(x, "float64"), None, None, None, None, True, 0.1, 1e-5)
    close(mean, x.mean(axis=(0, 2)), "float64")
    close(invstd, 1 / np.sqrt(x.var(axis=(0, 2)) + 1e-5), "float64")
    _, mean_e, _ = ember.native_batch_norm(make(x), None, None, make(np.zeros(2)), make(np.ones(2)),
                                           False, 0.1, 1e-5)
    assert mean_e.numel() == 0


@needs_torch
@pytest.mark.parametrize("shape", [(8, 5), (4, 3, 6, 6)])
def test_batch_norm_matches_torch(shape):
    c = shape[1]
    x, w, b = randn(*shape), randn(c), randn(c)
    rm, rv = np.zeros(c), np.ones(c)
    erm, erv = make(rm), make(rv)
    trm, trv = torch_of(rm), torch_of(rv)
    got = F.batch_norm(make(x), erm, erv, make(w), make(b), training=True, momentum=0.2)
    exp = TF.batch_norm(torch_of(x), trm, trv, torch_of(w), torch_of(b), training=True, momentum=0.2)
    close(got, exp.double().numpy(), "float32", scale=4)
    close(erm, trm.double().numpy(), "float32")
    close(erv, trv.double().numpy(), "float32")


# ---- group_norm --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape, groups", [((2, 6, 4), 3), ((2, 6, 4), 1), ((2, 6, 4), 6),
                                           ((3, 4), 2), ((1, 8, 3, 3), 4), ((2, 4, 2, 1, 3), 2)])
@pytest.mark.parametrize("affine", [False, True])
def test_group_norm_values(dtype, shape, groups, affine):
    c = shape[1]
    x = randn(*shape, scale=3.0, shift=1.0)
    w, b = (randn(c), randn(c)) if affine else (None, None)
    pdt = "float32" if dtype in ("float16", "bfloat16") else dtype
    got = F.group_norm(make(x, dtype), groups, None if w is None else make(w, pdt),
                       None if b is None else make(b, pdt), eps=1e-4)
    exp = ref_group_norm(rounded(x, dtype), groups, None if w is None else rounded(w, pdt),
                         None if b is None else rounded(b, pdt), eps=1e-4)
    close(got, exp, dtype, scale=4)


def test_group_norm_noncontiguous_and_empty():
    x = randn(4, 6)
    close(F.group_norm(make(x, noncontig=True), 3), ref_group_norm(rounded(x, "float32"), 3),
          "float32", scale=4)
    assert tuple(F.group_norm(ember.zeros(0, 6, 3), 3)._shape) == (0, 6, 3)


def test_native_group_norm_stats():
    x = randn(2, 6, 5)
    _, mean, rstd = ember.native_group_norm(make(x, "float64"), None, None, 2, 6, 5, 3, 1e-5)
    xg = x.reshape(2, 3, -1)
    close(mean, xg.mean(axis=2), "float64")
    close(rstd, 1 / np.sqrt(xg.var(axis=2) + 1e-5), "float64")


@needs_torch
def test_group_norm_matches_torch():
    x, w, b = randn(3, 8, 5, 5), randn(8), randn(8)
    got = F.group_norm(make(x), 4, make(w), make(b))
    exp = TF.group_norm(torch_of(x), 4, torch_of(w), torch_of(b))
    close(got, exp.double().numpy(), "float32", scale=4)
