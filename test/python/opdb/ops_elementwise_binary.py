"""Op database entries of the elementwise group's binary and ternary rows (lib/dispatch/
schema/elementwise.toml): arithmetic, comparisons, logical and bitwise ops, where and
lerp. Variants on the same rows: "promote" (mixed operands: tensors of other dtypes, 0-dim
tensors and Python numbers, in both orders), "operator" (x + y, x // y, x << y ...),
"number_*" (a Python number operand), and the rows' attributes (alpha, rounding_mode, ...).
Sample helpers and conventions: elementwise_samples.py.
"""
import numpy as np

from .elementwise_samples import (
    ALL, ALL_AND_BOOL, binary_samples, ErrorCase, FLOAT, FLOATING, INTEGRAL, INTEGRAL_AND_BOOL,
    is_float, OpInfo, PARTNERS, Sample, SPECIAL, T, with_float_result_tolerance, _binary,
    _inplace_broadcast, _inplace_of, _int_only, _method, _promote, _shape_mismatch, _t, _vals)


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


OPS = with_float_result_tolerance(BINARY + COMPARISONS + LOGICAL + BITWISE + WHERE + LERP)
