"""Op database entries of the reduce group (lib/dispatch/schema/reduce.toml): the plain
reductions, the statistical ones, the scans and softmax.

Each row is reached through every public route that lands on it (torch.sum and
Tensor.sum, max(x) -> amax, max(x, dim) -> max_dim, linalg.vector_norm -> norm, ...),
with samples over dim=None, one dim, negative dims, several dims, keepdim, 0-dim,
empty and strided inputs, and dtype= where the op takes it."""
import numpy as np

from .opinfo import (ALL, FLOAT, FLOATING, INTEGRAL, Dtype, ErrorCase, OpInfo, Sample, T,
                     make_values)

ALL_AND_BOOL = ALL + ("bool",)

# Integer and bool inputs with a floating result (mean(dtype=), logsumexp, softmax(dtype=)):
# the float tolerances of the result dtype (ember multiplies by 1/n where torch divides
# by n, one unit in the last place).
INT_TO_F64 = {d: (1e-7, 1e-7) for d in INTEGRAL + ("bool",)}
INT_TO_F32 = {d: (1.3e-6, 1e-5) for d in INTEGRAL + ("bool",)}


# ---- samples ------------------------------------------------------------------------

def _values(rng, shape, dtype, low, high, zeros):
    v = make_values(rng, shape, dtype, low, high)
    if zeros and dtype != "bool":
        v = np.where(rng.random(shape) < zeros, 0, v).astype(v.dtype)
    return v


def reduce_samples(cases, low=-3.0, high=3.0, zeros=0.0, dtype_kw=None):
    """cases: (shape, [kwargs, ...]) pairs. Each shape is made contiguous and, when it
    has more than one element, strided; each layout is called with every kwargs.
    dtype_kw(dtype) -> a dtype name to pass as dtype= (None: leave it out)."""
    def make(dtype, rng):
        out = []
        for shape, kwsets in cases:
            v = _values(rng, shape, dtype, low, high, zeros)
            layouts = [False] + ([True] if int(np.prod(shape)) > 1 else [])
            for noncontig in layouts:
                for kw in kwsets:
                    kw = dict(kw)
                    if dtype_kw is not None and dtype_kw(dtype) is not None:
                        kw["dtype"] = Dtype(dtype_kw(dtype))
                    out.append(Sample((T(v, dtype, noncontig),), kw))
        return out
    return make


def fixed_samples(arrays, kwsets):
    """Fixed float values (ties, zeros, infinities), contiguous and strided."""
    def make(dtype, rng):
        out = []
        for a in arrays:
            a = np.asarray(a, dtype=np.float64)
            for noncontig in (False, True):
                for kw in kwsets:
                    out.append(Sample((T(a, dtype, noncontig),), dict(kw)))
        return out
    return make


# Reductions over a list of dims (dim=None: every dim).
MULTI = [
    ((3, 4), [{}, {"dim": 1}, {"dim": -1, "keepdim": True}, {"dim": (0, 1)},
              {"dim": (-1, 0), "keepdim": True}, {"dim": None, "keepdim": True}]),
    ((2, 3, 2), [{"dim": (0, 2)}, {"dim": 1, "keepdim": True}, {"dim": [-3, -1]}, {}]),
    ((5,), [{"dim": 0}, {"dim": -1, "keepdim": True}]),
    ((), [{}, {"dim": 0}, {"dim": -1, "keepdim": True}, {"dim": (0,)}]),
    ((0, 3), [{}, {"dim": 0}, {"dim": 1, "keepdim": True}, {"dim": (0, 1)}]),
]
# Reductions without an identity: empty inputs only over a non-empty dim.
MULTI_NONEMPTY = MULTI[:-1] + [((0, 3), [{"dim": 1}, {"dim": -1, "keepdim": True}])]
# One dim (max(x, dim), argmax, ...): keepdim both ways.
SINGLE = [
    ((3, 4), [{"dim": 1}, {"dim": 0, "keepdim": True}, {"dim": -1}]),
    ((2, 3, 2), [{"dim": 1}, {"dim": -3, "keepdim": True}]),
    ((5,), [{"dim": 0}]),
    ((), [{"dim": 0}, {"dim": -1, "keepdim": True}]),
    ((0, 3), [{"dim": 1}, {"dim": -1, "keepdim": True}]),
]
# One dim, no keepdim (scans, softmax): empty inputs along either dim.
ALONG = [
    ((3, 4), [{"dim": 1}, {"dim": 0}, {"dim": -1}]),
    ((2, 3, 2), [{"dim": 1}, {"dim": -3}]),
    ((5,), [{"dim": 0}]),
    ((), [{"dim": 0}, {"dim": -1}]),
    ((0, 3), [{"dim": 0}, {"dim": 1}]),
]
# The whole tensor (max(x), any(x), ...).
WHOLE = [((3, 4), [{}]), ((2, 3, 2), [{}]), ((), [{}]), ((5,), [{}])]
WHOLE_EMPTY = WHOLE + [((0, 3), [{}])]


def _x(rng, shape, dtype="float32", low=-3.0, high=3.0):
    return T(make_values(rng, shape, dtype, low, high), dtype)


def err(*cases):
    """errors= from (shape, dtype, kwargs, exception) tuples."""
    def make(rng):
        return [ErrorCase(Sample((_x(rng, shape, dtype),), dict(kw)), exc)
                for shape, dtype, kw, exc in cases]
    return make


DIM_RANGE = ((3, 4), "float32", {"dim": 2}, IndexError)
DIM_RANGE_NEG = ((3, 4), "float32", {"dim": -3}, IndexError)
DIM_TWICE = ((3, 4), "float32", {"dim": (1, -1)}, RuntimeError)
DIM_0D = ((), "float32", {"dim": 1}, IndexError)


def _float_or_64(dtype):
    """dtype= for a sum/prod/cumsum variant: widen floats to float64, integers and
    bool to int32 or float64 (the cast happens before the reduction)."""
    if dtype in FLOATING:
        return "float64"
    return "int32" if dtype in ("int8", "int16", "uint8") else "float64"


# Ties (amax/amin share the gradient evenly among equal maxima; max(x, dim) gives it
# to the first one; compared with torch's gradient, but no gradcheck: finite
# differences are meaningless at a tie), zeros (the gradient of prod/cumprod at zeros), infinities.
TIES = [[[1.0, 2.0, 2.0, -1.0], [0.5, 0.5, 0.5, 0.5], [-2.0, 3.0, -2.0, 3.0]]]
ZEROS = [[[1.5, 0.0, 2.0, -1.0], [0.0, 0.0, 3.0, 1.0], [0.5, -2.0, 1.25, 0.0]]]
INF = float("inf")
INFS = [[[1.0, -INF, 2.0, 0.5], [-INF, -INF, -INF, -INF], [1000.0, 1000.0, -1000.0, 3.0]]]
# log_softmax: (x - max) - log(sum), exact for large x (float32 log_softmax([1000, 1000,
# -1000, 3]) is -log(2) = -0.6931472 at the maxima), and a row of equal large values.
INFS_LSM = INFS + [[[1.0, -INF, 2.0, 0.5], [-INF, -INF, -INF, -INF], [-1000.0, -1000.0, -1000.0, -1000.0]],
                   [[30.0, 1.0], [29.0, -INF], [3.0, -30.0]]]
NANS = [[[1.0, float("nan"), 2.0, 0.5], [0.5, 3.0, -1.0, 2.0], [float("nan"), 0.0, 1.0, -1.0]]]


# ---- sum, mean, prod --------------------------------------------------------------------

SUM_ERRORS = err(DIM_RANGE, DIM_RANGE_NEG, DIM_TWICE, DIM_0D)


def _extremum(name, whole):
    """amax or amin: its function and method, the whole-tensor max(x)/min(x) that reaches
    the same row, ties (the gradient shared evenly) and nan (propagated)."""
    return [
        OpInfo(name, lambda m, x, **kw: getattr(m, name)(x, **kw), reduce_samples(MULTI_NONEMPTY),
               dtypes=ALL_AND_BOOL, onnx=True,
               errors=err(((0, 3), "float32", {}, RuntimeError),
                          ((0, 3), "float32", {"dim": 0}, IndexError), DIM_RANGE, DIM_TWICE)),
        OpInfo(name, lambda m, x, **kw: getattr(x, name)(**kw), reduce_samples(MULTI_NONEMPTY),
               dtypes=ALL_AND_BOOL, variant="method"),
        OpInfo(name, lambda m, x: getattr(m, whole)(x), reduce_samples(WHOLE), dtypes=ALL_AND_BOOL,
               variant=whole, onnx=True, errors=err(((0, 3), "float32", {}, RuntimeError))),
        OpInfo(name, lambda m, x: getattr(x, whole)(), reduce_samples(WHOLE), dtypes=ALL_AND_BOOL,
               variant=f"{whole}_method"),
        OpInfo(name, lambda m, x, **kw: getattr(m, name)(x, **kw),
               fixed_samples(TIES, [{}, {"dim": 1}, {"dim": 0, "keepdim": True}]), dtypes=FLOATING,
               variant="ties", gradcheck=False),
        OpInfo(name, lambda m, x: getattr(m, whole)(x), fixed_samples(TIES, [{}]), dtypes=FLOATING,
               variant=f"{whole}_ties", gradcheck=False),
        OpInfo(name, lambda m, x, **kw: getattr(m, name)(x, **kw), fixed_samples(NANS, [{}, {"dim": 1}]),
               dtypes=FLOATING, variant="nan", grad=False),
    ]

OPS = [
    OpInfo("sum", lambda m, x, **kw: m.sum(x, **kw), reduce_samples(MULTI), dtypes=ALL_AND_BOOL,
           onnx=True, errors=SUM_ERRORS),
    OpInfo("sum", lambda m, x, **kw: x.sum(**kw), reduce_samples(MULTI), dtypes=ALL_AND_BOOL,
           variant="method", errors=SUM_ERRORS),
    OpInfo("sum", lambda m, x, **kw: m.sum(x, **kw), reduce_samples(MULTI, dtype_kw=_float_or_64),
           dtypes=ALL_AND_BOOL, variant="dtype", onnx=True),
    # A narrowing dtype: float64 summed as float32 (the cast comes first).
    OpInfo("sum", lambda m, x, **kw: m.sum(x, **kw),
           reduce_samples(MULTI[:2], dtype_kw=lambda d: "float32"), dtypes=("float64",),
           variant="dtype_narrow", grad=False,
           tol={"float64": (1.3e-6, 1e-5)}),  # a float32 result (summation order)
    # torch.nansum of integers is sum.
    OpInfo("sum", lambda m, x, **kw: m.nansum(x, **kw), reduce_samples(MULTI),
           dtypes=INTEGRAL + ("bool",), variant="nansum", grad=False),
    OpInfo("sum", lambda m, x, **kw: m.nansum(x, **kw), fixed_samples(NANS, [{}, {"dim": 1}]),
           dtypes=FLOATING, variant="nansum_nan"),
    # nanmean: nansum over the count of non-NaN elements (both sums).
    OpInfo("sum", lambda m, x, **kw: m.nanmean(x, **kw),
           fixed_samples(NANS, [{}, {"dim": 1}, {"dim": 0, "keepdim": True}]), dtypes=FLOATING,
           variant="nanmean"),

    OpInfo("mean", lambda m, x, **kw: m.mean(x, **kw), reduce_samples(MULTI), dtypes=FLOATING,
           onnx=True,
           errors=err(DIM_RANGE, DIM_TWICE, ((3, 4), "int64", {}, RuntimeError),
                      ((3, 4), "float32", {"dtype": Dtype("int64")}, RuntimeError))),
    OpInfo("mean", lambda m, x, **kw: x.mean(**kw), reduce_samples(MULTI), dtypes=FLOATING,
           variant="method"),
    # Integer and bool input with a floating dtype=; floats widened to float64.
    OpInfo("mean", lambda m, x, **kw: m.mean(x, **kw),
           reduce_samples(MULTI, dtype_kw=lambda d: "float64" if d != "float32" else "float32"),
           dtypes=ALL_AND_BOOL, variant="dtype", tol=INT_TO_F64),

    # torch.prod takes one dim (an int), so the list form of the row is reached with
    # dim=None (every dim) and one dim only.
    OpInfo("prod", lambda m, x, **kw: m.prod(x, **kw),
           reduce_samples([((3, 4), [{}, {"dim": 1}, {"dim": -1, "keepdim": True}]),
                           ((2, 3, 2), [{"dim": 0}, {"dim": -2, "keepdim": True}]),
                           ((), [{}, {"dim": 0}, {"dim": -1, "keepdim": True}]),
                           ((0, 3), [{}, {"dim": 0}, {"dim": 1, "keepdim": True}])],
                          low=-2.0, high=2.0),
           dtypes=ALL_AND_BOOL, onnx=True,
           errors=err(DIM_RANGE, DIM_0D)),
    OpInfo("prod", lambda m, x, **kw: x.prod(**kw),
           reduce_samples([((3, 4), [{}, {"dim": 0}]), ((), [{}])], low=-2.0, high=2.0),
           dtypes=ALL_AND_BOOL, variant="method"),
    OpInfo("prod", lambda m, x, **kw: m.prod(x, **kw),
           reduce_samples([((3, 4), [{}, {"dim": 1}]), ((2, 3, 2), [{"dim": 2, "keepdim": True}])],
                          low=-2.0, high=2.0, dtype_kw=_float_or_64),
           dtypes=ALL_AND_BOOL, variant="dtype"),
    # Gradients at zeros (one zero, two zeros in a row).
    OpInfo("prod", lambda m, x, **kw: m.prod(x, **kw),
           fixed_samples(ZEROS, [{"dim": 1}, {"dim": 0, "keepdim": True}, {}]), dtypes=FLOAT,
           variant="zeros"),

    # ---- amax, amin, max(x), min(x) -------------------------------------------------------

    *_extremum("amax", "max"),
    *_extremum("amin", "min"),

    # ---- aminmax, max(x, dim), min(x, dim) -----------------------------------------------------

    OpInfo("aminmax", lambda m, x, **kw: m.aminmax(x, **kw),
           reduce_samples([((3, 4), [{}, {"dim": 1}, {"dim": -2, "keepdim": True}]),
                           ((2, 3, 2), [{"dim": 1}, {}, {"keepdim": True}]),
                           ((), [{}, {"dim": 0}, {"dim": -1, "keepdim": True}]),
                           ((0, 3), [{"dim": 1}, {"dim": -1, "keepdim": True}])]),
           dtypes=ALL_AND_BOOL,
           errors=err(((0, 3), "float32", {}, RuntimeError), ((0, 3), "float32", {"dim": 0}, IndexError),
                      DIM_RANGE)),
    OpInfo("aminmax", lambda m, x, **kw: x.aminmax(**kw),
           reduce_samples([((3, 4), [{}, {"dim": 0}, {"dim": 1, "keepdim": True}]), ((), [{}])]),
           dtypes=ALL_AND_BOOL, variant="method"),

    OpInfo("max_dim", lambda m, x, **kw: m.max(x, **kw), reduce_samples(SINGLE),
           dtypes=ALL_AND_BOOL, onnx=True,
           errors=err(((0, 3), "float32", {"dim": 0}, IndexError), DIM_RANGE, DIM_0D)),
    OpInfo("max_dim", lambda m, x, **kw: x.max(**kw), reduce_samples(SINGLE),
           dtypes=ALL_AND_BOOL, variant="method"),
    OpInfo("max_dim", lambda m, x: m.max(x, 1, True), reduce_samples([((3, 4), [{}])]),
           dtypes=FLOAT, variant="positional"),
    # Ties: the value of the first maximum and its index (CPU); NaN wins.
    OpInfo("max_dim", lambda m, x, **kw: m.max(x, **kw),
           fixed_samples(TIES, [{"dim": 1}, {"dim": 0, "keepdim": True}]), dtypes=FLOATING,
           variant="ties", gradcheck=False),
    OpInfo("max_dim", lambda m, x, **kw: m.max(x, **kw), fixed_samples(NANS, [{"dim": 1}, {"dim": 0}]),
           dtypes=FLOATING, variant="nan", grad=False),

    OpInfo("min_dim", lambda m, x, **kw: m.min(x, **kw), reduce_samples(SINGLE),
           dtypes=ALL_AND_BOOL, onnx=True,
           errors=err(((0, 3), "float32", {"dim": 0}, IndexError), DIM_RANGE, DIM_0D)),
    OpInfo("min_dim", lambda m, x, **kw: x.min(**kw), reduce_samples(SINGLE),
           dtypes=ALL_AND_BOOL, variant="method"),
    OpInfo("min_dim", lambda m, x, **kw: m.min(x, **kw),
           fixed_samples(TIES, [{"dim": 1}, {"dim": 0, "keepdim": True}]), dtypes=FLOATING,
           variant="ties", gradcheck=False),
    OpInfo("min_dim", lambda m, x, **kw: m.min(x, **kw), fixed_samples(NANS, [{"dim": 1}, {"dim": 0}]),
           dtypes=FLOATING, variant="nan", grad=False),

    # ---- argmax, argmin ---------------------------------------------------------------

    OpInfo("argmax", lambda m, x, **kw: m.argmax(x, **kw),
           reduce_samples([((3, 4), [{}, {"dim": 1}, {"dim": -2, "keepdim": True}, {"keepdim": True}]),
                           ((2, 3, 2), [{"dim": 1}, {}]),
                           ((), [{}, {"dim": 0}, {"dim": -1, "keepdim": True}]),
                           ((0, 3), [{"dim": 1}, {"dim": -1, "keepdim": True}])]),
           dtypes=ALL, grad=False, onnx=True,
           errors=err(((0, 3), "float32", {}, IndexError), ((0, 3), "float32", {"dim": 0}, IndexError),
                      DIM_RANGE, ((3, 4), "bool", {}, RuntimeError))),
    OpInfo("argmax", lambda m, x, **kw: x.argmax(**kw),
           reduce_samples([((3, 4), [{}, {"dim": 0}]), ((), [{}])]), dtypes=ALL, grad=False,
           variant="method"),
    OpInfo("argmax", lambda m, x, **kw: m.argmax(x, **kw),
           fixed_samples(TIES + NANS, [{}, {"dim": 1}, {"dim": 0}]), dtypes=FLOATING, grad=False,
           variant="ties_nan"),

    OpInfo("argmin", lambda m, x, **kw: m.argmin(x, **kw),
           reduce_samples([((3, 4), [{}, {"dim": 1}, {"dim": -2, "keepdim": True}, {"keepdim": True}]),
                           ((2, 3, 2), [{"dim": 1}, {}]),
                           ((), [{}, {"dim": 0}, {"dim": -1, "keepdim": True}]),
                           ((0, 3), [{"dim": 1}, {"dim": -1, "keepdim": True}])]),
           dtypes=ALL, grad=False, onnx=True,
           errors=err(((0, 3), "float32", {}, IndexError), ((0, 3), "float32", {"dim": 0}, IndexError),
                      DIM_RANGE, ((3, 4), "bool", {}, RuntimeError))),
    OpInfo("argmin", lambda m, x, **kw: x.argmin(**kw),
           reduce_samples([((3, 4), [{}, {"dim": 0}]), ((), [{}])]), dtypes=ALL, grad=False,
           variant="method"),
    OpInfo("argmin", lambda m, x, **kw: m.argmin(x, **kw),
           fixed_samples(TIES + NANS, [{}, {"dim": 1}, {"dim": 0}]), dtypes=FLOATING, grad=False,
           variant="ties_nan"),
]


# ---- var, std, var_mean, std_mean -------------------------------------------------------

# correction: the default (1), unbiased=False (0), correction=0 and 2; 0-dim and
# empty inputs give inf/nan where n - correction <= 0, as in torch.
MOMENTS = [
    ((3, 4), [{}, {"dim": 1}, {"dim": -1, "keepdim": True, "correction": 0},
              {"dim": (0, 1), "unbiased": False}, {"dim": 0, "correction": 2},
              {"dim": None, "keepdim": True}]),
    ((2, 3, 2), [{"dim": (0, 2)}, {"dim": [-1, 1], "keepdim": True, "unbiased": True}]),
    ((5,), [{"dim": 0, "correction": 0.5}]),
    ((), [{"correction": 0}, {"dim": 0}]),
    ((0, 3), [{"dim": 0}, {"dim": 1, "keepdim": True}, {}]),
]
MOMENT_ERRORS = err(DIM_RANGE, DIM_TWICE, ((3, 4), "int64", {}, RuntimeError),
                    ((3, 4), "bool", {"dim": 0}, RuntimeError))

for _name in ("var", "std"):
    OPS += [
        OpInfo(_name, (lambda n: lambda m, x, **kw: getattr(m, n)(x, **kw))(_name),
               reduce_samples(MOMENTS), dtypes=FLOATING, onnx=True, errors=MOMENT_ERRORS),
        OpInfo(_name, (lambda n: lambda m, x, **kw: getattr(x, n)(**kw))(_name),
               reduce_samples(MOMENTS[:3]), dtypes=FLOATING, variant="method"),
        # The positional unbiased form: var(x, dim, unbiased, keepdim).
        OpInfo(_name, (lambda n: lambda m, x: getattr(m, n)(x, 1, False, True))(_name),
               reduce_samples([((3, 4), [{}])]), dtypes=FLOAT, variant="positional"),
    ]
for _name in ("var_mean", "std_mean"):
    OPS += [
        OpInfo(_name, (lambda n: lambda m, x, **kw: getattr(m, n)(x, **kw))(_name),
               reduce_samples(MOMENTS), dtypes=FLOATING, onnx=True, errors=MOMENT_ERRORS),
    ]


# ---- norm ----------------------------------------------------------------------------

INF_P = float("inf")
NORM_CASES = [
    ((3, 4), [{}, {"p": 1, "dim": 1}, {"p": 3, "dim": -1, "keepdim": True}, {"p": INF_P},
              {"p": -INF_P, "dim": 0}, {"p": 0, "dim": (0, 1)}, {"p": 0.5, "dim": 1},
              {"p": "fro", "dim": (0, 1)}, {"p": 2, "dim": (-1, 0), "keepdim": True}]),
    ((2, 3, 2), [{"p": 2, "dim": (0, 2)}, {"p": 1}]),
    ((), [{}, {"p": 1, "dim": 0}]),
    ((0, 3), [{}, {"p": 1, "dim": 0}, {"p": INF_P, "dim": 1}]),
]
VNORM_CASES = [
    ((3, 4), [{}, {"ord": 1, "dim": 1}, {"ord": 3, "dim": -1, "keepdim": True}, {"ord": INF_P},
              {"ord": -INF_P, "dim": 0}, {"ord": 0, "dim": (0, 1)}, {"ord": -1.5, "dim": 1}]),
    ((2, 3, 2), [{"ord": 2, "dim": (0, 2)}, {"ord": 1}]),
    ((), [{}, {"ord": 1, "dim": 0}]),
    ((0, 3), [{}, {"ord": 1, "dim": 0}, {"ord": -INF_P, "dim": 1}]),
]


def _norm_dtype(dtype):
    return "float64" if dtype in ("float32", "float64") else "float32"


OPS += [
    OpInfo("norm", lambda m, x, **kw: m.norm(x, **kw), reduce_samples(NORM_CASES), dtypes=FLOATING,
           onnx=True,
           errors=err(((3, 4), "int64", {}, RuntimeError), ((0, 3), "float32", {"p": INF_P}, RuntimeError),
                      ((0, 3), "float32", {"p": INF_P, "dim": 0}, RuntimeError), DIM_RANGE,
                      ((3, 4), "float64", {"dtype": Dtype("float32")}, RuntimeError))),
    OpInfo("norm", lambda m, x, **kw: x.norm(**kw), reduce_samples(NORM_CASES[:3]),
           dtypes=FLOATING, variant="method"),
    OpInfo("norm", lambda m, x, **kw: m.norm(x, **kw),
           reduce_samples([((3, 4), [{}, {"p": 1, "dim": 1}]), ((2, 3, 2), [{"p": 3, "dim": (0, 2)}])],
                          dtype_kw=_norm_dtype),
           dtypes=FLOATING, variant="dtype"),
    OpInfo("norm", lambda m, x, **kw: m.linalg.vector_norm(x, **kw), reduce_samples(VNORM_CASES),
           dtypes=FLOATING, variant="vector_norm", onnx=True,
           errors=err(((3, 4), "int32", {}, RuntimeError),
                      ((3, 4), "float32", {"dtype": Dtype("int32")}, RuntimeError),
                      ((0, 3), "float32", {"ord": -INF_P, "dim": 0}, RuntimeError))),
    OpInfo("norm", lambda m, x, **kw: m.linalg.vector_norm(x, **kw),
           reduce_samples([((3, 4), [{}, {"ord": 1, "dim": 1}, {"ord": INF_P, "dim": 0}])],
                          dtype_kw=_norm_dtype),
           dtypes=FLOATING, variant="vector_norm_dtype"),
    # linalg.norm with a vector (1-d input or an int dim) is vector_norm.
    OpInfo("norm", lambda m, x, **kw: m.linalg.norm(x, **kw),
           reduce_samples([((5,), [{}, {"ord": 1}, {"ord": INF_P, "keepdim": True}]),
                           ((3, 4), [{"ord": 3, "dim": 1}, {"dim": -2, "keepdim": True}])]),
           dtypes=FLOATING, variant="linalg_norm"),
    # F.normalize divides by the (clamped) p-norm along dim: a composite of norm.
    OpInfo("norm", lambda m, x, **kw: m.nn.functional.normalize(x, **kw),
           reduce_samples([((3, 4), [{}, {"p": 1, "dim": 0}, {"p": 3, "dim": -1}]),
                           ((2, 3, 2), [{"dim": 2}])]),
           dtypes=FLOAT, variant="normalize"),

    # ---- logsumexp --------------------------------------------------------------------------

    OpInfo("logsumexp", lambda m, x, **kw: m.logsumexp(x, **kw),
           reduce_samples([((3, 4), [{"dim": 1}, {"dim": -1, "keepdim": True}, {"dim": (0, 1)},
                                     {"dim": (-1, 0), "keepdim": True}]),
                           ((2, 3, 2), [{"dim": (0, 2)}, {"dim": 1, "keepdim": True}]),
                           ((), [{"dim": 0}, {"dim": -1, "keepdim": True}]),
                           ((0, 3), [{"dim": 0}, {"dim": 1, "keepdim": True}, {"dim": (0, 1)}])],
                          low=-10.0, high=10.0),
           dtypes=ALL_AND_BOOL, onnx=True, tol=INT_TO_F32,
           errors=err(DIM_RANGE, DIM_TWICE, DIM_0D)),
    OpInfo("logsumexp", lambda m, x, **kw: x.logsumexp(**kw),
           reduce_samples([((3, 4), [{"dim": 1}, {"dim": (0, 1), "keepdim": True}])]),
           dtypes=ALL_AND_BOOL, variant="method", tol=INT_TO_F32),
    OpInfo("logsumexp", lambda m, x, **kw: m.special.logsumexp(x, **kw),
           reduce_samples([((3, 4), [{"dim": 0}, {"dim": -1, "keepdim": True}])]),
           dtypes=FLOAT, variant="special"),
    # Stability: +-1000 and rows of -inf (-inf out, no NaN).
    OpInfo("logsumexp", lambda m, x, **kw: m.logsumexp(x, **kw),
           fixed_samples(INFS, [{"dim": 1}, {"dim": 0, "keepdim": True}, {"dim": (0, 1)}]),
           dtypes=FLOAT, variant="inf", grad=False),
]


# ---- any, all, count_nonzero ------------------------------------------------------------

def _any_all(name):
    fn = lambda m, x, **kw: getattr(m, name)(x, **kw)  # noqa: E731
    return [
        OpInfo(name, fn, reduce_samples(MULTI, zeros=0.4), dtypes=ALL_AND_BOOL, grad=False,
               onnx=True, errors=err(DIM_RANGE, DIM_TWICE, DIM_0D)),
        OpInfo(name, lambda m, x, **kw: getattr(x, name)(**kw),
               reduce_samples(MULTI[:2] + MULTI[3:], zeros=0.4), dtypes=ALL_AND_BOOL, grad=False,
               variant="method"),
        # Mostly zeros / no zeros, so that both answers appear per row.
        OpInfo(name, fn, reduce_samples([((4, 3), [{"dim": 1}, {}])], zeros=0.85),
               dtypes=ALL_AND_BOOL, grad=False, variant="sparse"),
        OpInfo(name, fn, reduce_samples([((4, 3), [{"dim": 0}, {}])], low=1.0, high=3.0),
               dtypes=ALL, grad=False, variant="dense"),
        # NaN counts as nonzero.
        OpInfo(name, fn, fixed_samples(NANS + INFS, [{}, {"dim": 1}]), dtypes=FLOATING, grad=False,
               variant="nan"),
    ]


OPS += _any_all("any") + _any_all("all") + [
    OpInfo("count_nonzero", lambda m, x, **kw: m.count_nonzero(x, **kw),
           reduce_samples([((3, 4), [{}, {"dim": 1}, {"dim": (0, 1)}, {"dim": -2}]),
                           ((2, 3, 2), [{"dim": (0, 2)}, {"dim": [-1]}]),
                           ((), [{}, {"dim": 0}]),
                           ((0, 3), [{}, {"dim": 0}, {"dim": 1}])], zeros=0.4),
           dtypes=ALL_AND_BOOL, grad=False, onnx=True,
           errors=err(DIM_RANGE, ((3, 4), "float32", {"dim": (0, 0)}, RuntimeError), DIM_0D)),
    OpInfo("count_nonzero", lambda m, x, **kw: x.count_nonzero(**kw),
           reduce_samples([((3, 4), [{}, {"dim": 0}]), ((), [{}])], zeros=0.4), dtypes=ALL_AND_BOOL,
           grad=False, variant="method"),
    OpInfo("count_nonzero", lambda m, x, **kw: m.count_nonzero(x, **kw),
           fixed_samples(NANS + INFS, [{}, {"dim": 1}]), dtypes=FLOATING, grad=False, variant="nan"),
]


# ---- cumsum, cumprod -------------------------------------------------------------------

SCAN_ERRORS = err(DIM_RANGE, DIM_RANGE_NEG, DIM_0D)
OPS += [
    OpInfo("cumsum", lambda m, x, **kw: m.cumsum(x, **kw), reduce_samples(ALONG),
           dtypes=ALL_AND_BOOL, onnx=True, errors=SCAN_ERRORS),
    OpInfo("cumsum", lambda m, x, **kw: x.cumsum(**kw), reduce_samples(ALONG[:2] + ALONG[3:]),
           dtypes=ALL_AND_BOOL, variant="method"),
    OpInfo("cumsum", lambda m, x, **kw: m.cumsum(x, **kw), reduce_samples(ALONG, dtype_kw=_float_or_64),
           dtypes=ALL_AND_BOOL, variant="dtype", onnx=True),
    OpInfo("cumprod", lambda m, x, **kw: m.cumprod(x, **kw), reduce_samples(ALONG, low=-2.0, high=2.0),
           dtypes=ALL_AND_BOOL, errors=SCAN_ERRORS),
    OpInfo("cumprod", lambda m, x, **kw: x.cumprod(**kw),
           reduce_samples(ALONG[:2] + ALONG[3:], low=-2.0, high=2.0), dtypes=ALL_AND_BOOL,
           variant="method"),
    OpInfo("cumprod", lambda m, x, **kw: m.cumprod(x, **kw),
           reduce_samples(ALONG, low=-2.0, high=2.0, dtype_kw=_float_or_64), dtypes=ALL_AND_BOOL,
           variant="dtype"),
    # Gradients at zeros (one zero, several zeros along the dim).
    OpInfo("cumprod", lambda m, x, **kw: m.cumprod(x, **kw),
           fixed_samples(ZEROS, [{"dim": 1}, {"dim": 0}]), dtypes=FLOAT, variant="zeros"),
]


# ---- softmax, log_softmax ---------------------------------------------------------------

SOFTMAX_ERRORS = err(DIM_RANGE, DIM_0D, ((3, 4), "int64", {"dim": 1}, RuntimeError),
                     ((3, 4), "float32", {"dim": 1, "dtype": Dtype("int32")}, RuntimeError))


def _softmax(name):
    fn = lambda m, x, **kw: getattr(m, name)(x, **kw)  # noqa: E731
    return [
        OpInfo(name, fn, reduce_samples(ALONG, low=-10.0, high=10.0), dtypes=FLOATING, onnx=True,
               errors=SOFTMAX_ERRORS),
        OpInfo(name, lambda m, x, **kw: getattr(x, name)(**kw),
               reduce_samples(ALONG[:2] + ALONG[3:]), dtypes=FLOATING, variant="method"),
        OpInfo(name, lambda m, x, **kw: getattr(m.nn.functional, name)(x, **kw),
               reduce_samples(ALONG), dtypes=FLOATING, variant="functional", onnx=True),
        OpInfo(name, lambda m, x, **kw: getattr(m.special, name)(x, **kw),
               reduce_samples(ALONG[:2]), dtypes=FLOAT, variant="special"),
        # dtype=: floats widened to float64, integers and bool computed in a float dtype.
        OpInfo(name, lambda m, x, **kw: getattr(m.nn.functional, name)(x, **kw),
               reduce_samples(ALONG, dtype_kw=lambda d: "float64" if d != "float32" else "float32"),
               dtypes=ALL_AND_BOOL, variant="dtype", tol=INT_TO_F64),
        # Large values and -inf entries (a row of -inf gives NaN, as in torch).
        OpInfo(name, fn, fixed_samples(INFS if name == "softmax" else INFS_LSM, [{"dim": 1}, {"dim": 0}]),
               dtypes=FLOAT, grad=False, variant="inf"),
    ]


OPS += _softmax("softmax") + _softmax("log_softmax") + [
    # softmin(x) = softmax(-x).
    OpInfo("softmax", lambda m, x, **kw: m.nn.functional.softmin(x, **kw), reduce_samples(ALONG),
           dtypes=FLOATING, variant="softmin"),
]


# ---- ONNX export of the other argument forms ------------------------------------------
# test_onnx exports an entry's first sample only: one entry per form whose export differs
# (norm's p picks ReduceL1/L2/Max/Min/Pow, softmax along a non-last dim, argmax with a dim,
# keepdim, corrections).

def _onnx_probe(row, label, fn, kw, shape=(3, 4)):
    return OpInfo(row, fn, reduce_samples([(shape, [kw])]), dtypes=FLOAT, variant="onnx_" + label,
                  grad=False, onnx=True)


_f = lambda name: (lambda m, x, **kw: getattr(m, name)(x, **kw))  # noqa: E731
OPS += [
    _onnx_probe("sum", "dims_keepdim", _f("sum"), {"dim": (-1, 0), "keepdim": True}, (2, 3, 2)),
    _onnx_probe("mean", "dim_keepdim", _f("mean"), {"dim": -1, "keepdim": True}),
    _onnx_probe("prod", "dim", _f("prod"), {"dim": 0, "keepdim": True}),
    _onnx_probe("amax", "dims", _f("amax"), {"dim": (0, 2)}, (2, 3, 2)),
    _onnx_probe("amin", "dim_keepdim", _f("amin"), {"dim": 1, "keepdim": True}),
    _onnx_probe("max_dim", "keepdim", _f("max"), {"dim": 0, "keepdim": True}),
    _onnx_probe("min_dim", "neg_dim", _f("min"), {"dim": -1}),
    _onnx_probe("argmax", "dim_keepdim", _f("argmax"), {"dim": 1, "keepdim": True}),
    _onnx_probe("argmin", "dim", _f("argmin"), {"dim": 0}),
    _onnx_probe("argmax", "keepdim", _f("argmax"), {"keepdim": True}),
    _onnx_probe("var", "correction0", _f("var"), {"dim": 1, "correction": 0, "keepdim": True}),
    _onnx_probe("std", "dims", _f("std"), {"dim": (0, 2)}, (2, 3, 2)),
    _onnx_probe("var_mean", "dim", _f("var_mean"), {"dim": 0, "correction": 2}),
    _onnx_probe("std_mean", "keepdim", _f("std_mean"), {"dim": -1, "keepdim": True}),
    _onnx_probe("logsumexp", "dims_keepdim", _f("logsumexp"), {"dim": (0, 1), "keepdim": True}),
    _onnx_probe("any", "dim", _f("any"), {"dim": 1}),
    _onnx_probe("all", "dims_keepdim", _f("all"), {"dim": (0, 1), "keepdim": True}),
    _onnx_probe("count_nonzero", "dims", _f("count_nonzero"), {"dim": (0, 1)}),
    _onnx_probe("cumsum", "dim0", _f("cumsum"), {"dim": 0}),
    _onnx_probe("softmax", "dim0", _f("softmax"), {"dim": 0}, (3, 4, 2)),
    _onnx_probe("log_softmax", "dim1", _f("log_softmax"), {"dim": 1}, (3, 4, 2)),
] + [
    _onnx_probe("norm", f"p{label}", _f("norm"), kw) for label, kw in [
        ("1", {"p": 1, "dim": 1}), ("inf", {"p": INF_P}), ("neg_inf", {"p": -INF_P, "dim": 0, "keepdim": True}),
        ("3", {"p": 3, "dim": (0, 1)}), ("0", {"p": 0, "dim": 1}), ("half", {"p": 0.5}),
        ("2_dim", {"p": 2, "dim": -1, "keepdim": True})]
]
