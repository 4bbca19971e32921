"""ember graph nodes as ONNX nodes: one converter per ember op (a row of
lib/dispatch/ops/*.def), in a table keyed by the op's name.

A converter gets the export context and the node, reads the node's tensor inputs and
its attrs (positional, exactly as the op function put them in the OpCall) and emits
ONNX nodes that write ctx.out(node, i). ember records every view and expand with the
sizes it had when traced, and the converters use the traced output sizes where ONNX
wants a shape (ctx.ints turns the ones that follow a dynamic axis into computed ones).

In-place nodes (add_, masked_fill_, copy_ into a preset) become the functional op: the
node's output is a new value. A node whose first input is left out (-1) writes a fresh
tensor (zeros() is fill_, x.to(dtype) is copy_): it becomes the op that produces it.
"""
import math

import numpy as np

from ._dtypes import common_dtype, is_floating, numpy_dtype, onnx_type
from ._dynamic import has_affine

CONVERTERS = {}


def converts(*ops):
    def register(fn):
        for op in ops:
            CONVERTERS[op] = fn
        return fn
    return register


# Ops whose output shares its input's storage.
VIEW_OPS = {"view", "as_strided", "transpose", "permute", "expand", "squeeze", "unsqueeze",
            "slice", "select", "alias"}


def convert_node(ctx, node):
    fn = CONVERTERS.get(node.op)
    if fn is None:
        ctx.fail(node, "this op has no ONNX conversion")
    # An in-place write becomes a new value: right as long as nothing reads the old
    # storage (the written tensor, its base, another view of it) afterwards.
    for vid in node.preset:
        later = ctx.read_after_write(vid, VIEW_OPS)
        if later is not None:
            reader = "the graph's output" if later == len(ctx.graph_nodes) else f"node {later}"
            ctx.fail(node, f"it writes in place into a tensor whose storage {reader} reads "
                     f"afterwards through another view; ONNX graphs have no views")
    fn(ctx, node)


# ---- small helpers ------------------------------------------------------------------
def _out_dtype(ctx, node, i=0):
    return ctx.dtype(node.outputs[i])


def _out_sizes(ctx, node, i=0):
    return ctx.sizes(node.outputs[i])


def _static_sizes(ctx, node, i=0):
    """The output's sizes where the converter computes with them in Python."""
    return ctx.static(_out_sizes(ctx, node, i))


def _ndim(ctx, node, i=0):
    return len(ctx.sizes(node.inputs[i]))


def _wrap(dim, ndim):
    return dim + ndim if dim < 0 else dim


def _x(ctx, node):
    """Input 0 cast to the output's dtype: elementwise ops compute in their result type."""
    return ctx.input(node, 0, _out_dtype(ctx, node))


def _k(ctx, node, value):
    """A 0-dim constant of the node's output dtype."""
    return ctx.scalar(value, _out_dtype(ctx, node))


def _reduce(ctx, op_type, x, axes, keepdim, outputs=None):
    """Reduce* over axes; ReduceSum takes axes as an input since opset 13, the others
    since opset 18 (an attribute before)."""
    outputs = outputs and [outputs]
    if not axes:  # a 0-dim input: nothing to reduce
        return ctx.emit("Identity", [x], outputs)
    if op_type == "ReduceSum" or ctx.opset >= 18:
        return ctx.emit(op_type, [x, ctx.ints(axes, "axes")], outputs, keepdims=int(keepdim))
    return ctx.emit(op_type, [x], outputs, axes=list(axes), keepdims=int(keepdim))


def _constant_like(ctx, node, value):
    """A tensor of the output's sizes and dtype filled with value."""
    fill = np.asarray(value, dtype=numpy_dtype(_out_dtype(ctx, node)))
    ctx.filled(_out_sizes(ctx, node), fill, ctx.out(node))


def _trunc(ctx, x, outputs=None):
    """x rounded toward zero (ONNX has no Trunc): |x| floored, its sign restored."""
    whole = ctx.emit("Floor", [ctx.emit("Abs", [x])])
    return ctx.emit("Mul", [ctx.emit("Sign", [x]), whole], outputs)


def _shaped(ctx, node, x):
    """x (already in the output dtype) broadcast to the output's sizes, as the output."""
    if ctx.sizes(node.inputs[-1]) == _out_sizes(ctx, node):
        return ctx.emit("Identity", [x], [ctx.out(node)])
    return ctx.emit("Expand", [x, ctx.ints(_out_sizes(ctx, node), "shape")], [ctx.out(node)])


# ---- elementwise: unary ---------------------------------------------------------------
_UNARY = {"neg": "Neg", "abs": "Abs", "sign": "Sign", "exp": "Exp", "log": "Log",
          "sqrt": "Sqrt", "reciprocal": "Reciprocal", "sin": "Sin", "cos": "Cos", "tan": "Tan",
          "tanh": "Tanh", "sigmoid": "Sigmoid", "erf": "Erf", "relu": "Relu"}


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


def _operands(ctx, node, dtype=None):
    dtype = dtype or _out_dtype(ctx, node)
    return [ctx.input(node, i, dtype) for i in range(len(node.inputs))]


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


# ---- linear algebra, convolution, pooling ---------------------------------------------
@converts("mm", "bmm", "dot")
def _matmul(ctx, node):
    ctx.emit("MatMul", _operands(ctx, node), [ctx.out(node)])


@converts("mv")
def _mv(ctx, node):
    # As a matrix product with a [K, 1] column: onnxruntime 1.31's Transpose+MatMul
    # fusion computes A.t() @ v wrong when v is 1-D.
    mat, vec = _operands(ctx, node)
    column = ctx.emit("Unsqueeze", [vec, ctx.ints([1], "axes")])
    ctx.emit("Squeeze", [ctx.emit("MatMul", [mat, column]), ctx.ints([1], "axes")],
             [ctx.out(node)])


@converts("addmm")
def _addmm(ctx, node):
    bias, mat1, mat2 = _operands(ctx, node)
    beta, alpha = node.attrs
    ctx.emit("Gemm", [mat1, mat2, bias], [ctx.out(node)], alpha=float(alpha), beta=float(beta))


def _conv_inputs(ctx, node):
    names = [ctx.input(node, 0), ctx.input(node, 1)]
    if ctx.has_input(node, 2):
        names.append(ctx.input(node, 2))
    return names


@converts("conv2d")
def _conv2d(ctx, node):
    stride, pad, dilation, groups = node.attrs
    kernel = list(ctx.sizes(node.inputs[1])[2:])
    ctx.emit("Conv", _conv_inputs(ctx, node), [ctx.out(node)], kernel_shape=kernel,
             strides=list(stride), pads=list(pad) * 2, dilations=list(dilation), group=groups)


@converts("conv_transpose2d")
def _conv_transpose2d(ctx, node):
    stride, pad, output_padding, groups, dilation = node.attrs
    kernel = list(ctx.sizes(node.inputs[1])[2:])
    ctx.emit("ConvTranspose", _conv_inputs(ctx, node), [ctx.out(node)], kernel_shape=kernel,
             strides=list(stride), pads=list(pad) * 2, output_padding=list(output_padding),
             dilations=list(dilation), group=groups)


@converts("max_pool2d", "max_pool2d_with_indices")
def _max_pool2d(ctx, node):
    kernel, stride, pad, dilation, ceil_mode = node.attrs
    attrs = dict(kernel_shape=list(kernel), strides=list(stride), pads=list(pad) * 2,
                 dilations=list(dilation), ceil_mode=int(ceil_mode))
    x = ctx.input(node, 0)
    if node.op == "max_pool2d":
        return ctx.emit("MaxPool", [x], [ctx.out(node)], **attrs)
    # ONNX counts the indices across the whole tensor, ember within each plane (h * W + w).
    values, flat = ctx.emit("MaxPool", [x], [ctx.out(node, 0), ctx.fresh("indices")], **attrs)
    height, width = ctx.static(ctx.sizes(node.inputs[0])[2:], "plane size")
    plane = ctx.const(np.asarray(height * width, dtype=np.int64), "plane")
    ctx.emit("Mod", [flat, plane], [ctx.out(node, 1)])


@converts("avg_pool2d")
def _avg_pool2d(ctx, node):
    kernel, stride, pad, ceil_mode, count_include_pad, divisor_override = node.attrs
    if divisor_override is not None:
        ctx.fail(node, "AveragePool has no divisor_override")
    ctx.emit("AveragePool", [ctx.input(node, 0)], [ctx.out(node)], kernel_shape=list(kernel),
             strides=list(stride), pads=list(pad) * 2, ceil_mode=int(ceil_mode),
             count_include_pad=int(count_include_pad))


@converts("adaptive_avg_pool2d")
def _adaptive_avg_pool2d(ctx, node):
    out_h, out_w = node.attrs[0]
    in_h, in_w = ctx.static(ctx.sizes(node.inputs[0])[2:])
    x = ctx.input(node, 0)
    if (out_h, out_w) == (1, 1):
        return ctx.emit("GlobalAveragePool", [x], [ctx.out(node)])
    if out_h == 0 or out_w == 0 or in_h % out_h or in_w % out_w:
        ctx.fail(node, f"an output size {out_h}x{out_w} that does not divide the input's "
                 f"{in_h}x{in_w} has no fixed pooling window")
    kernel = [in_h // out_h, in_w // out_w]
    ctx.emit("AveragePool", [x], [ctx.out(node)], kernel_shape=kernel, strides=kernel)


# ---- nn --------------------------------------------------------------------------------
def _param_or_fill(ctx, node, i, sizes, value):
    """Optional weight/bias input i, or a constant of the given sizes where left out."""
    if ctx.has_input(node, i):
        return ctx.input(node, i)
    dtype = numpy_dtype(ctx.dtype(node.inputs[0]))
    return ctx.const(np.full(ctx.static(sizes), value, dtype=dtype),
                     "ones" if value == 1 else "zeros")


@converts("batch_norm")
def _batch_norm(ctx, node):
    training, _momentum, eps = node.attrs
    if training:
        ctx.fail(node, "batch norm in training mode updates its running statistics; call "
                 ".eval() before exporting")
    channels = [ctx.sizes(node.inputs[0])[1]]
    ctx.emit("BatchNormalization",
             [ctx.input(node, 0), _param_or_fill(ctx, node, 3, channels, 1),
              _param_or_fill(ctx, node, 4, channels, 0), ctx.input(node, 1), ctx.input(node, 2)],
             [ctx.out(node)], epsilon=float(eps))


@converts("layer_norm")
def _layer_norm(ctx, node):
    normalized_shape, eps = node.attrs
    shape = list(normalized_shape)
    ctx.emit("LayerNormalization",
             [ctx.input(node, 0), _param_or_fill(ctx, node, 1, shape, 1),
              _param_or_fill(ctx, node, 2, shape, 0)],
             [ctx.out(node)], axis=-len(shape), epsilon=float(eps))


@converts("group_norm")
def _group_norm(ctx, node):
    # No GroupNormalization below opset 21 with PyTorch's per-channel affine: normalize
    # [N, G, rest] over its last dim, then scale and shift per channel.
    groups, eps = node.attrs
    sizes = ctx.sizes(node.inputs[0])
    channels = ctx.static(sizes[1], "channel count")
    x = ctx.input(node, 0)
    grouped = ctx.emit("Reshape", [x, ctx.ints([sizes[0], groups, -1], "shape")])
    mean = _reduce(ctx, "ReduceMean", grouped, [2], True)
    dev = ctx.emit("Sub", [grouped, mean])
    var = _reduce(ctx, "ReduceMean", ctx.emit("Mul", [dev, dev]), [2], True)
    std = ctx.emit("Sqrt", [ctx.emit("Add", [var, _k(ctx, node, eps)])])
    y = ctx.emit("Reshape", [ctx.emit("Div", [dev, std]), ctx.ints(sizes, "shape")])
    for i, op_type in ((1, "Mul"), (2, "Add")):  # weight, bias: [C] as [C, 1, ...]
        if ctx.has_input(node, i):
            per_channel = ctx.ints([channels] + [1] * (len(sizes) - 2), "shape")
            y = ctx.emit(op_type, [y, ctx.emit("Reshape", [ctx.input(node, i), per_channel])])
    ctx.emit("Identity", [y], [ctx.out(node)])


@converts("interpolate")
def _interpolate(ctx, node):
    out_sizes, mode, align_corners, *scales = node.attrs
    x, sizes = ctx.input(node, 0), ctx.sizes(node.inputs[0])
    if any(s is not None for s in scales):  # the scale PyTorch computes source indices with
        args = ["", ctx.const(np.asarray([1.0, 1.0] + list(scales), dtype=np.float32), "scales")]
    else:
        args = ["", "", ctx.ints(list(sizes[:2]) + list(out_sizes), "sizes")]
    if mode == "nearest":
        attrs = dict(mode="nearest", coordinate_transformation_mode="asymmetric",
                     nearest_mode="floor")
    else:
        attrs = dict(mode="linear", coordinate_transformation_mode="align_corners"
                     if align_corners else "pytorch_half_pixel")
    ctx.emit("Resize", [x] + args, [ctx.out(node)], **attrs)


@converts("one_hot")
def _one_hot(ctx, node):
    depth = ctx.const(np.asarray(_out_sizes(ctx, node)[-1], dtype=np.int64), "depth")
    off_on = ctx.const(np.asarray([0, 1], dtype=numpy_dtype(_out_dtype(ctx, node))), "values")
    ctx.emit("OneHot", [ctx.input(node, 0), depth, off_on], [ctx.out(node)], axis=-1)


@converts("dropout")
def _dropout(ctx, node):
    ctx.fail(node, "dropout in training mode draws random numbers; call .eval() before "
             "exporting (in eval mode dropout records no node)")


@converts("embedding")
def _embedding(ctx, node):
    ctx.emit("Gather", [ctx.input(node, 0), ctx.input(node, 1)], [ctx.out(node)], axis=0)


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}


@converts("pad")
def _pad(ctx, node):
    pad, mode, value = node.attrs
    if mode not in _PAD_MODES:
        ctx.fail(node, f"padding mode {mode!r} has no ONNX Pad mode")
    ndim = _ndim(ctx, node)
    begins, ends = [0] * ndim, [0] * ndim
    for k in range(len(pad) // 2):  # torch order: the last dim's pair first
        begins[ndim - 1 - k], ends[ndim - 1 - k] = pad[2 * k], pad[2 * k + 1]
    inputs = [ctx.input(node, 0), ctx.ints(begins + ends, "pads")]
    if mode == "constant":
        inputs.append(_k(ctx, node, value))
    ctx.emit("Pad", inputs, [ctx.out(node)], mode=_PAD_MODES[mode])


# ---- reductions ------------------------------------------------------------------------
_REDUCE = {"sum": "ReduceSum", "mean": "ReduceMean", "prod": "ReduceProd", "amax": "ReduceMax",
           "amin": "ReduceMin", "logsumexp": "ReduceLogSumExp"}


@converts(*_REDUCE)
def _reduction(ctx, node):
    dims, keepdim = node.attrs[0], node.attrs[1]
    _reduce(ctx, _REDUCE[node.op], _x(ctx, node), list(dims), keepdim, ctx.out(node))


@converts("any", "all")
def _any_all(ctx, node):
    # Reduce* take no bool: the truth values as int32, reduced by max (any) or min (all).
    dims, keepdim = node.attrs
    truth = ctx.emit("Cast", [ctx.input(node, 0, "bool")], to=onnx_type("int32"))
    r = _reduce(ctx, "ReduceMax" if node.op == "any" else "ReduceMin", truth, list(dims), keepdim)
    ctx.emit("Cast", [r], [ctx.out(node)], to=onnx_type(_out_dtype(ctx, node)))


@converts("count_nonzero")
def _count_nonzero(ctx, node):
    nonzero = ctx.emit("Cast", [ctx.input(node, 0, "bool")], to=onnx_type("int64"))
    _reduce(ctx, "ReduceSum", nonzero, list(node.attrs[0]), False, ctx.out(node))


@converts("max_dim", "min_dim")
def _max_min_dim(ctx, node):
    dim, keepdim = node.attrs
    x = ctx.input(node, 0)
    _reduce(ctx, "ReduceMax" if node.op == "max_dim" else "ReduceMin", x, [dim], keepdim,
            ctx.out(node, 0))
    ctx.emit("ArgMax" if node.op == "max_dim" else "ArgMin", [x], [ctx.out(node, 1)], axis=dim,
             keepdims=int(keepdim))


@converts("argmax", "argmin")
def _argmax(ctx, node):
    dim, keepdim = node.attrs
    op_type = "ArgMax" if node.op == "argmax" else "ArgMin"
    x = ctx.input(node, 0)
    if dim is not None:
        return ctx.emit(op_type, [x], [ctx.out(node)], axis=dim, keepdims=int(keepdim))
    # No dim: the index into the flattened tensor, shaped as the traced output.
    flat = ctx.emit("Reshape", [x, ctx.ints([-1], "shape")])
    index = ctx.emit(op_type, [flat], axis=0, keepdims=0)
    ctx.emit("Reshape", [index, ctx.ints(_out_sizes(ctx, node), "shape")], [ctx.out(node)])


def _denominator(ctx, node, reduced, correction):
    """max(n - correction, 0) for n the number of reduced elements, as a 0-dim constant,
    or computed where a reduced size follows the dynamic size."""
    if not has_affine(reduced):
        return _k(ctx, node, float(max(int(np.prod(reduced)) - correction, 0)))
    count = ctx.emit("Cast", [ctx.emit("ReduceProd", [ctx.ints(reduced)], keepdims=0)],
                     to=onnx_type(_out_dtype(ctx, node)))
    return ctx.emit("Max", [ctx.emit("Sub", [count, _k(ctx, node, correction)]), _k(ctx, node, 0)])


def _moments(ctx, node, with_mean):
    """(variance, mean or None) of input 0 over the node's dims (var/std/var_mean/std_mean)."""
    dims, correction, keepdim = node.attrs
    x, sizes = ctx.input(node, 0), ctx.sizes(node.inputs[0])
    mean = _reduce(ctx, "ReduceMean", x, list(dims), True)
    dev = ctx.emit("Sub", [x, mean])
    ss = _reduce(ctx, "ReduceSum", ctx.emit("Mul", [dev, dev]), list(dims), keepdim)
    # n <= correction divides by zero: inf or nan, as ember.
    var = ctx.emit("Div", [ss, _denominator(ctx, node, [sizes[d] for d in dims], correction)])
    if not with_mean:
        return var, None
    return var, mean if keepdim else _reduce(ctx, "ReduceMean", x, list(dims), False)


@converts("var", "std", "var_mean", "std_mean")
def _var_std(ctx, node):
    var, mean = _moments(ctx, node, with_mean=node.op.endswith("_mean"))
    spread = ctx.emit("Sqrt", [var]) if node.op.startswith("std") else var
    ctx.emit("Identity", [spread], [ctx.out(node, 0)])
    if mean is not None:
        ctx.emit("Identity", [mean], [ctx.out(node, 1)])


@converts("norm")
def _norm(ctx, node):
    p, dims, keepdim, _dtype = node.attrs
    x, dims = _x(ctx, node), list(dims)
    if p in (1, 2):
        return _reduce(ctx, f"ReduceL{int(p)}", x, dims, keepdim, ctx.out(node))
    if math.isinf(p):
        return _reduce(ctx, "ReduceMax" if p > 0 else "ReduceMin", ctx.emit("Abs", [x]), dims,
                       keepdim, ctx.out(node))
    if p == 0:
        nonzero = ctx.emit("Cast", [ctx.emit("Cast", [x], to=onnx_type("bool"))],
                           to=onnx_type(_out_dtype(ctx, node)))
        return _reduce(ctx, "ReduceSum", nonzero, dims, keepdim, ctx.out(node))
    powered = ctx.emit("Pow", [ctx.emit("Abs", [x]), _k(ctx, node, p)])
    total = _reduce(ctx, "ReduceSum", powered, dims, keepdim)
    ctx.emit("Pow", [total, _k(ctx, node, 1.0 / p)], [ctx.out(node)])


@converts("cumsum")
def _cumsum(ctx, node):
    axis = ctx.const(np.asarray(node.attrs[0], dtype=np.int64), "axis")
    ctx.emit("CumSum", [_x(ctx, node), axis], [ctx.out(node)])


@converts("softmax", "log_softmax")
def _softmax(ctx, node):
    op_type = "Softmax" if node.op == "softmax" else "LogSoftmax"
    ctx.emit(op_type, [_x(ctx, node)], [ctx.out(node)], axis=node.attrs[0])


# ---- views -----------------------------------------------------------------------------
@converts("view")
def _view(ctx, node):
    sizes = _out_sizes(ctx, node)
    attrs = {"allowzero": 1} if 0 in sizes else {}  # else a 0 means "keep this dim"
    ctx.emit("Reshape", [ctx.input(node, 0), ctx.ints(sizes, "shape")], [ctx.out(node)], **attrs)


@converts("alias")
def _alias(ctx, node):
    ctx.emit("Identity", [ctx.input(node, 0)], [ctx.out(node)])


@converts("transpose")
def _transpose(ctx, node):
    ndim = _ndim(ctx, node)
    d0, d1 = (_wrap(d, ndim) for d in node.attrs)
    perm = list(range(ndim))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    ctx.emit("Transpose", [ctx.input(node, 0)], [ctx.out(node)], perm=perm)


@converts("permute")
def _permute(ctx, node):
    ndim = _ndim(ctx, node)
    perm = [_wrap(d, ndim) for d in node.attrs[0]]
    ctx.emit("Transpose", [ctx.input(node, 0)], [ctx.out(node)], perm=perm)


@converts("expand")
def _expand(ctx, node):
    ctx.emit("Expand", [ctx.input(node, 0), ctx.ints(_out_sizes(ctx, node), "shape")],
             [ctx.out(node)])


@converts("squeeze")
def _squeeze(ctx, node):
    ndim = _ndim(ctx, node)
    dims = [_wrap(d, ndim) for d in node.attrs[0]]
    if not dims:
        return ctx.emit("Identity", [ctx.input(node, 0)], [ctx.out(node)])
    ctx.emit("Squeeze", [ctx.input(node, 0), ctx.ints(dims, "axes")], [ctx.out(node)])


@converts("unsqueeze")
def _unsqueeze(ctx, node):
    dim = _wrap(node.attrs[0], len(_out_sizes(ctx, node)))
    ctx.emit("Unsqueeze", [ctx.input(node, 0), ctx.ints([dim], "axes")], [ctx.out(node)])


@converts("slice")
def _slice(ctx, node):
    dim, start, end, step = node.attrs
    dim = _wrap(dim, _ndim(ctx, node))
    args = [ctx.ints([start], "starts"), ctx.ints([end], "ends"), ctx.ints([dim], "axes"),
            ctx.ints([step], "steps")]
    ctx.emit("Slice", [ctx.input(node, 0)] + args, [ctx.out(node)])


@converts("select")
def _select(ctx, node):
    dim, index = node.attrs
    dim = _wrap(dim, _ndim(ctx, node))
    index = ctx.const(np.asarray(index, dtype=np.int64), "index")  # 0-dim: the dim goes away
    ctx.emit("Gather", [ctx.input(node, 0), index], [ctx.out(node)], axis=dim)


# ---- copies, fills and factories -------------------------------------------------------
@converts("copy_")
def _copy(ctx, node):
    # Into a fresh tensor (x.to(dtype), contiguous(), clone()) or over a preset one:
    # either way the result is the source, cast and broadcast to the destination.
    _shaped(ctx, node, ctx.input(node, 1, _out_dtype(ctx, node)))


@converts("fill_")
def _fill(ctx, node):
    if len(node.inputs) > 1:  # fill_ with a 0-dim tensor value
        return _shaped(ctx, node, ctx.input(node, 1, _out_dtype(ctx, node)))
    _constant_like(ctx, node, node.attrs[0])


def _factory(ctx, node, values):
    """A factory's output as an initializer (its values depend on attrs and sizes only)."""
    array = np.asarray(values).astype(numpy_dtype(_out_dtype(ctx, node)))
    ctx.emit("Identity", [ctx.const(array.reshape(_static_sizes(ctx, node)), node.op)],
             [ctx.out(node)])


@converts("arange")
def _arange(ctx, node):
    start, step = node.attrs
    n = _static_sizes(ctx, node)[0]
    if isinstance(start, float) or isinstance(step, float) or is_floating(_out_dtype(ctx, node)):
        return _factory(ctx, node, float(start) + float(step) * np.arange(n, dtype=np.float64))
    _factory(ctx, node, start + step * np.arange(n, dtype=np.int64))


@converts("linspace")
def _linspace(ctx, node):
    start, end = float(node.attrs[0]), float(node.attrs[1])
    n = _static_sizes(ctx, node)[0]
    step = (end - start) / (n - 1) if n > 1 else 0.0
    i = np.arange(n, dtype=np.float64)  # both ends exact, as ember's kernel
    _factory(ctx, node, np.where(i < n // 2, start + step * i, end - step * (n - 1 - i)))


@converts("eye")
def _eye(ctx, node):
    _factory(ctx, node, np.eye(*_static_sizes(ctx, node)))


@converts("uniform_", "normal_", "random_", "randperm", "bernoulli_")
def _random(ctx, node):
    ctx.fail(node, "it draws random numbers, which an exported model cannot reproduce")


# ---- joining, indexing, sorting --------------------------------------------------------
@converts("cat")
def _cat(ctx, node):
    dim = _wrap(node.attrs[0], len(_out_sizes(ctx, node)))
    ctx.emit("Concat", _operands(ctx, node), [ctx.out(node)], axis=dim)


@converts("flip")
def _flip(ctx, node):
    dims = list(node.attrs[0])
    k = len(dims)
    args = [ctx.ints([-1] * k, "starts"), ctx.ints([np.iinfo(np.int64).min] * k, "ends"),
            ctx.ints(dims, "axes"), ctx.ints([-1] * k, "steps")]
    ctx.emit("Slice", [ctx.input(node, 0)] + args, [ctx.out(node)])


@converts("tril", "triu")
def _tril_triu(ctx, node):
    k = ctx.const(np.asarray(node.attrs[0], dtype=np.int64), "k")
    ctx.emit("Trilu", [ctx.input(node, 0), k], [ctx.out(node)], upper=int(node.op == "triu"))


@converts("gather")
def _gather(ctx, node):
    ctx.emit("GatherElements", [ctx.input(node, 0), ctx.input(node, 1)], [ctx.out(node)],
             axis=node.attrs[0])


@converts("index_select")
def _index_select(ctx, node):
    ctx.emit("Gather", [ctx.input(node, 0), ctx.input(node, 1)], [ctx.out(node)],
             axis=node.attrs[0])


@converts("take")
def _take(ctx, node):
    flat = ctx.emit("Reshape", [ctx.input(node, 0), ctx.ints([-1], "shape")])
    ctx.emit("Gather", [flat, ctx.input(node, 1)], [ctx.out(node)], axis=0)


@converts("index")
def _index(ctx, node):
    # One int64 index per dim (left out: the whole dim), already broadcast to one shape
    # (ember turned masks into nonzero() indices). One index is a Gather on its dim.
    dims = [i - 1 for i in range(1, len(node.inputs)) if node.inputs[i] != -1]
    x = ctx.input(node, 0)
    if len(dims) == 1:
        return ctx.emit("Gather", [x, ctx.input(node, dims[0] + 1)], [ctx.out(node)],
                        axis=dims[0])
    # Several: the indexed dims moved to the front, one GatherND over their stacked
    # indices; its result has the index shape first, then the other dims.
    ndim, index_ndim = _ndim(ctx, node), len(ctx.sizes(node.inputs[dims[0] + 1]))
    rest = [d for d in range(ndim) if d not in dims]
    if dims + rest != list(range(ndim)):
        x = ctx.emit("Transpose", [x], perm=dims + rest)
    last = ctx.ints([-1], "axes")
    columns = [ctx.emit("Unsqueeze", [ctx.input(node, d + 1), last]) for d in dims]
    picked = ctx.emit("GatherND", [x, ctx.emit("Concat", columns, axis=-1)])
    first = dims[0]
    if first == 0 or dims != list(range(first, first + len(dims))):
        return ctx.emit("Identity", [picked], [ctx.out(node)])
    # Adjacent indexed dims keep their place (PyTorch's rule): the leading dims go first.
    leading = [index_ndim + i for i in range(first)]
    trailing = list(range(index_ndim + first, index_ndim + len(rest)))
    ctx.emit("Transpose", [picked], [ctx.out(node)],
             perm=leading + list(range(index_ndim)) + trailing)


@converts("masked_fill_")
def _masked_fill(ctx, node):
    dt = _out_dtype(ctx, node)
    value = ctx.input(node, 2, dt) if len(node.inputs) > 2 else _k(ctx, node, node.attrs[0])
    ctx.emit("Where", [ctx.input(node, 1, "bool"), value, ctx.input(node, 0, dt)],
             [ctx.out(node)])


_SCATTER_REDUCTION = {"": "none", "add": "add", "multiply": "mul"}


@converts("scatter_", "scatter_add_", "scatter_value_")
def _scatter(ctx, node):
    dim = node.attrs[0]
    if node.op == "scatter_value_":
        value, reduce = node.attrs[1], node.attrs[2]
        src = ctx.emit("Expand", [_k(ctx, node, value), ctx.ints(ctx.sizes(node.inputs[1]))])
    else:
        reduce = "add" if node.op == "scatter_add_" else node.attrs[1]
        src = ctx.input(node, 2, _out_dtype(ctx, node))
    ctx.emit("ScatterElements", [_x(ctx, node), ctx.input(node, 1), src], [ctx.out(node)],
             axis=dim, reduction=_SCATTER_REDUCTION[reduce])


@converts("nonzero")
def _nonzero(ctx, node):
    ctx.emit("Transpose", [ctx.emit("NonZero", [ctx.input(node, 0)])], [ctx.out(node)],
             perm=[1, 0])


@converts("sort")
def _sort(ctx, node):
    # TopK over the whole dim; it breaks ties by the lower index, as a stable sort does.
    dim, descending, _stable = node.attrs
    k = ctx.ints([ctx.sizes(node.inputs[0])[dim]], "k")
    ctx.emit("TopK", [ctx.input(node, 0), k], [ctx.out(node, 0), ctx.out(node, 1)], axis=dim,
             largest=int(descending), sorted=1)


@converts("topk")
def _topk(ctx, node):
    k, dim, largest, _sorted = node.attrs  # TopK always sorts
    ctx.emit("TopK", [ctx.input(node, 0), ctx.ints([k], "k")],
             [ctx.out(node, 0), ctx.out(node, 1)], axis=dim, largest=int(largest), sorted=1)
