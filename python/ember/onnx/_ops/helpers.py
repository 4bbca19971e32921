"""Small helpers the converters share: output dtypes and sizes, constants, casts."""
import numpy as np

from .._dtypes import numpy_dtype
from .._symbolic import is_symbolic


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
    """A tensor of the output's sizes and dtype filled with value (a number, or a
    SymSize: full((n,), n) at a dynamic n)."""
    dtype = _out_dtype(ctx, node)
    fill = value if is_symbolic(value) else np.asarray(value, dtype=numpy_dtype(dtype))
    ctx.filled(_out_sizes(ctx, node), fill, ctx.out(node), dtype)


def _trunc(ctx, x, outputs=None):
    """x rounded toward zero (ONNX has no Trunc): |x| floored, its sign restored."""
    whole = ctx.emit("Floor", [ctx.emit("Abs", [x])])
    return ctx.emit("Mul", [ctx.emit("Sign", [x]), whole], outputs)


def _shaped(ctx, node, x):
    """x (already in the output dtype) broadcast to the output's sizes, as the output."""
    if ctx.sizes(node.inputs[-1]) == _out_sizes(ctx, node):
        return ctx.emit("Identity", [x], [ctx.out(node)])
    return ctx.emit("Expand", [x, ctx.ints(_out_sizes(ctx, node), "shape")], [ctx.out(node)])


def _operands(ctx, node, dtype=None):
    """Every input, cast to dtype (default: the output's)."""
    dtype = dtype or _out_dtype(ctx, node)
    return [ctx.input(node, i, dtype) for i in range(len(node.inputs))]
