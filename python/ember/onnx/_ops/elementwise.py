"""Elementwise ops: unary, binary, comparisons, logical and bitwise ops, where, lerp."""
import math

import numpy as np

from .._dtypes import common_dtype, is_floating, numpy_dtype, onnx_type
from .helpers import _out_dtype, _x, _k, _constant_like, _trunc, _operands
from .registry import converts


# ---- elementwise: unary ---------------------------------------------------------------
_UNARY = {"neg": "Neg", "abs": "Abs", "sign": "Sign", "exp": "Exp", "log": "Log",
          "sqrt": "Sqrt", "reciprocal": "Reciprocal", "sin": "Sin", "cos": "Cos", "tan": "Tan",
          "tanh": "Tanh", "sigmoid": "Sigmoid", "erf": "Erf", "relu": "Relu",
          "acos": "Acos", "asin": "Asin", "atan": "Atan", "sinh": "Sinh", "cosh": "Cosh",
          "asinh": "Asinh", "acosh": "Acosh", "atanh": "Atanh"}


@converts(*_UNARY)
def _unary(ctx, node):
    ctx.emit(_UNARY[node.op], [_x(ctx, node)], [ctx.out(node)])


_ROUNDING = {"floor": "Floor", "ceil": "Ceil"}


@converts("floor", "ceil", "trunc")
def _rounding(ctx, node):
    x = _x(ctx, node)
    if not is_floating(_out_dtype(ctx, node)):  # integers are whole already
        ctx.emit("Identity", [x], [ctx.out(node)])
    elif node.op == "trunc":
        _trunc(ctx, x, [ctx.out(node)])
    else:
        ctx.emit(_ROUNDING[node.op], [x], [ctx.out(node)])


@converts("round")
def _round(ctx, node):
    x, decimals = _x(ctx, node), node.attrs[0]
    if not is_floating(_out_dtype(ctx, node)):
        ctx.emit("Identity", [x], [ctx.out(node)])
    elif decimals == 0:  # Round is half to even, as ember's
        ctx.emit("Round", [x], [ctx.out(node)])
    else:
        scale = _k(ctx, node, 10.0 ** decimals)
        ctx.emit("Div", [ctx.emit("Round", [ctx.emit("Mul", [x, scale])]), scale], [ctx.out(node)])


@converts("expm1")
def _expm1(ctx, node):
    ctx.emit("Sub", [ctx.emit("Exp", [_x(ctx, node)]), _k(ctx, node, 1)], [ctx.out(node)])


@converts("log1p")
def _log1p(ctx, node):
    ctx.emit("Log", [ctx.emit("Add", [_x(ctx, node), _k(ctx, node, 1)])], [ctx.out(node)])


@converts("log2")
def _log2(ctx, node):
    ctx.emit("Div", [ctx.emit("Log", [_x(ctx, node)]), _k(ctx, node, math.log(2.0))],
             [ctx.out(node)])


@converts("rsqrt")
def _rsqrt(ctx, node):
    ctx.emit("Reciprocal", [ctx.emit("Sqrt", [_x(ctx, node)])], [ctx.out(node)])


@converts("gelu")
def _gelu(ctx, node):
    # ONNX's Gelu op needs opset 20: spell out PyTorch's two formulas.
    x = _x(ctx, node)
    if node.attrs[0] == "tanh":  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = ctx.emit("Mul", [ctx.emit("Mul", [x, x]), x])
        inner = ctx.emit("Add", [x, ctx.emit("Mul", [cube, _k(ctx, node, 0.044715)])])
        t = ctx.emit("Tanh", [ctx.emit("Mul", [inner, _k(ctx, node, math.sqrt(2.0 / math.pi))])])
    else:  # 0.5 x (1 + erf(x / sqrt(2)))
        t = ctx.emit("Erf", [ctx.emit("Mul", [x, _k(ctx, node, math.sqrt(0.5))])])
    half_x = ctx.emit("Mul", [x, _k(ctx, node, 0.5)])
    ctx.emit("Mul", [half_x, ctx.emit("Add", [t, _k(ctx, node, 1)])], [ctx.out(node)])


@converts("silu")
def _silu(ctx, node):
    x = _x(ctx, node)
    ctx.emit("Mul", [x, ctx.emit("Sigmoid", [x])], [ctx.out(node)])


@converts("softplus")
def _softplus(ctx, node):
    # softplus(beta x) / beta, and x itself where beta x > threshold (PyTorch's rule).
    x, (beta, threshold) = _x(ctx, node), node.attrs
    bx = ctx.emit("Mul", [x, _k(ctx, node, beta)])
    soft = ctx.emit("Div", [ctx.emit("Softplus", [bx]), _k(ctx, node, beta)])
    linear = ctx.emit("Greater", [bx, _k(ctx, node, threshold)])
    ctx.emit("Where", [linear, x, soft], [ctx.out(node)])


@converts("leaky_relu")
def _leaky_relu(ctx, node):
    ctx.emit("LeakyRelu", [_x(ctx, node)], [ctx.out(node)], alpha=float(node.attrs[0]))


@converts("clamp")
def _clamp(ctx, node):
    # Max/Min rather than Clip: the bounds may be tensors that broadcast.
    dt, y = _out_dtype(ctx, node), _x(ctx, node)
    if ctx.has_input(node, 1):
        y = ctx.emit("Max", [y, ctx.input(node, 1, dt)])
    if ctx.has_input(node, 2):
        y = ctx.emit("Min", [y, ctx.input(node, 2, dt)])
    ctx.emit("Identity", [y], [ctx.out(node)])


@converts("nan_to_num")
def _nan_to_num(ctx, node):
    dt = _out_dtype(ctx, node)
    x = _x(ctx, node)
    if not is_floating(dt):  # integers have no nan or inf
        return ctx.emit("Identity", [x], [ctx.out(node)])
    finfo = np.finfo(numpy_dtype(dt)) if dt != "bfloat16" else np.finfo(np.float32)
    nan, posinf, neginf = (d if v is None else v
                           for v, d in zip(node.attrs, (0.0, finfo.max, finfo.min)))
    y = ctx.emit("Where", [ctx.emit("IsNaN", [x]), _k(ctx, node, nan), x])
    y = ctx.emit("Where", [ctx.emit("IsInf", [x], detect_negative=0), _k(ctx, node, posinf), y])
    ctx.emit("Where", [ctx.emit("IsInf", [x], detect_positive=0), _k(ctx, node, neginf), y],
             [ctx.out(node)])


@converts("isnan", "isinf", "isfinite")
def _float_class(ctx, node):
    if not is_floating(ctx.dtype(node.inputs[0])):  # integers are finite numbers
        return _constant_like(ctx, node, node.op == "isfinite")
    x = ctx.input(node, 0)
    if node.op == "isnan":
        return ctx.emit("IsNaN", [x], [ctx.out(node)])
    if node.op == "isinf":
        return ctx.emit("IsInf", [x], [ctx.out(node)])
    bad = ctx.emit("Or", [ctx.emit("IsNaN", [x]), ctx.emit("IsInf", [x])])
    ctx.emit("Not", [bad], [ctx.out(node)])


@converts("logical_not")
def _logical_not(ctx, node):
    result = ctx.emit("Not", [ctx.input(node, 0, "bool")])
    ctx.emit("Cast", [result], [ctx.out(node)], to=onnx_type(_out_dtype(ctx, node)))


# ---- elementwise: binary --------------------------------------------------------------
_BINARY = {"mul": "Mul", "maximum": "Max", "minimum": "Min", "pow": "Pow"}


@converts(*_BINARY)
def _binary(ctx, node):
    op_type = _BINARY[node.op]
    if node.op == "mul" and _out_dtype(ctx, node) == "bool":
        op_type = "And"
    ctx.emit(op_type, _operands(ctx, node), [ctx.out(node)])


@converts("add", "sub")
def _add_sub(ctx, node):
    a, b = _operands(ctx, node)
    if node.attrs and node.attrs[0] != 1:  # self + alpha * other
        b = ctx.emit("Mul", [b, _k(ctx, node, node.attrs[0])])
    ctx.emit("Add" if node.op == "add" else "Sub", [a, b], [ctx.out(node)])


@converts("div")
def _div(ctx, node):
    mode, dt = node.attrs[0], _out_dtype(ctx, node)
    if mode is None:  # true division: the output is floating
        return ctx.emit("Div", _operands(ctx, node), [ctx.out(node)])
    # floor/trunc rounding: integers go through float64 (exact below 2**53).
    work = dt if is_floating(dt) else "float64"
    q = ctx.emit("Div", _operands(ctx, node, work))
    q = ctx.emit("Floor", [q]) if mode == "floor" else _trunc(ctx, q)
    ctx.emit("Cast", [q], [ctx.out(node)], to=onnx_type(dt))


@converts("remainder")
def _remainder(ctx, node):
    a, b = _operands(ctx, node)
    if not is_floating(_out_dtype(ctx, node)):  # Mod(fmod=0): the divisor's sign, as Python
        return ctx.emit("Mod", [a, b], [ctx.out(node)], fmod=0)
    floor = ctx.emit("Floor", [ctx.emit("Div", [a, b])])
    ctx.emit("Sub", [a, ctx.emit("Mul", [floor, b])], [ctx.out(node)])


@converts("fmod")
def _fmod(ctx, node):
    ctx.emit("Mod", _operands(ctx, node), [ctx.out(node)], fmod=1)


_COMPARE = {"eq": "Equal", "lt": "Less", "le": "LessOrEqual", "gt": "Greater",
            "ge": "GreaterOrEqual"}


@converts("eq", "ne", "lt", "le", "gt", "ge")
def _compare(ctx, node):
    dt = common_dtype([(ctx.dtype(v), len(ctx.sizes(v))) for v in node.inputs])
    a, b = _operands(ctx, node, dt)
    if node.op == "ne":
        return ctx.emit("Not", [ctx.emit("Equal", [a, b])], [ctx.out(node)])
    ctx.emit(_COMPARE[node.op], [a, b], [ctx.out(node)])


@converts("logical_and", "logical_or", "logical_xor")
def _logical(ctx, node):
    op_type = {"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}[node.op]
    ctx.emit(op_type, _operands(ctx, node, "bool"), [ctx.out(node)])


_BITWISE = {"bitwise_and": ("And", "BitwiseAnd"), "bitwise_or": ("Or", "BitwiseOr"),
            "bitwise_xor": ("Xor", "BitwiseXor")}


@converts(*_BITWISE)
def _bitwise(ctx, node):
    logical, bitwise = _BITWISE[node.op]
    if _out_dtype(ctx, node) == "bool":  # & | ^ on bools
        return ctx.emit(logical, _operands(ctx, node), [ctx.out(node)])
    if ctx.opset < 18:
        ctx.fail(node, f"{bitwise} on integers needs opset_version 18 or later")
    ctx.emit(bitwise, _operands(ctx, node), [ctx.out(node)])


@converts("bitwise_not")
def _bitwise_not(ctx, node):
    if _out_dtype(ctx, node) == "bool":  # ~mask
        return ctx.emit("Not", [ctx.input(node, 0)], [ctx.out(node)])
    if ctx.opset < 18:
        ctx.fail(node, "BitwiseNot on integers needs opset_version 18 or later")
    ctx.emit("BitwiseNot", [ctx.input(node, 0)], [ctx.out(node)])


@converts("where")
def _where(ctx, node):
    dt = _out_dtype(ctx, node)
    ctx.emit("Where", [ctx.input(node, 0, "bool"), ctx.input(node, 1, dt), ctx.input(node, 2, dt)],
             [ctx.out(node)])


@converts("lerp")
def _lerp(ctx, node):
    start, end, weight = _operands(ctx, node)
    step = ctx.emit("Mul", [weight, ctx.emit("Sub", [end, start])])
    ctx.emit("Add", [start, step], [ctx.out(node)])
