"""sort, argsort, topk and unique against numpy.

Values are compared exactly. Indices are compared with numpy's stable sort
(ember breaks ties by index, so it is always stable); for topk they must pick
the right values, and with ties the lower index comes first."""
import numpy as np
import pytest

import ember
from _helpers import assert_close, to_ember, to_numpy
from _helpers import noncontiguous  # noqa: F401 (used by the tests below)

DTYPES = [ember.float32, ember.float64, ember.float16, ember.bfloat16, ember.int64, ember.int32,
          ember.int16, ember.int8, ember.uint8, ember.bool]



def make(shape, dtype, seed=0, ties=True, layout="contiguous"):
    """Values with many ties (small integers) unless ties=False."""
    rng = np.random.default_rng(seed)
    if dtype == ember.bool:
        a = rng.random(shape) < 0.5
    elif ties:
        a = rng.integers(0, 5, size=shape).astype(np.float32)
    else:
        a = rng.permutation(int(np.prod(shape))).reshape(shape).astype(np.float32)
    x = to_ember(a, dtype)
    if layout == "noncontiguous":
        x = noncontiguous(x)
    return x, to_numpy(x)


def _desc_stable(a, dim):
    """Indices of a descending stable sort along dim (NaN first, like PyTorch)."""
    moved = np.moveaxis(a, dim, -1)
    out = np.empty(moved.shape, dtype=np.int64)
    for pos in np.ndindex(moved.shape[:-1]):
        row = moved[pos].astype(np.float64)
        keys = [(-(v if not np.isnan(v) else np.inf), i) for i, v in enumerate(row)]
        out[pos] = [i for _, i in sorted(keys)]
    return np.moveaxis(out, -1, dim)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("layout", ["contiguous", "noncontiguous"])
def test_sort_with_ties(dtype, dim, descending, layout):
    x, a = make((4, 6), dtype, layout=layout)
    values, indices = ember.sort(x, dim=dim, descending=descending, stable=True)
    order = _desc_stable(a, dim) if descending else np.argsort(a, axis=dim, kind="stable")
    assert_close(values, np.take_along_axis(a, order, axis=dim), rtol=0, atol=0, check_dtype=dtype)
    assert_close(indices, order, rtol=0, atol=0, check_dtype=ember.int64)
    r = x.sort(dim, descending)
    assert_close(r.values, np.take_along_axis(a, order, axis=dim), rtol=0, atol=0)
    assert_close(ember.argsort(x, dim, descending), order, rtol=0, atol=0)
    assert_close(x.argsort(dim=dim, descending=descending, stable=True), order, rtol=0, atol=0)


def test_sort_nan_last_like_pytorch():
    a = np.array([3.0, np.nan, 1.0, np.nan, 2.0, -np.inf], dtype=np.float32)
    x = to_ember(a)
    v, i = ember.sort(x)
    assert_close(v, np.sort(a))  # numpy also puts NaN last
    assert to_numpy(i).tolist() == [5, 2, 4, 0, 1, 3]
    v, i = ember.sort(x, descending=True)
    assert_close(v, np.array([np.nan, np.nan, 3, 2, 1, -np.inf]))
    assert to_numpy(i).tolist() == [1, 3, 0, 4, 2, 5]


def test_sort_edge_cases():
    v, i = ember.sort(ember.full([], 5.0))
    assert v.item() == 5.0 and i.item() == 0 and tuple(i._shape) == ()
    v, i = ember.sort(ember.zeros(0, 3), dim=0)
    assert tuple(v._shape) == (0, 3) and tuple(i._shape) == (0, 3)
    x, a = make((2000,), ember.float32, ties=False)  # large: parallel over nothing, long slice
    v, i = x.sort()
    assert_close(v, np.sort(a), rtol=0, atol=0)
    x, a = make((3000, 4), ember.int32, seed=3)  # many short slices, sorted in parallel blocks
    v, _ = x.sort(dim=1)
    assert_close(v, np.sort(a, axis=1), rtol=0, atol=0)


def ref_topk(a, k, dim, largest):
    order = _desc_stable(a, dim) if largest else np.argsort(a, axis=dim, kind="stable")
    order = np.take(order, np.arange(k), axis=dim)
    return np.take_along_axis(a, order, axis=dim), order


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k, dim", [(1, -1), (3, -1), (6, 1), (0, 1), (2, 0), (4, 0)])
@pytest.mark.parametrize("largest", [True, False])
def test_topk(dtype, k, dim, largest):
    x, a = make((4, 6), dtype, layout="noncontiguous")
    values, indices = ember.topk(x, k, dim=dim, largest=largest)
    ev, ei = ref_topk(a, k, dim, largest)
    assert_close(values, ev, rtol=0, atol=0, check_dtype=dtype)
    assert_close(indices, ei, rtol=0, atol=0, check_dtype=ember.int64)
    r = x.topk(k, dim, largest, True)
    assert_close(r.values, ev, rtol=0, atol=0)
    assert_close(r.indices, ei, rtol=0, atol=0)


def test_topk_unsorted_picks_the_same_set_and_nan():
    x, a = make((5, 8), ember.float32, ties=False)
    v, i = ember.topk(x, 3, sorted=False)
    assert_close(x.gather(1, i), to_numpy(v))
    assert np.array_equal(np.sort(to_numpy(v), axis=1), np.sort(a, axis=1)[:, -3:])
    y = to_ember(np.array([3.0, np.nan, 1.0, np.nan, 2.0], dtype=np.float32))
    v, i = y.topk(2)
    assert np.isnan(to_numpy(v)).all() and to_numpy(i).tolist() == [1, 3]
    v, i = y.topk(2, largest=False)
    assert to_numpy(v).tolist() == [1.0, 2.0] and to_numpy(i).tolist() == [2, 4]
    v, i = ember.topk(ember.full([], 2.0), 1)
    assert v.item() == 2.0 and i.item() == 0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(10,), (3, 4), (0,), ()])
def test_unique_flat(dtype, shape):
    x, a = make(shape, dtype, layout="noncontiguous")
    values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True)
    assert_close(ember.unique(x), values, rtol=0, atol=0, check_dtype=dtype)
    got_v, got_inv, got_cnt = ember.unique(x, return_inverse=True, return_counts=True)
    assert_close(got_v, values, rtol=0, atol=0)
    assert_close(got_inv, inverse.reshape(a.shape), rtol=0, atol=0, check_dtype=ember.int64)
    assert_close(got_cnt, counts, rtol=0, atol=0, check_dtype=ember.int64)
    v2, c2 = x.unique(sorted=False, return_counts=True)
    assert_close(v2, values, rtol=0, atol=0)
    assert_close(c2, counts, rtol=0, atol=0)


def test_unique_nan_each_its_own():
    x = to_ember(np.array([3.0, np.nan, 1.0, np.nan], dtype=np.float32))
    v, c = ember.unique(x, return_counts=True)
    assert_close(v, np.array([1.0, 3.0, np.nan, np.nan]))
    assert to_numpy(c).tolist() == [1, 1, 1, 1]


@pytest.mark.parametrize("dtype", [ember.float32, ember.int64, ember.bool, ember.float16])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_dim(dtype, dim):
    rng = np.random.default_rng(4)
    base = rng.integers(0, 2, size=(3, 4))
    a = np.concatenate([base, base[::-1], base[:1]], axis=0)  # repeated rows
    a = np.concatenate([a, a[:, :2]], axis=1)               # repeated columns
    x = noncontiguous(to_ember(a, dtype))
    a = to_numpy(x)
    values, inverse, counts = np.unique(a, axis=dim, return_inverse=True, return_counts=True)
    got_v, got_inv, got_cnt = ember.unique(x, dim=dim, return_inverse=True, return_counts=True)
    assert_close(got_v, values, rtol=0, atol=0, check_dtype=dtype)
    assert_close(got_inv, inverse.reshape(-1), rtol=0, atol=0)
    assert_close(got_cnt, counts, rtol=0, atol=0)


def test_unique_dim_empty():
    v = ember.unique(ember.zeros(0, 3), dim=0)
    assert tuple(v._shape) == (0, 3)
