"""Op database entries of the elementwise group (lib/dispatch/schema/elementwise.toml):
the extra activations (elu family, hard gates, shrinks, threshold) and their backward
rows, the special functions (inverse trigonometric and hyperbolic, erfc, erfinv,
lgamma, digamma, polygamma, i0, i1, ...) and the special binary ops (hypot,
logaddexp, copysign, fmax, xlogy, heaviside, gcd, lcm, nextafter).

Several fns take a keyword `_inplace=True` used only by the error cases: the bad call
is then the in-place method on the sample's own tensor, so test_errors also checks
that a refused in-place call leaves self unchanged."""
import numpy as np

import ember

from .opinfo import (ALL_AND_BOOL, FLOAT, FLOATING, HALF, INTEGRAL, SIGNED, TOLERANCES, ErrorCase,
                     OpInfo, Sample, T, binary_samples, layouts, make_values, unary_samples)

F32_TOL = TOLERANCES["float32"]


def _int_tol(dtypes):
    """Integer and bool inputs of a float-only op compute and return float32 (as torch):
    their results get float32's tolerance instead of the exact match integers get."""
    return {d: F32_TOL for d in dtypes if d not in FLOATING}


def _ints(shape, low, high, rng):
    return rng.integers(low, high + 1, size=shape).astype(np.int64)


def _at_points(make, points, pair=False):
    """make's samples plus one of the given points (self; pair: with a grad_output too),
    last, so that gradcheck (the first small samples) keeps off them."""
    def wrapped(dtype, rng):
        out = make(dtype, rng)
        v = np.array(points, dtype=np.float64)
        args = (T(v, dtype), T(make_values(rng, v.shape, dtype), dtype)) if pair else (T(v, dtype),)
        out.append(Sample(args, name="points"))
        return out
    return wrapped


def _around(lambd):
    """+-lambd as each float dtype rounds it, and values just inside and outside."""
    ts = [float(ember.tensor([lambd], dtype=getattr(ember, d)).double().item())
          for d in ("bfloat16", "float16", "float32")]
    vals = sorted(set(ts + [lambd, lambd * 0.999, lambd * 1.001]))
    return vals + [-v for v in vals]


# ---- error cases -------------------------------------------------------------------------

def _int_input(rng):
    """A float-only op on an int64 tensor: NotImplementedError (a RuntimeError) in torch."""
    return ErrorCase(Sample((T(_ints((3,), -3, 3, rng), "int64"),)), RuntimeError)


def _bool_input(rng):
    return ErrorCase(Sample((T(rng.random((3,)) < 0.5, "bool"),)), RuntimeError)


def _inplace_int(rng, low=0, high=1):
    """x.op_() on an int64 x: the float result cannot be written back (RuntimeError)."""
    return ErrorCase(Sample((T(_ints((3,), low, high, rng), "int64"),), {"_inplace": True}),
                     RuntimeError)


def _not_a_tensor():
    return ErrorCase(Sample((2.0,)), TypeError)


def _binary_shape_mismatch(rng, dtype="float32"):
    return ErrorCase(Sample((T(make_values(rng, (3,), dtype), dtype),
                             T(make_values(rng, (4,), dtype), dtype))), RuntimeError)


def _binary_inplace_broadcast(rng, dtype="float32"):
    """x.op_(y) where the broadcast shape is not self's: RuntimeError."""
    return ErrorCase(Sample((T(make_values(rng, (3, 1), dtype, 0.5, 2), dtype),
                             T(make_values(rng, (1, 4), dtype, 0.5, 2), dtype)), {"_inplace": True}),
                     RuntimeError)


# ---- activations ---------------------------------------------------------------------------

def _act_fn(name, **kw):
    """F.name(x, **kw); with _inplace, the same call with inplace=True on x itself."""
    def fn(m, x, _inplace=False, **over):
        f = getattr(m.nn.functional, name)
        args = {**kw, **over}
        return f(x, inplace=True, **args) if _inplace else f(x, **args)
    return fn


def _act_inplace(name, **kw):
    return lambda m, x: getattr(m.nn.functional, name)(x, inplace=True, **kw)


def _act_errors(rng):
    return [_int_input(rng)]


HARDTANH_INT = INTEGRAL  # integer bounds outside the dtype's range saturate (uint8: min -1 is 0)

ACTIVATIONS = [
    OpInfo("elu", _act_fn("elu", alpha=0.7), unary_samples(), dtypes=FLOATING,
           inplace=_act_inplace("elu", alpha=0.7), onnx=True,
           errors=lambda rng: [_int_input(rng), ErrorCase(Sample(
               (T(_ints((3,), -3, 3, rng), "int64"),), {"_inplace": True}), RuntimeError)]),
    OpInfo("elu", lambda m, x: m.nn.functional.elu_(x.clone()), unary_samples(), dtypes=FLOATING,
           variant="elu_", trace=False),
    OpInfo("elu", _act_fn("selu"), unary_samples(), dtypes=FLOATING, variant="selu",
           inplace=_act_inplace("selu"), onnx=True, errors=_act_errors),
    OpInfo("elu", _act_fn("celu", alpha=1.5), unary_samples(), dtypes=FLOATING, variant="celu",
           inplace=_act_inplace("celu", alpha=1.5), onnx=True,
           errors=lambda rng: [_int_input(rng), ErrorCase(Sample(
               (T(make_values(rng, (3,), "float32"), "float32"),), {"alpha": 0.0}), RuntimeError)]),
    OpInfo("hardtanh", _act_fn("hardtanh", min_val=-1.5, max_val=2.0), unary_samples(),
           dtypes=FLOATING + HARDTANH_INT, inplace=_act_inplace("hardtanh", min_val=-1.5, max_val=2.0),
           onnx=True,
           errors=lambda rng: [_bool_input(rng), ErrorCase(Sample(
               (T(make_values(rng, (3,), "float32"), "float32"),), {"min_val": 2.0, "max_val": 1.0}),
               ValueError)]),
    OpInfo("hardtanh", _act_fn("hardtanh", min_val=1.0, max_val=2.5), unary_samples(0, 4),
           dtypes=("uint8",), variant="uint8", inplace=_act_inplace("hardtanh", min_val=1.0, max_val=2.5),
           grad=False),
    OpInfo("hardtanh", _act_fn("hardtanh"), unary_samples(), dtypes=FLOATING + INTEGRAL,
           variant="default", inplace=_act_inplace("hardtanh")),
    OpInfo("hardtanh", _act_fn("relu6"), unary_samples(-4, 8), dtypes=FLOATING + INTEGRAL,
           variant="relu6", inplace=_act_inplace("relu6"), onnx=True, errors=lambda rng: [_bool_input(rng)]),
    OpInfo("hardsigmoid", _act_fn("hardsigmoid"), unary_samples(-4, 4), dtypes=FLOATING,
           inplace=_act_inplace("hardsigmoid"), onnx=True, errors=_act_errors),
    OpInfo("hardswish", _act_fn("hardswish"), _at_points(unary_samples(-4, 4), (-3.0, 3.0, -2.5, 0.0)),
           dtypes=FLOATING,
           inplace=_act_inplace("hardswish"), onnx=True, errors=_act_errors),
    OpInfo("mish", _act_fn("mish"), unary_samples(-4, 4), dtypes=FLOATING,
           inplace=_act_inplace("mish"), onnx=True, errors=_act_errors),
    OpInfo("logsigmoid", lambda m, x: m.nn.functional.logsigmoid(x), unary_samples(-5, 5),
           dtypes=FLOATING, onnx=True, errors=_act_errors),
    OpInfo("softshrink", lambda m, x, **kw: m.nn.functional.softshrink(x, **kw), unary_samples(),
           dtypes=FLOATING, onnx=True,
           errors=lambda rng: [_int_input(rng), ErrorCase(Sample(
               (T(make_values(rng, (3,), "float32"), "float32"),), {"lambd": -1.0}), RuntimeError)]),
    # lambd 1.2, rounded to the input's dtype first (hardshrink(bfloat16 -1.203125, 1.2) is 0):
    # the points sample holds +-lambd as each dtype rounds it.
    OpInfo("softshrink", lambda m, x: m.nn.functional.softshrink(x, 1.2), _at_points(unary_samples(), _around(1.2)),
           dtypes=FLOATING, variant="lambd", onnx=True),
    OpInfo("hardshrink", lambda m, x: m.nn.functional.hardshrink(x), unary_samples(), dtypes=FLOATING,
           onnx=True, errors=_act_errors),
    OpInfo("hardshrink", lambda m, x: m.nn.functional.hardshrink(x, 1.2), _at_points(unary_samples(), _around(1.2)),
           dtypes=FLOATING, variant="lambd", onnx=True),
    # A threshold or value outside an integer dtype's range (uint8 with value=-2) raises
    # RuntimeError "value cannot be converted to type uint8_t without overflow" (in place:
    # self unchanged). uint8 is claimed with in-range values (the "uint8" row).
    OpInfo("threshold", _act_fn("threshold", threshold=0.5, value=-2.0), unary_samples(),
           dtypes=FLOATING + SIGNED, inplace=_act_inplace("threshold", threshold=0.5, value=-2.0),
           onnx=True, errors=lambda rng: [
               _bool_input(rng),
               ErrorCase(Sample((T(_ints((3,), 0, 3, rng), "uint8"),)), RuntimeError),
               ErrorCase(Sample((T(_ints((3,), 0, 3, rng), "uint8"),), {"_inplace": True}), RuntimeError),
               ErrorCase(Sample((T(_ints((3,), -3, 3, rng), "int8"),), {"threshold": 300, "value": 1}),
                         RuntimeError)]),
    OpInfo("threshold", lambda m, x: m.nn.functional.threshold_(x.clone(), 1, 7), unary_samples(),
           dtypes=FLOAT + INTEGRAL, variant="threshold_", trace=False),
    OpInfo("threshold", _act_fn("threshold", threshold=1, value=7), unary_samples(0, 4),
           dtypes=("uint8",), variant="uint8", grad=False,
           inplace=_act_inplace("threshold", threshold=1, value=7)),
]


# ---- backward rows, reached through autograd -------------------------------------------------------

def _same_shape_pairs(low=-3.0, high=3.0):
    """(self, grad_output) of one shape: the standard unary shapes, contiguous and strided."""
    def make(dtype, rng):
        shapes = [[s[0], s[0]] for s in [[(3, 4)], [()], [(0, 3)], [(2, 3, 2)]]]
        out = []
        for x, g in layouts(rng, shapes, dtype, low, high):
            out.append(Sample((x, g)))
        return out
    return make


def _backward_fn(forward):
    """The gradient of forward(m, x) for grad_output g, with a graph (create_graph), so
    the backward row's own derivative is checked too. x takes part in the graph as it
    is when it already requires grad (the gradient tests), else as a detached leaf."""
    def fn(m, x, g):
        with m.enable_grad():  # gradcheck evaluates fn under no_grad too
            xx = x if x.requires_grad else x.detach().requires_grad_()
            return m.autograd.grad(forward(m, xx), xx, g, create_graph=True)[0]
    return fn


def _backward_errors(rng):
    """A grad_output of another shape than the output: RuntimeError."""
    return [ErrorCase(Sample((T(make_values(rng, (3,), "float32"), "float32"),
                              T(make_values(rng, (4,), "float32"), "float32"))), RuntimeError)]


def _bw(name, forward, samples=None, variant="", **kw):
    return OpInfo(name, _backward_fn(forward), samples or _same_shape_pairs(), dtypes=FLOATING,
                  variant=variant, trace=False, errors=_backward_errors, **kw)


F_ = lambda name, *a, **kw: (lambda m, x: getattr(m.nn.functional, name)(x, *a, **kw))  # noqa: E731

# hardtanh_backward and hardshrink_backward are piecewise constant in self: torch's
# derivative for self is an explicit zeros tensor, ember's none (no gradient), which
# test_gradients takes for zeros.

BACKWARDS = [
    _bw("elu_backward", F_("elu", alpha=0.7)),
    _bw("elu_backward", F_("selu"), variant="selu"),
    _bw("elu_backward", F_("celu", alpha=1.5), variant="celu"),
    _bw("hardtanh_backward", F_("hardtanh", -1.5, 2.0), _same_shape_pairs()),
    _bw("hardtanh_backward", F_("relu6"), _same_shape_pairs(-4, 8), variant="relu6"),
    # torch has no derivative for hardsigmoid_backward ("derivative for
    # aten::hardsigmoid_backward is not implemented"): nothing to compare ember's with
    _bw("hardsigmoid_backward", F_("hardsigmoid"), _same_shape_pairs(-4, 4), grad=False),
    # the derivative at x = -3 and x = 3 is 0 and 1 (torch's): the points sample
    _bw("hardswish_backward", F_("hardswish"),
        _at_points(_same_shape_pairs(-4, 4), (-3.0, 3.0, -2.5, 0.0), pair=True)),
    # float16: torch's kernel rounds its intermediates to float16 and is up to 2 ulp
    # off the exact value; ember computes in float32 and rounds once (nearer to it)
    _bw("mish_backward", F_("mish"), _same_shape_pairs(-4, 4), tol={"float16": (4e-3, 1e-3)}),
    _bw("logsigmoid_backward", F_("logsigmoid"), _same_shape_pairs(-5, 5)),
    # the erf form's derivative has a zero near x = -0.75 (values there compared absolutely)
    _bw("gelu_backward", F_("gelu"), _same_shape_pairs(-5, 5)),
    _bw("gelu_backward", F_("gelu", approximate="tanh"), _same_shape_pairs(-5, 5), variant="tanh"),
    _bw("hardshrink_backward", F_("hardshrink", 0.7), _at_points(_same_shape_pairs(), _around(0.7), pair=True)),
]


# ---- unary special functions ---------------------------------------------------------------------

def _unary_fn(name, lib_fn=None):
    """m.name(x) (or lib_fn(m, x)); with _inplace, x.name_() on x itself."""
    def fn(m, x, _inplace=False):
        if _inplace:
            return getattr(x, name + "_")()
        return lib_fn(m, x) if lib_fn else getattr(m, name)(x)
    return fn


def _special_samples(low, high, extra=()):
    """The standard unary samples in [low, high) for every dtype (integers: the
    integers in that range), plus, for float dtypes, one sample of the given values."""
    base = unary_samples(low, high)

    def make(dtype, rng):
        out = base(dtype, rng)
        if extra and dtype in FLOATING:
            out.append(Sample((T(np.array(extra, dtype=np.float64), dtype),), name="points"))
        return out
    return make


FLOAT_IN = ALL_AND_BOOL  # float-only unary ops take every dtype and give float32 for the others


def _special(name, low, high, extra=(), tol=None, lib_fn=None, **kw):
    t = _int_tol(FLOAT_IN)
    t.update(tol or {})
    return OpInfo(name, _unary_fn(name, lib_fn), _special_samples(low, high, extra), dtypes=FLOAT_IN,
                  inplace=lambda m, x: getattr(x, name + "_")(), tol=t,
                  errors=lambda rng: [_inplace_int(rng)], **kw)


UNARY_SPECIAL = [
    _special("acos", -0.95, 0.95, onnx=True),
    _special("asin", -0.95, 0.95, onnx=True),
    _special("atan", -3, 3, onnx=True),
    _special("sinh", -3, 3, onnx=True),
    _special("cosh", -3, 3, onnx=True),
    _special("asinh", -3, 3, onnx=True),
    _special("acosh", 1.05, 4, onnx=True),
    _special("atanh", -0.95, 0.95, onnx=True),
    _special("erfc", -3, 3),
    _special("erfinv", -0.95, 0.95),
    _special("lgamma", 0.1, 5, extra=(-2.5, -0.5, 0.5, 1.0, 2.0, 10.5)),
    _special("digamma", 0.1, 5, extra=(-2.5, -0.5, 0.5, 1.0, 2.0, 10.5)),
    _special("log10", 0.1, 5),
    _special("exp2", -3, 3),
    _special("sinc", -3, 3, extra=(-2.0, -0.5, 0.0, 0.25, 1.0, 3.5)),
    _special("i0", -3, 3),
    OpInfo("special_i1", lambda m, x: m.special.i1(x), _special_samples(-3, 3, (-2.0, 0.0, 0.5, 5.0)),
           dtypes=FLOAT_IN, tol=_int_tol(FLOAT_IN), errors=lambda rng: [_not_a_tensor()]),
    OpInfo("polygamma", lambda m, x, n=1, _inplace=False: x.polygamma_(n) if _inplace else m.polygamma(n, x),
           _special_samples(0.2, 5, (0.5, 1.0, 2.5, 7.0)), dtypes=FLOAT_IN, tol=_int_tol(FLOAT_IN),
           inplace=lambda m, x: x.polygamma_(1),
           errors=lambda rng: [_inplace_int(rng, 1, 3),
                               ErrorCase(Sample((T(make_values(rng, (3,), "float32", 0.5, 2), "float32"),),
                                                {"n": -1}), RuntimeError)]),
    OpInfo("polygamma", lambda m, x: m.polygamma(2, x), _special_samples(0.2, 5, (0.5, 1.0, 2.5, 7.0)),
           dtypes=FLOATING, variant="n2", inplace=lambda m, x: x.polygamma_(2)),
    OpInfo("polygamma", lambda m, x: m.polygamma(0, x), _special_samples(0.2, 5), dtypes=FLOAT,
           variant="n0", inplace=lambda m, x: x.polygamma_(0)),
    OpInfo("frac", _unary_fn("frac"), _special_samples(-3, 3, (-2.5, -1.0, -0.0, 0.0, 0.75, 4.0)),
           dtypes=FLOATING, inplace=lambda m, x: x.frac_(), errors=lambda rng: [_int_input(rng)]),
    OpInfo("signbit", lambda m, x: m.signbit(x),
           _special_samples(-3, 3, (-0.0, 0.0, -1.0, 2.0, float("inf"), float("-inf"))),
           dtypes=ALL_AND_BOOL, grad=False, errors=lambda rng: [_not_a_tensor()]),
    OpInfo("signbit", lambda m, x: x.signbit(), unary_samples(), dtypes=FLOAT, variant="method",
           grad=False),
]


# ---- binary special functions --------------------------------------------------------------------

def _binary_fn(name):
    """m.name(x, y); with _inplace, x.name_(y) on x itself."""
    def fn(m, x, y, _inplace=False):
        return getattr(x, name + "_")(y) if _inplace else getattr(m, name)(x, y)
    return fn


def _with_nan_sample(base, size=(5, 5), tie=True):
    """base's samples, plus, for float dtypes, a pair with NaNs in both operands and
    (tie) one pair of equal elements (25 elements, so gradcheck, which would see NaN
    differences, leaves it out)."""
    def make(dtype, rng):
        out = base(dtype, rng)
        if dtype in FLOATING:
            a = make_values(rng, size, dtype)
            b = make_values(rng, size, dtype)
            a[0, :2] = np.nan
            b[0, 1:3] = np.nan
            if tie:
                b[1, 0] = a[1, 0]
            out.append(Sample((T(a, dtype), T(b, dtype)), name="nan"))
        return out
    return make


def _xlogy_samples(dtype, rng):
    out = binary_samples(-3, 3, low2=0.1, high2=3)(dtype, rng)
    if dtype in HALF + ("float32",):
        # zeros: xlogy(0, y) is 0 for every y but NaN, x log 0 is -inf (not for gradcheck,
        # whose finite differences at x = 0, y = 0 are NaN)
        out.append(Sample((T(np.array([0.0, 0.0, 1.0, 2.0, 0.0, -1.0]), dtype),
                           T(np.array([0.0, 2.0, 0.0, 3.0, 1.0, 0.0]), dtype)), name="zeros"))
    return out


def _heaviside_samples(dtype, rng):
    out = []
    for x, v in layouts(rng, [[(3, 4), (3, 4)], [(3, 1), (1, 4)], [(), (3, 2)], [(0, 4), (1, 4)],
                              [(2, 3, 4), (4,)]], dtype):
        xv = x.values
        if dtype in FLOATING:  # zeros, where heaviside takes values (integer samples have some)
            xv = np.where(np.abs(xv) < 1.0, 0.0, xv)
        out.append(Sample((T(xv, dtype, x.noncontig), v)))
    return out


def _float_only_errors(rng):
    return [ErrorCase(Sample((T(_ints((3,), -3, 3, rng), "int64"), T(_ints((3,), -3, 3, rng), "int64"))),
                      RuntimeError),
            _binary_shape_mismatch(rng)]


BINARY_SPECIAL = [
    OpInfo("hypot", _binary_fn("hypot"), binary_samples(), dtypes=FLOATING,
           inplace=lambda m, x, y: x.hypot_(y),
           errors=lambda rng: _float_only_errors(rng) + [_binary_inplace_broadcast(rng)]),
    OpInfo("logaddexp", lambda m, x, y: m.logaddexp(x, y), _with_nan_sample(binary_samples(-5, 5)),
           dtypes=FLOATING, errors=_float_only_errors),
    OpInfo("logaddexp", lambda m, x, y: x.logaddexp(y), binary_samples(), dtypes=FLOAT,
           variant="method"),
    OpInfo("logaddexp2", lambda m, x, y: m.logaddexp2(x, y), _with_nan_sample(binary_samples(-5, 5)),
           dtypes=FLOATING, errors=_float_only_errors),
    OpInfo("copysign", _binary_fn("copysign"), binary_samples(), dtypes=ALL_AND_BOOL,
           tol=_int_tol(ALL_AND_BOOL),
           inplace=lambda m, x, y: x.copysign_(y),
           errors=lambda rng: [_binary_shape_mismatch(rng), _binary_inplace_broadcast(rng)]),
    OpInfo("copysign", lambda m, x: m.copysign(x, -1.5), unary_samples(), dtypes=FLOAT, variant="scalar",
           inplace=lambda m, x: x.copysign_(-1.5)),
    OpInfo("fmax", lambda m, x, y: m.fmax(x, y), _with_nan_sample(binary_samples()), dtypes=ALL_AND_BOOL,
           errors=lambda rng: [_binary_shape_mismatch(rng)]),
    OpInfo("fmin", lambda m, x, y: m.fmin(x, y), _with_nan_sample(binary_samples()), dtypes=ALL_AND_BOOL,
           errors=lambda rng: [_binary_shape_mismatch(rng)]),
    OpInfo("xlogy", _binary_fn("xlogy"), _xlogy_samples, dtypes=ALL_AND_BOOL, tol=_int_tol(ALL_AND_BOOL),
           inplace=lambda m, x, y: x.xlogy_(y),
           errors=lambda rng: [_binary_shape_mismatch(rng), _binary_inplace_broadcast(rng)]),
    OpInfo("xlogy", lambda m, x: m.xlogy(x, 2.5), unary_samples(), dtypes=FLOAT, variant="scalar_other",
           inplace=lambda m, x: x.xlogy_(2.5)),
    OpInfo("xlogy", lambda m, y: m.xlogy(1.5, y), unary_samples(0.1, 3), dtypes=FLOAT, variant="scalar_self"),
    # derivative "-": a backward through heaviside raises in ember and in torch
    OpInfo("heaviside", _binary_fn("heaviside"), _heaviside_samples, dtypes=ALL_AND_BOOL, grad=False,
           inplace=lambda m, x, y: x.heaviside_(y),
           errors=lambda rng: [ErrorCase(Sample((T(make_values(rng, (3,), "float32"), "float32"),
                                                 T(make_values(rng, (3,), "float64"), "float64"))),
                                         RuntimeError),
                               _binary_shape_mismatch(rng), _binary_inplace_broadcast(rng)]),
    OpInfo("gcd", _binary_fn("gcd"), binary_samples(-30, 30), dtypes=INTEGRAL, grad=False,
           inplace=lambda m, x, y: x.gcd_(y),
           errors=lambda rng: [ErrorCase(Sample((T(make_values(rng, (3,), "float32"), "float32"),
                                                 T(make_values(rng, (3,), "float32"), "float32"))),
                                         RuntimeError),
                               _binary_shape_mismatch(rng, "int64"), _binary_inplace_broadcast(rng, "int64")]),
    # values in [-10, 10]: their lcm fits int8 (no overflow)
    OpInfo("lcm", _binary_fn("lcm"), binary_samples(-10, 10), dtypes=INTEGRAL, grad=False,
           inplace=lambda m, x, y: x.lcm_(y),
           errors=lambda rng: [ErrorCase(Sample((T(rng.random((3,)) < 0.5, "bool"),
                                                 T(rng.random((3,)) < 0.5, "bool"))), RuntimeError),
                               _binary_shape_mismatch(rng, "int64"), _binary_inplace_broadcast(rng, "int64")]),
    # the derivative for self is 0 where self == other (the tie of the nan sample), as torch's
    OpInfo("nextafter", _binary_fn("nextafter"), _with_nan_sample(binary_samples()),
           dtypes=FLOATING,
           tol={d: (0, 0) for d in FLOATING},  # one ulp is the whole result: exact
           inplace=lambda m, x, y: x.nextafter_(y),
           errors=lambda rng: _float_only_errors(rng) + [_binary_inplace_broadcast(rng)]),
]

OPS = ACTIVATIONS + BACKWARDS + UNARY_SPECIAL + BINARY_SPECIAL
