"""Op database entries of the elementwise group (lib/dispatch/schema/elementwise.toml).

Part 1: the math, rounding and activation rows, the arithmetic, comparison, logical and
bitwise binaries, where and lerp (neg ... lerp, threshold_backward included). Each row
is reached through torch's public name (m.exp, x.exp_(), m.nn.functional.gelu). Variants
on the same rows: "promote" (mixed operands: tensors of other dtypes, 0-dim tensors and
Python numbers, in both orders), "operator" (x + y, x // y, x << y ...), "number_*" (a
Python number operand), and the rows' attributes (alpha, rounding_mode, decimals, ...).

Conventions of this module:
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


# ---- unary math -----------------------------------------------------------------------------------

def _float_unary(name, low=-3.0, high=3.0, onnx=False, tol=None, special=SPECIAL, **kw):
    """A float-result unary row: every dtype (integers and bool compute in float32), the
    in-place form for float self, and in place on an integer tensor as the bad input
    (the float result can't be cast into it)."""
    return OpInfo(
        name, _method(name), _unary(low, high, special=special), dtypes=ALL_AND_BOOL,
        inplace=_inplace_of(name), onnx=onnx, tol=tol or {},
        errors=lambda rng: [ErrorCase(Sample((_t(rng, (3,), "int64", 1, 3),), {"_inplace": True}),
                                      RuntimeError)], **kw)


def _bool_refused(name, error=RuntimeError):
    """self of dtype bool: no kernel (torch: RuntimeError or NotImplementedError)."""
    return lambda rng: [ErrorCase(Sample((_t(rng, (3,), "bool"),)), error)]


def _sin_cos_extra(dtype, rng):
    """Rows of 300 with one argument beyond the polynomial's range in a block (that block
    takes std::sin/cos) and exact multiples of pi/2."""
    if not is_float(dtype):
        return []
    v = rng.uniform(-10, 10, (600,))
    v[37] = 1e5
    v[300] = -3e4
    v[400:410] = np.pi / 2 * np.arange(-5, 5)
    return [Sample((T(v, dtype, grad=False),), {}, "blocks")]


UNARY_MATH = [
    OpInfo("neg", _method("neg"), _unary(-128, 127), dtypes=ALL, inplace=_inplace_of("neg"),
           onnx=True, errors=_bool_refused("neg")),
    OpInfo("abs", _method("abs"), _unary(-128, 127), dtypes=ALL, inplace=_inplace_of("abs"),
           onnx=True, errors=_bool_refused("abs")),
    # (sign, floor, ceil, trunc, round: a zeros gradient, as torch's.)
    OpInfo("sign", _method("sign"), _unary(), dtypes=ALL_AND_BOOL, inplace=_inplace_of("sign"),
           onnx=True, errors=lambda rng: [_bad_type(rng)]),
    _float_unary("exp", onnx=True),
    _float_unary("expm1", onnx=True),
    _float_unary("log", 0.05, 5.0, onnx=True),
    _float_unary("log1p", -0.95, 5.0, onnx=True),
    _float_unary("log2", 0.05, 5.0, onnx=True),
    _float_unary("sqrt", 0.05, 5.0, onnx=True),
    _float_unary("rsqrt", 0.05, 5.0, onnx=True),
    _float_unary("reciprocal", 0.2, 5.0, onnx=True),
    _float_unary("reciprocal", -5.0, -0.2, variant="negative").replace(
        dtypes=FLOATING + ("int8", "int16", "int32", "int64")),
    OpInfo("sin", _method("sin"), _unary(extra=_sin_cos_extra), dtypes=ALL_AND_BOOL,
           inplace=_inplace_of("sin"), onnx=True,
           errors=lambda rng: [ErrorCase(Sample((_t(rng, (3,), "int32"),), {"_inplace": True}),
                                         RuntimeError)]),
    OpInfo("cos", _method("cos"), _unary(extra=_sin_cos_extra), dtypes=ALL_AND_BOOL,
           inplace=_inplace_of("cos"), onnx=True,
           errors=lambda rng: [ErrorCase(Sample((_t(rng, (3,), "int32"),), {"_inplace": True}),
                                         RuntimeError)]),
    _float_unary("tan", -1.4, 1.4, onnx=True),
    _float_unary("tanh", -5.0, 5.0, onnx=True),
    _float_unary("sigmoid", -8.0, 8.0, onnx=True),
    _float_unary("erf", onnx=True),
]


# ---- rounding ---------------------------------------------------------------------------------------

def _halves(dtype, rng):
    """Exact halves: round is half to even; floor/ceil/trunc of +-x.5."""
    if not is_float(dtype):
        return []
    return [Sample((T(np.arange(-5, 6) + 0.5, dtype, grad=False),), {}, "halves")]


def _rounding(name, onnx=True):
    return OpInfo(name, _method(name), _unary(-6.0, 6.0, extra=_halves), dtypes=ALL,
                  inplace=_inplace_of(name), onnx=onnx,
                  errors=_bool_refused(name))


def _round_decimals(decimals):
    def extra(dtype, rng):
        v = np.array([0.125, 0.25, -0.35, 1.005, 2.675, 15.5, -25.0, 149.9, 1234.5678])
        return [Sample((T(v, dtype, grad=False),), {"decimals": decimals}, "decimals")]
    return OpInfo("round", _method("round"), _unary(-200.0, 200.0, decimals=decimals, extra=extra),
                  dtypes=FLOATING, variant=f"decimals{decimals}",
                  inplace=_inplace_of("round"), onnx=True,
                  errors=lambda rng: [ErrorCase(Sample((_t(rng, (3,), "int64"),), {"decimals": decimals}),
                                                NotImplementedError)])


ROUNDING = [
    _rounding("floor"),
    _rounding("ceil"),
    _rounding("trunc"),
    _rounding("round"),
    _round_decimals(2),
    _round_decimals(-1),
]


# ---- activations ---------------------------------------------------------------------------------------

def _int_refused(rng, **kwargs):
    return [ErrorCase(Sample((_t(rng, (3,), "int64"),), kwargs), NotImplementedError)]


def _F(name, **fixed):
    return lambda m, x, **kw: getattr(m.nn.functional, name)(x, **fixed, **kw)


ACTIVATIONS = [
    OpInfo("relu", _method("relu"), _unary(), dtypes=ALL, inplace=_inplace_of("relu"), onnx=True,
           errors=_bool_refused("relu")),
    OpInfo("relu", _F("relu"), _unary(), dtypes=FLOATING, variant="functional",
           inplace=lambda m, x: m.nn.functional.relu(x, inplace=True)),
    # No +inf in the special values: torch's vectorized float32 gelu gives nan there (its
    # one-element path, and ember, give inf).
    OpInfo("gelu", _F("gelu"), _unary(-5.0, 5.0, special=NO_INF), dtypes=FLOATING,
           inplace=lambda m, x: m.gelu_(x),  # ember's in-place name (torch: aten.gelu_, not public)
           onnx=True,
           errors=lambda rng: _int_refused(rng) + [
               ErrorCase(Sample((_t(rng, (3,), "float32"),), {"approximate": "fast"}), RuntimeError)]),
    OpInfo("gelu", _F("gelu", approximate="tanh"), _unary(-5.0, 5.0, special=NO_INF), dtypes=FLOATING,
           variant="tanh", inplace=lambda m, x: m.gelu_(x, "tanh"), onnx=True),
    OpInfo("silu", _F("silu"), _unary(-6.0, 6.0), dtypes=FLOATING,
           inplace=lambda m, x: m.nn.functional.silu(x, inplace=True), onnx=True,
           errors=_int_refused),
    OpInfo("softplus", _F("softplus"), _unary(-25.0, 25.0), dtypes=FLOATING, onnx=True,
           errors=_int_refused),
    # beta 2, threshold 1: the linear branch from x > 0.5.
    OpInfo("softplus", _F("softplus", beta=2.0, threshold=1.0), _unary(-3.0, 3.0), dtypes=FLOATING,
           variant="beta", onnx=True),
    OpInfo("leaky_relu", _F("leaky_relu"), _unary(), dtypes=FLOATING,
           inplace=lambda m, x: m.nn.functional.leaky_relu(x, inplace=True), onnx=True,
           errors=_int_refused),
    OpInfo("leaky_relu", _F("leaky_relu", negative_slope=-0.3), _unary(), dtypes=FLOATING,
           variant="slope", inplace=lambda m, x: m.nn.functional.leaky_relu(x, -0.3, inplace=True),
           onnx=True),
]


# threshold_backward: the backward of relu (its output as self) and of threshold; reached
# through autograd, with x a fresh leaf inside fn (threshold_backward is piecewise
# constant in self) and g the gradient taken through it.
# (enable_grad: the inner autograd.grad needs a graph even when fn itself is called under
# no_grad, as gradcheck's finite differences may call it.)
def _relu_backward(m, x, g):
    with m.enable_grad():
        x = x.detach().requires_grad_()
        return m.autograd.grad(m.relu(x), x, g, create_graph=True)[0]


def _threshold_backward(m, x, g):
    with m.enable_grad():
        x = x.detach().requires_grad_()
        return m.autograd.grad(m.nn.functional.threshold(x, 0.5, -1.0), x, g, create_graph=True)[0]


def _grad_pair(dtype, rng):
    out = []
    for shape in [(3, 4), (), (0, 3), (2, 3, 2), (2, 300)]:
        x, g = _vals(rng, shape, dtype, -3, 3), _vals(rng, shape, dtype, -3, 3)
        out.append(Sample((T(x, dtype, grad=False), T(g, dtype))))
        if x.size > 1:
            out.append(Sample((T(x, dtype, noncontig=True, grad=False), T(g, dtype, noncontig=True))))
    return out


THRESHOLD_BACKWARD = [
    OpInfo("threshold_backward", _relu_backward, _grad_pair, dtypes=FLOATING, trace=False,
           errors=lambda rng: [ErrorCase(Sample((_t(rng, (3, 4), "float64"), _t(rng, (2,), "float64"))),
                                         RuntimeError)]),
    OpInfo("threshold_backward", _threshold_backward, _grad_pair, dtypes=FLOATING, trace=False,
           variant="threshold"),
]


# ---- clamp, nan_to_num, predicates ---------------------------------------------------------------

def _clamp_fn(m, x, lo=None, hi=None, _inplace=False):
    return x.clamp_(lo, hi) if _inplace else m.clamp(x, lo, hi)


def _clamp_numbers(dtype, rng):
    out = []
    x = _vals(rng, (3, 4), dtype, -3, 3)
    f = is_float(dtype)
    # An integer bound outside the dtype's range saturates (uint8 clamp(min=-1) keeps x).
    # lo > hi: everything is hi. (uint8: hi 0. ember bug: a max below the dtype's range, or a
    # min above it, saturates in ember (uint8 clamp(2, -2) gives 0) where torch raises
    # RuntimeError "Clamp max value -2 is outside the representable range of Byte".)
    neg = -1
    for lo, hi in [(-1.5 if f else neg, 1.5 if f else 2), (neg, None), (None, 0.5 if f else 1),
                   (2, 0 if dtype == "uint8" else 2 * neg)]:
        out.append(Sample((T(x, dtype), lo, hi)))
        out.append(Sample((T(x, dtype, noncontig=True), lo, hi)))
    out.append(Sample((T(_vals(rng, (), dtype, -3, 3), dtype), neg, 1)))
    out.append(Sample((T(_vals(rng, (0, 3), dtype, -3, 3), dtype), neg, 1)))
    out.append(Sample((T(_vals(rng, (2, 300), dtype, -3, 3), dtype), neg, 2)))
    if f:
        s = np.array(SPECIAL)
        out.append(Sample((T(s, dtype, grad=False), -1.0, 2.0), {}, "special"))
        # a nan bound: nan everywhere
        out.append(Sample((T(x, dtype, grad=False), np.nan, 1.0), {}, "nan bound"))
        out.append(Sample((T(x, dtype, grad=False), -1.0, np.nan), {}, "nan bound"))
    return out


def _clamp_tensors(dtype, rng):
    out = []
    for sx, sl, sh in [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((), (3, 2), ()),
                       ((0, 3), (1, 3), (3,)), ((2, 300), (300,), (2, 1))]:
        x = _vals(rng, sx, dtype, -3, 3)
        lo = _vals(rng, sl, dtype, -2, 0)
        hi = _vals(rng, sh, dtype, 0, 2)
        out.append(Sample((T(x, dtype), T(lo, dtype), T(hi, dtype))))
        if x.size > 1:
            out.append(Sample((T(x, dtype, noncontig=True), T(lo, dtype, noncontig=True),
                               T(hi, dtype, noncontig=True))))
    # one bound only; lo > hi (everything goes to hi); ties of x with a bound (halved gradients)
    x = _vals(rng, (3, 4), dtype, -3, 3)
    out.append(Sample((T(x, dtype), T(_vals(rng, (3, 4), dtype, -1, 1), dtype), None)))
    out.append(Sample((T(x, dtype), None, T(_vals(rng, (4,), dtype, -1, 1), dtype))))
    below = _vals(rng, (3, 4), dtype, -2, -1) if dtype != "uint8" else np.zeros((3, 4))
    out.append(Sample((T(x, dtype), T(_vals(rng, (3, 4), dtype, 1, 2), dtype), T(below, dtype))))
    tie = np.array([[-1.0, 0.0, 1.0, 2.0]])
    out.append(Sample((T(tie, dtype), T(np.array([-1.0, -1.0, 0.5, 0.5]), dtype),
                       T(np.array([0.0, 0.0, 1.0, 2.0]), dtype)), {}, "ties"))
    if is_float(dtype):
        s = np.array(SPECIAL)
        # a nan element of a tensor bound: nan there
        lo = np.full(s.shape, -1.0)
        lo[[1, 5]] = np.nan
        hi = np.where(np.arange(s.size) % 3 == 0, 0.5, 2.0)
        hi[[2, 7]] = np.nan
        out.append(Sample((T(s, dtype, grad=False), T(lo, dtype, grad=False), T(hi, dtype, grad=False)),
                          {}, "special"))
    return out


CLAMP = [
    OpInfo("clamp", _clamp_fn, _clamp_numbers, dtypes=ALL, variant="numbers",
           inplace=lambda m, x, lo, hi: x.clamp_(lo, hi), onnx=True,
           errors=lambda rng: [
               ErrorCase(Sample((_t(rng, (3,), "float32"), None, None)), RuntimeError),
               # (both bounds: with one tensor bound torch runs bool as maximum/minimum; ember
               # bug: ember refuses that too, so it is not a sample)
               ErrorCase(Sample((_t(rng, (3,), "bool"), _t(rng, (3,), "bool"), _t(rng, (3,), "bool"))),
                         NotImplementedError),
               ErrorCase(Sample((_t(rng, (3,), "int64"), -1.5, 1.5), {"_inplace": True}), RuntimeError)]),
    OpInfo("clamp", _clamp_fn, _clamp_tensors, dtypes=ALL, variant="tensors",
           inplace=lambda m, x, lo, hi: x.clamp_(lo, hi), onnx=True,
           errors=lambda rng: [
               ErrorCase(Sample((_t(rng, (3, 4), "float32"), _t(rng, (2, 4), "float32"), None)),
                         RuntimeError),
               ErrorCase(Sample((_t(rng, (3, 1), "float32"), _t(rng, (3, 4), "float32"), None),
                                {"_inplace": True}), RuntimeError)]),
    OpInfo("clamp", lambda m, x, lo, hi: m.clip(x, lo, hi), _clamp_numbers, dtypes=FLOAT, variant="clip"),
    OpInfo("clamp", lambda m, x, lo: m.clamp_min(x, lo),
           lambda dtype, rng: [Sample((s.args[0], s.args[1])) for s in _clamp_tensors(dtype, rng)
                               if s.args[1] is not None],
           dtypes=FLOAT, variant="clamp_min"),
]


def _nan_to_num_fn(m, x, _inplace=False, **kw):
    return x.nan_to_num_(**kw) if _inplace else m.nan_to_num(x, **kw)


NAN_TO_NUM = [
    OpInfo("nan_to_num", _nan_to_num_fn, _unary(), dtypes=ALL_AND_BOOL,
           inplace=lambda m, x, **kw: x.nan_to_num_(**kw), onnx=True,
           errors=lambda rng: [ErrorCase(Sample((_t(rng, (3,), "float32"),), {"nan": "zero"}), TypeError)]),
    OpInfo("nan_to_num", _nan_to_num_fn, _unary(nan=1.5, posinf=100.0, neginf=-7.0), dtypes=ALL_AND_BOOL,
           variant="values", inplace=lambda m, x, **kw: x.nan_to_num_(**kw), onnx=True),
]


PREDICATES = [
    OpInfo(name, _method(name), _unary(), dtypes=ALL_AND_BOOL,
           grad=False, onnx=True, errors=lambda rng: [_bad_type(rng)])
    for name in ("isnan", "isinf", "isfinite")
] + [
    OpInfo("logical_not", _method("logical_not"), _unary(), dtypes=ALL_AND_BOOL, grad=False,
           inplace=_inplace_of("logical_not"), onnx=True, errors=lambda rng: [_bad_type(rng)]),
    OpInfo("bitwise_not", _method("bitwise_not"), _int_only(_unary(-128, 127)), dtypes=INTEGRAL_AND_BOOL,
           grad=False, inplace=_inplace_of("bitwise_not"),
           errors=lambda rng: [ErrorCase(Sample((_t(rng, (3,), "float32"),)), NotImplementedError),
                               ErrorCase(Sample((_t(rng, (3,), "float32"),), {"_inplace": True}),
                                         NotImplementedError)]),
]


# ---- binary arithmetic ----------------------------------------------------------------------------------

def _binary_errors(*extra, inplace=True):
    """Shapes that do not broadcast, out of place and in place, and extra(rng) cases."""
    def errors(rng):
        out = [_shape_mismatch(rng)] + ([_inplace_broadcast(rng)] if inplace else [])
        for e in extra:
            out.extend(e(rng))
        return out
    return errors


def _int_inplace_float(rng):
    """An integer self in place with a float other: the float result can't be cast."""
    return [ErrorCase(Sample((_t(rng, (3,), "int64"), _t(rng, (3,), "float32")), {"_inplace": True}),
                      RuntimeError)]


def _ties(dtype, rng):
    """Equal elements: maximum/minimum split the gradient in halves."""
    a = np.array([[1.0, 2.0, -3.0, 0.0]])
    b = np.array([[1.0, 0.0, -3.0, 0.0]])
    return [Sample((T(a, dtype), T(b, dtype)), {}, "ties")]


def _plus(*makers):
    def make(dtype, rng):
        return [s for mk in makers for s in mk(dtype, rng)]
    return make


def _arith(name, make, dtypes=ALL, promote=None, onnx=False, errors=(), inplace=True,
           torch_inplace=True, **kw):
    """The row's OpInfo and its *_promote variant. torch_inplace: torch has the x.name_()
    method too (else the bad in-place call is left out of the errors)."""
    fn = _method(name)
    ops = [OpInfo(name, fn, make, dtypes=dtypes, onnx=onnx,
                  inplace=_inplace_of(name) if inplace else None,
                  errors=_binary_errors(*errors, inplace=torch_inplace), **kw)]
    if promote is not None:
        ops.append(OpInfo(name, fn, promote, dtypes=dtypes, variant="promote",
                          inplace=_inplace_of(name) if inplace else None, **kw))
    return ops


# torch's float16 x + alpha * y rounds alpha * y to float16 before adding (ember rounds
# once, in float): up to 2 ulp apart (e.g. -0.4287 - 3 * -1.2529: ember 3.33008, the exact
# value in float16; torch 3.32813).
HALF_ALPHA_TOL = {"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 2e-2)}


def _bool_pair_refused(rng):
    return [ErrorCase(Sample((_t(rng, (3,), "bool"), _t(rng, (3,), "bool"))), RuntimeError)]


def _pow_samples(dtype, rng):
    """Float: a positive base to any exponent, a zero base, a negative base to whole
    exponents; integers: non-negative exponents, and the negative ones (1 ** -n = 1,
    (-1) ** -n = +-1, others 0 as torch; 0 ** -n as torch's integer pow gives it)."""
    if not is_float(dtype):
        out = _binary(-3, 3, 0, 3, special=False)(dtype, rng)
        if dtype != "uint8":
            base = np.array([[-2, -1, 0, 1, 2, 3]]).T
            out.append(Sample((T(base, dtype), T(np.array([[-3, -2, -1, 0, 1, 5]]), dtype)), {}, "negative"))
        return out
    out = _binary(0.25, 3.0, -2.0, 2.0)(dtype, rng)
    # a zero base (gradients: d/db 0**b = 0 for b >= 0 and d/da a**0 = 0, as torch's)
    out.append(Sample((T(np.array([0.0, 0.0, 0.0, 2.0]), dtype),
                       T(np.array([0.0, 1.0, 2.5, 0.0]), dtype)), {}, "zero base"))
    out.append(Sample((T(np.array([-2.0, -1.5, -3.0]), dtype), T(np.array([2.0, 3.0, -1.0]), dtype)),
                      {}, "negative base"))
    return out


def _pow_number_exponents(dtype, rng):
    """Tensor ** number: the fast-path exponents (2, 3, 1, 0.5, -0.5, -1, -2) and others."""
    exps = [2, 3, 1, 0, 5] if not is_float(dtype) else [2.0, 3.0, 1.0, 0.5, -0.5, -1.0, -2.0, 1.7, 0.0, -3]
    low = 0.25 if is_float(dtype) else -3
    out = []
    for e in exps:
        out.append(Sample((_t(rng, (3, 4), dtype, low, 3.0), e)))
    out.append(Sample((_t(rng, (3, 4), dtype, low, 3.0, noncontig=True), 2)))
    out.append(Sample((_t(rng, (), dtype, low, 3.0), 3)))
    out.append(Sample((_t(rng, (2, 300), dtype, low, 3.0), 2)))
    out.append(Sample((_t(rng, (2, 300), dtype, low, 3.0), 0.5 if is_float(dtype) else 3)))
    return out


def _pow_number_base(dtype, rng):
    return [Sample((base, _t(rng, shape, dtype, -2.0, 2.0))) for base, shape in
            [(2.5, (3, 4)), (2, (3, 4)), (0.5, ()), (3, (2, 300))]]


def _div_int_zero(mode):
    return lambda rng: [ErrorCase(Sample((T(np.array([1, 2, 3]), "int64"), T(np.array([1, 0, 2]), "int64")),
                                         {"rounding_mode": mode} if mode else {}), RuntimeError)]


def _div_fn(m, x, y, _inplace=False, **kw):
    return x.div_(y, **kw) if _inplace else m.div(x, y, **kw)


def _whole_for_half(make):
    """float16/bfloat16 operands with whole values: ember rounds the exact float quotient
    (trunc/floor of a/b computed in float), torch rounds a/b to the half type first, so
    quotients within half an ulp of a whole number (|a/b| large) differ by one (e.g.
    bfloat16 2.015625 // 0.1552734375: ember 12, torch 13); whole operands in [-6, 6]
    keep every quotient at least 1/6 from the next whole number."""
    def wrapped(dtype, rng):
        samples = make(dtype, rng)
        if dtype not in ("float16", "bfloat16"):
            return samples
        def whole(a):
            if not isinstance(a, T):
                return a
            v = np.round(a.values)
            return T(v, a.dtype, a.noncontig, a.grad)
        out = []
        for s in samples:
            a, b = (whole(x) for x in s.args)
            if isinstance(b, T) and np.all(np.isfinite(b.values)):
                b = T(np.where(b.values == 0, 1.0, b.values), b.dtype, b.noncontig, b.grad)
            out.append(Sample((a, b), s.kwargs, s.name))
        return out
    return wrapped


def _rounding_div(mode):
    # (the gradient is zeros, as torch's)
    return [
        OpInfo("div", _div_fn, _whole_for_half(_binary(-6, 6, int_nonzero=True, rounding_mode=mode)),
               dtypes=ALL,
               variant=mode, inplace=lambda m, x, y, **kw: x.div_(y, **kw), onnx=True,
               errors=_binary_errors(_div_int_zero(mode), lambda rng: [
                   ErrorCase(Sample((_t(rng, (3,), "bool"), _t(rng, (3,), "bool")), {"rounding_mode": mode}),
                             NotImplementedError)])),
        OpInfo("div", _div_fn, _whole_for_half(_promote(nonzero=True, rounding_mode=mode)), dtypes=ALL,
               variant=mode + "_promote", inplace=lambda m, x, y, **kw: x.div_(y, **kw)),
    ]


def _half_scalar_rounded(**kw):
    """_promote with every partner: a float 0-dim tensor or number operand of a
    float16/bfloat16 comparison, remainder or fmod is rounded to the tensor's dtype
    first, as torch does there (bfloat16([0.1]) == 0.1 is True)."""
    return _promote(PARTNERS, **kw)


_compare_promote = _half_scalar_rounded()


def _int_zero_divisor(rng):
    return [ErrorCase(Sample((T(np.array([1, 2]), "int32"), T(np.array([0, 1]), "int32"))), RuntimeError)]


def _atan2_extra(dtype, rng):
    if not is_float(dtype):
        return []
    z = np.array([0.0, -0.0, 1.0, -1.0])
    # the signed zeros and the axes (gradient 0 at the origin, as torch takes it)
    return [Sample((T(z[:, None], dtype, grad=False), T(z[None, :], dtype, grad=False)), {}, "zeros")]


BINARY = (
    _arith("add", _binary(-128, 127), ALL_AND_BOOL, _promote(), onnx=True)
    + [OpInfo("add", lambda m, x, y: m.add(x, y, alpha=2), binary_samples(), dtypes=FLOAT,
              variant="alpha"),
       OpInfo("add", lambda m, x, y, **kw: m.add(x, y, **kw), _binary(alpha=-0.5), dtypes=FLOATING,
              variant="float_alpha", tol=HALF_ALPHA_TOL, onnx=True,
              inplace=lambda m, x, y, **kw: x.add_(y, **kw),
              errors=lambda rng: [ErrorCase(Sample((_t(rng, (3,), "int64"), _t(rng, (3,), "int64")),
                                                   {"alpha": 0.5}), RuntimeError)]),
       OpInfo("add", lambda m, x, y: x + y, _promote(), dtypes=ALL_AND_BOOL, variant="operator")]
    + _arith("sub", _binary(-128, 127), ALL, _promote(PARTNERS[:3] + PARTNERS[4:8]), onnx=True,
             errors=[_bool_pair_refused])
    + [OpInfo("sub", lambda m, x, y, **kw: m.sub(x, y, **kw), _binary(alpha=3), dtypes=ALL,
              variant="alpha", tol=HALF_ALPHA_TOL, onnx=True,
              inplace=lambda m, x, y, **kw: x.sub_(y, **kw)),
       OpInfo("sub", lambda m, x, y: x - y, _promote(PARTNERS[:3] + PARTNERS[4:8]), dtypes=ALL,
              variant="operator")]
    + _arith("mul", _binary(-128, 127), ALL_AND_BOOL, _promote(), onnx=True,
             errors=[_int_inplace_float])
    + [OpInfo("mul", lambda m, x, y: x * y, _promote(), dtypes=ALL_AND_BOOL, variant="operator")]
    + [OpInfo("div", _div_fn, _binary(), dtypes=ALL_AND_BOOL,
              inplace=lambda m, x, y: x.div_(y), onnx=True,
              errors=_binary_errors(_int_inplace_float, lambda rng: [
                  ErrorCase(Sample((_t(rng, (3,), "float32"), _t(rng, (3,), "float32")),
                                   {"rounding_mode": "round"}), RuntimeError)])),
       OpInfo("div", _div_fn, _promote(nonzero=True), dtypes=ALL_AND_BOOL, variant="promote",
              inplace=lambda m, x, y: x.div_(y)),
       OpInfo("div", lambda m, x, y: x / y, _promote(nonzero=True), dtypes=ALL_AND_BOOL, variant="operator")]
    + _rounding_div("floor") + _rounding_div("trunc")
    + [OpInfo("div", lambda m, x, y: x // y, _whole_for_half(_promote(nonzero=True)), dtypes=ALL,
              variant="floordiv_operator",
              grad=False)]  # torch: "derivative for aten::floor_divide is not implemented"
    + _arith("remainder", _binary(-6, 6, int_nonzero=True), ALL, _half_scalar_rounded(nonzero=True),
             onnx=True,
             errors=[_bool_pair_refused, _int_zero_divisor])
    + [OpInfo("remainder", lambda m, x, y: x % y, _half_scalar_rounded(nonzero=True), dtypes=ALL,
              variant="operator")]
    + _arith("fmod", _binary(-6, 6, int_nonzero=True), ALL, _half_scalar_rounded(nonzero=True),
             onnx=True,
             errors=[_bool_pair_refused, _int_zero_divisor])
    + [OpInfo("pow", _method("pow"), _pow_samples, dtypes=ALL, inplace=_inplace_of("pow"), onnx=True,
              errors=_binary_errors(_bool_pair_refused, lambda rng: [
                  ErrorCase(Sample((_t(rng, (3,), "int64"), -2)), RuntimeError)])),
       OpInfo("pow", _method("pow"), _pow_number_exponents, dtypes=ALL, variant="number_exponent",
              inplace=_inplace_of("pow"), onnx=True),
       OpInfo("pow", _method("pow"), _pow_number_base, dtypes=ALL, variant="number_base"),
       # (partners in [0, 2]: integer partners hold zero bases; no negative exponents of integers)
       OpInfo("pow", lambda m, x, y: x ** y, _promote(PARTNERS[:3] + PARTNERS[4:8], 0.25, 3.0, 0, 2),
              dtypes=ALL, variant="promote")]
    # (x.maximum_ / x.minimum_ are ember's; torch has no such methods)
    + _arith("maximum", _plus(_binary(), _ties), ALL_AND_BOOL,
             _promote([p for p in PARTNERS if p[0] is not None]), onnx=True, torch_inplace=False)
    + _arith("minimum", _plus(_binary(), _ties), ALL_AND_BOOL,
             _promote([p for p in PARTNERS if p[0] is not None]), onnx=True, torch_inplace=False)
    # No bool or uint8 partner in atan2_promote: torch's backward negates the other operand in
    # its own dtype (bool: raises; uint8: wraps around, a wrong gradient).
    + _arith("atan2", _plus(_binary(), _atan2_extra), ALL_AND_BOOL,
             _promote([p for p in PARTNERS if p[0] not in (None, "bool", "uint8")]),
             errors=[_int_inplace_float])
)


# ---- comparisons, logical and bitwise ops ---------------------------------------------------------

def _compare_samples(dtype, rng):
    """Small integer-valued ranges so that equal elements occur."""
    return _binary(-2, 2)(dtype, rng) if not is_float(dtype) else [
        Sample(tuple(T(np.round(a.values), dtype, a.noncontig, a.grad) if np.all(np.isfinite(a.values))
                     else a for a in s.args), s.kwargs, s.name)
        for s in _binary(-2, 2)(dtype, rng)]


def _comparison(name, onnx):
    return [
        OpInfo(name, _method(name), _compare_samples, dtypes=ALL_AND_BOOL, grad=False,
               inplace=_inplace_of(name), onnx=onnx, errors=_binary_errors()),
        OpInfo(name, _method(name), _compare_promote, dtypes=ALL_AND_BOOL, grad=False, variant="promote",
               inplace=_inplace_of(name)),
    ]


_OPERATORS = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
              "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}

COMPARISONS = [op for name in ("eq", "ne", "lt", "le", "gt", "ge") for op in _comparison(name, True)] + [
    OpInfo(name, (lambda f: lambda m, x, y: f(x, y))(f), _compare_promote, dtypes=ALL_AND_BOOL, grad=False,
           variant="operator")
    for name, f in _OPERATORS.items()]


def _logical(name):
    return [
        OpInfo(name, _method(name), _compare_samples, dtypes=ALL_AND_BOOL, grad=False,
               inplace=_inplace_of(name), onnx=True, errors=_binary_errors()),
        OpInfo(name, _method(name), _promote([p for p in PARTNERS if p[0] is not None]),
               dtypes=ALL_AND_BOOL, grad=False, variant="promote", inplace=_inplace_of(name)),
    ]


LOGICAL = [op for name in ("logical_and", "logical_or", "logical_xor") for op in _logical(name)]


INT_PARTNERS = [("int32", (3, 4)), ("int64", ()), ("uint8", (4,)), ("bool", (3, 4)), ("int8", (1, 4)),
                (None, 5), (None, True)]


def _float_refused(rng):
    # (in place, torch refuses the float result's cast into self first: RuntimeError)
    return [ErrorCase(Sample((_t(rng, (3,), "float32"), _t(rng, (3,), "int64"))), NotImplementedError),
            ErrorCase(Sample((_t(rng, (3,), "int64"), _t(rng, (3,), "float32")), {"_inplace": True}),
                      RuntimeError)]


def _bitwise(name, onnx, operator):
    return [
        # test_onnx takes bool samples: ember.onnx.export's default opset (17) exports the
        # integer forms (BitwiseAnd ...) only from opset 18, bools as And/Or/Xor.
        OpInfo(name, _method(name), _int_only(_binary(-128, 127), "bool"), dtypes=INTEGRAL_AND_BOOL,
               grad=False, inplace=_inplace_of(name), onnx=onnx, errors=_binary_errors(_float_refused)),
        OpInfo(name, _method(name), _promote(INT_PARTNERS, -128, 127), dtypes=INTEGRAL_AND_BOOL, grad=False,
               variant="promote", inplace=_inplace_of(name)),
        OpInfo(name, lambda m, x, y: operator(x, y), _promote(INT_PARTNERS, -128, 127),
               dtypes=INTEGRAL_AND_BOOL, grad=False, variant="operator"),
    ]


def _shift_samples(dtype, rng):
    """Shift amounts in and beyond the type's width, and negative ones (torch gives 0,
    or -1 for a negative value shifted right)."""
    out = _binary(-128, 127, 0, 7, special=False)(dtype, rng)
    x = np.array([[1, -1, 100, -128, 127, 3, 0, -5, 64]]).T
    if dtype == "uint8":
        x = np.abs(x) % 256
    amounts = np.array([[-1, 0, 1, 7, 8, 15, 16, 31, 32, 63, 64, 100]])
    out.append(Sample((T(x, dtype), T(amounts if dtype != "uint8" else np.abs(amounts), dtype)), {},
                      "out of range"))
    return out


def _shift(name, operator):
    return [
        OpInfo(name, _method(name), _int_only(_shift_samples), dtypes=INTEGRAL, grad=False,
               inplace=_inplace_of(name),
               errors=_binary_errors(_float_refused, lambda rng: [ErrorCase(
                   Sample((_t(rng, (3,), "bool"), _t(rng, (3,), "bool"))), RuntimeError)])),
        OpInfo(name, lambda m, x, y: operator(x, y),
               _promote([p for p in INT_PARTNERS if p[0] != "bool" and p[1] is not True], -128, 127, 0, 5,
                        swap=False),
               dtypes=INTEGRAL, grad=False, variant="operator"),
    ]


BITWISE = (_bitwise("bitwise_and", True, lambda x, y: x & y)
           + _bitwise("bitwise_or", True, lambda x, y: x | y)
           + _bitwise("bitwise_xor", True, lambda x, y: x ^ y)
           + _shift("bitwise_left_shift", lambda x, y: x << y)
           + _shift("bitwise_right_shift", lambda x, y: x >> y))


# ---- where, lerp ---------------------------------------------------------------------------------------

WHERE_SHAPES = [((3, 4), (3, 4), (3, 4)), ((3, 1), (1, 4), (3, 4)), ((3, 4), (), (4,)),
                ((), (2, 3), (2, 3)), ((0, 3), (1, 3), (3,)), ((2, 3, 2), (3, 2), (2, 1, 1)),
                ((2, 300), (300,), (2, 1)), ((), (), ())]


def _where_samples(dtype, rng):
    out = []
    for sc, sa, sb in WHERE_SHAPES:
        c = rng.random(sc) < 0.5
        a, b = _vals(rng, sa, dtype, -3, 3), _vals(rng, sb, dtype, -3, 3)
        out.append(Sample((T(c, "bool"), T(a, dtype), T(b, dtype))))
        if c.size > 1 or a.size > 1:
            out.append(Sample((T(c, "bool", noncontig=True), T(a, dtype, noncontig=True),
                               T(b, dtype, noncontig=True))))
    if is_float(dtype):
        s = np.array(SPECIAL)
        out.append(Sample((T(np.arange(s.size) % 2 == 0, "bool"), T(s, dtype, grad=False),
                           T(s[::-1].copy(), dtype, grad=False)), {}, "special"))
    return out


def _where_promote(dtype, rng):
    out = []
    c = T(rng.random((3, 4)) < 0.5, "bool")
    x = _t(rng, (3, 4), dtype)
    for pdt, shape in PARTNERS:
        other = shape if pdt is None else _t(rng, shape, pdt)
        out.append(Sample((c, x, other), {}, "promote"))
        out.append(Sample((c, other, x), {}, "promote"))
    return out


WHERE = [
    OpInfo("where", lambda m, c, x, y: m.where(c, x, y), _where_samples, dtypes=ALL_AND_BOOL, onnx=True,
           errors=lambda rng: [
               ErrorCase(Sample((_t(rng, (3,), "float32"), _t(rng, (3,), "float32"),
                                 _t(rng, (3,), "float32"))), RuntimeError),
               ErrorCase(Sample((T(np.array([True, False, True]), "bool"), _t(rng, (3,), "float32"),
                                 _t(rng, (2,), "float32"))), RuntimeError)]),
    OpInfo("where", lambda m, c, x, y: m.where(c, x, y), _where_promote, dtypes=ALL_AND_BOOL,
           variant="promote"),
    OpInfo("where", lambda m, c, x, y: x.where(c, y), _where_samples, dtypes=FLOAT, variant="method"),
]


LERP_SHAPES = [((3, 4), (3, 4), (3, 4)), ((3, 1), (1, 4), (4,)), ((3, 4), (), ()), ((), (), ()),
               ((0, 3), (1, 3), (3,)), ((2, 3, 2), (3, 2), (2, 1, 1)), ((2, 300), (300,), (2, 300))]


def _lerp_samples(dtype, rng):
    """Weights in [-1, 2]: both of torch's branches (below and from 0.5) and extrapolation."""
    out = []
    for ss, se, sw in LERP_SHAPES:
        s, e = _vals(rng, ss, dtype, -3, 3), _vals(rng, se, dtype, -3, 3)
        w = _vals(rng, sw, dtype, -1, 2)
        out.append(Sample((T(s, dtype), T(e, dtype), T(w, dtype))))
        if s.size > 1 or e.size > 1:
            out.append(Sample((T(s, dtype, noncontig=True), T(e, dtype, noncontig=True),
                               T(w, dtype, noncontig=True))))
    return out


def _lerp_number(dtype, rng):
    out = []
    for shape_s, shape_e, w in [((3, 4), (3, 4), 0.3), ((3, 4), (4,), 0.75), ((), (3, 2), 1.5),
                                ((2, 300), (300,), 0.5), ((2, 300), (2, 300), 0.2)]:
        out.append(Sample((_t(rng, shape_s, dtype), _t(rng, shape_e, dtype), w)))
        out.append(Sample((_t(rng, shape_s, dtype, noncontig=True),
                           _t(rng, shape_e, dtype, noncontig=True), w)))
    return out


def _lerp_fn(m, s, e, w, _inplace=False):
    return s.lerp_(e, w) if _inplace else m.lerp(s, e, w)


LERP = [
    OpInfo("lerp", _lerp_fn, _lerp_samples, dtypes=FLOATING, onnx=True,
           inplace=lambda m, s, e, w: s.lerp_(e, w),
           errors=lambda rng: [
               ErrorCase(Sample((_t(rng, (3,), "int64"), _t(rng, (3,), "int64"), 0.5)), RuntimeError),
               ErrorCase(Sample((_t(rng, (3,), "float32"), _t(rng, (3,), "float64"), 0.5)), RuntimeError),
               ErrorCase(Sample((_t(rng, (3,), "float32"), _t(rng, (2,), "float32"), 0.5)), RuntimeError),
               ErrorCase(Sample((_t(rng, (3, 1), "float32"), _t(rng, (3, 4), "float32"), 0.5),
                                {"_inplace": True}), RuntimeError)]),
    OpInfo("lerp", _lerp_fn, _lerp_number, dtypes=FLOATING, variant="number_weight",
           inplace=lambda m, s, e, w: s.lerp_(e, w), onnx=True),
]


# ---- other helpers' rows (kept here from the framework's example) ---------------------------------------

OTHERS = [
    OpInfo("hypot", lambda m, x, y: m.hypot(x, y), binary_samples(), dtypes=FLOATING,
           inplace=lambda m, x, y: x.hypot_(y),
           errors=lambda rng: [ErrorCase(Sample((T(rng.integers(0, 3, (2,)), "int64"),
                                                 T(rng.integers(0, 3, (2,)), "int64"))),
                                         RuntimeError)]),
    OpInfo("elu", lambda m, x: m.nn.functional.elu(x, alpha=0.7), unary_samples(), dtypes=FLOATING),
]


PART1 = (UNARY_MATH + ROUNDING + ACTIVATIONS + THRESHOLD_BACKWARD + CLAMP + NAN_TO_NUM + PREDICATES + BINARY
         + COMPARISONS + LOGICAL + BITWISE + WHERE + LERP)

# Integer and bool inputs of a float-result op (exp, true division, a float partner in a
# *_promote variant) compute and return float32, as torch: such float results get float32's
# tolerance under the integer dtype's key (integer and bool results are compared exactly
# whatever the tolerance).
for _op in PART1:
    _op.tol = {**{d: TOLERANCES["float32"] for d in INTEGRAL_AND_BOOL}, **_op.tol}

OPS = PART1 + OTHERS
