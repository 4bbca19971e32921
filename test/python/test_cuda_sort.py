"""sort, argsort, topk, unique and searchsorted on CUDA (lib/cuda/sort/) against the CPU,
for what the op database's device check (test_opdb.py::test_device_matches_cpu: the
samples of each row over dims, descending / largest, strided, empty and 0-dim inputs,
every dtype the row claims, NaN order in sort, unique with and without dim, and
gradients of values) does not reach: the order of ties in an unstable sort and in
topk (every dtype, sorted or not), NaN in topk, unique and searchsorted, and long
rows and inputs (radix sort over one slice, unique of 200000 values). The per-op
dims x dtypes grids live in the op database. Every test needs a GPU (skipped
without one)."""
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
def test_unstable_sort_keeps_ties_in_index_order(dtype, dim, descending):
    # stable=False: ties keep index order anyway, as on the CPU (the database sorts stably)
    x = with_ties((5, 7, 3), dtype)
    check_against_cpu(lambda t: ember.sort(t, dim=dim, descending=descending, stable=False), x)
    check_against_cpu(lambda t: ember.argsort(t, dim, descending), x)


def test_sort_long_row_one_slice():
    a = np.random.default_rng(1).standard_normal(100000)
    check_against_cpu(lambda t: ember.sort(t), a)
    check_against_cpu(lambda t: ember.sort(t, descending=True), a)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim", [0, -1])
def test_topk_with_ties(dtype, largest, dim):
    # ties (and bool) on both devices alike, sorted or not; the database's topk samples have no ties
    x = with_ties((6, 8), dtype)
    for k in (0, 1, 3, x.shape[dim]):
        check_against_cpu(lambda t, k=k: ember.topk(t, k, dim=dim, largest=largest), x)
        check_against_cpu(lambda t, k=k: ember.topk(t.t(), k, dim=dim, largest=largest, sorted=False),
                          with_ties((8, 6), dtype))


def test_topk_nans():
    check_against_cpu(lambda t: ember.topk(t, 4, dim=1), with_nans((3, 9)))
    check_against_cpu(lambda t: ember.topk(t, 4, dim=1, largest=False), with_nans((3, 9)))


def test_unique_nans_and_large():
    for dim in (None, 0, 1):
        check_against_cpu(lambda t, d=dim: ember.unique(t, dim=d, return_inverse=True, return_counts=True),
                          with_nans((5, 3)))
    big = np.random.default_rng(4).integers(0, 1000, size=200000)
    check_against_cpu(lambda t: ember.unique(t, return_inverse=True, return_counts=True), big)


def test_searchsorted_nans():
    nan_seq = np.array([1.0, 2.0, np.nan])
    check_against_cpu(lambda s, v: ember.searchsorted(s, v), nan_seq, np.array([0.5, 2.0, np.nan, 9.0]))
