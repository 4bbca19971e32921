"""CUDA elementwise kernels (lib/cuda/elementwise/) against the CPU kernels, for what
the op database (test_opdb.py::test_device_matches_cpu: every row, dtype, layout,
special values, large inputs, in-place forms and gradients) does not ask: rounding to
decimals, integer wrap-around, Python-number operands and mixed dtypes, in-place
writes into another dtype and through overlapping views, nan propagation, and the
integer division by zero that the device reports at the next synchronization. Needs
a GPU."""
import numpy as np
import pytest

import ember
from cuda_compare import check_against_cpu

pytestmark = pytest.mark.cuda

INTS = [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64]
FLOATS = [ember.float32, ember.float64, ember.float16, ember.bfloat16]
NUMERIC = INTS + FLOATS
ALL = [ember.bool] + NUMERIC


def make(shape, dtype, lo=-5.0, hi=5.0, seed=0, nonzero=False):
    """Random values of dtype in [lo, hi) as a CPU tensor (integers: whole numbers)."""
    rng = np.random.default_rng(seed)
    if dtype == ember.bool:
        return ember.from_numpy(np.asarray(rng.random(shape) < 0.5))
    if dtype in INTS:
        low = max(int(lo), 0) if dtype == ember.uint8 else int(lo)
        v = rng.integers(low, max(int(hi), low + 1), size=shape)
        if nonzero:
            v = np.where(v == 0, 3, v)
        return ember.from_numpy(np.asarray(v, dtype=np.int64)).to(dtype)
    v = rng.uniform(lo, hi, size=shape)
    if nonzero:
        v = np.where(np.abs(v) < 0.1, 0.5, v)
    return ember.from_numpy(np.asarray(v, dtype=np.float64)).to(dtype)


def with_specials(shape, dtype):
    """make(shape, dtype) with nan, inf and -inf first for float dtypes."""
    x = make(shape, dtype)
    if dtype not in FLOATS:
        return x
    v = x.to(ember.float64).numpy().reshape(-1)
    v[:3] = [np.nan, np.inf, -np.inf]
    return ember.from_numpy(v.reshape(shape)).to(dtype)


# ---- unary -----------------------------------------------------------------------------------

def test_round_decimals_and_half_even():
    x = ember.from_numpy(np.array([0.5, 1.5, 2.5, -0.5, -2.5, 1.25, 12345.678, -0.049]))
    for dtype in FLOATS:
        for decimals in [0, 1, 2, -1, -2]:
            check_against_cpu(lambda t: ember.round(t, decimals=decimals), x.to(dtype))
    check_against_cpu(ember.round, make((3, 4), ember.int32))


def test_neg_and_abs_wrap_at_the_most_negative_integer():
    for dtype, low in [(ember.int8, -128), (ember.int16, -32768), (ember.int32, -2**31),
                       (ember.int64, -2**63)]:
        x = ember.from_numpy(np.array([low, -1, 0, 1], dtype=np.int64)).to(dtype)
        check_against_cpu(ember.neg, x)
        check_against_cpu(ember.abs, x)
    check_against_cpu(ember.neg, make((6,), ember.uint8, 0, 255))


def test_activations_in_place_and_integer_relu():
    x = make((4, 6), ember.float32)
    check_against_cpu(lambda t: ember.leaky_relu_(t.clone(), 0.3), x)
    check_against_cpu(lambda t: ember.relu_(t.clone()), x)
    for dtype in INTS:
        check_against_cpu(ember.relu, make((4, 6), dtype))


def test_logical_not_in_place_keeps_dtype():
    check_against_cpu(lambda t: t.clone().logical_not_(), make((4, 6), ember.float32))
    check_against_cpu(lambda t: t.clone().logical_not_(), make((4, 6), ember.int32))


@pytest.mark.parametrize("dtype", [ember.bool] + INTS, ids=str)
def test_bitwise_not(dtype):
    x = make((5, 7), dtype, -100, 100)
    check_against_cpu(ember.bitwise_not, x)
    check_against_cpu(lambda t: ember.bitwise_not(t.t()), x)
    check_against_cpu(lambda t: t.clone().bitwise_not_(), x)


# ---- clamp and nan_to_num -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
def test_clamp(dtype):
    x = make((5, 7), dtype, -10, 10)
    check_against_cpu(lambda t: ember.clamp(t, -2, 3), x, grad=dtype in FLOATS)
    check_against_cpu(lambda t: ember.clamp(t, min=1), x, grad=dtype in FLOATS)
    check_against_cpu(lambda t: ember.clamp(t, max=1), x, grad=dtype in FLOATS)
    check_against_cpu(lambda t: ember.clamp(t, 3, -2), x)  # min > max gives max
    check_against_cpu(lambda t: ember.clamp(t.t(), -2, 3), x)
    lo, hi = make((7,), dtype, -10, 0, seed=1), make((5, 1), dtype, 0, 10, seed=2)
    grad = dtype in FLOATS
    check_against_cpu(lambda t, a, b: ember.clamp(t, a, b), x, lo, hi, grad=grad)
    check_against_cpu(lambda t, a: ember.clamp(t, min=a), x, lo, grad=grad)
    check_against_cpu(lambda t, b: ember.clamp(t, max=b), x, hi, grad=grad)
    check_against_cpu(lambda t: ember.clamp(t.clone().clamp_(-1, 1), 0, 1), x)
    check_against_cpu(lambda t: ember.clamp(t, -1, 1), make((), dtype))
    check_against_cpu(lambda t: ember.clamp(t, -1, 1), make((0, 4), dtype))


def test_clamp_promotion_and_nan():
    i = make((3, 4), ember.int64)
    check_against_cpu(lambda t: ember.clamp(t, min=0.5), i)  # float32 result
    check_against_cpu(lambda t: ember.clamp(t, 10, 200), make((4,), ember.uint8, 0, 255))
    v = ember.from_numpy(np.array([np.nan, 5.0, -5.0, np.inf], dtype=np.float32))
    check_against_cpu(lambda t: ember.clamp(t, 0, 1), v)
    check_against_cpu(lambda t, b: ember.clamp(t, max=b), v, ember.from_numpy(np.array([np.nan, 0.0, 0.0, 1.0])))


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_nan_to_num(dtype):
    x = with_specials((5, 7), dtype)
    check_against_cpu(ember.nan_to_num, x)
    check_against_cpu(lambda t: ember.nan_to_num(t.t(), nan=2.0, posinf=10.0, neginf=-10.0), x)
    check_against_cpu(lambda t: t.clone().nan_to_num_(), x)
    check_against_cpu(ember.nan_to_num, make((), dtype))


# ---- binary ---------------------------------------------------------------------------------

def _division_ops():
    return {
        "div": ember.div,
        "floor_divide": lambda a, b: ember.div(a, b, rounding_mode="floor"),
        "trunc_divide": lambda a, b: ember.div(a, b, rounding_mode="trunc"),
        "remainder": ember.remainder,
        "fmod": ember.fmod,
    }


BINARY = dict(_division_ops(), **{
    "add": ember.add, "sub": ember.sub, "mul": ember.mul,
    "add_alpha": lambda a, b: ember.add(a, b, alpha=3),
    "sub_alpha": lambda a, b: ember.sub(a, b, alpha=2),
    "maximum": ember.maximum, "minimum": ember.minimum, "atan2": ember.atan2,
    "pow": ember.pow,
})
DIVIDES = set(_division_ops())

def _binary_operands(name, dtype, sa, sb):
    if name == "pow":
        if dtype in INTS:
            return make(sa, dtype, 0 if dtype == ember.uint8 else -6, 6), make(sb, dtype, 0, 5, seed=1)
        return make(sa, dtype, 0.1, 3), make(sb, dtype, -2, 2, seed=1)
    return make(sa, dtype, -20, 20), make(sb, dtype, -20, 20, seed=1, nonzero=name in DIVIDES)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_noncontiguous_numbers_and_mixed_dtypes(name):
    fn = BINARY[name]
    a, b = _binary_operands(name, ember.float32, (4, 6), (6, 4))
    check_against_cpu(lambda x, y: fn(x.t(), y), b, b.t().contiguous())
    check_against_cpu(lambda x, y: fn(x[:, ::2], y[::2].t()), a, b)
    check_against_cpu(lambda x: fn(x.expand(3, 4, 6), x[0]), a[:1])
    number = 2 if name != "pow" else 3
    check_against_cpu(lambda x: fn(x, number), a)             # a Python int
    check_against_cpu(lambda x: fn(x, 2.5), a)                # a Python float
    check_against_cpu(lambda x: fn(x, 0.5), make((4, 6), ember.int32, 1, 9))  # int tensor, float number
    check_against_cpu(lambda x: fn(3, x), make((4, 6), ember.float32, 0.5, 2))  # number first
    i, _ = _binary_operands(name, ember.int16, (4, 6), (4, 6))
    check_against_cpu(fn, i, b.t().contiguous().to(ember.float64))
    # a 0-dim CPU tensor with a CUDA tensor: read as a number
    scalar = ember.tensor(1.5)
    check_against_cpu(lambda x: fn(x, scalar), a)


def test_pow_variants():
    x = make((4, 6), ember.float32, 0.1, 4)
    for e in [2, 3, 1, 0.5, -0.5, -1, -2, 2.5, 0, -3.0]:
        check_against_cpu(lambda t: ember.pow(t, e), x, grad=True)
        check_against_cpu(lambda t: ember.pow(t.to(ember.float16), e), x)
        check_against_cpu(lambda t: ember.pow(t.to(ember.float64), e), x, grad=True)
    check_against_cpu(lambda t: ember.pow(2.0, t), x, grad=True)
    check_against_cpu(lambda t: ember.pow(2, t), make((4, 6), ember.int64, 0, 10))
    i = make((4, 6), ember.int32, -4, 5)
    check_against_cpu(lambda t: ember.pow(t, 3), i)
    check_against_cpu(lambda t, e: ember.pow(t, e), i, make((4, 6), ember.int32, -3, 6, seed=2))
    check_against_cpu(lambda t: t.clone().pow_(2), x)


def test_integer_division_rounding_and_signs():
    a = ember.from_numpy(np.array([7, -7, 7, -7, 0, -128, 5], dtype=np.int64))
    b = ember.from_numpy(np.array([2, 2, -2, -2, 3, -1, 7], dtype=np.int64))
    for dtype in [ember.int8, ember.int16, ember.int32, ember.int64]:
        for fn in _division_ops().values():
            check_against_cpu(fn, a.to(dtype), b.to(dtype))
    f = ember.from_numpy(np.array([7.5, -7.5, 1e-30, -0.0, 5.0, np.inf, np.nan, 3.0]))
    g = ember.from_numpy(np.array([2.0, 2.0, -3.0, 2.0, 0.0, 2.0, 1.0, -np.inf]))
    for dtype in FLOATS:
        for fn in _division_ops().values():
            check_against_cpu(fn, f.to(dtype), g.to(dtype))


@pytest.mark.parametrize("name", ["floor_divide", "trunc_divide", "remainder", "fmod"])
@pytest.mark.parametrize("dtype", INTS, ids=str)
def test_integer_division_by_zero_raises_at_synchronization(name, dtype):
    fn = _division_ops()[name]
    x = make((3,), dtype, 1, 9).cuda()
    y = ember.from_numpy(np.array([1, 0, 1], dtype=np.int64)).to(dtype).cuda()
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(x, y).cpu()
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(x, 0).cpu()
    # the device stays usable, and the error is not raised twice
    assert (fn(x, y + 1).cpu() == fn(x.cpu(), (y + 1).cpu())).all().item()
    ember.cuda.synchronize()


def test_maximum_minimum_propagate_nan():
    a = ember.from_numpy(np.array([np.nan, 1.0, 2.0, -np.inf, 0.0]))
    b = ember.from_numpy(np.array([1.0, np.nan, 3.0, 1.0, -0.0]))
    for dtype in FLOATS:
        check_against_cpu(ember.maximum, a.to(dtype), b.to(dtype))
        check_against_cpu(ember.minimum, a.to(dtype), b.to(dtype))


def test_threshold_backward_through_relu():
    for dtype in FLOATS:
        x = make((5, 7), dtype)
        check_against_cpu(lambda t: ember.relu(t), x, grad=True)
        check_against_cpu(lambda t: ember.relu(t.t()[1:]), x, grad=True)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "remainder", "fmod", "pow",
                                  "maximum", "minimum", "atan2"])
def test_binary_in_place(name):
    a, b = _binary_operands(name, ember.float32, (4, 6), (6,))
    check_against_cpu(lambda x, y: getattr(x.clone(), name + "_")(y), a, b)
    check_against_cpu(lambda x, y: getattr(x.clone().t(), name + "_")(y[:4]), a, b)
    check_against_cpu(lambda x: getattr(x.clone(), name + "_")(2), a)
    # into a tensor of another dtype: float64 math stored as float32 (a preset output)
    check_against_cpu(lambda x, y: getattr(x.clone(), name + "_")(y.to(ember.float64)), a, b)


def test_in_place_integer_casts_and_overlap():
    i = make((4, 6), ember.int32, -20, 20)
    check_against_cpu(lambda x: x.clone().add_(x.to(ember.int64)), i)
    check_against_cpu(lambda x: x.clone().mul_(3), i)
    check_against_cpu(lambda x: x.clone().remainder_(7), i)
    # an operand that overlaps the output without being it
    def shifted_add(x):
        y = x.clone()
        y[1:].add_(y[:-1])
        return y
    check_against_cpu(shifted_add, make((8,), ember.float32))


# ---- comparisons, logical and bitwise -------------------------------------------------------

COMPARE = ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"]


def test_comparisons_promote_and_nan():
    f = ember.from_numpy(np.array([np.nan, 1.0, 2.5, 0.0]))
    i = ember.from_numpy(np.array([0, 1, 2, 0], dtype=np.int64))
    for name in COMPARE:
        fn = getattr(ember, name)
        check_against_cpu(fn, f, i)
        check_against_cpu(fn, f.to(ember.float16), i.to(ember.uint8))
        check_against_cpu(lambda x: getattr(x.clone(), name + "_")(1), f)  # in place keeps float64


# ---- where and lerp -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_where(dtype):
    cond = make((3, 4), ember.bool)
    a, b = make((3, 4), dtype, seed=1), make((4,), dtype, seed=2)
    check_against_cpu(ember.where, cond, a, b, grad=dtype in FLOATS)
    check_against_cpu(lambda c, x, y: ember.where(c.t(), x.t(), y[:3]), cond, a, b)
    check_against_cpu(lambda c, x: ember.where(c, x, 0), cond, a)
    check_against_cpu(lambda c, y: ember.where(c, 2.5, y), cond, b)
    check_against_cpu(lambda c: ember.where(c, 1.0, 0), cond)
    check_against_cpu(lambda c, x, y: ember.where(c[0, 0], x, y), cond, a, b)
    check_against_cpu(lambda x, y: ember.where(x > 0, x, y.to(ember.float64)), a, b)
    check_against_cpu(ember.where, make((0, 4), ember.bool), make((4,), dtype), make((), dtype))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_lerp(dtype):
    s, e = make((3, 4), dtype, seed=1), make((3, 4), dtype, seed=2)
    for w in [0.0, 0.25, 0.5, 0.75, 1.0, 2.0, -1.0]:
        check_against_cpu(lambda x, y: ember.lerp(x, y, w), s, e, grad=True)
    w = make((4,), dtype, 0, 1, seed=3)
    check_against_cpu(ember.lerp, s, e, w, grad=True)
    check_against_cpu(lambda x, y, z: ember.lerp(x.t(), y.t(), z[:3]), s, e, w, grad=True)
    check_against_cpu(lambda x, y: x.clone().lerp_(y, 0.5), s, e)
    check_against_cpu(lambda x, y, z: x.clone().lerp_(y, z), s, e, w)
    check_against_cpu(lambda x, y: ember.lerp(x, y, 0.5), make((), dtype), make((0, 1), dtype))


# ---- special functions (cuda/elementwise/special.cu) ----------------------------------------

# name -> input range (float-only: integer and bool inputs give the default float dtype)
SPECIAL_UNARY = {
    "acos": (-1, 1), "asin": (-1, 1), "atan": (-8, 8), "sinh": (-6, 6), "cosh": (-6, 6),
    "asinh": (-20, 20), "acosh": (1, 20), "atanh": (-0.99, 0.99), "erfc": (-4, 6),
    "erfinv": (-1, 1), "lgamma": (-6, 30), "digamma": (0.1, 30), "log10": (0.01, 100),
    "exp2": (-20, 20), "sinc": (-5, 5), "i0": (-30, 30),
}


def test_special_unary_edges_and_others():
    v = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.0, -2.5, 1e-8, 700.0])
    for dtype in FLOATS:
        x = ember.from_numpy(v).to(dtype)
        for name in list(SPECIAL_UNARY) + ["frac", "signbit"]:
            check_against_cpu(getattr(ember, name), x)
        for n in range(4):
            check_against_cpu(lambda t: ember.polygamma(n, t), x)
        check_against_cpu(ember.special.i1, x)
        check_against_cpu(lambda t: t.clone().frac_(), make((4, 6), dtype, -9, 9), grad=False)
    for dtype in ALL:
        check_against_cpu(ember.signbit, make((4, 6), dtype))
    check_against_cpu(lambda t: ember.polygamma(2, t), make((4, 6), ember.float64, 0.1, 9), grad=True)
    check_against_cpu(ember.i0, make((4, 6), ember.float64, -9, 9), grad=True)


def test_special_binary_in_place_and_numbers():
    a, b = make((3, 4), ember.float32, seed=1), make((3, 4), ember.float32, 0.1, 5, seed=2)
    for name in ["hypot", "copysign", "xlogy", "nextafter"]:
        check_against_cpu(lambda x, y: getattr(x.clone(), name + "_")(y), a, b)
    check_against_cpu(lambda x: ember.xlogy(x, 2.0), a)
    check_against_cpu(lambda y: ember.xlogy(3, y), b)
    check_against_cpu(lambda x: ember.copysign(x, -1.0), a)
    i, j = make((3, 4), ember.int32, -30, 30, seed=1), make((3, 4), ember.int32, -30, 30, seed=2)
    check_against_cpu(lambda x, y: x.clone().gcd_(y), i, j)
