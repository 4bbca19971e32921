"""Unary elementwise ops against numpy (float64 references) and, where torch is
installed, against torch's result dtypes: every dtype class, contiguous,
non-contiguous, broadcast (expanded), 0-dim and empty inputs, in-place forms,
special values, and the accuracy of the vectorized float32 math.
"""
import math

import numpy as np
import pytest

import ember
from _helpers import assert_close, noncontiguous, to_ember, to_numpy

try:
    import torch
except ImportError:  # the dtype-oracle tests skip without torch
    torch = None

INTS = [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64]
FLOATS = [ember.float32, ember.float64, ember.float16, ember.bfloat16]
NUMERIC = INTS + FLOATS
ALL = [ember.bool] + NUMERIC

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def _round_half_even(x):
    return np.round(x)  # numpy rounds half to even, as torch does


# name -> (reference on float64 values, result kind, dtypes, input domain)
# kind: "same" keeps the input dtype, "float" gives the default float dtype for integers.
# domain: "any" (both signs), "pos" (> 0), "unit" ([-1, 1]), "small" (|x| < 1.5).
UNARY = {
    "neg": (np.negative, "same", NUMERIC, "any"),
    "abs": (np.abs, "same", NUMERIC, "any"),
    "sign": (lambda x: np.nan_to_num(np.sign(x)), "same", ALL, "any"),
    "exp": (np.exp, "float", ALL, "any"),
    "expm1": (np.expm1, "float", ALL, "small"),
    "log": (np.log, "float", ALL, "pos"),
    "log1p": (np.log1p, "float", ALL, "pos"),
    "log2": (np.log2, "float", ALL, "pos"),
    "sqrt": (np.sqrt, "float", ALL, "pos"),
    "rsqrt": (lambda x: 1.0 / np.sqrt(x), "float", ALL, "pos"),
    "reciprocal": (lambda x: 1.0 / x, "float", NUMERIC, "pos"),
    "square": (np.square, "same", NUMERIC, "any"),
    "sin": (np.sin, "float", ALL, "any"),
    "cos": (np.cos, "float", ALL, "any"),
    "tan": (np.tan, "float", ALL, "small"),
    "tanh": (np.tanh, "float", ALL, "any"),
    "sigmoid": (_sigmoid, "float", ALL, "any"),
    "erf": (_erf, "float", ALL, "any"),
    "floor": (np.floor, "same", NUMERIC, "any"),
    "ceil": (np.ceil, "same", NUMERIC, "any"),
    "trunc": (np.trunc, "same", NUMERIC, "any"),
    "round": (_round_half_even, "same", NUMERIC, "any"),
    "relu": (lambda x: np.where(x < 0, 0, x), "same", NUMERIC, "any"),  # keeps -0.0 and nan
    "silu": (lambda x: x * _sigmoid(x), "same", FLOATS, "any"),
    "gelu": (_gelu, "same", FLOATS, "any"),
}

PREDICATES = {
    "isnan": np.isnan,
    "isinf": np.isinf,
    "isfinite": np.isfinite,
    "logical_not": np.logical_not,
}


def _np_dtype(dtype):
    return {
        ember.bool: np.bool_, ember.uint8: np.uint8, ember.int8: np.int8, ember.int16: np.int16,
        ember.int32: np.int32, ember.int64: np.int64, ember.float16: np.float16,
        ember.bfloat16: np.float32, ember.float32: np.float32, ember.float64: np.float64,
    }[dtype]


def _values(shape, dtype, domain, seed=0):
    """Random values of dtype's kind in the op's domain, as a numpy array."""
    rng = np.random.default_rng(seed)
    if dtype == ember.bool:
        return rng.random(shape) < 0.5
    if dtype in INTS:
        lo = 1 if domain == "pos" else (0 if dtype == ember.uint8 else -9)
        hi = 2 if domain in ("unit", "small") else 10
        if domain in ("unit", "small") and dtype != ember.uint8:
            lo = -1
        return rng.integers(lo, hi, size=shape).astype(_np_dtype(dtype))
    if domain == "pos":
        x = rng.uniform(0.05, 6.0, size=shape)
    elif domain == "unit":
        x = rng.uniform(-1.0, 1.0, size=shape)
    elif domain == "small":
        x = rng.uniform(-1.4, 1.4, size=shape)
    else:
        x = rng.uniform(-6.0, 6.0, size=shape)
    return x.astype(np.float32 if dtype == ember.bfloat16 else _np_dtype(dtype))


def _result_dtype(name, dtype):
    if UNARY[name][1] == "float" and dtype not in FLOATS:
        return ember.float32
    if name == "square" and dtype == ember.bool:
        return ember.int64  # square(bool) is pow(bool, 2): int64, as in PyTorch
    return dtype


def _tolerances(dtype):
    if dtype == ember.float16:
        return 2e-3, 2e-3
    if dtype == ember.bfloat16:
        return 1.6e-2, 1.6e-2
    if dtype == ember.float64:
        return 1e-12, 1e-12
    return 1e-5, 1e-6


def _reference(name, ref, x, dtype):
    """The float64 reference for input x (an ember tensor), rounded to the result dtype."""
    xin = to_numpy(x).astype(np.float64)
    with np.errstate(all="ignore"):
        expected = ref(xin)
    out_dtype = _result_dtype(name, dtype)
    if out_dtype in INTS or out_dtype == ember.bool:
        expected = expected.astype(np.int64).astype(_np_dtype(out_dtype))
    return expected, out_dtype


def _call(name, x):
    return getattr(ember, name)(x)


def _strided(t):
    """t's values in a non-contiguous layout (every other element of a buffer for 1-d)."""
    if t.dim() != 1:
        return noncontiguous(t)
    v = ember.empty([t.numel() * 2], dtype=t.dtype).as_strided([t.numel()], [2])
    v.copy_(t)
    return v


LAYOUTS = {
    "contiguous": lambda t: t,
    "noncontiguous": _strided,
    "transposed": lambda t: t.t().contiguous().t() if t.dim() == 2 else t,
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_unary_values_all_dtypes(name, layout):
    ref, kind, dtypes, domain = UNARY[name]
    for dtype in dtypes:
        for shape in [(), (0,), (7,), (3, 5)]:
            x = LAYOUTS[layout](to_ember(_values(shape, dtype, domain), dtype))
            out = _call(name, x)
            expected, out_dtype = _reference(name, ref, x, dtype)
            rtol, atol = _tolerances(out_dtype)
            assert out.dtype == out_dtype, (name, dtype, out.dtype)
            assert tuple(out._shape) == shape
            assert_close(out, expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_method_matches_function(name):
    if name in ("gelu",):
        pytest.skip("gelu is a function only (as torch.nn.functional.gelu)")
    x = to_ember(_values((4, 3), ember.float32, UNARY[name][3]))
    assert_close(getattr(x, name)(), to_numpy(_call(name, x)), rtol=0, atol=0)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_expanded_input(name):
    ref, kind, _, domain = UNARY[name]
    base = to_ember(_values((1, 5), ember.float32, domain))
    x = base.expand(4, 5)  # stride 0 along dim 0
    out = _call(name, x)
    expected, _ = _reference(name, ref, x, ember.float32)
    assert tuple(out._shape) == (4, 5)
    assert_close(out, expected)


@pytest.mark.parametrize("name", sorted(n for n in UNARY if n not in ("gelu", "silu")))
def test_unary_in_place(name):
    ref, kind, dtypes, domain = UNARY[name]
    for dtype in [ember.float32, ember.float64, ember.int32]:
        if dtype not in dtypes:
            continue
        x = to_ember(_values((3, 4), dtype, domain), dtype)
        expected, out_dtype = _reference(name, ref, x, dtype)
        if out_dtype != dtype:  # an int tensor cannot take a float result in place
            with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
                getattr(x, name + "_")()
            continue
        before = x._version
        y = getattr(x, name + "_")()
        assert y is x
        assert x._version > before
        rtol, atol = _tolerances(dtype)
        assert_close(x, expected, rtol=rtol, atol=atol)


def test_in_place_on_a_view_writes_through():
    base = to_ember(np.arange(12, dtype=np.float32).reshape(3, 4))
    view = base.t()  # non-contiguous view
    view.neg_()
    assert_close(base, -np.arange(12, dtype=np.float32).reshape(3, 4))
    row = base.select(0, 1)
    row.abs_()
    expected = -np.arange(12, dtype=np.float32).reshape(3, 4)
    expected[1] = np.abs(expected[1])
    assert_close(base, expected)


def test_in_place_on_an_expanded_tensor_is_an_error():
    x = ember.ones(1).expand(3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        x.exp_()


@pytest.mark.parametrize("name", sorted(PREDICATES))
def test_predicates(name):
    special = np.array([0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf], dtype=np.float32)
    for dtype in ALL:
        if dtype in FLOATS:
            x = to_ember(special, dtype)
        else:
            x = to_ember(_values((6,), dtype, "any"), dtype)
        out = getattr(ember, name)(x)
        assert out.dtype == ember.bool
        assert_close(out, PREDICATES[name](to_numpy(x)))
        assert_close(getattr(x, name)(), PREDICATES[name](to_numpy(x)))


def test_logical_not_in_place_keeps_dtype():
    x = to_ember(np.array([0.0, 2.0, -1.0], dtype=np.float32))
    assert x.logical_not_() is x
    assert x.dtype == ember.float32
    assert_close(x, np.array([1.0, 0.0, 0.0]))


def test_bitwise_not():
    for dtype in INTS + [ember.bool]:
        a = _values((5,), dtype, "any")
        out = ember.bitwise_not(to_ember(a, dtype))
        assert out.dtype == dtype
        assert_close(out, np.invert(a))
        assert_close(~to_ember(a, dtype), np.invert(a))


# ---- special values ----------------------------------------------------------------------

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e-30, -1e-30, 88.0, -88.0, 100.0,
                    -100.0, 1e30, -1e30, np.nan, np.inf, -np.inf], dtype=np.float32)


@pytest.mark.parametrize("name", ["exp", "expm1", "log", "log1p", "log2", "sqrt", "rsqrt", "reciprocal",
                                  "sin", "cos", "tan", "tanh", "sigmoid", "erf", "floor", "ceil",
                                  "trunc", "round", "abs", "neg", "relu", "silu", "gelu", "sign"])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_special_values(name, dtype):
    ref = UNARY[name][0]
    x = to_ember(SPECIAL, dtype)
    out = _call(name, x)
    with np.errstate(all="ignore"):
        expected = ref(SPECIAL.astype(np.float64))
    got = to_numpy(out).astype(np.float64)
    np.testing.assert_allclose(got, expected.astype(np.float32 if dtype == ember.float32 else np.float64),
                               rtol=1e-5, atol=1e-30, equal_nan=True)
    if name in ("abs", "neg", "relu", "floor", "ceil", "trunc", "round"):
        # the sign of zero is kept as numpy (and PyTorch) keep it
        np.testing.assert_array_equal(np.signbit(got[:2]), np.signbit(expected[:2]))


def test_round_half_to_even_and_decimals():
    x = to_ember(np.array([0.5, 1.5, 2.5, -0.5, -1.5, 3.5], dtype=np.float32))
    assert_close(ember.round(x), np.array([0.0, 2.0, 2.0, -0.0, -2.0, 4.0]))
    y = to_ember(np.array([1.25, 1.35, 2.675, -0.125, 1234.5678], dtype=np.float32))
    # PyTorch's formula in float32: nearbyint(x * 100) / 100
    xs = to_numpy(y)
    expected = np.round(xs * np.float32(100)) / np.float32(100)
    assert_close(ember.round(y, decimals=2), expected, rtol=0, atol=0)
    expected_neg = np.round(xs / np.float32(100)) * np.float32(100)
    assert_close(ember.round(y, decimals=-2), expected_neg, rtol=0, atol=0)
    assert y.round(decimals=1).dtype == ember.float32
    z = y.clone()
    assert z.round_(decimals=2) is z
    assert_close(z, expected, rtol=0, atol=0)


def test_integer_rounding_ops_copy():
    a = np.array([-3, 0, 7], dtype=np.int32)
    for name in ("floor", "ceil", "trunc", "round"):
        out = _call(name, to_ember(a))
        assert out.dtype == ember.int32
        assert_close(out, a)


def test_neg_and_abs_wrap_at_the_most_negative_integer():
    a = np.array([-128, 127, 0], dtype=np.int8)
    assert_close(ember.neg(to_ember(a)), np.array([-128, -127, 0]))
    assert_close(ember.abs(to_ember(a)), np.array([-128, 127, 0]))
    big = np.array([np.iinfo(np.int64).min], dtype=np.int64)
    assert to_numpy(ember.abs(to_ember(big)))[0] == np.iinfo(np.int64).min


# ---- activations with arguments ----------------------------------------------------------------

def test_gelu_tanh_form():
    a = _values((50,), ember.float32, "any")
    out = ember.gelu(to_ember(a), approximate="tanh")
    assert_close(out, _gelu_tanh(a.astype(np.float64)), rtol=1e-5, atol=1e-6)
    for dtype in [ember.float64, ember.float16]:
        rtol, atol = _tolerances(dtype)
        x = to_ember(a, dtype)
        assert_close(ember.gelu(x, approximate="tanh"), _gelu_tanh(to_numpy(x).astype(np.float64)),
                     rtol=rtol, atol=atol)


def test_softplus():
    a = np.array([-30.0, -1.0, 0.0, 0.5, 9.0, 11.0, 30.0], dtype=np.float32)
    for beta, threshold in [(1, 20), (2, 10), (0.5, 5)]:
        x = a.astype(np.float64)
        expected = np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)
        assert_close(ember.softplus(to_ember(a), beta=beta, threshold=threshold), expected, rtol=1e-5)
    assert_close(ember.softplus(to_ember(a)), np.where(a > 20, a, np.log1p(np.exp(a.astype(np.float64)))))


def test_leaky_relu():
    a = _values((4, 3), ember.float32, "any")
    assert_close(ember.leaky_relu(to_ember(a)), np.where(a > 0, a, a * np.float32(0.01)))
    x = to_ember(a)
    assert ember.leaky_relu_(x, 0.2) is x
    assert_close(x, np.where(a > 0, a, a * np.float32(0.2)))
    y = to_ember(a)
    assert y.leaky_relu_(negative_slope=0.3) is y
    assert_close(y, np.where(a > 0, a, a * np.float32(0.3)))
    assert_close(to_ember(a).leaky_relu(0.1), np.where(a > 0, a, a * np.float32(0.1)))


def test_relu_keeps_nan_and_negative_zero():
    x = to_ember(np.array([np.nan, -0.0, -1.0, 2.0], dtype=np.float32))
    got = to_numpy(ember.relu(x))
    assert np.isnan(got[0]) and np.signbit(got[1]) and got[2] == 0 and got[3] == 2


# ---- clamp and nan_to_num ----------------------------------------------------------------------

def test_clamp_numbers():
    a = _values((3, 4), ember.float32, "any")
    x = to_ember(a)
    assert_close(ember.clamp(x, -1, 2), np.clip(a, -1, 2))
    assert_close(ember.clamp(x, min=0.5), np.maximum(a, 0.5))
    assert_close(ember.clamp(x, max=0.5), np.minimum(a, 0.5))
    assert_close(x.clamp(-1, 1), np.clip(a, -1, 1))
    assert_close(ember.clip(x, -1, 1), np.clip(a, -1, 1))
    assert_close(ember.clamp_min(x, 0), np.maximum(a, 0))
    assert_close(ember.clamp_max(x, 0), np.minimum(a, 0))
    assert_close(ember.clamp(x, 1, 0), np.full_like(a, 0))  # min > max gives max, as PyTorch


def test_clamp_tensors_broadcast():
    a = _values((3, 4), ember.float32, "any")
    lo = _values((4,), ember.float32, "any", seed=1) - 1
    hi = lo + 2
    got = ember.clamp(to_ember(a), to_ember(lo), to_ember(hi))
    assert_close(got, np.minimum(np.maximum(a, lo), hi))
    got = ember.clamp(to_ember(a), min=to_ember(lo))
    assert_close(got, np.maximum(a, lo))
    got = ember.clamp(to_ember(a), max=to_ember(hi))
    assert_close(got, np.minimum(a, hi))
    got = to_ember(a).clamp(to_ember(lo), to_ember(hi))
    assert_close(got, np.minimum(np.maximum(a, lo), hi))


def test_clamp_promotion_and_nan():
    i = to_ember(np.array([1, -2, 5], dtype=np.int64))
    out = ember.clamp(i, min=0.5)
    assert out.dtype == ember.float32
    assert_close(out, np.array([1.0, 0.5, 5.0]))
    out = ember.clamp(i, 0, 3)
    assert out.dtype == ember.int64
    assert_close(out, np.array([1, 0, 3]))
    u = to_ember(np.array([0, 100, 255], dtype=np.uint8))
    assert_close(ember.clamp(u, 10, 200), np.array([10, 100, 200]))
    got = to_numpy(ember.clamp(to_ember(np.array([np.nan, 5.0], dtype=np.float32)), 0, 1))
    assert np.isnan(got[0]) and got[1] == 1


def test_clamp_in_place():
    a = _values((5,), ember.float32, "any")
    x = to_ember(a)
    v = x._version
    assert x.clamp_(-1, 1) is x
    assert x._version > v
    assert_close(x, np.clip(a, -1, 1))
    assert x.clamp_min_(0.5) is x
    assert_close(x, np.maximum(np.clip(a, -1, 1), 0.5))
    assert x.clamp_max_(0.7) is x
    i = to_ember(np.array([1, 2], dtype=np.int32))
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.clamp_(0.5, 1.5)


def test_nan_to_num():
    a = np.array([np.nan, np.inf, -np.inf, 1.5, -0.0], dtype=np.float32)
    assert_close(ember.nan_to_num(to_ember(a)), np.nan_to_num(a), rtol=0, atol=0)
    assert_close(ember.nan_to_num(to_ember(a), nan=2.0, posinf=10.0, neginf=-10.0),
                 np.array([2.0, 10.0, -10.0, 1.5, 0.0]))
    h = ember.nan_to_num(to_ember(a, ember.float16))
    assert_close(h, np.array([0.0, 65504.0, -65504.0, 1.5, 0.0]))
    d = ember.nan_to_num(to_ember(a.astype(np.float64)))
    assert_close(d, np.nan_to_num(a.astype(np.float64)), rtol=0, atol=0)
    i = to_ember(np.array([1, 2], dtype=np.int64))
    assert_close(ember.nan_to_num(i), np.array([1, 2]))
    x = to_ember(a)
    assert x.nan_to_num_(nan=-1.0) is x
    assert_close(x, np.nan_to_num(a, nan=-1.0))


# ---- accuracy of the vectorized float32 math over a dense grid ----------------------------------

def _grid(lo, hi, n=20001):
    """The same float32 grid in ember and numpy (exact arithmetic on both sides)."""
    step = (hi - lo) / (n - 1)
    e = ember.arange(n, dtype=ember.float32) * step + lo
    return e, to_numpy(e)


def _ulp_error(got, expected):
    expected32 = expected.astype(np.float32)
    spacing = np.spacing(np.abs(expected32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - expected) / spacing


@pytest.mark.parametrize("name, lo, hi, max_ulp", [
    ("exp", -87.0, 88.0, 2), ("log", 1e-3, 1e4, 2), ("tanh", -10.0, 10.0, 2),
    ("sigmoid", -30.0, 30.0, 3), ("sin", -100.0, 100.0, 3), ("cos", -100.0, 100.0, 3),
    ("erf", -5.0, 5.0, 3), ("exp", -5.0, 5.0, 2), ("tanh", -1.0, 1.0, 2),
    ("log1p", -0.999, 1e3, 3), ("log1p", -1e-3, 1e-3, 3),
])
def test_vectorized_math_accuracy(name, lo, hi, max_ulp):
    x, xn = _grid(lo, hi)
    got = to_numpy(_call(name, x))
    expected = UNARY[name][0](xn.astype(np.float64))
    err = _ulp_error(got, expected)
    if name in ("sin", "cos"):  # near a zero, measure against the scale of the function
        err = np.abs(got - expected) / np.spacing(np.float32(1.0))
    assert err.max() <= max_ulp, f"{name}: {err.max():.1f} ulp at x={xn[err.argmax()]}"


def test_sin_cos_large_arguments_use_exact_reduction():
    a = np.array([1e4, -3e5, 1e7, 1e20, 123456.789, 300.0, -257.0], dtype=np.float32)
    assert_close(ember.sin(to_ember(a)), np.sin(a.astype(np.float64)), rtol=1e-5, atol=1e-6)
    assert_close(ember.cos(to_ember(a)), np.cos(a.astype(np.float64)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 64, 65, 100])
def test_vectorized_loop_tails(n):
    """Every length hits the vector body and the remainder loop correctly."""
    a = _values((n,), ember.float32, "any")
    for name in ("exp", "tanh", "sigmoid", "sin", "gelu"):
        ref = UNARY[name][0]
        assert_close(_call(name, to_ember(a)), ref(a.astype(np.float64)), rtol=1e-5, atol=1e-6)
        x = to_ember(a)
        if name != "gelu":
            getattr(x, name + "_")()
            assert_close(x, ref(a.astype(np.float64)), rtol=1e-5, atol=1e-6)


def test_large_tensor_runs_in_parallel_and_matches():
    n = 300000  # above the parallel grain
    x = ember.arange(n, dtype=ember.float32) * (1.0 / 30000) - 5.0
    xn = to_numpy(x)
    assert_close(ember.tanh(x), np.tanh(xn.astype(np.float64)), rtol=1e-5, atol=1e-6)
    y = x.clone()
    y.sigmoid_()
    assert_close(y, _sigmoid(xn.astype(np.float64)), rtol=1e-5, atol=1e-6)


# ---- result dtypes against torch ----------------------------------------------------------------

_TORCH_DTYPES = {}
if torch is not None:
    _TORCH_DTYPES = {
        ember.bool: torch.bool, ember.uint8: torch.uint8, ember.int8: torch.int8,
        ember.int16: torch.int16, ember.int32: torch.int32, ember.int64: torch.int64,
        ember.float16: torch.float16, ember.bfloat16: torch.bfloat16,
        ember.float32: torch.float32, ember.float64: torch.float64,
    }


def _torch_fn(name):
    if name in ("gelu", "silu"):
        return getattr(torch.nn.functional, name)
    return getattr(torch, name)


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("name", sorted(UNARY) + sorted(PREDICATES) + ["bitwise_not"])
def test_result_dtype_and_support_match_torch(name):
    """For every input dtype: ember raises where torch raises, else gives torch's dtype."""
    for dtype in ALL:
        t = torch.ones(2, dtype=_TORCH_DTYPES[dtype])
        e = ember.ones(2, dtype=dtype)
        try:
            expected = _torch_fn(name)(t).dtype
        except (RuntimeError, TypeError):
            with pytest.raises((RuntimeError, TypeError)):
                _call(name, e)
            continue
        got = _call(name, e).dtype
        assert _TORCH_DTYPES[got] == expected, (name, dtype, got, expected)


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("name", ["exp", "log", "tanh", "sigmoid", "sin", "cos", "erf", "gelu", "silu",
                                  "expm1", "log1p", "sqrt", "rsqrt"])
def test_float32_values_close_to_torch(name):
    x, xn = _grid(-8.0, 8.0, 4001)
    if name in ("log", "sqrt", "rsqrt", "log1p"):
        x, xn = _grid(1e-3, 50.0, 4001)
    expected = _torch_fn(name)(torch.from_numpy(xn)).numpy()
    got = to_numpy(_call(name, x))
    # gelu's tail is 0.5 x (1 + erf(x)) with 1 + erf(x) cancelling: both libraries are
    # only accurate to about |x| * eps there.
    atol = 1e-6 if name == "gelu" else 2e-7
    np.testing.assert_allclose(got, expected, rtol=4e-6, atol=atol)


def test_transcendentals_stay_vectorized():
    """A guard against GCC silently dropping the vector form of a vec_math function
    (a select it cannot if-convert makes the loop scalar, 10-30x slower): each op
    must cost at most ~25 times a plain relu pass. Runs below the parallel grain, so
    the calling thread's CPU time measures all of it."""
    import time

    x = ember.arange(30000, dtype=ember.float32) * (1.0 / 3000) - 5.0

    def cost(fn):
        best = float("inf")
        for _ in range(5):
            t0 = time.thread_time_ns()
            for _ in range(20):
                fn()
            best = min(best, time.thread_time_ns() - t0)
        return best

    base = cost(lambda: ember.relu(x))
    for name in ["exp", "log1p", "tanh", "sigmoid", "sin", "cos", "erf", "gelu", "silu"]:
        fn = getattr(ember, name)
        arg = ember.abs(x) if name == "log1p" else x
        ratio = cost(lambda: fn(arg)) / base
        assert ratio < 25, f"{name} costs {ratio:.0f}x relu: its dense loop is no longer vectorized?"
