"""Python indexing (x[...] and x[...] = v) against numpy on the same array.

Where PyTorch and numpy disagree, ember follows PyTorch: an int (or a 0-dim
integer tensor) is basic indexing (a select) even next to index arrays, so
x[0, :, [0, 1]] is x[0][:, [0, 1]]. Those cases give their numpy equivalent.
"""
import numpy as np
import pytest

import ember
from _helpers import assert_close, to_ember, to_numpy

SHAPE = (4, 5, 6)
N = int(np.prod(SHAPE))


def source(layout):
    """(ember tensor, numpy array) with the same values 0..N-1 and shape SHAPE."""
    if layout == "contiguous":
        return ember.arange(N).reshape(*SHAPE), np.arange(N).reshape(SHAPE)
    # non-contiguous: a permuted view of a (6, 5, 4) tensor
    rev = SHAPE[::-1]
    return ember.arange(N).reshape(*rev).permute(2, 1, 0), np.arange(N).reshape(rev).transpose(2, 1, 0)


def long_t(values):
    return to_ember(np.asarray(values, dtype=np.int64))


def bool_t(values):
    return to_ember(np.asarray(values, dtype=np.bool_))


MASK0 = [True, False, True, True]                  # over dim 0 (size 4)
MASK1_2 = [False, True, False, False, True]        # over dim 1 (size 5), two trues
MASK01 = (np.arange(20).reshape(4, 5) % 3) == 0    # over dims 0 and 1
MASK2_2 = [False, True, False, False, True, False]  # over dim 2 (size 6), two trues

# (id, ember index, numpy index or a function of the numpy array)
READS = [
    ("int", 1, 1),
    ("negative int", -1, -1),
    ("two ints", (1, 2), (1, 2)),
    ("three negative ints", (-1, -2, -3), (-1, -2, -3)),
    ("full slice", slice(None), slice(None)),
    ("slice", slice(1, 3), slice(1, 3)),
    ("slice with step", slice(None, None, 2), slice(None, None, 2)),
    ("negative start", slice(-3, None), slice(-3, None)),
    ("slice past the end", slice(10, 20), slice(10, 20)),
    ("reversed bounds (empty)", slice(3, 1), slice(3, 1)),
    ("two slices", (slice(1, None), slice(None, None, 2)), (slice(1, None), slice(None, None, 2))),
    ("slice, int, slice step 3", (slice(None), 2, slice(1, None, 3)), (slice(None), 2, slice(1, None, 3))),
    ("None", None, None),
    ("None then int", (None, 0), (None, 0)),
    ("int then None", (0, None), (0, None)),
    ("None in the middle", (slice(None), None, 1), (slice(None), None, 1)),
    ("two Nones", (None, None), (None, None)),
    ("Ellipsis", Ellipsis, Ellipsis),
    ("Ellipsis then int", (Ellipsis, 0), (Ellipsis, 0)),
    ("int then Ellipsis", (0, Ellipsis), (0, Ellipsis)),
    ("int, Ellipsis, int", (0, Ellipsis, 1), (0, Ellipsis, 1)),
    ("Ellipsis then None", (Ellipsis, None), (Ellipsis, None)),
    ("None, Ellipsis, None", (None, Ellipsis, None), (None, Ellipsis, None)),
    ("empty tuple", (), ()),
    ("True", True, True),
    ("False", False, False),
    ("slice and True", (slice(1, 3), True), (slice(1, 3), True)),
    ("list of ints", [0, 2], [0, 2]),
    ("list with negatives", [-1, 0, -1], [-1, 0, -1]),
    ("nested list", [[0, 1], [2, 3]], np.array([[0, 1], [2, 3]])),
    ("empty list", [], np.array([], dtype=np.int64)),
    ("long tensor", long_t([3, 1]), [3, 1]),
    ("int32 tensor", lambda: to_ember(np.array([1, 2], dtype=np.int32)), [1, 2]),
    ("tensor of shape [0]", lambda: long_t(np.zeros(0)), np.zeros(0, dtype=np.int64)),
    ("2-d tensor", lambda: long_t([[0, 1, 2], [3, 2, 1]]), np.array([[0, 1, 2], [3, 2, 1]])),
    ("two index lists", ([0, 1], [1, 2]), ([0, 1], [1, 2])),
    ("broadcast indices", ([[0], [1]], [1, 2, 3]), (np.array([[0], [1]]), [1, 2, 3])),
    ("slice then index", (slice(None), [0, 2]), (slice(None), [0, 2])),
    ("adjacent after slice", (slice(None), [1, 3], [0, 5]), (slice(None), [1, 3], [0, 5])),
    ("separated by a slice", ([0, 1], slice(None), [1, 2]), ([0, 1], slice(None), [1, 2])),
    ("separated by a None", ([0, 1], None, [1, 2]), ([0, 1], None, [1, 2])),
    ("index then None", ([0, 1], None), ([0, 1], None)),
    ("slice, index, None", (slice(None), [0, 1], None), (slice(None), [0, 1], None)),
    ("Ellipsis then index", (Ellipsis, [0, 5]), (Ellipsis, [0, 5])),
    ("index then Ellipsis", ([0, 3], Ellipsis), ([0, 3], Ellipsis)),
    ("None, index", (None, [0, 1]), (None, [0, 1])),
    ("empty slice and index", (slice(2, 2), [0, 1]), (slice(2, 2), [0, 1])),
    ("mask over dim 0", lambda: bool_t(MASK0), np.array(MASK0)),
    ("bool list", MASK0, np.array(MASK0)),
    ("2-d mask", lambda: bool_t(MASK01), MASK01),
    ("mask after a slice", lambda: (slice(None), bool_t(MASK1_2)), (slice(None), np.array(MASK1_2))),
    ("mask then int", lambda: (bool_t(MASK01), 2), (MASK01, 2)),
    ("all-False mask", lambda: bool_t([False] * 4), np.zeros(4, dtype=bool)),
    ("mask and index", lambda: (slice(None), bool_t(MASK1_2), [0, 1]), (slice(None), np.array(MASK1_2), [0, 1])),
    ("full mask", lambda: bool_t(np.arange(N).reshape(SHAPE) % 7 == 1), np.arange(N).reshape(SHAPE) % 7 == 1),
    ("0-dim int tensor", lambda: long_t(2), 2),
    ("0-dim bool tensor True", lambda: bool_t(True), True),
    ("0-dim bool tensor False", lambda: bool_t(False), False),
    # PyTorch: ints stay basic indexing next to index arrays.
    ("int, slice, index (PyTorch rule)", (0, slice(None), [0, 1]), lambda a: a[0][:, [0, 1]]),
    ("0-dim tensor, slice, index", lambda: (long_t(1), slice(None), [0, 1]), lambda a: a[1][:, [0, 1]]),
    ("index, int", ([0, 2], 1), lambda a: a[:, 1][[0, 2]]),
]


def _resolve(index):
    return index() if callable(index) else index


@pytest.mark.parametrize("layout", ["contiguous", "noncontiguous"])
@pytest.mark.parametrize("name, index, np_index", READS, ids=[r[0] for r in READS])
def test_read(layout, name, index, np_index):
    x, a = source(layout)
    got = x[_resolve(index)]
    expected = np_index(a) if callable(np_index) else a[np_index]
    assert_close(got, np.asarray(expected), check_dtype=ember.int64)


def test_complex_expression():
    # x[1:, ::2, None, ..., idx_tensor, mask] on a 4-d tensor
    a = np.arange(3 * 4 * 5 * 6).reshape(3, 4, 5, 6)
    x = ember.arange(a.size).reshape(3, 4, 5, 6)
    mask = np.array(MASK2_2)
    idx = np.array([4, 0])
    got = x[1:, ::2, None, ..., long_t(idx), bool_t(mask)]
    assert_close(got, a[1:, ::2, None, ..., idx, mask])
    got = x[..., None, [1, 2], 1:4]
    assert_close(got, a[..., None, [1, 2], 1:4])


@pytest.mark.parametrize("dtype, npdtype", [
    (ember.float32, np.float32), (ember.float16, np.float16), (ember.float64, np.float64),
    (ember.int8, np.int8), (ember.bool, np.bool_), (ember.bfloat16, np.float32),
])
@pytest.mark.parametrize("index", [(1, slice(None, None, 2)), ([2, 0], slice(1, 3)), (Ellipsis, [1, 1])],
                         ids=["basic", "advanced", "ellipsis-advanced"])
def test_read_dtypes(dtype, npdtype, index):
    a = (np.arange(N).reshape(SHAPE) % 5).astype(npdtype)
    x = to_ember(a, dtype)
    got = x[index]
    assert got.dtype == dtype
    assert_close(got, a[index].astype(np.float64) if npdtype != np.bool_ else a[index])


def test_0dim_tensor():
    x = ember.full([], 5.0)
    assert tuple(x[...]._shape) == ()
    assert tuple(x[None]._shape) == (1,)
    assert tuple(x[()]._shape) == ()
    assert tuple(x[True]._shape) == (1,)
    assert tuple(x[False]._shape) == (0,)
    assert x[None][0].item() == 5.0
    with pytest.raises(IndexError, match="0-dim"):
        x[0]


def test_empty_tensor():
    x = ember.zeros(0, 3)
    assert tuple(x[[]]._shape) == (0, 3)
    assert tuple(x[:, [1]]._shape) == (0, 1)
    assert tuple(x[1:]._shape) == (0, 3)
    assert tuple(x[x._size(0):, 0]._shape) == (0,)
    with pytest.raises(IndexError, match="out of bounds"):
        x[[0]]


def test_basic_indexing_is_a_view_advanced_is_a_copy():
    x = ember.arange(12).reshape(3, 4)
    for v in (x[1], x[:, 1:3], x[None, ..., ::2], x[...]):
        assert v._is_view_of(x)
    row = x[1]
    row.fill_(-1)
    assert to_numpy(x)[1].tolist() == [-1] * 4
    adv = x[[0, 2]]
    assert not adv._is_view_of(x)
    adv.fill_(7)
    assert to_numpy(x)[0].tolist() == [0, 1, 2, 3]


def test_integer_loop_reads():
    a = np.arange(20).reshape(5, 4)
    x = ember.arange(20).reshape(5, 4)
    for i in range(-5, 5):
        assert_close(x[i], a[i])
        assert x[i, -1].item() == a[i, -1]


# ---- writes ------------------------------------------------------------------------------

WRITES = [
    ("int", 1, 1),
    ("negative int", -2, -2),
    ("two ints", (1, -1), (1, -1)),
    ("slice", slice(1, 3), slice(1, 3)),
    ("slice with step", (slice(None), slice(None, None, 2)), (slice(None), slice(None, None, 2))),
    ("empty slice", slice(3, 3), slice(3, 3)),
    ("Ellipsis, int", (Ellipsis, 2), (Ellipsis, 2)),
    ("None", (None, 1), (None, 1)),
    ("list of ints", [0, 2], [0, 2]),
    ("duplicate indices", [1, 1], [1, 1]),
    ("two index lists", ([0, 3], [1, 2]), ([0, 3], [1, 2])),
    ("separated indices", ([0, 3], slice(None), [1, 2]), ([0, 3], slice(None), [1, 2])),
    ("slice then index", (slice(1, None), [0, 4]), (slice(1, None), [0, 4])),
    ("mask", lambda: bool_t(MASK0), np.array(MASK0)),
    ("2-d mask", lambda: bool_t(MASK01), MASK01),
    ("all-False mask", lambda: bool_t([False] * 4), np.zeros(4, dtype=bool)),
    ("full mask", lambda: bool_t(np.arange(N).reshape(SHAPE) % 4 == 1), np.arange(N).reshape(SHAPE) % 4 == 1),
    ("empty index tensor", lambda: long_t(np.zeros(0)), np.zeros(0, dtype=np.int64)),
    ("True", True, True),
]


@pytest.mark.parametrize("layout", ["contiguous", "noncontiguous"])
@pytest.mark.parametrize("value_kind", ["scalar", "full", "broadcast"])
@pytest.mark.parametrize("name, index, np_index", WRITES, ids=[w[0] for w in WRITES])
def test_write(layout, value_kind, name, index, np_index):
    x, a = source(layout)
    a = a.copy()
    target_shape = a[np_index].shape
    rng = np.random.default_rng(0)
    if value_kind == "scalar":
        value, np_value = -7, -7
    elif value_kind == "full":
        np_value = rng.integers(-100, 0, size=target_shape)
        value = to_ember(np_value)
    else:  # a row broadcast over the indexed shape
        np_value = rng.integers(-100, 0, size=target_shape[-1:] if target_shape else ())
        value = to_ember(np_value)
    version = x._version
    x[_resolve(index)] = value
    a[np_index] = np_value
    assert_close(x, a)
    assert x._version > version


def test_write_converts_dtype():
    x = ember.zeros(4, dtype=ember.int64)
    x[1:3] = to_ember(np.array([1.5, 2.7]))
    x[[0]] = to_ember(np.array([9.9]))
    x[3] = 2.9
    assert to_numpy(x).tolist() == [9, 1, 2, 2]
    y = ember.zeros(3)
    y[[0, 2]] = 1
    y[1] = True
    assert to_numpy(y).tolist() == [1.0, 1.0, 1.0]


def test_write_sequences_and_leading_ones():
    x = ember.zeros(2, 3)
    x[0] = [1, 2, 3]
    x[1] = to_ember(np.array([[[4.0, 5.0, 6.0]]]))  # leading 1s dropped, as in PyTorch
    assert to_numpy(x).tolist() == [[1, 2, 3], [4, 5, 6]]
    x[[0, 1], 0] = to_ember(np.ones((1, 1, 2)))
    assert to_numpy(x)[:, 0].tolist() == [1, 1]


def test_write_through_self_alias():
    # the value overlaps the destination: read it all before writing
    a = np.arange(6.0)
    x = ember.arange(6.0)
    x[[1, 2, 3, 4]] = x[[0, 1, 2, 3]]
    a[[1, 2, 3, 4]] = a[[0, 1, 2, 3]]
    assert_close(x, a)
    x[1:] = x[:-1]
    a[1:] = a[:-1].copy()
    assert_close(x, a)


def test_augmented_assignment_with_index():
    x = ember.arange(6.0)
    x[2:4] = x[2:4].clone().fill_(10)
    row = x[[0, 5]]
    x[[0, 5]] = row.fill_(-1)
    assert to_numpy(x).tolist() == [-1, 1, 10, 10, 4, -1]


# ---- index_put_ and the C++-level ops ------------------------------------------------------

def test_index_put_accumulate():
    x = ember.zeros(5)
    idx = long_t([0, 1, 1, 4, 1])
    vals = to_ember(np.array([1.0, 2.0, 3.0, 4.0, 5.0], dtype=np.float32))
    x.index_put_((idx,), vals, accumulate=True)
    expected = np.zeros(5)
    np.add.at(expected, [0, 1, 1, 4, 1], [1, 2, 3, 4, 5])
    assert_close(x, expected)
    y = ember.index_put(ember.zeros(2, 3), (long_t([0, 1, 0, 1]), long_t([2, 2, 0, 0])),
                        to_ember(np.ones(4, np.float32)))
    assert_close(y, np.array([[1, 0, 1], [1, 0, 1]]))
    # a dim left whole is x[:, i] = v; index_put's indices are tensors only, as PyTorch's
    z = ember.zeros(2, 3)
    z[:, long_t([2, 0])] = to_ember(np.ones((2, 2), np.float32))
    assert_close(z, np.array([[1, 0, 1], [1, 0, 1]]))


def test_large_advanced_index_runs_in_parallel_blocks():
    rng = np.random.default_rng(1)
    a = np.arange(300 * 200, dtype=np.float32).reshape(300, 200)
    x = ember.arange(300 * 200, dtype=ember.float32).reshape(300, 200)
    rows = rng.integers(-300, 300, size=400)
    got = x[long_t(rows)]
    exp = a[rows]
    # spot-check a few rows (converting 80k elements one by one would be slow)
    for r in (0, 123, 399):
        assert_close(got[r], exp[r])
