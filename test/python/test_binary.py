"""Binary elementwise ops (arithmetic, comparisons, logical, bitwise, where, lerp)
and their operators against numpy, with PyTorch as the oracle for type promotion
and for which calls are errors (those tests skip without torch).
"""
import numpy as np
import pytest

import ember
from _helpers import assert_close, noncontiguous, to_ember, to_numpy

try:
    import torch
except ImportError:
    torch = None

INTS = [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64]
FLOATS = [ember.float32, ember.float64, ember.float16, ember.bfloat16]
NUMERIC = INTS + FLOATS
ALL = [ember.bool] + NUMERIC

NP = {
    ember.bool: np.bool_, ember.uint8: np.uint8, ember.int8: np.int8, ember.int16: np.int16,
    ember.int32: np.int32, ember.int64: np.int64, ember.float16: np.float16,
    ember.bfloat16: np.float32, ember.float32: np.float32, ember.float64: np.float64,
}


def _values(shape, dtype, seed=0, nonzero=False, small=False):
    rng = np.random.default_rng(seed)
    if dtype == ember.bool:
        return rng.random(shape) < 0.5
    if dtype in INTS:
        lo = 0 if dtype == ember.uint8 else (-4 if small else -50)
        hi = 5 if small else 50
        v = rng.integers(lo, hi, size=shape)
        if nonzero:
            v = np.where(v == 0, 3, v)
        return v.astype(NP[dtype])
    v = rng.uniform(-5, 5, size=shape)
    if nonzero:
        v = np.where(np.abs(v) < 0.1, 0.5, v)
    return v.astype(NP[dtype])


def _tol(dtype):
    return {ember.float16: (2e-3, 2e-3), ember.bfloat16: (1.6e-2, 1.6e-2),
            ember.float64: (1e-12, 1e-12)}.get(dtype, (2e-6, 1e-6))


def _cast_reference(expected, dtype):
    """A float64/int64 reference as the result dtype stores it (integers wrap)."""
    if dtype == ember.bool:
        return expected.astype(np.bool_)
    if dtype in INTS:
        return np.asarray(expected).astype(np.int64).astype(NP[dtype])
    return expected


def _ref_values(t):
    a = to_numpy(t)
    return a.astype(np.int64) if a.dtype.kind in "iub" else a.astype(np.float64)


def _trunc_div(a, b):
    if a.dtype.kind == "f":
        return np.trunc(a / b)
    return np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))


# name -> (ember function, numpy reference on int64 / float64 values, dtypes, needs nonzero divisor)
ARITH = {
    "add": (ember.add, np.add, ALL, False),
    "sub": (ember.sub, np.subtract, NUMERIC, False),
    "mul": (ember.mul, np.multiply, ALL, False),
    "div": (ember.div, lambda a, b: a.astype(np.float64) / b, NUMERIC, True),
    "floor_divide": (ember.floor_divide, np.floor_divide, NUMERIC, True),
    "trunc_divide": (lambda a, b: ember.div(a, b, rounding_mode="trunc"), _trunc_div, NUMERIC, True),
    "remainder": (ember.remainder, np.remainder, NUMERIC, True),
    "fmod": (ember.fmod, np.fmod, NUMERIC, True),
    "maximum": (ember.maximum, np.maximum, ALL, False),
    "minimum": (ember.minimum, np.minimum, ALL, False),
    "atan2": (ember.atan2, lambda a, b: np.arctan2(a.astype(np.float64), b), NUMERIC, False),
    "pow": (ember.pow, lambda a, b: np.power(a.astype(np.float64), b) if a.dtype.kind == "f"
            else np.power(a, b), NUMERIC, False),
}

COMPARE = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
}

SHAPE_PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),       # broadcast a row
    ((3, 1), (1, 4)),     # both broadcast
    ((2, 3, 4), (3, 1)),
    ((), (5,)),           # 0-dim with a vector
    ((5,), ()),
    ((), ()),
    ((0,), (0,)),         # empty
    ((0, 3), (3,)),
    ((1,), (6,)),         # one-element operand with dims
]


def _operands(name, dtype, sa, sb, seed=0):
    a = _values(sa, dtype, seed)
    b = _values(sb, dtype, seed + 1, nonzero=ARITH.get(name, (0, 0, 0, False))[3],
                small=name == "pow")
    if name == "pow" and dtype in INTS:
        b = np.abs(b).astype(NP[dtype])  # negative integer powers: see test_pow_integer_rules
        a = np.clip(a, -6, 6).astype(NP[dtype])
    if name == "pow" and dtype in FLOATS:
        a = np.abs(a).astype(NP[dtype])  # a negative base to a fractional power is nan
    return a, b


def _check_arith(name, x, y):
    fn, ref = ARITH[name][0], ARITH[name][1]
    out = fn(x, y)
    a, b = _ref_values(x), _ref_values(y)
    with np.errstate(all="ignore"):
        expected = ref(a, b)
    rtol, atol = _tol(out.dtype)
    if name == "pow" and out.dtype in FLOATS:
        rtol = max(rtol, 1e-5)
    assert_close(out, _cast_reference(expected, out.dtype), rtol=rtol, atol=atol)
    return out


@pytest.mark.parametrize("name", sorted(ARITH))
@pytest.mark.parametrize("sa, sb", SHAPE_PAIRS)
def test_arithmetic_values(name, sa, sb):
    for dtype in ARITH[name][2]:
        a, b = _operands(name, dtype, sa, sb)
        out = _check_arith(name, to_ember(a, dtype), to_ember(b, dtype))
        assert tuple(out._shape) == np.broadcast_shapes(sa, sb)


@pytest.mark.parametrize("name", sorted(ARITH))
def test_arithmetic_noncontiguous_and_expanded(name):
    for dtype in [ember.float32, ember.int64, ember.float16]:
        if dtype not in ARITH[name][2]:
            continue
        a, b = _operands(name, dtype, (4, 5), (4, 5), seed=3)
        x = noncontiguous(to_ember(a, dtype))
        y = to_ember(b, dtype).t().contiguous().t()
        _check_arith(name, x, y)
        row = to_ember(b[:1], dtype).expand(4, 5)  # stride 0
        _check_arith(name, x, row)
        col = to_ember(a[:, :1], dtype).expand(4, 5)
        _check_arith(name, col, y)


@pytest.mark.parametrize("name", sorted(ARITH))
def test_arithmetic_mixed_dtypes(name):
    pairs = [(ember.int32, ember.float32), (ember.uint8, ember.int8), (ember.float16, ember.float32),
             (ember.int64, ember.float64), (ember.bool, ember.int16), (ember.float16, ember.bfloat16)]
    for da, db in pairs:
        if da not in ARITH[name][2] and db not in ARITH[name][2]:
            continue
        if name == "sub" and ember.bool in (da, db):
            continue
        a, _ = _operands(name, da, (3, 4), (3, 4), seed=5)
        _, b = _operands(name, db, (3, 4), (4,), seed=6)
        _check_arith(name, to_ember(a, da), to_ember(b, db))


@pytest.mark.parametrize("name", sorted(COMPARE))
@pytest.mark.parametrize("sa, sb", SHAPE_PAIRS)
def test_comparisons_and_logical(name, sa, sb):
    for dtype in ALL:
        a = _values(sa, dtype, 1, small=True)
        b = _values(sb, dtype, 2, small=True)
        out = getattr(ember, name)(to_ember(a, dtype), to_ember(b, dtype))
        assert out.dtype == ember.bool
        expected = COMPARE[name](_ref_values(to_ember(a, dtype)), _ref_values(to_ember(b, dtype)))
        assert_close(out, expected)


def test_comparisons_promote_before_comparing():
    i = to_ember(np.array([1, 2, 3], dtype=np.int64))
    f = to_ember(np.array([1.0, 2.5, 3.0], dtype=np.float32))
    assert_close(ember.eq(i, f), np.array([True, False, True]))
    assert_close(i < 2.5, np.array([True, True, False]))
    s = to_ember(np.array([300], dtype=np.int16))
    u = to_ember(np.array([44], dtype=np.uint8))
    assert_close(s == u, np.array([False]))  # compared in int16: 300 != 44
    neg = to_ember(np.array([-1], dtype=np.int8))
    big = to_ember(np.array([255], dtype=np.uint8))
    assert_close(neg < big, np.array([True]))  # int16, not a wrapped uint8 compare
    assert_close(to_ember(np.array([1], dtype=np.uint8)) == 257, np.array([True]))  # 257 wraps in uint8
    big64 = to_ember(np.array([2 ** 53 + 1], dtype=np.int64))
    assert_close(big64 == 2 ** 53 + 1, np.array([True]))  # exact in int64
    nan = to_ember(np.array([np.nan, 1.0], dtype=np.float32))
    assert_close(nan == nan, np.array([False, True]))
    assert_close(nan != nan, np.array([True, False]))
    assert_close(ember.logical_and(nan, nan), np.array([True, True]))  # nan is true


def test_logical_mixed_dtypes():
    a = to_ember(np.array([0, 1, 2, 0], dtype=np.int32))
    b = to_ember(np.array([0.0, 0.0, 0.5, 3.0], dtype=np.float32))
    assert_close(ember.logical_and(a, b), np.array([False, False, True, False]))
    assert_close(ember.logical_or(a, b), np.array([False, True, True, True]))
    assert_close(ember.logical_xor(a, b), np.array([False, True, False, True]))


# ---- bitwise -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name, ref", [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                                       ("bitwise_xor", np.bitwise_xor)])
def test_bitwise(name, ref):
    for dtype in INTS + [ember.bool]:
        for sa, sb in SHAPE_PAIRS:
            a, b = _values(sa, dtype, 1), _values(sb, dtype, 2)
            out = getattr(ember, name)(to_ember(a, dtype), to_ember(b, dtype))
            assert out.dtype == dtype
            assert_close(out, ref(a, b))


def test_bitwise_operators_and_numbers():
    a = np.array([0b1100, 0b1010, -1], dtype=np.int32)
    x = to_ember(a)
    assert_close(x & 0b0110, a & 0b0110)
    assert_close(x | 1, a | 1)
    assert_close(x ^ 5, a ^ 5)
    assert_close(6 & x, 6 & a)
    assert_close(6 | x, 6 | a)
    assert_close(6 ^ x, 6 ^ a)
    b = to_ember(np.array([True, False]))
    assert_close(b & True, np.array([True, False]))
    assert (b | b).dtype == ember.bool
    assert (x | True).dtype == ember.int32


def _torch_shift(a, b, left):
    """PyTorch's shifts: out-of-range or negative amounts give 0 (<<) or the sign (>>)."""
    bits = a.dtype.itemsize * 8
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    out = np.empty_like(a64)
    for i, (x, s) in enumerate(zip(a64.ravel(), b64.ravel())):
        if s < 0 or s >= bits:
            out.ravel()[i] = 0 if left else (-1 if x < 0 else 0)
        else:
            out.ravel()[i] = (x << s) if left else (x >> s)
    return out.astype(a.dtype)


@pytest.mark.parametrize("left", [True, False])
def test_shifts(left):
    for dtype in INTS:
        bits = np.dtype(NP[dtype]).itemsize * 8
        a = _values((12,), dtype, 1)
        lo = 0 if dtype == ember.uint8 else -3
        b = np.array([0, 1, 2, 3, bits - 1, bits, bits + 5, 70, lo, 1, 4, 2], dtype=np.int64)
        b = b.astype(NP[dtype]) if dtype != ember.uint8 else np.clip(b, 0, 255).astype(np.uint8)
        fn = ember.bitwise_left_shift if left else ember.bitwise_right_shift
        out = fn(to_ember(a, dtype), to_ember(b, dtype))
        assert out.dtype == dtype
        assert_close(out, _torch_shift(a, b, left))
    x = to_ember(np.array([1, -8, 100], dtype=np.int64))
    if left:
        assert_close(x << 2, np.array([4, -32, 400]))
        assert_close(3 << to_ember(np.array([2])), np.array([12]))
    else:
        assert_close(x >> 2, np.array([0, -2, 25]))
        assert_close(64 >> to_ember(np.array([2])), np.array([16]))


# ---- where and lerp ----------------------------------------------------------------------------

def test_where():
    cond = np.array([[True, False, True], [False, False, True]])
    a = _values((2, 3), ember.float32, 1)
    b = _values((3,), ember.float32, 2)
    out = ember.where(to_ember(cond), to_ember(a), to_ember(b))
    assert_close(out, np.where(cond, a, b))
    assert_close(to_ember(a).where(to_ember(cond), to_ember(b)), np.where(cond, a, b))
    # numbers on either side, with PyTorch's promotion
    i = to_ember(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int64))
    assert ember.where(to_ember(cond), i, 0).dtype == ember.int64
    out = ember.where(to_ember(cond), i, 2.5)
    assert out.dtype == ember.float32
    assert_close(out, np.where(cond, [[1, 2, 3], [4, 5, 6]], 2.5))
    out = ember.where(to_ember(cond), 1.0, 0)
    assert out.dtype == ember.float32
    assert_close(out, cond.astype(np.float32))
    out = ember.where(to_ember(cond), to_ember(a), to_ember(a.astype(np.float64)))
    assert out.dtype == ember.float64
    # a condition broadcast against the values, and non-contiguous inputs
    c1 = to_ember(np.array([True, False, True]))
    out = ember.where(c1, noncontiguous(to_ember(a)), to_ember(b))
    assert_close(out, np.where(np.array([True, False, True]), a, b))
    empty = ember.where(to_ember(np.zeros((0, 3), dtype=bool)), to_ember(b), 1.0)
    assert tuple(empty._shape) == (0, 3)


def test_lerp():
    s = _values((3, 4), ember.float32, 1)
    e = _values((3, 4), ember.float32, 2)
    for w in [0.0, 0.25, 0.5, 0.75, 1.0, 2.0, -1.0]:
        out = ember.lerp(to_ember(s), to_ember(e), w)
        assert_close(out, s.astype(np.float64) + w * (e.astype(np.float64) - s), rtol=1e-5, atol=1e-5)
    w = np.random.default_rng(3).uniform(0, 1, size=(4,)).astype(np.float32)
    out = ember.lerp(to_ember(s), to_ember(e), to_ember(w))
    assert_close(out, s + w * (e - s), rtol=1e-5, atol=1e-5)
    # the ends are exact (PyTorch's two-sided formula)
    assert_close(ember.lerp(to_ember(s), to_ember(e), 1.0), e, rtol=0, atol=0)
    assert_close(ember.lerp(to_ember(s), to_ember(e), 0.0), s, rtol=0, atol=0)
    x = to_ember(s)
    assert x.lerp_(to_ember(e), 0.5) is x
    assert_close(x, (s + e) / 2, rtol=1e-6)
    assert_close(to_ember(s).lerp(to_ember(e), 0.5), (s + e) / 2, rtol=1e-6)
    h = ember.lerp(to_ember(s, ember.float16), to_ember(e, ember.float16), 0.5)
    assert h.dtype == ember.float16
    assert_close(h, (to_numpy(to_ember(s, ember.float16)) + to_numpy(to_ember(e, ember.float16))) / 2,
                 rtol=2e-3, atol=2e-3)


# ---- promotion rules (explicit, and against torch) ------------------------------------------------

def test_promotion_examples():
    i = to_ember(np.array([1, 2], dtype=np.int64))
    u = to_ember(np.array([1, 2], dtype=np.uint8))
    f = to_ember(np.array([1, 2], dtype=np.float32))
    h = to_ember(np.array([1, 2], dtype=np.float16))
    b = to_ember(np.array([True, False]))
    assert (i + 2.5).dtype == ember.float32
    out = u + 1000
    assert out.dtype == ember.uint8
    assert_close(out, np.array([233, 234]))  # (1 + 1000) mod 256
    assert (u + to_ember(np.array(1000, dtype=np.int64))).dtype == ember.uint8  # 0-dim: lower priority
    assert (u + to_ember(np.array([1000], dtype=np.int64))).dtype == ember.int64
    assert (h * 2.0).dtype == ember.float16
    assert (h + f).dtype == ember.float32
    assert (b + b).dtype == ember.bool
    assert_close(b + b, np.array([True, False]))
    assert (b + 1).dtype == ember.int64
    assert (b * 1.5).dtype == ember.float32
    assert (i / i).dtype == ember.float32
    assert (i // 2).dtype == ember.int64
    assert (f + to_ember(np.array(2.0, dtype=np.float64))).dtype == ember.float32
    assert (i ** 2).dtype == ember.int64 and (i ** 2.0).dtype == ember.float32
    assert (2 ** i).dtype == ember.int64 and (2.5 ** i).dtype == ember.float32
    assert ember.atan2(i, i).dtype == ember.float32
    ember.set_default_dtype(ember.float64)
    try:
        assert (i / i).dtype == ember.float64
        assert (i + 2.5).dtype == ember.float64
        assert (f + 2.5).dtype == ember.float32
    finally:
        ember.set_default_dtype(ember.float32)


_TD = {}
if torch is not None:
    _TD = {ember.bool: torch.bool, ember.uint8: torch.uint8, ember.int8: torch.int8,
           ember.int16: torch.int16, ember.int32: torch.int32, ember.int64: torch.int64,
           ember.float16: torch.float16, ember.bfloat16: torch.bfloat16,
           ember.float32: torch.float32, ember.float64: torch.float64}

_PROMO_OPS = {
    "add": (ember.add, torch.add if torch else None),
    "sub": (ember.sub, torch.sub if torch else None),
    "mul": (ember.mul, torch.mul if torch else None),
    "div": (ember.div, torch.div if torch else None),
    "floor_divide": (ember.floor_divide, torch.floor_divide if torch else None),
    "remainder": (ember.remainder, torch.remainder if torch else None),
    "fmod": (ember.fmod, torch.fmod if torch else None),
    "pow": (ember.pow, torch.pow if torch else None),
    "maximum": (ember.maximum, torch.maximum if torch else None),
    "atan2": (ember.atan2, torch.atan2 if torch else None),
    "eq": (ember.eq, torch.eq if torch else None),
    "lt": (ember.lt, torch.lt if torch else None),
    "logical_or": (ember.logical_or, torch.logical_or if torch else None),
    "bitwise_and": (ember.bitwise_and, torch.bitwise_and if torch else None),
    "bitwise_left_shift": (ember.bitwise_left_shift, torch.bitwise_left_shift if torch else None),
}


def _same_outcome(efn, tfn, eargs, targs, what):
    try:
        expected = tfn(*targs).dtype
    except (RuntimeError, TypeError):
        with pytest.raises((RuntimeError, TypeError)):
            efn(*eargs)
        return
    got = efn(*eargs).dtype
    assert _TD[got] == expected, f"{what}: ember {got}, torch {expected}"


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("name", sorted(_PROMO_OPS))
def test_promotion_matches_torch_tensor_tensor(name):
    efn, tfn = _PROMO_OPS[name]
    for da in ALL:
        for db in ALL:
            for sb in [(2,), ()]:  # with dims, and 0-dim (lower priority)
                ea, eb = ember.ones(2, dtype=da), ember.ones(list(sb), dtype=db)
                ta, tb = torch.ones(2, dtype=_TD[da]), torch.ones(sb, dtype=_TD[db])
                _same_outcome(efn, tfn, (ea, eb), (ta, tb), f"{name}({da}, {db}{sb})")


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("name", [n for n in sorted(_PROMO_OPS) if n not in ("maximum", "atan2", "logical_or")])
def test_promotion_matches_torch_tensor_number(name):
    efn, tfn = _PROMO_OPS[name]
    for da in ALL:
        for number in [True, 2, 2.5]:
            ea, ta = ember.ones(2, dtype=da), torch.ones(2, dtype=_TD[da])
            _same_outcome(efn, tfn, (ea, number), (ta, number), f"{name}({da}, {number!r})")
            if name in ("add", "sub", "mul", "div", "remainder", "pow", "floor_divide"):
                _same_outcome(efn, tfn, (number, ea), (number, ta), f"{name}({number!r}, {da})")


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_operators_promotion_matches_torch():
    ops = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
           "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__",
           "__and__", "__or__", "__xor__", "__lt__", "__eq__"]
    for da in ALL:
        for number in [True, 3, 2.5]:
            for op in ops:
                ea, ta = ember.ones(2, dtype=da), torch.ones(2, dtype=_TD[da])
                _same_outcome(lambda a, b: getattr(a, op)(b), lambda a, b: getattr(a, op)(b),
                              (ea, number), (ta, number), f"{da}.{op}({number!r})")


# ---- integer division semantics --------------------------------------------------------------------

def test_integer_division_signs_follow_python():
    a = np.array([-7, 7, -7, 7, 0, -1, 5], dtype=np.int64)
    b = np.array([2, -2, -2, 2, 3, 4, -3], dtype=np.int64)
    x, y = to_ember(a), to_ember(b)
    assert_close(x // y, np.array([ai // bi for ai, bi in zip(a.tolist(), b.tolist())]))
    assert_close(x % y, np.array([ai % bi for ai, bi in zip(a.tolist(), b.tolist())]))
    assert_close(ember.div(x, y, rounding_mode="trunc"), np.array([int(ai / bi) for ai, bi in zip(a, b)]))
    assert_close(ember.fmod(x, y), np.fmod(a, b))
    assert_close(x // 2, a // 2)
    assert_close(x % 3, a % 3)
    assert_close(-7 // to_ember(np.array([2, -2])), np.array([-4, 3]))
    assert_close(7 % to_ember(np.array([-3, 3])), np.array([-2, 1]))


def test_integer_overflowing_cases_do_not_crash():
    mn = np.iinfo(np.int64).min
    x = to_ember(np.array([mn, mn, 5], dtype=np.int64))
    y = to_ember(np.array([-1, -1, -1], dtype=np.int64))
    assert_close(ember.div(x, y, rounding_mode="trunc"), np.array([mn, mn, -5]))
    assert_close(x // y, np.array([mn, mn, -5]))
    assert_close(x % y, np.array([0, 0, 0]))
    assert_close(ember.fmod(x, y), np.array([0, 0, 0]))
    big = to_ember(np.array([np.iinfo(np.int32).max], dtype=np.int32))
    assert_close(big + 1, np.array([np.iinfo(np.int32).min]))
    assert_close(big * 2, np.array([-2]))


@pytest.mark.parametrize("fn", [lambda a, b: a // b, lambda a, b: a % b, ember.fmod,
                                lambda a, b: ember.div(a, b, rounding_mode="trunc")])
def test_integer_division_by_zero_raises(fn):
    x = to_ember(np.array([1, 2, 3], dtype=np.int32))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(x, to_ember(np.array([1, 0, 1], dtype=np.int32)))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(x, 0)


def test_float_division_special_values():
    a = to_ember(np.array([1.0, -1.0, 0.0, 5.0, -5.0], dtype=np.float32))
    z = to_ember(np.zeros(5, dtype=np.float32))
    got = to_numpy(a / z)
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])
    got = to_numpy(a // z)
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])
    assert np.isnan(to_numpy(ember.fmod(a, z))).all()
    inf = to_ember(np.full(5, np.inf, dtype=np.float32))
    assert_close(ember.remainder(a, inf), np.array([1.0, np.inf, 0.0, 5.0, np.inf]))  # as torch
    assert_close(ember.fmod(a, inf), np.array([1.0, -1.0, 0.0, 5.0, -5.0]))
    f = np.array([-7.0, 7.5, -0.0, 0.5, -3.0], dtype=np.float32)
    assert_close(to_ember(f) // 2, np.floor_divide(f, 2))
    assert_close(to_ember(f) % 2, np.remainder(f, 2))
    assert np.signbit(to_numpy(to_ember(f) // 2)[2])  # -0.0 // 2 is -0.0


def test_maximum_minimum_propagate_nan():
    a = to_ember(np.array([np.nan, 1.0, 2.0], dtype=np.float32))
    b = to_ember(np.array([1.0, np.nan, 1.0], dtype=np.float32))
    assert_close(ember.maximum(a, b), np.array([np.nan, np.nan, 2.0]))
    assert_close(ember.minimum(a, b), np.array([np.nan, np.nan, 1.0]))


def test_pow_integer_rules():
    x = to_ember(np.array([1, -1, 2, 0, 3], dtype=np.int64))
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        x ** -1
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        ember.pow(x, -2)
    # a negative integer *tensor* exponent truncates, as PyTorch: 1, +-1 or 0
    assert_close(x ** to_ember(np.array(-1)), np.array([1, -1, 0, 0, 0]))
    assert_close(x ** to_ember(np.array([-2, -3, -1, -1, -2])), np.array([1, -1, 0, 0, 0]))
    assert_close(x ** 0, np.ones(5))
    assert_close(x ** 3, np.array([1, -1, 8, 0, 27]))
    u = to_ember(np.array([2, 3], dtype=np.uint8))
    assert_close(u ** 8, np.array([0, 161]))  # wraps in uint8
    assert (to_ember(np.array([True])) ** 2).dtype == ember.int64


def test_pow_float_fast_paths_match_std_pow():
    a = np.array([0.0, 0.5, 1.0, 2.0, 3.7, 10.0, np.inf, np.nan], dtype=np.float32)
    for e in [2, 3, 0.5, -0.5, -1, -2, 1, 0, 2.5, -1.5]:
        with np.errstate(all="ignore"):
            expected = np.power(a.astype(np.float64), e)
        assert_close(to_ember(a) ** e, expected, rtol=2e-6, atol=0)
    assert_close(2 ** to_ember(a[:6]), np.power(2.0, a[:6].astype(np.float64)), rtol=2e-6)
    assert_close(to_ember(a[:6]) ** to_ember(a[:6]), np.power(a[:6].astype(np.float64), a[:6]), rtol=2e-6)


def test_add_sub_alpha():
    a = _values((3, 4), ember.float32, 1)
    b = _values((4,), ember.float32, 2)
    assert_close(ember.add(to_ember(a), to_ember(b), alpha=2.5), a + 2.5 * b)
    assert_close(ember.sub(to_ember(a), to_ember(b), alpha=-2), a + 2 * b)
    assert_close(to_ember(a).add(to_ember(b), alpha=3), a + 3 * b)
    assert_close(to_ember(a).sub(3.0, alpha=2), a - 6)
    i = to_ember(np.array([1, 2], dtype=np.int64))
    assert_close(ember.add(i, i, alpha=3), np.array([4, 8]))
    assert_close(ember.add(2, i), np.array([3, 4]))
    assert_close(ember.rsub(i, 10), np.array([9, 8]))
    x = to_ember(a)
    assert x.add_(to_ember(b), alpha=0.5) is x
    assert_close(x, a + 0.5 * b)
    assert x.sub_(1, alpha=2) is x
    assert_close(x, a + 0.5 * b - 2)


# ---- in-place forms -----------------------------------------------------------------------------

INPLACE = [
    ("add_", np.add), ("sub_", np.subtract), ("mul_", np.multiply), ("div_", np.divide),
    ("remainder_", np.remainder), ("fmod_", np.fmod), ("maximum_", np.maximum), ("minimum_", np.minimum),
    ("pow_", lambda a, b: np.power(np.abs(a), b)), ("atan2_", np.arctan2),
    ("floor_divide_", np.floor_divide), ("true_divide_", np.divide),
]


@pytest.mark.parametrize("name, ref", INPLACE, ids=[n for n, _ in INPLACE])
def test_in_place_binary(name, ref):
    a = _values((3, 4), ember.float32, 1, nonzero=True)
    if name == "pow_":
        a = np.abs(a)
    b = _values((4,), ember.float32, 2, nonzero=True)
    x = to_ember(a)
    v = x._version
    y = getattr(x, name)(to_ember(b))
    assert y is x and x._version > v
    assert_close(x, ref(a.astype(np.float64), b), rtol=1e-5, atol=1e-6)
    # a number operand, on a non-contiguous view
    base = to_ember(a)
    view = base.t()
    if name in _TENSOR_OTHER_ONLY:
        # torch's signature takes `Tensor other` for these: a number is a TypeError
        with pytest.raises(TypeError, match="must be Tensor"):
            getattr(view, name)(2)
        return
    getattr(view, name)(2)
    assert_close(base, ref(a.astype(np.float64), 2.0), rtol=1e-5, atol=1e-6)


_TENSOR_OTHER_ONLY = {"maximum_", "minimum_", "atan2_"}


def test_in_place_cast_rules():
    i = to_ember(np.array([1, 2], dtype=np.int64))
    f = to_ember(np.array([1.5, 2.5], dtype=np.float32))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.add_(f)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.add_(1.5)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        i /= 2
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Bool"):
        to_ember(np.array([True])).add_(1)
    # a wider result that still casts: computed in the wider type, stored in self's
    i32 = to_ember(np.array([1, 2], dtype=np.int32))
    i32.add_(to_ember(np.array([2 ** 40, 1], dtype=np.int64)))
    assert i32.dtype == ember.int32
    assert_close(i32, np.array([1, 3]))
    h = to_ember(np.array([1.0, 2.0], dtype=np.float16))
    h.mul_(to_ember(np.array([1.5, 0.25], dtype=np.float64)))
    assert h.dtype == ember.float16
    assert_close(h, np.array([1.5, 0.5]))
    c = to_ember(np.array([1.0, 2.5], dtype=np.float32))
    assert c.eq_(to_ember(np.array([1.0, 2.0], dtype=np.float32))) is c
    assert c.dtype == ember.float32
    assert_close(c, np.array([1.0, 0.0]))


def test_in_place_shape_rules():
    x = ember.ones(3)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        x.add_(ember.ones(2, 3))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.ones(1).expand(3).mul_(2)


def test_in_place_with_overlapping_operand():
    a = np.arange(6, dtype=np.float32)
    x = to_ember(a)
    x.add_(x)  # the same view: fine
    assert_close(x, 2 * a)
    y = to_ember(a)
    y.narrow(0, 1, 5).add_(y.narrow(0, 0, 5))  # overlapping views: reads the old values
    expected = a.copy()
    expected[1:] = a[1:] + a[:5]
    assert_close(y, expected)
    z = to_ember(a)
    z.mul_(z.select(0, 2))  # a one-element view of self, read before writing
    assert_close(z, a * a[2])


# ---- operators ------------------------------------------------------------------------------------

def test_operators_values():
    a = _values((2, 3), ember.float32, 1, nonzero=True)
    b = _values((3,), ember.float32, 2, nonzero=True)
    x, y = to_ember(a), to_ember(b)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    cases = [
        (x + y, a64 + b64), (x - y, a64 - b64), (x * y, a64 * b64), (x / y, a64 / b64),
        (x // y, np.floor_divide(a64, b64)), (x % y, np.remainder(a64, b64)),
        (abs(x) ** y, np.abs(a64) ** b64), (-x, -a64), (+x, a64), (abs(x), np.abs(a64)),
        (x + 2, a64 + 2), (2 + x, 2 + a64), (x - 2, a64 - 2), (2 - x, 2 - a64), (x * 3, a64 * 3),
        (3 * x, 3 * a64), (x / 4, a64 / 4), (4 / x, 4 / a64), (x // 2, np.floor_divide(a64, 2)),
        (7 // x, np.floor_divide(7, a64)), (x % 2, np.remainder(a64, 2)), (7 % x, np.remainder(7, a64)),
        (abs(x) ** 2, a64 ** 2), (2 ** x, 2 ** a64),
        (x == y, a == b), (x != y, a != b), (x < y, a < b), (x <= y, a <= b), (x > y, a > b),
        (x >= y, a >= b), (x < 0, a < 0), (x >= 1.5, a >= 1.5),
    ]
    for got, expected in cases:
        assert_close(got, expected, rtol=1e-5, atol=1e-6)
    assert_close(2 < x, 2 < a)  # reflected by Python to x > 2


def test_in_place_operators_return_the_same_object():
    a = _values((2, 3), ember.float32, 1, nonzero=True)
    x = to_ember(a)
    ident = id(x)
    v = x._version
    x += 1
    x -= to_ember(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    x *= 2
    x /= 4
    assert id(x) == ident and x._version >= v + 4
    assert_close(x, (a + 1 - np.array([1, 2, 3])) * 2 / 4, rtol=1e-6)
    x //= 1
    x %= 3
    x **= 2
    assert id(x) == ident
    i = to_ember(np.array([12, 10], dtype=np.int32))
    ident = id(i)
    i &= 6
    i |= 1
    i ^= 2
    i <<= 1
    i >>= 1
    assert id(i) == ident
    assert_close(i, ((((np.array([12, 10]) & 6) | 1) ^ 2) << 1) >> 1)


def test_operators_with_unsupported_types_return_not_implemented():
    x = ember.ones(2)
    assert (x == None) is False  # noqa: E711  falls back to identity, as torch
    assert (x != "a") is True
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        x < None
    assert x.__add__("a") is NotImplemented


def test_tensor_is_hashable_by_identity():
    x, y = ember.ones(2), ember.ones(2)
    assert hash(x) != hash(y) or x is y
    assert len({x, y, x}) == 2
    d = {x: 1}
    assert d[x] == 1


def test_module_functions_take_a_number_first_but_not_two_numbers():
    x = to_ember(np.array([1.0, 2.0], dtype=np.float32))
    assert_close(ember.sub(10, x), np.array([9.0, 8.0]))
    assert_close(ember.div(1, x), np.array([1.0, 0.5]))
    assert_close(ember.pow(2, x), np.array([2.0, 4.0]))
    with pytest.raises(TypeError, match="at least one"):
        ember.add(1, 2)


def test_aliases():
    a = _values((3,), ember.float32, 1, nonzero=True)
    b = _values((3,), ember.float32, 2, nonzero=True)
    x, y = to_ember(a), to_ember(b)
    assert_close(ember.subtract(x, y), a - b)
    assert_close(ember.multiply(x, y), a * b)
    assert_close(ember.divide(x, y), a / b)
    assert_close(ember.divide(x, y, rounding_mode="floor"), np.floor_divide(a, b))
    assert_close(ember.true_divide(x, y), a / b)
    assert_close(ember.arctan2(x, y), np.arctan2(a, b))
    assert_close(ember.greater(x, y), a > b)
    assert_close(ember.less_equal(x, y), a <= b)
    assert_close(ember.not_equal(x, y), a != b)
    assert_close(ember.negative(x), -a)
    assert_close(ember.absolute(x), np.abs(a))


def test_small_tensor_loop_makes_no_raw_allocations():
    a, b = ember.ones(1000), ember.ones(1000)
    c = a + b
    del c
    before = ember.memory_stats()
    for _ in range(50):
        c = a * b + 1
        c = (c > 1) & (c < 3)
    after = ember.memory_stats()
    key = "num_raw_allocs"
    assert after[key] == before[key], key


def test_numpy_scalars_are_numbers_in_operators():
    x = to_ember(np.array([1.0, 2.0], dtype=np.float32))
    for v in [np.float64(2.0), np.float32(2.0), np.int64(2)]:
        assert_close(x * v, np.array([2.0, 4.0]))
        assert (x * v).dtype == ember.float32  # a number: does not widen the tensor
        assert_close(x - v, np.array([-1.0, 0.0]))
        assert_close(x < v, np.array([True, False]))
        y = x.clone()
        y += v
        assert_close(y, np.array([3.0, 4.0]))


@pytest.mark.skipif(not hasattr(ember, "as_tensor"), reason="needs ember.as_tensor (interop)")
def test_numpy_arrays_in_operators():
    x = to_ember(np.array([1.0, 2.0], dtype=np.float32))
    a = np.array([10.0, 20.0], dtype=np.float32)
    for got in [x + a, a + x]:
        assert isinstance(got, ember.Tensor)
        assert_close(got, np.array([11.0, 22.0]))
    assert_close(a - x, np.array([9.0, 18.0]))
    assert_close(x < a, np.array([True, True]))
