"""Op database entries of the shape_index group (lib/dispatch/schema/shape_index.toml):
joining and rearranging (cat, flip, tril, triu), ops along a dim through an index
(gather, scatter, index_*), take, masks and advanced indexing (sorting, unique and
searchsorted: ops_shape_index_sort.py). The in-place rows run on a clone of self (and, as inplace=, on self).

Indices: where several writes could land on one element (scatter_, index_copy_,
index_put_ without accumulate) the samples use distinct indices per written slot, as
which write wins is not specified (CUDA) and the gradient of a lost write differs."""
import numpy as np

from .opinfo import (ALL, ALL_AND_BOOL, FLOAT, FLOATING, INTEGRAL, ErrorCase, OpInfo, Sample, T, layouts,
                     make_values)

NUMERIC = ALL  # floating and integer dtypes, no bool


# ---- helpers ---------------------------------------------------------------------------

def _t(rng, shape, dtype, low=-3.0, high=3.0, **kw):
    return T(make_values(rng, shape, dtype, low, high), dtype, **kw)


def _i(values, noncontig=False):
    return T(np.asarray(values, dtype=np.int64), "int64", noncontig=noncontig)


def _rand_index(rng, high, shape, low=0, noncontig=False):
    return _i(rng.integers(low, high, size=shape), noncontig)


def _distinct_index(rng, size, shape, dim, noncontig=False):
    """An index of shape whose entries along dim are distinct values in [0, size)
    (shape[dim] <= size), so that no two writes along dim land on one element."""
    keys_shape = list(shape)
    keys_shape[dim] = size
    perm = np.argsort(rng.random(keys_shape), axis=dim)
    return _i(np.take(perm, range(shape[dim]), axis=dim), noncontig)


def _fill_value(dtype):
    return True if dtype == "bool" else (5 if dtype in INTEGRAL else -1.5)


def _both_layouts(make):
    """Samples from make(rng, noncontig) for a contiguous and a strided layout."""
    def samples(dtype, rng):
        out = []
        for nc in (False, True):
            out.extend(make(dtype, rng, nc))
        return out
    return samples


# ---- cat, flip, tril, triu ------------------------------------------------------------------

def _cat_samples(dtype, rng):
    cases = [([(2, 3), (1, 3)], 0), ([(2, 3), (2, 2), (2, 1)], 1), ([(2, 3), (2, 4)], -1),
             ([(0, 3), (2, 3)], 0), ([(2, 3, 2), (2, 1, 2)], 1), ([(3,)], 0), ([(2, 0), (2, 3)], 1),
             ([(0,), (2, 3)], 1)]  # the last: a legacy 1-d empty tensor, skipped
    out = []
    for shapes, dim in cases:
        for nc in (False, True):
            # the legacy empty tensor: no gradient in ember (None, taken for zeros), an empty one in torch
            out.append(Sample(([_t(rng, s, dtype, noncontig=nc) for s in shapes], dim)))
    return out


def _cat_promote_samples(dtype, rng):
    out = []
    for other in ("float32", "int64", "bool", "float64"):
        if other == dtype:
            continue
        a = _t(rng, (2, 3), dtype, 0, 2, grad=False)
        b = _t(rng, (1, 3), other, 0, 2, grad=False)
        out.append(Sample(([a, b], 0)))
        out.append(Sample(([b, a], 0)))
    return out


def _cat_errors(rng):
    f = lambda s: _t(rng, s, "float32")  # noqa: E731
    return [ErrorCase(Sample(([f(()), f(())], 0)), RuntimeError),
            ErrorCase(Sample(([f((2, 3)), f((2, 4))], 0)), RuntimeError),
            ErrorCase(Sample(([f((2, 3)), f((2, 3, 1))], 0)), RuntimeError),
            ErrorCase(Sample(([f((2, 3)), f((2, 3))], 2)), IndexError)]


def _stack_samples(dtype, rng):
    out = []
    for shapes, dim in [([(2, 3), (2, 3)], 0), ([(3,), (3,), (3,)], 1), ([(), ()], 0), ([(2, 3), (2, 3)], -1)]:
        for nc in (False, True):
            out.append(Sample(([_t(rng, s, dtype, noncontig=nc) for s in shapes], dim)))
    return out


def _flip_samples(dtype, rng):
    out = []
    for shape, dims in [((3, 4), (0,)), ((3, 4), (0, 1)), ((2, 3, 2), (-1,)), ((2, 3, 2), (0, 2)), ((), ()),
                        ((0, 3), (1,)), ((3, 4), ()), ((5,), (0,))]:
        for args in layouts(rng, [[shape]], dtype):
            out.append(Sample(args + (dims,)))
    return out


def _flip_errors(rng):
    x = _t(rng, (3, 4), "float32")
    return [ErrorCase(Sample((x, (0, 0))), RuntimeError), ErrorCase(Sample((x, (2,))), IndexError)]


def _triangle_samples(dtype, rng):
    out = []
    for shape, k in [((3, 4), 0), ((3, 4), 1), ((4, 3), -1), ((2, 3, 3), 0), ((0, 3), 0), ((3, 4), 10),
                     ((3, 4), -10), ((2, 2, 1, 4), 2)]:
        for args in layouts(rng, [[shape]], dtype):
            out.append(Sample(args + (k,)))
    return out


def _triangle_errors(rng):
    return [ErrorCase(Sample((_t(rng, (4,), "float32"), 0)), RuntimeError),
            ErrorCase(Sample((_t(rng, (), "float32"), 0)), RuntimeError)]


# ---- gather, index_select, take --------------------------------------------------------------

def _gather_samples(dtype, rng):
    def make(dtype, rng, nc):
        return [
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), 0, _rand_index(rng, 3, (2, 4), noncontig=nc))),
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), 1, _rand_index(rng, 4, (3, 2), noncontig=nc))),
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), -1, _rand_index(rng, 4, (2, 3), noncontig=nc))),
            Sample((_t(rng, (2, 3, 2), dtype, noncontig=nc), 1, _rand_index(rng, 3, (2, 5, 2), noncontig=nc))),
            Sample((_t(rng, (), dtype), 0, _i(0))),
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), 0, _i(np.zeros((0, 4))))),
        ]
    return _both_layouts(make)(dtype, rng)


def _gather_errors(rng):
    x = _t(rng, (3, 4), "float32")
    return [ErrorCase(Sample((x, 0, _i([[5, 0]]))), RuntimeError),
            ErrorCase(Sample((x, 0, _t(rng, (1, 2), "float32"))), RuntimeError),
            ErrorCase(Sample((x, 0, _i([0, 1]))), RuntimeError),
            ErrorCase(Sample((x, 2, _i([[0]]))), IndexError)]


def _index_select_samples(dtype, rng):
    def make(dtype, rng, nc):
        return [
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), 0, _i([2, 0, 2], nc))),
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), 1, _i([3, 1], nc))),
            Sample((_t(rng, (2, 3, 2), dtype, noncontig=nc), -1, _i([1]))),
            Sample((_t(rng, (), dtype), 0, _i([0]))),
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), 0, _i(np.zeros(0)))),
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), 1, _i(2))),  # a 0-dim index
        ]
    return _both_layouts(make)(dtype, rng)


def _index_select_errors(rng):
    x = _t(rng, (3, 4), "float32")
    return [ErrorCase(Sample((x, 0, _i([[0, 1]]))), IndexError),
            ErrorCase(Sample((x, 0, _i([0, 3]))), IndexError),  # out of range
            ErrorCase(Sample((x, 0, _i([-1]))), IndexError),
            ErrorCase(Sample((x, 0, _t(rng, (2,), "float32"))), RuntimeError),
            ErrorCase(Sample((x, 2, _i([0]))), IndexError)]


def _take_samples(dtype, rng):
    def make(dtype, rng, nc):
        return [
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), _rand_index(rng, 12, (5,), noncontig=nc))),
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), _rand_index(rng, 12, (2, 3), low=-12))),
            Sample((_t(rng, (2, 3, 2), dtype, noncontig=nc), _i(-1))),
            Sample((_t(rng, (), dtype), _i([0, 0, -1]))),
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), _i(np.zeros((0, 2))))),
        ]
    return _both_layouts(make)(dtype, rng)


def _take_errors(rng):
    x = _t(rng, (3, 4), "float32")
    return [ErrorCase(Sample((x, _i([12]))), IndexError), ErrorCase(Sample((x, _i([-13]))), IndexError),
            ErrorCase(Sample((x, T(np.array([0, 1]), "int32"))), RuntimeError)]


# ---- scatter family -------------------------------------------------------------------------

def _scatter_samples(distinct=True):
    """(self, dim, index, src): src of index's shape, and once larger than index (it may
    be; without grad: torch's backward gives src a gradient of index's shape then, and
    ember's ONNX export passes the larger src to ScatterElements)."""
    def make(dtype, rng, nc):
        idx = (lambda size, shape, dim: _distinct_index(rng, size, shape, dim, nc)) if distinct else \
              (lambda size, shape, dim: _rand_index(rng, size, shape, noncontig=nc))
        return [
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), 0, idx(3, (2, 4), 0), _t(rng, (2, 4), dtype, noncontig=nc))),
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), 1, idx(4, (3, 2), 1), _t(rng, (3, 2), dtype, noncontig=nc))),
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), -1, idx(4, (2, 3), 1), _t(rng, (2, 3), dtype))),
            Sample((_t(rng, (2, 3, 2), dtype, noncontig=nc), 1, idx(3, (2, 3, 1), 1), _t(rng, (2, 3, 1), dtype))),
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), 0, idx(3, (3, 2), 0), _t(rng, (3, 4), dtype, grad=False))),
            Sample((_t(rng, (), dtype), 0, _i(0), _t(rng, (), dtype))),
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), 0, _i(np.zeros((0, 4))), _t(rng, (0, 4), dtype))),
        ]
    return _both_layouts(make)


def _scatter_errors(with_src=True):
    def make(rng):
        x = _t(rng, (3, 4), "float32")
        src = (_t(rng, (3, 4), "float32"),) if with_src else ()
        kw = {} if with_src else {"value": 2.0}
        out = [ErrorCase(Sample((x, 0, _i([[5, 0]])) + src, kw), RuntimeError),
               ErrorCase(Sample((x, 0, _i([[-1, 0]])) + src, kw), RuntimeError),
               ErrorCase(Sample((x, 0, _t(rng, (1, 2), "float32", grad=False)) + src, kw), RuntimeError),
               ErrorCase(Sample((x, 0, _i([0, 1])) + src, kw), RuntimeError),
               ErrorCase(Sample((x, 0, _i([[0, 1, 2, 0, 1]])) + src, kw), RuntimeError),
               ErrorCase(Sample((x, 2, _i([[0]])) + src, kw), IndexError)]
        if with_src:
            out.append(ErrorCase(Sample((x, 0, _i([[0]]), _t(rng, (3, 4), "float64"))), RuntimeError))
            out.append(ErrorCase(Sample((x, 0, _i([[0, 1, 2]]), _t(rng, (1, 2), "float32"))), RuntimeError))
        return out
    return make


def _scatter_value_samples(dtype, rng):
    v = _fill_value(dtype)
    return [Sample(s.args[:3], {"value": v}) for s in _scatter_samples(False)(dtype, rng)]


def _scatter_reduce_samples(dtype, rng):
    # Small magnitudes: the products of repeated indices stay in every dtype's range.
    return [Sample(s.args) for s in _scatter_samples(False)(dtype, rng)
            if all(abs(a.values).max(initial=0) < 4 for a in s.args if isinstance(a, T))]


def _alpha(m, x):
    return True if x.dtype == m.bool else 2


def _index_source_samples(distinct=True):
    """(self, dim, 1-d index, source) for index_add_ / index_copy_."""
    def make(dtype, rng, nc):
        def idx(size, n):
            return _i(rng.permutation(size)[:n], nc) if distinct else _rand_index(rng, size, (n,), noncontig=nc)
        return [
            Sample((_t(rng, (4, 3), dtype, noncontig=nc), 0, idx(4, 2), _t(rng, (2, 3), dtype, noncontig=nc))),
            Sample((_t(rng, (3, 4), dtype, noncontig=nc), 1, idx(4, 3), _t(rng, (3, 3), dtype, noncontig=nc))),
            Sample((_t(rng, (2, 3, 2), dtype, noncontig=nc), -1, idx(2, 1), _t(rng, (2, 3, 1), dtype))),
            Sample((_t(rng, (), dtype), 0, _i([0]), _t(rng, (), dtype))),
            Sample((_t(rng, (4, 3), dtype, noncontig=nc), 0, _i(np.zeros(0)), _t(rng, (0, 3), dtype))),
            Sample((_t(rng, (4, 3), dtype, noncontig=nc), 0, _i(3), _t(rng, (1, 3), dtype))),  # a 0-dim index
        ]
    return _both_layouts(make)


def _index_source_errors(rng):
    x = _t(rng, (4, 3), "float32")
    return [ErrorCase(Sample((x, 0, _i([0, 1]), _t(rng, (2, 3), "float64"))), RuntimeError),
            ErrorCase(Sample((x, 0, _i([0, 1]), _t(rng, (3, 3), "float32"))), RuntimeError),
            ErrorCase(Sample((x, 0, _i([0, 1]), _t(rng, (2, 2), "float32"))), RuntimeError),
            ErrorCase(Sample((x, 0, _i([[0, 1]]), _t(rng, (2, 3), "float32"))), IndexError),
            ErrorCase(Sample((x, 2, _i([0]), _t(rng, (1, 3), "float32"))), IndexError)]


def _index_add_errors(rng):
    # ember bug: an out-of-range index ([0, 4], [-5, 1]) raises RuntimeError; torch's
    # index_add_ with alpha != 1 (this row's alpha=2) raises IndexError (RuntimeError with alpha 1)
    return _index_source_errors(rng)


def _index_copy_errors(rng):
    x = _t(rng, (4, 3), "float32")
    # source.size(dim) != index.numel(): IndexError here (RuntimeError in index_add_)
    cases = [c if c.sample.args[3].values.shape != (3, 3) else ErrorCase(c.sample, IndexError)
             for c in _index_source_errors(rng)]
    return cases + [ErrorCase(Sample((x, 0, _i([0, 4]), _t(rng, (2, 3), "float32"))), IndexError),
                    ErrorCase(Sample((x, 0, _i([-5, 1]), _t(rng, (2, 3), "float32"))), IndexError)]


def _index_fill_samples(dtype, rng):
    v = _fill_value(dtype)
    out = []
    for nc in (False, True):
        for shape, dim, idx in [((4, 3), 0, [0, 2, 0]), ((3, 4), 1, [-1, 1]), ((2, 3, 2), -1, [1]), ((), 0, [0]),
                                ((4, 3), 0, []), ((3, 4), 1, 2)]:
            strided_index = nc and np.ndim(idx) > 0 and len(idx) > 1
            out.append(Sample((_t(rng, shape, dtype, noncontig=nc), dim, _i(idx, strided_index)), {"value": v}))
    return out


def _index_fill_errors(rng):
    x = _t(rng, (4, 3), "float32")
    return [ErrorCase(Sample((x, 0, _i([4])), {"value": 1.0}), IndexError),
            ErrorCase(Sample((x, 0, _i([-5])), {"value": 1.0}), IndexError),
            ErrorCase(Sample((x, 2, _i([0])), {"value": 1.0}), IndexError),
            # a 2-d index: RuntimeError; an index not int64 (float32, int32): IndexError
            ErrorCase(Sample((x, 0, _i([[0, 1]])), {"value": 1.0}), RuntimeError),
            ErrorCase(Sample((x, 0, T(np.array([0.0, 1.0]), "float32", grad=False)), {"value": 1.0}), IndexError),
            ErrorCase(Sample((x, 0, T(np.array([0, 1]), "int32")), {"value": 1.0}), IndexError)]


# ---- masks ----------------------------------------------------------------------------------

def _mask(rng, shape, noncontig=False):
    return T(rng.random(shape) < 0.5, "bool", noncontig=noncontig)


def _masked_fill_samples(dtype, rng):
    v = _fill_value(dtype)
    out = []
    for nc in (False, True):
        for shape, mshape in [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 4), (3, 1)), ((2, 3, 2), ()), ((), ()),
                              ((0, 3), (3,)), ((2, 3, 2), (2, 3, 2))]:
            out.append(Sample((_t(rng, shape, dtype, noncontig=nc), _mask(rng, mshape, nc)), {"value": v}))
    return out


def _masked_fill_tensor_samples(dtype, rng):
    return [Sample(s.args + (T(np.asarray(s.kwargs["value"]), dtype, grad=False),))
            for s in _masked_fill_samples(dtype, rng)]


def _masked_fill_broadcast_samples(dtype, rng):
    v = _fill_value(dtype)
    return [Sample((_t(rng, shape, dtype), _mask(rng, mshape)), {"value": v})
            for shape, mshape in [((3, 1), (3, 4)), ((4,), (2, 3, 4)), ((), (2, 2)), ((3, 4), (3, 4))]]


def _masked_fill_errors(rng):
    x = _t(rng, (3, 4), "float32")
    return [ErrorCase(Sample((x, _i(np.zeros((3, 4)))), {"value": 1.0}), RuntimeError),
            ErrorCase(Sample((x, _mask(rng, (2, 4))), {"value": 1.0}), RuntimeError),
            ErrorCase(Sample((x, _mask(rng, (2, 3, 4))), {"value": 1.0}), RuntimeError)]


def _nonzero_samples(dtype, rng):
    out = []
    for shape in [(3, 4), (5,), (2, 3, 2), (), (0, 3)]:
        for nc in (False, True):
            v = make_values(rng, shape, dtype, -2, 2)
            v = np.where(rng.random(shape) < 0.4, 0, v)  # zeros in every dtype
            out.append(Sample((T(v, dtype, noncontig=nc),)))
    out.append(Sample((T(np.zeros((2, 3)), dtype),)))
    out.append(Sample((T(np.zeros(()), dtype),)))
    if dtype in FLOATING:  # NaN is nonzero, -0.0 is zero
        v = np.array([[np.nan, -0.0, 0.0, 1.0], [-0.0, np.inf, np.nan, -np.inf], [0.0, -0.0, 0.0, -0.0]])
        out.append(Sample((T(v, dtype),), name="nan-negzero"))
        out.append(Sample((T(v, dtype, noncontig=True),), name="nan-negzero"))
    return out


def _nonzero_large_samples(dtype, rng):
    """_nonzero_samples and a large input with few nonzeros (several blocks of a
    device's count-then-write, most of them empty)."""
    v = np.zeros(300000)
    hits = np.sort(rng.choice(v.size, 37, replace=False))
    v[hits] = make_values(rng, (37,), dtype, 1, 3)
    v[-1] = 1  # the last element
    return _nonzero_samples(dtype, rng) + [Sample((T(v.reshape(600, 500), dtype),), name="large")]


# ---- advanced indexing ----------------------------------------------------------------------

def _getitem_samples(key):
    """(x, *index tensors) for x[key(*indices)]."""
    def make(dtype, rng):
        out = []
        for nc in (False, True):
            for sample in key(dtype, rng, nc):
                out.append(sample)
        return out
    return make


def _index_cases(dtype, rng, nc):
    return [Sample((_t(rng, (4, 3), dtype, noncontig=nc), _i([2, 0, 2, -1], nc))),
            Sample((_t(rng, (4, 3), dtype, noncontig=nc), _rand_index(rng, 4, (2, 3), low=-4))),
            Sample((_t(rng, (2, 3, 2), dtype, noncontig=nc), _i([1]))),
            Sample((_t(rng, (4, 3), dtype, noncontig=nc), _i(np.zeros(0)))),
            Sample((_t(rng, (0, 3), dtype), _i(np.zeros((2, 0)))))]


def _index_dim1_cases(dtype, rng, nc):
    return [Sample((_t(rng, (4, 3), dtype, noncontig=nc), _i([2, 0, 2], nc))),
            Sample((_t(rng, (2, 3, 2), dtype, noncontig=nc), _rand_index(rng, 3, (2, 2)))),
            Sample((_t(rng, (4, 0), dtype), _i(np.zeros(0))))]


def _index_two_cases(dtype, rng, nc):
    return [Sample((_t(rng, (4, 3), dtype, noncontig=nc), _i([[0], [3]]), _i([2, 0, 1], nc))),
            Sample((_t(rng, (2, 3, 2), dtype, noncontig=nc), _i([1, 0]), _i([2, 2]))),
            Sample((_t(rng, (2, 3, 4), dtype, noncontig=nc), _i([1, 0, 1]), _i([3]))),  # x[i, :, j]
            ]


def _mask_cases(dtype, rng, nc):
    return [Sample((_t(rng, (4, 3), dtype, noncontig=nc), _mask(rng, (4, 3), nc))),
            Sample((_t(rng, (4, 3), dtype, noncontig=nc), _mask(rng, (4,)))),
            Sample((_t(rng, (2, 3, 2), dtype, noncontig=nc), _mask(rng, (2, 3)))),
            Sample((_t(rng, (4, 3), dtype), T(np.zeros((4, 3), dtype=bool), "bool")))]


def _index_errors(rng):
    x = _t(rng, (4, 3), "float32")
    return [ErrorCase(Sample((x, _i([4]))), IndexError), ErrorCase(Sample((x, _i([-5]))), IndexError),
            ErrorCase(Sample((x, _t(rng, (2,), "float32", grad=False))), IndexError),
            ErrorCase(Sample((x, _mask(rng, (3,)))), IndexError)]


def _index_put_samples(accumulate=False, leading_ones=False):
    """(self, index, values): distinct indices unless accumulate. leading_ones: values
    with more dims than the indexing result, leading ones (x[i] = v strips them; torch's
    index_put_ rejects them, ember's accepts them)."""
    def make(dtype, rng):
        out = []
        for nc in (False, True):
            i4 = (lambda n: _i(rng.permutation(4)[:n] - (rng.random(n) < 0.5) * 4, nc)) if not accumulate else \
                 (lambda n: _rand_index(rng, 4, (n,), low=-4, noncontig=nc))
            out += [Sample((_t(rng, (4, 3), dtype, noncontig=nc), i4(3), _t(rng, (3, 3), dtype, noncontig=nc))),
                    Sample((_t(rng, (4, 3), dtype, noncontig=nc), i4(2), _t(rng, (3,), dtype))),
                    Sample((_t(rng, (4, 3), dtype, noncontig=nc), i4(2), _t(rng, (), dtype))),
                    Sample((_t(rng, (4, 3), dtype, noncontig=nc), _i(np.zeros(0)), _t(rng, (0, 3), dtype))),
                    Sample((_t(rng, (4, 2, 2), dtype, noncontig=nc), i4(2), _t(rng, (2, 1, 2), dtype)))]
            if leading_ones:
                out.append(Sample((_t(rng, (4, 3), dtype, noncontig=nc), i4(2), _t(rng, (1, 2, 3), dtype))))
        return out
    return make


def _index_put_errors(rng):
    x = _t(rng, (4, 3), "float32")
    return [ErrorCase(Sample((x, _i([0, 1]), _t(rng, (2, 3), "float64"))), RuntimeError),
            ErrorCase(Sample((x, _i([0, 4]), _t(rng, (2, 3), "float32"))), IndexError),
            ErrorCase(Sample((x, _i([0, 1]), _t(rng, (3, 3), "float32"))), RuntimeError)]


def _setitem(x, key, v):
    x[key] = v
    return x


_PUT_KEYS = {"i": lambda i: i, ":,i": lambda i: (slice(None), i), "...,i": lambda i: (Ellipsis, i),
             ":,i,:": lambda i: (slice(None), i, slice(None))}


def _setitem_key(m, x, i, v, key="i"):
    """x[key] = v on a clone, key a _PUT_KEYS entry: the index alone or after full
    slices (a None entry in index_put_'s indices)."""
    return _setitem(x.clone(), _PUT_KEYS[key](i), v)


def _put_none_samples(dtype, rng):
    """x[:, i] = v: distinct indices into dim 1 (or the last) with values of the result's
    shape, broadcast, 0-dim, and a Python number."""
    out = []
    for nc in (False, True):
        out += [Sample((_t(rng, (4, 3), dtype, noncontig=nc), _i(rng.permutation(3)[:2], nc),
                        _t(rng, (4, 2), dtype, noncontig=nc)), {"key": ":,i"}),
                Sample((_t(rng, (4, 3), dtype, noncontig=nc), _i([2, -3]), _t(rng, (2,), dtype)), {"key": ":,i"}),
                Sample((_t(rng, (2, 3, 4), dtype, noncontig=nc), _i([[2], [0]]), _t(rng, (), dtype)),
                       {"key": ":,i,:"}),
                Sample((_t(rng, (2, 3, 4), dtype, noncontig=nc), _i(rng.permutation(4)[:3]), _t(rng, (3, 3), dtype)),
                       {"key": "...,i"}),
                Sample((_t(rng, (2, 3, 4), dtype, noncontig=nc), _i([1, 0]), _fill_value(dtype)), {"key": ":,i"}),
                Sample((_t(rng, (4, 3), dtype, noncontig=nc), _i(np.zeros(0)), _t(rng, (4, 0), dtype)), {"key": ":,i"})]
    return out


def _put_number_samples(dtype, rng):
    """x[i] = number: a Python number value (wrapped as a 0-dim tensor of x's dtype)."""
    v = _fill_value(dtype)
    out = []
    for nc in (False, True):
        out += [Sample((_t(rng, (4, 3), dtype, noncontig=nc), _i([3, 0], nc), v)),
                Sample((_t(rng, (2, 3, 2), dtype, noncontig=nc), _i([[1], [0]]), v)),
                Sample((_t(rng, (4, 3), dtype, noncontig=nc), _i([-1]), 0 if dtype != "bool" else False))]
    return out


def _put_two_samples(dtype, rng):
    out = []
    for nc in (False, True):
        out.append(Sample((_t(rng, (4, 3), dtype, noncontig=nc), _i([0, 3, 1]), _i([2, 2, 0]),
                           _t(rng, (3,), dtype))))
        out.append(Sample((_t(rng, (2, 3, 4), dtype, noncontig=nc), _i([1, 0]), _i([2, 1]), _t(rng, (4,), dtype))))
    return out


def _put_mask_samples(dtype, rng):
    v = _fill_value(dtype)
    out = []
    for nc in (False, True):
        out.append(Sample((_t(rng, (4, 3), dtype, noncontig=nc), _mask(rng, (4, 3), nc)), {"value": v}))
        out.append(Sample((_t(rng, (2, 3, 2), dtype, noncontig=nc), _mask(rng, (2, 3))), {"value": v}))
    return out


OPS = [
    # ---- joining and rearranging ----
    OpInfo("cat", lambda m, xs, dim: m.cat(xs, dim), _cat_samples, dtypes=ALL_AND_BOOL, onnx=True,
           errors=_cat_errors),
    OpInfo("cat", lambda m, xs, dim: m.cat(xs, dim), _cat_promote_samples, dtypes=ALL_AND_BOOL,
           variant="promote", grad=False),
    OpInfo("cat", lambda m, xs, dim: m.stack(xs, dim), _stack_samples, dtypes=FLOAT, variant="stack"),
    OpInfo("cat", lambda m, xs, dim: (m.hstack(xs), m.vstack(xs)), _stack_samples, dtypes=FLOAT, variant="hstack"),
    OpInfo("flip", lambda m, x, dims: m.flip(x, dims), _flip_samples, dtypes=ALL_AND_BOOL, onnx=True,
           errors=_flip_errors),
    OpInfo("flip", lambda m, x: (m.fliplr(x), x.flipud()),
           lambda dtype, rng: [Sample(a) for a in layouts(rng, [[(3, 4)], [(2, 3, 2)]], dtype)],
           dtypes=FLOAT, variant="fliplr"),
    OpInfo("tril", lambda m, x, k: m.tril(x, k), _triangle_samples, dtypes=ALL_AND_BOOL, onnx=True,
           errors=_triangle_errors),
    OpInfo("tril", lambda m, x, k: x.tril(diagonal=k), _triangle_samples, dtypes=FLOAT, variant="method"),
    OpInfo("triu", lambda m, x, k: m.triu(x, k), _triangle_samples, dtypes=ALL_AND_BOOL, onnx=True,
           errors=_triangle_errors),
    OpInfo("triu", lambda m, x, k: x.triu(diagonal=k), _triangle_samples, dtypes=FLOAT, variant="method"),

    # ---- through an index ----
    OpInfo("gather", lambda m, x, d, i: m.gather(x, d, i), _gather_samples, dtypes=ALL_AND_BOOL, onnx=True,
           errors=_gather_errors),
    OpInfo("index_select", lambda m, x, d, i: m.index_select(x, d, i), _index_select_samples, dtypes=ALL_AND_BOOL,
           onnx=True, errors=_index_select_errors),
    OpInfo("index_select", lambda m, x, d, i: x.index_select(d, i), _index_select_samples, dtypes=FLOAT,
           variant="method"),
    OpInfo("take", lambda m, x, i: m.take(x, i), _take_samples, dtypes=ALL_AND_BOOL, onnx=True,
           errors=_take_errors),
    OpInfo("scatter_", lambda m, x, d, i, s: x.clone().scatter_(d, i, s), _scatter_samples(), dtypes=ALL_AND_BOOL,
           inplace=lambda m, x, d, i, s: x.scatter_(d, i, s), onnx=True, errors=_scatter_errors()),
    OpInfo("scatter_", lambda m, x, d, i, s: m.scatter(x, d, i, s), _scatter_samples(), dtypes=FLOAT,
           variant="scatter", onnx=True),
    # reduce=: no derivative in torch (nor here)
    OpInfo("scatter_", lambda m, x, d, i, s: x.clone().scatter_(d, i, s, reduce="add"), _scatter_samples(False),
           dtypes=ALL_AND_BOOL, variant="reduce_add", grad=False, onnx=True,
           inplace=lambda m, x, d, i, s: x.scatter_(d, i, s, reduce="add")),
    OpInfo("scatter_", lambda m, x, d, i, s: x.clone().scatter_(d, i, s, reduce="multiply"), _scatter_reduce_samples,
           dtypes=ALL_AND_BOOL, variant="reduce_multiply", grad=False,
           inplace=lambda m, x, d, i, s: x.scatter_(d, i, s, reduce="multiply")),
    OpInfo("scatter_value_", lambda m, x, d, i, value: x.clone().scatter_(d, i, value=value), _scatter_value_samples,
           dtypes=ALL_AND_BOOL, inplace=lambda m, x, d, i, value: x.scatter_(d, i, value=value), onnx=True,
           errors=_scatter_errors(with_src=False)),
    OpInfo("scatter_value_", lambda m, x, d, i, value: m.scatter(x, d, i, value), _scatter_value_samples,
           dtypes=FLOAT, variant="scatter"),
    OpInfo("scatter_value_", lambda m, x, d, i, value: x.clone().scatter_(d, i, value, reduce="add"),
           _scatter_value_samples, dtypes=ALL_AND_BOOL, variant="reduce_add", grad=False),
    OpInfo("scatter_value_", lambda m, x, d, i, value: x.clone().scatter_(d, i, value, reduce="multiply"),
           _scatter_value_samples, dtypes=ALL_AND_BOOL, variant="reduce_multiply", grad=False),
    OpInfo("scatter_add_", lambda m, x, d, i, s: x.clone().scatter_add_(d, i, s), _scatter_samples(False),
           dtypes=ALL_AND_BOOL, inplace=lambda m, x, d, i, s: x.scatter_add_(d, i, s), onnx=True,
           errors=_scatter_errors()),
    OpInfo("scatter_add_", lambda m, x, d, i, s: m.scatter_add(x, d, i, s), _scatter_samples(False), dtypes=FLOAT,
           variant="scatter_add", onnx=True),
    OpInfo("index_add_", lambda m, x, d, i, s: x.clone().index_add_(d, i, s, alpha=_alpha(m, x)),
           _index_source_samples(False), dtypes=ALL_AND_BOOL,
           inplace=lambda m, x, d, i, s: x.index_add_(d, i, s, alpha=_alpha(m, x)),
           errors=_index_add_errors),
    OpInfo("index_add_", lambda m, x, d, i, s: m.index_add(x, d, i, s), _index_source_samples(False),
           dtypes=ALL_AND_BOOL, variant="index_add"),
    OpInfo("index_copy_", lambda m, x, d, i, s: x.clone().index_copy_(d, i, s), _index_source_samples(),
           dtypes=ALL_AND_BOOL, inplace=lambda m, x, d, i, s: x.index_copy_(d, i, s),
           errors=_index_copy_errors),
    OpInfo("index_copy_", lambda m, x, d, i, s: m.index_copy(x, d, i, s), _index_source_samples(), dtypes=FLOAT,
           variant="index_copy"),
    OpInfo("index_fill_", lambda m, x, d, i, value: x.clone().index_fill_(d, i, value), _index_fill_samples,
           dtypes=ALL_AND_BOOL, inplace=lambda m, x, d, i, value: x.index_fill_(d, i, value),
           errors=_index_fill_errors),
    OpInfo("index_fill_", lambda m, x, d, i, value: m.index_fill(x, d, i, value), _index_fill_samples,
           dtypes=FLOAT, variant="index_fill"),
    # a 0-dim value tensor without grad: the row with its item()
    OpInfo("index_fill_", lambda m, x, d, i, value: x.clone().index_fill_(d, i, value),
           lambda dtype, rng: [Sample(s.args, {"value": T(np.asarray(s.kwargs["value"]), dtype, grad=False)})
                               for s in _index_fill_samples(dtype, rng)],
           dtypes=ALL_AND_BOOL, variant="tensor_value"),

    # ---- masks ----
    OpInfo("masked_fill_", lambda m, x, mask, value: x.clone().masked_fill_(mask, value), _masked_fill_samples,
           dtypes=ALL_AND_BOOL, inplace=lambda m, x, mask, value: x.masked_fill_(mask, value), onnx=True,
           errors=_masked_fill_errors),
    OpInfo("masked_fill_", lambda m, x, mask, v: x.clone().masked_fill_(mask, v), _masked_fill_tensor_samples,
           dtypes=ALL_AND_BOOL, variant="tensor_value", inplace=lambda m, x, mask, v: x.masked_fill_(mask, v)),
    OpInfo("masked_fill_", lambda m, x, mask, value: m.masked_fill(x, mask, value), _masked_fill_broadcast_samples,
           dtypes=ALL_AND_BOOL, variant="masked_fill", onnx=True),
    OpInfo("nonzero", lambda m, x: m.nonzero(x), _nonzero_large_samples, dtypes=ALL_AND_BOOL, grad=False, onnx=True,
           errors=lambda rng: [ErrorCase(Sample(([1.0, 2.0],)), TypeError)]),
    OpInfo("nonzero", lambda m, x: x.nonzero(as_tuple=True), _nonzero_samples, dtypes=ALL_AND_BOOL,
           variant="as_tuple", grad=False),
    OpInfo("nonzero", lambda m, x: (m.argwhere(x), m.where(x)), _nonzero_samples, dtypes=FLOAT,
           variant="argwhere", grad=False),
    OpInfo("nonzero", lambda m, x: m.masked_select(x, x.detach().abs() > 0.5), _nonzero_samples, dtypes=FLOAT,
           variant="masked_select"),

    # ---- advanced indexing ----
    OpInfo("index", lambda m, x, i: x[i], _getitem_samples(_index_cases), dtypes=ALL_AND_BOOL, onnx=True,
           errors=_index_errors),
    OpInfo("index", lambda m, x, i: x[:, i], _getitem_samples(_index_dim1_cases), dtypes=FLOAT, variant="dim1",
           onnx=True),
    OpInfo("index", lambda m, x, i, j: x[i, ..., j] if x.dim() == 3 and j.numel() == 1 else x[i, j],
           _getitem_samples(_index_two_cases), dtypes=ALL_AND_BOOL, variant="two", onnx=True),
    OpInfo("index", lambda m, x, mask: x[mask], _getitem_samples(_mask_cases), dtypes=ALL_AND_BOOL, variant="mask"),
    OpInfo("index_put_", lambda m, x, i, v: x.clone().index_put_((i,), v), _index_put_samples(), dtypes=ALL_AND_BOOL,
           inplace=lambda m, x, i, v: x.index_put_((i,), v), errors=_index_put_errors),
    OpInfo("index_put_", lambda m, x, i, v: x.clone().index_put_((i,), v, accumulate=True),
           _index_put_samples(accumulate=True), dtypes=ALL_AND_BOOL, variant="accumulate",
           inplace=lambda m, x, i, v: x.index_put_((i,), v, accumulate=True)),
    OpInfo("index_put_", lambda m, x, i, v: m.index_put(x, (i,), v), _index_put_samples(), dtypes=FLOAT,
           variant="index_put"),
    OpInfo("index_put_", lambda m, x, i, v: _setitem(x.clone(), i, v), _index_put_samples(leading_ones=True),
           dtypes=ALL_AND_BOOL,
           variant="setitem"),
    # a None entry in the indices: x[:, i] = v (index_put_'s Python form takes no None)
    OpInfo("index_put_", _setitem_key, _put_none_samples, dtypes=ALL_AND_BOOL, variant="setitem_none"),
    # a Python number value: x[i] = 2.5
    OpInfo("index_put_", lambda m, x, i, v: _setitem(x.clone(), i, v), _put_number_samples, dtypes=ALL_AND_BOOL,
           variant="setitem_number"),
    OpInfo("index_put_", lambda m, x, i, j, v: _setitem(x.clone(), (i, j), v), _put_two_samples, dtypes=FLOAT,
           variant="setitem_two"),
    OpInfo("index_put_", lambda m, x, mask, value: _setitem(x.clone(), mask, value), _put_mask_samples,
           dtypes=ALL_AND_BOOL, variant="setitem_mask"),

]

# scatter_reduce_: every reduction, with and without self's values ("mean" is the row's
# sum and a division by the counts; the row itself sees sum, prod, amax and amin).
def _scatter_reduce_samples(reduce):
    """scatter's samples; for prod, amax and amin not the one with src larger than index
    (torch's backward of those reads all of src and fails on the shapes; ember's reads
    index's corner, as its forward does)."""
    base = _scatter_samples(False)
    if reduce in ("sum", "mean"):
        return base

    def samples(dtype, rng):
        return [s for s in base(dtype, rng)
                if not (isinstance(s.args[3], T) and isinstance(s.args[2], T)
                        and s.args[3].values.shape != s.args[2].values.shape)]
    return samples


OPS += [
    OpInfo("scatter_reduce_",
           lambda m, x, d, i, s, reduce=reduce, include_self=include_self:
               m.scatter_reduce(x, d, i, s, reduce, include_self=include_self),
           _scatter_reduce_samples(reduce), dtypes=ALL,
           variant=f"{reduce}_{'self' if include_self else 'noself'}",
           inplace=lambda m, x, d, i, s, reduce=reduce, include_self=include_self:
               x.scatter_reduce_(d, i, s, reduce, include_self=include_self))
    for reduce in ("sum", "prod", "mean", "amax", "amin") for include_self in (True, False)
]
