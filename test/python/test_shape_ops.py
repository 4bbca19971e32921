"""Shape ops (cat, stack, split, chunk, repeat, tile, flip, roll, tril/triu, diag),
ops along a dim (gather, scatter, index_select, index_add, ...) and masks
(masked_fill, masked_select, nonzero, take) against numpy."""
import numpy as np
import pytest

import ember
from _helpers import assert_close, to_ember, to_numpy
from _helpers import noncontiguous  # noqa: F401 (used by the tests below)

DTYPES = [ember.float32, ember.float64, ember.float16, ember.bfloat16, ember.int64, ember.int32,
          ember.int16, ember.int8, ember.uint8, ember.bool]
SOME_DTYPES = [ember.float32, ember.float16, ember.bfloat16, ember.int64, ember.uint8, ember.bool]



def make(shape, dtype=ember.float32, seed=0, layout="contiguous"):
    """(ember tensor, numpy array of its exact values) with random values."""
    rng = np.random.default_rng(seed)
    if dtype == ember.bool:
        a = rng.random(shape) < 0.5
    elif dtype == ember.uint8:
        a = rng.integers(0, 100, size=shape).astype(np.uint8)
    elif dtype in (ember.int8, ember.int16, ember.int32, ember.int64):
        a = rng.integers(-50, 50, size=shape).astype(np.int64)
    else:
        a = rng.standard_normal(shape).astype(np.float32)
    x = to_ember(a, dtype)
    if layout == "noncontiguous":
        x = noncontiguous(x)
    return x, to_numpy(x)


def idx(values):
    return to_ember(np.asarray(values, dtype=np.int64))


def check(got, expected, dtype=None):
    assert_close(got, np.asarray(expected), rtol=0, atol=0, check_dtype=dtype)


# ---- cat, stack, hstack, vstack ------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "noncontiguous"])
@pytest.mark.parametrize("shapes, dim", [
    ([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 0)], 1), ([(2, 3, 2), (2, 3, 4)], -1),
    ([(0, 3), (2, 3)], 0), ([(5,), (1,), (3,)], 0),
])
def test_cat(dtype, layout, shapes, dim):
    parts = [make(s, dtype, seed=i, layout=layout) for i, s in enumerate(shapes)]
    got = ember.cat([p[0] for p in parts], dim)
    check(got, np.concatenate([p[1] for p in parts], axis=dim), dtype)


def test_cat_skips_legacy_empty_and_promotes():
    x, a = make((2, 3))
    got = ember.cat([ember.zeros(0, dtype=ember.float64), x, ember.zeros(0)])
    check(got, a, ember.float64)  # the skipped tensors still take part in promotion
    assert ember.cat([ember.zeros(0), ember.zeros(0)])._shape == (0,)
    i32, _ = make((2,), ember.int32)
    f16, _ = make((2,), ember.float16)
    assert ember.cat([i32, f16]).dtype == ember.float16
    assert ember.cat([make((2,), ember.uint8)[0], make((2,), ember.int8)[0]]).dtype == ember.int16
    assert ember.cat([make((2,), ember.bool)[0], i32]).dtype == ember.int32
    assert ember.concat([x, x], dim=1)._shape == (2, 6)
    assert ember.concatenate([x, x], 0)._shape == (4, 3)


def test_cat_copies():
    x = ember.zeros(3)
    y = ember.cat([x])
    assert not y._is_view_of(x)


@pytest.mark.parametrize("dtype", SOME_DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_stack(dtype, dim):
    parts = [make((2, 3), dtype, seed=i, layout="noncontiguous") for i in range(3)]
    check(ember.stack([p[0] for p in parts], dim), np.stack([p[1] for p in parts], axis=dim), dtype)


def test_stack_empty_and_0dim():
    check(ember.stack([ember.zeros(0, 3), ember.zeros(0, 3)], 1), np.zeros((0, 2, 3)))
    check(ember.stack([ember.full([], 1.0), ember.full([], 2.0)]), np.array([1.0, 2.0]))


def test_hstack_vstack():
    a1, n1 = make((3,))
    a2, n2 = make((2,), seed=1)
    check(ember.hstack([a1, a2]), np.hstack([n1, n2]))
    m1, k1 = make((2, 3))
    m2, k2 = make((2, 1), seed=1)
    check(ember.hstack([m1, m2]), np.hstack([k1, k2]))
    check(ember.vstack([a1, a1]), np.vstack([n1, n1]))
    check(ember.vstack([m1, to_ember(k1[:1])]), np.vstack([k1, k1[:1]]))
    check(ember.hstack([ember.full([], 1.0), ember.full([], 2.0)]), np.array([1.0, 2.0]))


# ---- split, chunk, tensor_split ---------------------------------------------------------

@pytest.mark.parametrize("size, split_size", [(7, 3), (6, 2), (2, 5), (0, 2)])
def test_split_int(size, split_size):
    x, a = make((3, size), ember.int64, layout="noncontiguous")
    pieces = ember.split(x, split_size, dim=1)
    bounds = list(range(split_size, size, split_size))
    expected = np.split(a, bounds, axis=1) if size else [a]
    assert len(pieces) == len(expected)
    for p, e in zip(pieces, expected):
        check(p, e)
        assert p._is_view_of(x)


def test_split_sizes_and_method():
    x, a = make((6, 2))
    pieces = x.split([1, 0, 5])
    for p, e in zip(pieces, np.split(a, [1, 1], axis=0)):
        check(p, e)
    assert [tuple(p._shape) for p in x.split(4)] == [(4, 2), (2, 2)]
    assert [tuple(p._shape) for p in ember.split(x, 1, dim=-1)] == [(6, 1), (6, 1)]
    assert len(ember.zeros(0).split(0)) == 1


@pytest.mark.parametrize("size, chunks, expected", [
    (5, 3, [2, 2, 1]), (6, 4, [2, 2, 2]), (6, 3, [2, 2, 2]), (2, 5, [1, 1]), (0, 3, [0, 0, 0]),
])
def test_chunk(size, chunks, expected):
    x, a = make((size, 2))
    pieces = ember.chunk(x, chunks)
    assert [p._size(0) for p in pieces] == expected
    start = 0
    for p in pieces:
        check(p, a[start:start + p._size(0)])
        start += p._size(0)
    assert [p._size(1) for p in x.chunk(2, dim=1)] == [1, 1]


@pytest.mark.parametrize("arg", [3, 4, 1, [1, 4], [2, 2], [-2], [0, 10]])
def test_tensor_split(arg):
    x, a = make((2, 7))
    got = ember.tensor_split(x, arg, dim=1)
    expected = np.array_split(a, arg, axis=1)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        check(g, e)


# ---- repeat, tile, flip, roll ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", SOME_DTYPES)
@pytest.mark.parametrize("shape, reps", [
    ((2, 3), (2, 1)), ((2, 3), (1, 3)), ((2, 3), (2, 2, 2)), ((3,), (2,)), ((2, 3), (0, 2)),
    ((), ()), ((), (3,)), ((0, 2), (2, 2)),
])
def test_repeat(dtype, shape, reps):
    x, a = make(shape, dtype, layout="noncontiguous")
    got = x.repeat(*reps) if reps else x.repeat(())
    check(got, np.tile(a, reps) if reps else a, dtype)
    if reps:
        check(x.repeat(reps), np.tile(a, reps))
    assert not got._is_view_of(x)


@pytest.mark.parametrize("shape, dims", [((2, 3), (2,)), ((2, 3), (2, 1, 2)), ((4,), (3,)), ((2, 3), ())])
def test_tile(shape, dims):
    x, a = make(shape, ember.int32)
    check(ember.tile(x, dims), np.tile(a, dims))
    if dims:
        check(x.tile(*dims), np.tile(a, dims))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dims", [(0,), (1,), (-1,), (0, 2), (0, 1, 2), ()])
def test_flip(dtype, dims):
    x, a = make((3, 4, 2), dtype, layout="noncontiguous")
    check(ember.flip(x, dims), np.flip(a, dims) if dims else a, dtype)
    if dims:
        check(x.flip(*dims), np.flip(a, dims))
        check(x.flip(dims=dims), np.flip(a, dims))


def test_flip_lr_ud_and_edge_cases():
    x, a = make((3, 4))
    check(ember.fliplr(x), np.fliplr(a))
    check(ember.flipud(x), np.flipud(a))
    check(x.fliplr(), np.fliplr(a))
    check(ember.flip(ember.zeros(0, 3), [0]), np.zeros((0, 3)))
    check(ember.flip(ember.full([], 3.0), [0]), np.array(3.0))


@pytest.mark.parametrize("shifts, dims", [
    (1, 0), (-1, 0), (7, 1), ((1, 2), (0, 1)), ((2, -3), (-1, 0)), (5, None), (-2, None), (0, 1),
    ((1, 1), (0, 0)),
])
def test_roll(shifts, dims):
    x, a = make((3, 4), ember.int64, layout="noncontiguous")
    got = ember.roll(x, shifts, dims)
    check(got, np.roll(a, shifts, axis=dims))
    check(x.roll(shifts, dims), np.roll(a, shifts, axis=dims))
    assert not got._is_view_of(x)


def test_roll_empty_and_0dim():
    check(ember.roll(ember.zeros(0, 2), 1, 0), np.zeros((0, 2)))
    check(ember.roll(ember.full([], 2.0), 1), np.array(2.0))


# ---- tril, triu, diag, diagonal ------------------------------------------------------------

@pytest.mark.parametrize("dtype", SOME_DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 2), (2, 3, 4), (0, 3), (2, 0, 3)])
@pytest.mark.parametrize("k", [0, 1, -1, 3, -5])
def test_tril_triu(dtype, shape, k):
    x, a = make(shape, dtype, layout="noncontiguous")
    check(ember.tril(x, k), np.tril(a, k), dtype)
    check(ember.triu(x, k), np.triu(a, k), dtype)
    check(x.tril(diagonal=k), np.tril(a, k))
    check(x.triu(k), np.triu(a, k))


@pytest.mark.parametrize("dtype", SOME_DTYPES)
@pytest.mark.parametrize("k", [0, 1, -2, 5])
def test_diag(dtype, k):
    v, av = make((3,), dtype)
    check(ember.diag(v, k), np.diag(av, k), dtype)
    m, am = make((3, 4), dtype, layout="noncontiguous")
    check(ember.diag(m, k), np.diag(am, k), dtype)
    check(m.diag(k), np.diag(am, k))


@pytest.mark.parametrize("offset, d1, d2", [(0, 0, 1), (1, 0, 1), (-1, 1, 2), (2, 2, 0), (0, -1, -2)])
def test_diagonal(offset, d1, d2):
    x, a = make((3, 4, 5), layout="noncontiguous")
    got = ember.diagonal(x, offset, d1, d2)
    check(got, np.diagonal(a, offset, d1, d2))
    assert got._is_view_of(x)


# ---- gather, scatter, index_* -----------------------------------------------------------------

def ref_gather(a, dim, index):
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return a[tuple(grid)]


def unique_index(shape, dim, size, seed=0):
    """An index of `shape` whose entries along dim are distinct values < size."""
    rng = np.random.default_rng(seed)
    out = np.empty(shape, dtype=np.int64)
    moved = np.moveaxis(out, dim, -1)
    for pos in np.ndindex(moved.shape[:-1]):
        moved[pos] = rng.permutation(size)[:moved.shape[-1]]
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather(dtype, dim):
    x, a = make((4, 5, 3), dtype, layout="noncontiguous")
    rng = np.random.default_rng(1)
    ishape = [2, 3, 2]
    ishape[dim] = 6
    index = rng.integers(0, a.shape[dim], size=ishape)
    check(ember.gather(x, dim, idx(index)), ref_gather(a, dim % 3, index), dtype)
    check(x.gather(dim, noncontiguous(idx(index))), ref_gather(a, dim % 3, index))


def test_gather_edge_cases():
    x, a = make((3, 4))
    check(ember.gather(x, 1, idx(np.zeros((3, 0)))), np.zeros((3, 0)))
    check(ember.gather(ember.full([], 5.0), 0, idx([0, 0])), np.array([5.0, 5.0]))
    i32 = to_ember(np.array([[1], [0]], dtype=np.int32))
    check(ember.gather(x, 1, i32), a[[0, 1], [1, 0]][:, None])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_src_and_value(dtype, dim):
    x, a = make((4, 5), dtype, layout="noncontiguous")
    src, s = make((4, 5), dtype, seed=3)
    ishape = [3, 2]
    index = unique_index(ishape, dim % 2, a.shape[dim])
    expected = a.copy()
    for pos in np.ndindex(*ishape):
        target = list(pos)
        target[dim % 2] = index[pos]
        expected[tuple(target)] = s[pos]
    check(ember.scatter(x, dim, idx(index), src), expected, dtype)
    y = x.clone()
    y.scatter_(dim, idx(index), src)
    check(y, expected)
    expected_v = a.copy()
    for pos in np.ndindex(*ishape):
        target = list(pos)
        target[dim % 2] = index[pos]
        expected_v[tuple(target)] = 1
    check(x.scatter(dim, idx(index), 1), expected_v)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.int64, ember.int16, ember.float16])
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_add_and_reduce(dtype, dim):
    x, a = make((3, 4), dtype, layout="noncontiguous")
    src, s = make((3, 4), dtype, seed=5)
    rng = np.random.default_rng(2)
    index = rng.integers(0, a.shape[dim], size=(3, 4))  # repeated targets accumulate
    grid = list(np.indices(index.shape))
    grid[dim] = index
    expected = a.astype(np.float64)
    np.add.at(expected, tuple(grid), s)
    tol = dict(rtol=1e-2, atol=1e-2) if dtype == ember.float16 else dict(rtol=1e-6, atol=1e-6)
    assert_close(ember.scatter_add(x, dim, idx(index), src), expected, **tol)
    assert_close(x.scatter(dim, idx(index), src, reduce="add"), expected, **tol)
    y = x.clone()
    y.scatter_add_(dim, idx(index), src)
    assert_close(y, expected, **tol)
    prod = a.astype(np.float64)
    np.multiply.at(prod, tuple(grid), s)
    if dtype in (ember.float32, ember.float64):
        assert_close(x.scatter(dim, idx(index), src, reduce="multiply"), prod, rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select(dtype, dim):
    x, a = make((4, 3, 5), dtype, layout="noncontiguous")
    index = np.array([2, 0, 2, a.shape[dim] - 1])
    check(ember.index_select(x, dim, idx(index)), np.take(a, index, axis=dim), dtype)
    check(x.index_select(dim, idx([])), np.take(a, np.array([], dtype=np.int64), axis=dim))
    check(x.index_select(dim, idx(1)), np.take(a, [1], axis=dim))
    check(ember.index_select(ember.full([], 4.0), 0, idx([0])), np.array(4.0))


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.int64, ember.int8, ember.bfloat16])
@pytest.mark.parametrize("dim", [0, 1])
def test_index_add(dtype, dim):
    x, a = make((4, 3), dtype, layout="noncontiguous")
    index = np.array([2, 0, 2, 1, 2])
    sshape = list(a.shape)
    sshape[dim] = len(index)
    src, s = make(tuple(sshape), dtype, seed=4)
    expected = a.astype(np.float64)
    alpha = 2 if not x.is_floating_point() else 0.5
    moved = np.moveaxis(expected, dim, 0)
    np.add.at(moved, index, alpha * np.moveaxis(s, dim, 0))
    if not x.is_floating_point():  # integer sums wrap around like the dtype
        expected = expected.astype(np.int64).astype(a.dtype)
    tol = dict(rtol=2e-2, atol=2e-2) if dtype == ember.bfloat16 else dict(rtol=1e-6, atol=1e-6)
    assert_close(ember.index_add(x, dim, idx(index), src, alpha=alpha), expected, **tol)
    y = x.clone()
    y.index_add_(dim, idx(index), src, alpha=alpha)
    assert_close(y, expected, **tol)
    if alpha == 2:
        plain = a.astype(np.float64)
        np.add.at(np.moveaxis(plain, dim, 0), index, np.moveaxis(s, dim, 0))
        plain = plain.astype(np.int64).astype(a.dtype)
        assert_close(x.index_add(dim, idx(index), src), plain)


@pytest.mark.parametrize("dtype", SOME_DTYPES)
def test_index_copy_and_fill(dtype):
    x, a = make((4, 3), dtype, layout="noncontiguous")
    src, s = make((4, 2), dtype, seed=2)
    expected = a.copy()
    expected[:, [2, 0]] = s
    check(ember.index_copy(x, 1, idx([2, 0]), src), expected, dtype)
    y = x.clone()
    y.index_copy_(1, idx([2, 0]), src)
    check(y, expected)
    filled = a.copy()
    filled[[0, -1]] = 1
    check(ember.index_fill(x, 0, idx([0, -1]), 1), filled, dtype)
    check(x.index_fill(0, idx([0, -1]), ember.full([], 1)), filled)


# ---- masks, nonzero, take ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask_shape", [(3, 4), (4,), (3, 1), ()])
def test_masked_fill(dtype, mask_shape):
    x, a = make((3, 4), dtype, layout="noncontiguous")
    m, am = make(mask_shape, ember.bool, seed=9)
    value = True if dtype == ember.bool else 7
    check(ember.masked_fill(x, m, value), np.where(am, value, a).astype(a.dtype), dtype)
    check(x.masked_fill(m, ember.full([], value)), np.where(am, value, a).astype(a.dtype))
    y = x.clone()
    y.masked_fill_(m, value)
    check(y, np.where(am, value, a).astype(a.dtype))


def test_masked_fill_broadcasts_self():
    x, a = make((4,))
    m, am = make((3, 4), ember.bool)
    check(x.masked_fill(m, -1.0), np.where(am, -1.0, a).astype(np.float32))


@pytest.mark.parametrize("dtype", SOME_DTYPES)
@pytest.mark.parametrize("shape, mask_shape", [((3, 4), (3, 4)), ((3, 4), (4,)), ((4,), (2, 4)), ((0, 2), (0, 2)), ((), ())])
def test_masked_select(dtype, shape, mask_shape):
    x, a = make(shape, dtype, layout="noncontiguous")
    m, am = make(mask_shape, ember.bool, seed=3)
    aa, mm = np.broadcast_arrays(a, am)
    check(ember.masked_select(x, m), aa[mm], dtype)
    check(x.masked_select(m), aa[mm])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 4), (5,), (2, 3, 2), (0, 3), ()])
def test_nonzero(dtype, shape):
    x, a = make(shape, dtype, layout="noncontiguous")
    if dtype == ember.float32 and a.ndim:
        x = to_ember(np.where(a > 0.5, 0.0, a).astype(np.float32))
        a = to_numpy(x)
    check(ember.nonzero(x), np.argwhere(a), ember.int64)
    check(x.argwhere(), np.argwhere(a))
    got = ember.nonzero(x, as_tuple=True)
    expected = np.nonzero(np.atleast_1d(a))
    assert isinstance(got, tuple) and len(got) == len(expected)
    for g, e in zip(got, expected):
        check(g, e)
    for g, e in zip(ember.where(x), expected):
        check(g, e)


def test_nonzero_nan_and_large():
    x = to_ember(np.array([0.0, np.nan, -0.0, 1.0], dtype=np.float32))
    check(x.nonzero(), np.array([[1], [3]]))
    n = 100_000  # several chunks, counted and written in parallel
    big = ember.zeros(n)
    big[::7] = 1.0
    nz = ember.nonzero(big)
    assert nz._size(0) == len(range(0, n, 7))
    for i in (0, 1, 5000, nz._size(0) - 1):
        assert nz[i, 0].item() == 7 * i


@pytest.mark.parametrize("dtype", SOME_DTYPES)
def test_take(dtype):
    x, a = make((3, 4), dtype, layout="noncontiguous")
    index = np.array([[0, 11], [-1, 5], [-12, 3]])
    check(ember.take(x, idx(index)), np.take(a, index), dtype)
    check(x.take(idx([])), np.zeros(0, dtype=a.dtype))
    check(ember.take(ember.full([], 3.0), idx(0)), np.array(3.0))
