"""Reductions, moments, norms, cumulative sums and softmax."""
import math

import numpy as np

from .._dtypes import onnx_type
from .._symbolic import has_symbolic
from .helpers import _out_dtype, _out_sizes, _x, _k, _reduce
from .registry import converts


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


def _denominator(ctx, node, dims, correction):
    """max(n - correction, 0) for n the number of elements input 0 has over dims, as a
    0-dim constant, or computed where a reduced size is symbolic."""
    sizes = ctx.sizes(node.inputs[0])
    reduced = [sizes[d] for d in dims]
    if not has_symbolic(reduced):
        return _k(ctx, node, float(max(int(np.prod(reduced)) - correction, 0)))
    sizes = ctx.dims_of(node.inputs[0], dims, "reduced")
    count = ctx.emit("Cast", [ctx.emit("ReduceProd", [sizes], keepdims=0)],
                     to=onnx_type(_out_dtype(ctx, node)))
    return ctx.emit("Max", [ctx.emit("Sub", [count, _k(ctx, node, correction)]), _k(ctx, node, 0)])


def _moments(ctx, node, with_mean):
    """(variance, mean or None) of input 0 over the node's dims (var/std/var_mean/std_mean)."""
    dims, correction, keepdim = node.attrs
    x = ctx.input(node, 0)
    mean = _reduce(ctx, "ReduceMean", x, list(dims), True)
    dev = ctx.emit("Sub", [x, mean])
    ss = _reduce(ctx, "ReduceSum", ctx.emit("Mul", [dev, dev]), list(dims), keepdim)
    # n <= correction divides by zero: inf or nan, as ember.
    var = ctx.emit("Div", [ss, _denominator(ctx, node, dims, correction)])
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
