"""Op database entries of the elementwise group's unary rows (lib/dispatch/schema/
elementwise.toml): the math, rounding and activation rows, threshold_backward, clamp,
nan_to_num and the predicates. Each row is reached through torch's public name (m.exp,
x.exp_(), m.nn.functional.gelu). Sample helpers and conventions: elementwise_samples.py;
the binary rows: ops_elementwise_binary.py; the special functions: ops_elementwise_extra.py.
"""
import numpy as np

from .elementwise_samples import (
    ALL, ALL_AND_BOOL, ErrorCase, FLOAT, FLOATING, INTEGRAL_AND_BOOL, is_float, NO_INF, OpInfo,
    Sample, SPECIAL, T, with_float_result_tolerance, _bad_type, _inplace_of, _int_only, _method,
    _t, _unary, _vals)


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


OPS = with_float_result_tolerance(
    UNARY_MATH + ROUNDING + ACTIVATIONS + THRESHOLD_BACKWARD + CLAMP + NAN_TO_NUM + PREDICATES)
