"""Sample helpers and conventions shared by the elementwise op database modules
(ops_elementwise.py: unary math, rounding, activations, clamp; ops_elementwise_binary.py:
arithmetic, comparisons, logical and bitwise ops, where, lerp).

Conventions:
- fn(m, ..., _inplace=False): with _inplace=True the bad-input cases call the in-place
  form on the input itself (x.exp_()), so test_errors checks that a refused in-place
  call raises torch's type and leaves its input as it was.
- "special" samples hold nan, +-inf, +-0 and large values; they never take part in the
  gradient checks (T(..., grad=False)).
- "long" samples have a few hundred elements, enough for the vectorized float32 loops
  (cpu/vec_math.h, and the 256-element blocks of sin/cos).
"""
import numpy as np

from .opinfo import (ALL, ALL_AND_BOOL, BINARY_SHAPES, FLOAT, FLOATING, INTEGRAL, TOLERANCES,
                     ErrorCase, OpInfo, Sample, T, binary_samples, is_float, make_values, unary_samples)

INTEGRAL_AND_BOOL = INTEGRAL + ("bool",)

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-6, -1e-6, 0.5, -2.5, 7.0, -30.0, 1e4]
NO_INF = [v for v in SPECIAL if v != np.inf]
# The cross product of these (as (8, 1) against (1, 8)) for the binary ops.
SPECIAL_PAIR = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 3.0]


# ---- sample helpers -----------------------------------------------------------------------------

def _vals(rng, shape, dtype, low, high):
    return make_values(rng, shape, dtype, low, high)


def _unary(low=-3.0, high=3.0, special=SPECIAL, long=True, extra=None, **kwargs):
    """unary_samples, plus a long row (vectorized loops) and, for float dtypes, the
    special values (no gradient). extra(dtype, rng) -> more Samples."""
    base = unary_samples(low, high, **kwargs)

    def make(dtype, rng):
        out = base(dtype, rng)
        if long:
            out.append(Sample((T(_vals(rng, (2, 300), dtype, low, high), dtype),), dict(kwargs), "long"))
            out.append(Sample((T(_vals(rng, (2, 300), dtype, low, high), dtype, noncontig=True),),
                              dict(kwargs), "long"))
        if special is not None and is_float(dtype):
            out.append(Sample((T(np.array(special, dtype=np.float64), dtype, grad=False),),
                              dict(kwargs), "special"))
        if extra is not None:
            out.extend(extra(dtype, rng))
        return out
    return make


def _nonzero(v, dtype):
    """v with its zeros replaced by 1 (integer divisors)."""
    if is_float(dtype):
        return v
    if dtype == "bool":
        return np.ones_like(v)
    v = np.array(v, copy=True)
    v[v == 0] = 1
    return v


def _binary(low=-3.0, high=3.0, low2=None, high2=None, int_nonzero=False, special=True,
            long=True, shapes=BINARY_SHAPES, **kwargs):
    """binary_samples with the divisor's zeros replaced for integer dtypes (int_nonzero),
    a long broadcast pair, and for float dtypes the special values' cross product."""
    low2 = low if low2 is None else low2
    high2 = high if high2 is None else high2

    def make(dtype, rng):
        out = []
        shape_sets = list(shapes) + ([[(2, 300), (300,)]] if long else [])
        for sa, sb in shape_sets:
            a = _vals(rng, sa, dtype, low, high)
            b = _vals(rng, sb, dtype, low2, high2)
            if int_nonzero:
                b = _nonzero(b, dtype)
            out.append(Sample((T(a, dtype), T(b, dtype)), dict(kwargs)))
            if a.size > 1 or b.size > 1:
                out.append(Sample((T(a, dtype, noncontig=True), T(b, dtype, noncontig=True)),
                                  dict(kwargs), "strided"))
        if special and is_float(dtype):
            s = np.array(SPECIAL_PAIR, dtype=np.float64)
            out.append(Sample((T(s[:, None], dtype, grad=False), T(s[None, :], dtype, grad=False)),
                              dict(kwargs), "special"))
        return out
    return make


# Partners of a tensor of the sample's dtype in the *_promote variants: (dtype, shape);
# dtype None is a Python number. 0-dim tensors promote only across categories (int ->
# float), as numbers do; tensors with dims promote fully.
PARTNERS = [("int32", (3, 4)), ("float64", ()), ("float32", (1, 4)), ("bool", (3, 4)),
            ("int64", ()), ("uint8", (4,)), (None, 2), (None, -1.5), (None, True)]


def _promote(partners=PARTNERS, low=-3.0, high=3.0, low2=None, high2=None, nonzero=False,
             swap=True, **kwargs):
    """self of the sample dtype, (3, 4), against each partner, in both orders (swap).
    nonzero: no zeros in either operand (integer divisors). Only float64 partners take
    part in the gradient checks (gradcheck wants float64 inputs)."""
    low2 = low if low2 is None else low2
    high2 = high if high2 is None else high2

    def make(dtype, rng):
        out = []
        xv = _vals(rng, (3, 4), dtype, low, high)
        x = T(_nonzero(xv, dtype) if nonzero else xv, dtype)
        for pdt, shape in partners:
            if pdt is None:
                other = shape
                if nonzero and other == 0:
                    continue
                out.append(Sample((x, other), dict(kwargs), "number"))
                continue
            v = _vals(rng, shape, pdt, low2, high2)
            if nonzero:
                v = _nonzero(v, pdt)
            other = T(v, pdt, grad=pdt == "float64")
            out.append(Sample((x, other), dict(kwargs), "promote"))
            if swap:
                out.append(Sample((other, x), dict(kwargs), "promote"))
        return out
    return make


def _int_only(make, fallback="int32"):
    """Samples of an integer/bool-only op: a float dtype (asked only by test_onnx, which
    always takes float32 samples) gets fallback's samples instead."""
    def wrapped(dtype, rng):
        return make(dtype if not is_float(dtype) else fallback, rng)
    return wrapped


def _t(rng, shape, dtype, low=-3.0, high=3.0, **kw):
    return T(_vals(rng, shape, dtype, low, high), dtype, **kw)


def _shape_mismatch(rng, dtype="float32", **kwargs):
    """Two operands that do not broadcast: (3, 4) and (2, 4)."""
    return ErrorCase(Sample((_t(rng, (3, 4), dtype), _t(rng, (2, 4), dtype)), dict(kwargs)),
                     RuntimeError)


def _inplace_broadcast(rng, dtype="float32"):
    """self (3, 1) in place with an other of (3, 4): the result does not fit self."""
    return ErrorCase(Sample((_t(rng, (3, 1), dtype), _t(rng, (3, 4), dtype)), {"_inplace": True}),
                     RuntimeError)


def _method(name, **fixed):
    """fn(m, self, *rest, _inplace=False, **kw): m.name(self, *rest), or self.name_(*rest)."""
    def fn(m, *args, _inplace=False, **kw):
        if _inplace:
            return getattr(args[0], name + "_")(*args[1:], **fixed, **kw)
        return getattr(m, name)(*args, **fixed, **kw)
    fn.__name__ = name
    return fn


def _inplace_of(name, **fixed):
    return lambda m, x, *rest, **kw: getattr(x, name + "_")(*rest, **fixed, **kw)


def _bad_type(rng):
    """A Python list where a tensor belongs: TypeError in both."""
    return ErrorCase(Sample(([0.5, 1.0],)), TypeError)


def with_float_result_tolerance(ops):
    """Integer and bool inputs of a float-result op (exp, true division, a float partner
    in a *_promote variant) compute and return float32, as torch: such float results get
    float32's tolerance under the integer dtype's key (integer and bool results are
    compared exactly whatever the tolerance)."""
    for op in ops:
        op.tol = {**{d: TOLERANCES["float32"] for d in INTEGRAL_AND_BOOL}, **op.tol}
    return ops
