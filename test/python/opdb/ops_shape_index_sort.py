"""Op database entries of the shape_index group's ordering ops
(lib/dispatch/schema/shape_index.toml): sort (and argsort), topk, unique and
searchsorted (and bucketize), with ties, NaN and both sort orders. Where ties may
come back in any order (stable=False, topk at the k-th value) the entries compare
what does not depend on it."""
import numpy as np

from .ops_shape_index import NUMERIC, _i, _t
from .opinfo import ALL_AND_BOOL, FLOAT, FLOATING, INTEGRAL, ErrorCase, OpInfo, Sample, T, layouts, make_values


# ---- helpers ---------------------------------------------------------------------------

def _distinct_values(rng, shape, dtype):
    """Values without ties (topk's order of ties is unspecified), in the dtype's range."""
    n = int(np.prod(shape))
    if dtype == "uint8":
        v = rng.permutation(n)
    elif dtype in INTEGRAL:
        v = rng.permutation(n) - n // 2
    else:
        v = (rng.permutation(n) - n / 2) * 0.5 + rng.uniform(0, 0.1)
    return np.asarray(v, dtype=np.float64).reshape(shape)


# ---- sort, topk, unique ---------------------------------------------------------------------

def _sort_samples(dtype, rng):
    out = []
    for shape, kw in [((3, 4), {}), ((3, 4), {"dim": 0}), ((2, 3, 2), {"dim": 1, "descending": True}),
                      ((5,), {"descending": True}), ((), {}), ((0, 3), {"dim": 1}), ((3, 0), {})]:
        for args in layouts(rng, [[shape]], dtype, -3, 3):
            out.append(Sample(args, dict(kw)))
    if dtype in FLOATING:  # Note [NaN order]: NaN after every number ascending, before it descending
        v = np.array([[1.0, np.nan, -2.0, 3.0], [np.nan, 0.5, np.nan, -1.0]])
        out.append(Sample((T(v, dtype),), {}))
        out.append(Sample((T(v, dtype),), {"descending": True}))
        out.append(Sample((T(np.array([np.inf, -np.inf, 0.0, 2.0]), dtype),), {}))
    return out


def _topk_samples(dtype, rng):
    out = []
    for shape, k, kw in [((3, 4), 2, {}), ((3, 4), 3, {"dim": 0}), ((2, 5, 2), 2, {"dim": 1, "largest": False}),
                         ((6,), 6, {}), ((6,), 0, {}), ((), 1, {}), ((0, 3), 2, {"dim": 1}),
                         ((4, 6), 1, {"largest": False})]:
        v = _distinct_values(rng, shape, dtype)
        for nc in (False, True):
            out.append(Sample((T(v, dtype, noncontig=nc), k), dict(kw)))
    return out


def _tied_values(rng, shape, dtype):
    """Values with many ties: a few distinct values (-2 .. 2; bools half true)."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    return np.round(rng.uniform(-2.4, 2.4, shape)) if dtype not in ("uint8",) else rng.integers(0, 4, shape)


# Rows with ties and NaN (NaN after every number ascending, before it descending);
# -0.0 and 0.0 tie.
_NAN_ROWS = np.array([[1.0, np.nan, 1.0, -0.0, 0.0, np.nan, 1.0, -2.0],
                      [np.nan, np.nan, np.nan, 2.0, -0.0, 2.0, 0.0, np.nan]])


def _sort_ties_samples(dtype, rng):
    """Ties in every row (and NaN, for the floating dtypes), along each dim, both orders,
    contiguous and strided."""
    out = []
    for shape, kw in [((3, 8), {}), ((6, 3), {"dim": 0}), ((2, 5, 3), {"dim": 1, "descending": True}),
                      ((40,), {"descending": True}), ((4, 7), {"dim": -1, "descending": True})]:
        v = _tied_values(rng, shape, dtype)
        for nc in (False, True):
            out.append(Sample((T(v, dtype, noncontig=nc),), dict(kw), "ties"))
    if dtype in FLOATING:
        for kw in ({}, {"descending": True}):
            out.append(Sample((T(_NAN_ROWS, dtype),), dict(kw), "ties-nan"))
            out.append(Sample((T(_NAN_ROWS.T.copy(), dtype, noncontig=True),), dict(kw, dim=0), "ties-nan"))
    return out


def _sort_unstable(m, x, dim=-1, descending=False):
    """sort with stable=False where ties may come in any order: the values, the input
    gathered at the indices (the values again) and the indices sorted along dim (0 .. n-1:
    a permutation), which do not depend on the order of ties."""
    v, i = m.sort(x, dim=dim, descending=descending, stable=False)
    return v, x.gather(dim, i), i.sort(dim).values


def _distinct_along(i, dim):
    """Whether the indices along dim are distinct (a bool per slice)."""
    s = i.sort(dim).values
    n = s.shape[dim]
    return (s.narrow(dim, min(n, 1), max(n - 1, 0)) != s.narrow(dim, 0, max(n - 1, 0))).all(dim)


def _topk_tied(m, x, k, dim=-1, largest=True, sorted=True):
    """topk where ties at the k-th value may pick any of the tied elements (and, with
    sorted=False, in any order): the values (sorted along dim when sorted=False), the
    input gathered at the indices (the same), and whether the indices are distinct."""
    v, i = m.topk(x, k, dim=dim, largest=largest, sorted=sorted)
    g = x.gather(dim, i)
    if not sorted:
        v, g = v.sort(dim).values, g.sort(dim).values
    return v, g, _distinct_along(i, dim)


def _topk_tied_bool_ref(m, x, k, **kw):
    """torch's topk takes no bool on the CPU: the same in uint8, as bools."""
    v, g, d = _topk_tied(m, x.to(m.uint8), k, **kw)
    return v.bool(), g.bool(), d


def _topk_ties_samples(dtype, rng):
    """Ties at the k-th value, NaN (the largest: NaN ties too), sorted or not."""
    out = []
    for shape, k, kw in [((3, 8), 3, {}), ((6, 4), 2, {"dim": 0}), ((2, 6, 2), 4, {"dim": 1, "largest": False}),
                         ((12,), 5, {}), ((4, 7), 7, {"largest": False}), ((5,), 0, {}), ((0, 3), 2, {"dim": 1})]:
        v = _tied_values(rng, shape, dtype)
        for nc in (False, True):
            out.append(Sample((T(v, dtype, noncontig=nc), k), dict(kw), "ties"))
    if dtype in FLOATING:
        for k, kw in [(3, {}), (5, {"largest": False}), (8, {})]:
            out.append(Sample((T(_NAN_ROWS, dtype), k), dict(kw), "nan"))
        out.append(Sample((T(_NAN_ROWS.T.copy(), dtype, noncontig=True), 4), {"dim": 0}, "nan"))
    return out


def _dim_error(error=IndexError, **kw):
    def make(rng):
        return [ErrorCase(Sample((_t(rng, (3, 4), "float32"),), kw), error)]
    return make


def _unique_samples(dtype, rng):
    out = []
    for shape in [(12,), (3, 4), (2, 3, 2), (), (0,), (0, 3)]:
        v = make_values(rng, shape, dtype, -2, 2)
        if dtype in FLOATING:
            v = np.round(v)  # repeated values
        for nc in (False, True):
            out.append(Sample((T(v, dtype, noncontig=nc),)))
    if dtype in FLOATING:  # NaN: each one its own value (NaN != NaN), after every number
        out.append(Sample((T(np.array([np.nan, 1.0, np.nan, -0.0, 0.0, 1.0, 2.0, np.nan]), dtype),), name="nan"))
        out.append(Sample((T(np.array([[np.nan, 2.0, 2.0], [np.nan, np.nan, -1.0]]), dtype, noncontig=True),),
                          name="nan"))
    return out


def _unique_dim_samples(dtype, rng):
    out = []
    for shape, dim in [((5, 3), 0), ((3, 5), 1), ((3, 2, 2), 0), ((2, 3, 2), -1), ((0, 3), 0), ((4,), 0)]:
        v = np.round(make_values(rng, shape, dtype, 0, 1))
        v = np.take(v, rng.integers(0, shape[dim], shape[dim]), axis=dim)  # repeated slices
        for nc in (False, True):
            out.append(Sample((T(v, dtype, noncontig=nc), dim)))
    if dtype in FLOATING:  # slices holding NaN: never equal to another
        v = np.array([[np.nan, 1.0], [2.0, 0.0], [np.nan, 1.0], [2.0, 0.0], [-1.0, np.nan]])
        out.append(Sample((T(v, dtype), 0), name="nan"))
        out.append(Sample((T(v.T.copy(), dtype, noncontig=True), 1), name="nan"))
    return out


def _unique(m, x, dim=None):
    return m.unique(x, sorted=True, return_inverse=True, return_counts=True, dim=dim)


# ---- searchsorted ---------------------------------------------------------------------------

def _sorted(rng, shape, dtype):
    return T(np.sort(make_values(rng, shape, dtype, -3, 3), axis=-1), dtype)


def _searchsorted_samples(dtype, rng):
    out = []
    for nc in (False, True):
        for sshape, vshape, kw in [((6,), (4,), {}), ((6,), (2, 3), {"right": True}), ((6,), (), {}),
                                   ((3, 5), (3, 4), {}), ((2, 3, 5), (2, 3, 2), {"side": "right"}),
                                   ((6,), (0,), {}), ((0,), (3,), {}), ((5,), (4,), {"out_int32": True})]:
            seq = _sorted(rng, sshape, dtype)
            seq = T(seq.values, dtype, noncontig=nc)
            out.append(Sample((seq, _t(rng, vshape, dtype, -4, 4, noncontig=nc)), kw))
    if dtype in FLOATING:
        # NaN values (after every number), and a sequence sorted the way sort() orders
        # NaN (at its end)
        vals = T(np.array([np.nan, 1.0, -4.0, np.nan, 2.5, 0.0]), dtype)
        for seq in (np.array([-3.0, -1.0, 0.0, 1.0, 2.5]), np.array([-3.0, 0.0, 1.0, np.nan, np.nan]),
                    np.array([[-1.0, 1.0, np.nan], [0.0, 2.5, 3.0]])):
            v = vals if seq.ndim == 1 else T(vals.values.reshape(2, 3), dtype)
            for kw in ({}, {"right": True}):
                out.append(Sample((T(seq, dtype), v), kw, "nan"))
    return out


def _sorter_samples(dtype, rng):
    out = []
    for shape, vshape in [((6,), (4,)), ((3, 5), (3, 2))]:
        v = make_values(rng, shape, dtype, -3, 3)
        out.append(Sample((T(v, dtype), _t(rng, vshape, dtype)), {"sorter": _i(np.argsort(v, axis=-1, kind="stable"))}))
    return out


def _searchsorted_errors(rng):
    f = lambda s: _t(rng, s, "float32")  # noqa: E731
    return [ErrorCase(Sample((f(()), f((2,)))), RuntimeError),
            ErrorCase(Sample((f((3, 5)), f((2, 4)))), RuntimeError),
            ErrorCase(Sample((f((3, 5)), f(()))), RuntimeError),
            ErrorCase(Sample((f((5,)), f((2,))), {"side": "middle"}), RuntimeError),
            ErrorCase(Sample((f((5,)), f((2,))), {"side": "left", "right": True}), RuntimeError),
            ErrorCase(Sample((f((5,)), f((2,))), {"sorter": T(np.zeros(5), "int32")}), RuntimeError),
            ErrorCase(Sample((f((5,)), f((2,))), {"sorter": _i([0, 1, 2])}), RuntimeError)]


def _bucketize_samples(dtype, rng):
    out = []
    for vshape, right in [((4,), False), ((2, 3), True), ((), False)]:
        out.append(Sample((_t(rng, vshape, dtype, -4, 4), _sorted(rng, (5,), dtype)), {"right": right}))
    return out


OPS = [
    # ---- sorting ----
    OpInfo("sort", lambda m, x, **kw: m.sort(x, stable=True, **kw), _sort_samples, dtypes=ALL_AND_BOOL, onnx=True,
           errors=_dim_error(dim=2)),
    OpInfo("sort", lambda m, x, **kw: x.sort(**kw), _sort_samples, dtypes=FLOAT, variant="method"),
    OpInfo("sort", lambda m, x, **kw: m.argsort(x, stable=True, **kw), _sort_samples, dtypes=ALL_AND_BOOL,
           variant="argsort", grad=False),
    # ties: stable=True keeps their order (indices as torch's; no finite differences where
    # elements tie); stable=False any order (values, gathered values, a permutation)
    OpInfo("sort", lambda m, x, **kw: m.sort(x, stable=True, **kw), _sort_ties_samples, dtypes=ALL_AND_BOOL,
           variant="ties", gradcheck=False),
    OpInfo("sort", _sort_unstable, _sort_ties_samples, dtypes=ALL_AND_BOOL, variant="ties_unstable", grad=False),
    OpInfo("sort", lambda m, x, **kw: m.argsort(x, stable=True, **kw), _sort_ties_samples, dtypes=ALL_AND_BOOL,
           variant="argsort_ties", grad=False),
    OpInfo("topk", lambda m, x, k, **kw: m.topk(x, k, **kw), _topk_samples, dtypes=NUMERIC, onnx=True,
           errors=lambda rng: [ErrorCase(Sample((_t(rng, (3, 4), "float32"), 5)), RuntimeError),
                               ErrorCase(Sample((_t(rng, (3, 4), "float32"), -1)), RuntimeError),
                               ErrorCase(Sample((_t(rng, (3, 4), "float32"), 1), {"dim": 2}), IndexError)]),
    OpInfo("topk", lambda m, x, k, **kw: x.topk(k, sorted=True, **kw), _topk_samples, dtypes=FLOAT,
           variant="method"),
    # ties and NaN at the k-th value: which tied element is picked is not specified
    # (values, gathered values and distinct indices, not the indices, are compared)
    OpInfo("topk", _topk_tied, _topk_ties_samples, dtypes=NUMERIC, variant="ties", grad=False),
    OpInfo("topk", lambda m, x, k, **kw: _topk_tied(m, x, k, sorted=False, **kw), _topk_ties_samples,
           dtypes=NUMERIC, variant="unsorted", grad=False),
    OpInfo("topk", _topk_tied, _topk_ties_samples, ref=_topk_tied_bool_ref, dtypes=("bool",), variant="bool",
           grad=False),
    OpInfo("unique", _unique, _unique_samples, dtypes=ALL_AND_BOOL, grad=False,
           errors=lambda rng: [ErrorCase(Sample((_t(rng, (3, 4), "float32"), 2)), IndexError),
                               ErrorCase(Sample((_t(rng, (), "float32"), 0)), IndexError)]),
    OpInfo("unique", _unique, _unique_dim_samples, dtypes=ALL_AND_BOOL, variant="dim", grad=False),
    OpInfo("unique", lambda m, x: (m.unique(x), x.unique(return_counts=True)), _unique_samples, dtypes=FLOAT,
           variant="method", grad=False),

    # ---- searchsorted ----
    OpInfo("searchsorted", lambda m, s, v, **kw: m.searchsorted(s, v, **kw), _searchsorted_samples, dtypes=NUMERIC,
           grad=False, errors=_searchsorted_errors),
    OpInfo("searchsorted", lambda m, s, v, **kw: m.searchsorted(s, v, **kw), _sorter_samples, dtypes=NUMERIC,
           variant="sorter", grad=False),
    # operands of two dtypes: searched in their promoted dtype
    OpInfo("searchsorted", lambda m, s, v, **kw: m.searchsorted(s, v, **kw),
           lambda dtype, rng: [Sample((_sorted(rng, (6,), dtype), _t(rng, (5,), other, -4, 4)), {"right": r})
                               for other in ("float32", "int64", "float64") if other != dtype for r in (False, True)],
           dtypes=NUMERIC, variant="promote", grad=False),
    OpInfo("searchsorted", lambda m, s: (m.searchsorted(s, 1), m.searchsorted(s, 1, right=True)),
           lambda dtype, rng: [Sample((_sorted(rng, (6,), dtype),))], dtypes=NUMERIC, variant="scalar", grad=False),
    OpInfo("searchsorted", lambda m, v, b, **kw: m.bucketize(v, b, **kw), _bucketize_samples, dtypes=NUMERIC,
           variant="bucketize", grad=False,
           errors=lambda rng: [ErrorCase(Sample((_t(rng, (3,), "float32"), _t(rng, (2, 3), "float32"))),
                                         RuntimeError)]),
]
