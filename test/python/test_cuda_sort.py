"""sort, argsort, topk and unique on CUDA (lib/cuda/sort/) against the CPU: every dtype,
dims, non-contiguous inputs, ties (stable order), NaN order (largest: last ascending,
first descending), empty and 0-dim inputs, gradients of values. Every test needs a GPU
(skipped without one)."""
import numpy as np
import pytest

import ember
from cuda_compare import check_against_cpu

pytestmark = pytest.mark.cuda

ALL_DTYPES = [ember.bool, ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64,
              ember.float16, ember.bfloat16, ember.float32, ember.float64]


def with_ties(shape, dtype, seed=0):
    """Small integers (many ties; 0/1 for bool, negatives for signed types)."""
    rng = np.random.default_rng(seed)
    lo = 0 if dtype in (ember.bool, ember.uint8) else -3
    hi = 2 if dtype == ember.bool else 4
    return ember.from_numpy(rng.integers(lo, hi, size=shape).astype(np.float64)).to(dtype)


def with_nans(shape, dtype=ember.float32, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, size=shape).astype(np.float64)
    a[rng.random(shape) < 0.25] = np.nan
    a.flat[0] = -0.0
    a.flat[-1] = np.inf
    return ember.from_numpy(a).to(dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_ties_are_stable(dtype, dim, descending):
    x = with_ties((5, 7, 3), dtype)
    for stable in (False, True):  # ties keep index order either way, as on the CPU
        check_against_cpu(lambda t: ember.sort(t, dim=dim, descending=descending, stable=stable), x)
    check_against_cpu(lambda t: ember.sort(t.transpose(0, 2)[:, ::2], dim=dim, descending=descending), x)
    check_against_cpu(lambda t: ember.argsort(t, dim, descending), x)


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16, ember.float32, ember.float64])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_nan_order(dtype, descending):
    x = with_nans((4, 9), dtype)
    values, _ = check_against_cpu(lambda t: ember.sort(t, dim=1, descending=descending), x)
    row = values[0].cpu().to(ember.float64).numpy()
    nan = np.isnan(row)
    if nan.any():  # NaN is the largest: last ascending, first descending
        k = int(nan.sum())
        assert nan[:k].all() if descending else nan[-k:].all()


def test_sort_long_rows_one_slice_and_grad():
    a = np.random.default_rng(1).standard_normal(100000)
    check_against_cpu(lambda t: ember.sort(t), a)
    check_against_cpu(lambda t: ember.sort(t, descending=True), a)
    check_against_cpu(lambda t: ember.sort(t, dim=0)[0], np.random.default_rng(2).standard_normal((6, 5)),
                      grad=True)


def test_sort_empty_and_0dim():
    check_against_cpu(lambda t: ember.sort(t, dim=0), np.zeros((0, 3)))
    check_against_cpu(lambda t: ember.sort(t, dim=1), np.zeros((0, 3)))
    check_against_cpu(lambda t: ember.sort(t), np.array(5.0))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim", [0, -1])
def test_topk(dtype, largest, dim):
    x = with_ties((6, 8), dtype)
    for k in (0, 1, 3, x.shape[dim]):
        check_against_cpu(lambda t, k=k: ember.topk(t, k, dim=dim, largest=largest), x)
        check_against_cpu(lambda t, k=k: ember.topk(t.t(), k, dim=dim, largest=largest, sorted=False),
                          with_ties((8, 6), dtype))


def test_topk_nans_grad_0dim():
    check_against_cpu(lambda t: ember.topk(t, 4, dim=1), with_nans((3, 9)))
    check_against_cpu(lambda t: ember.topk(t, 4, dim=1, largest=False), with_nans((3, 9)))
    check_against_cpu(lambda t: ember.topk(t, 2, dim=0)[0], np.random.default_rng(3).standard_normal((5, 4)),
                      grad=True)
    check_against_cpu(lambda t: ember.topk(t, 1), np.array(2.0))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_unique(dtype):
    x = with_ties((6, 5), dtype)
    check_against_cpu(lambda t: ember.unique(t, return_inverse=True, return_counts=True), x)
    check_against_cpu(lambda t: ember.unique(t.t()[:, 1:], return_inverse=True, return_counts=True), x)
    check_against_cpu(lambda t: ember.unique(t), x)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_dim(dtype, dim):
    x = with_ties((6, 2, 3), dtype)
    check_against_cpu(lambda t: ember.unique(t, dim=dim, return_inverse=True, return_counts=True), x)
    check_against_cpu(lambda t: ember.unique(t.transpose(0, 2), dim=dim, return_inverse=True,
                                             return_counts=True), x)


def test_unique_nans_empty_0dim():
    for dim in (None, 0, 1):
        check_against_cpu(lambda t, d=dim: ember.unique(t, dim=d, return_inverse=True, return_counts=True),
                          with_nans((5, 3)))
    check_against_cpu(lambda t: ember.unique(t, return_inverse=True, return_counts=True), np.zeros((0, 3)))
    check_against_cpu(lambda t: ember.unique(t, dim=0, return_inverse=True, return_counts=True),
                      np.zeros((0, 3)))
    check_against_cpu(lambda t: ember.unique(t, return_inverse=True, return_counts=True), np.array(1.5))
    big = np.random.default_rng(4).integers(0, 1000, size=200000)
    check_against_cpu(lambda t: ember.unique(t, return_inverse=True, return_counts=True), big)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64], ids=str)
def test_searchsorted_and_bucketize(dtype):
    rng = np.random.default_rng(5)
    seq = np.sort(rng.standard_normal((3, 40)) * 10, axis=-1).astype(dtype)
    values = (rng.standard_normal((3, 17)) * 12).astype(dtype)
    for right in (False, True):
        check_against_cpu(lambda s, v: ember.searchsorted(s, v, right=right), seq, values)
        check_against_cpu(lambda s, v: ember.bucketize(v, s[0], right=right, out_int32=True), seq, values)
    nan_seq = np.array([1.0, 2.0, np.nan])
    check_against_cpu(lambda s, v: ember.searchsorted(s, v), nan_seq, np.array([0.5, 2.0, np.nan, 9.0]))
