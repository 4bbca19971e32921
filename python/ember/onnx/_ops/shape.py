"""Views, copies, fills and factories, joining, indexing and sorting."""
import numpy as np
from onnx import numpy_helper

from .._dtypes import is_floating, numpy_dtype, onnx_type
from .._symbolic import has_symbolic
from .helpers import (_constant_like, _k, _ndim, _operands, _out_dtype, _out_sizes, _shaped,
                      _static_sizes, _wrap, _x)
from .registry import converts


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
    index = ctx.int_scalar(index)  # 0-dim: the dim goes away (x[:, n - 1] at a dynamic n)
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
    n = _out_sizes(ctx, node)[0]
    dtype = _out_dtype(ctx, node)
    floating = isinstance(start, float) or isinstance(step, float) or is_floating(dtype)
    if has_symbolic([start, step, n]):
        return _dynamic_arange(ctx, node, start, step, n, floating)
    if floating:
        return _factory(ctx, node, float(start) + float(step) * np.arange(n, dtype=np.float64))
    _factory(ctx, node, start + step * np.arange(n, dtype=np.int64))


def _dynamic_arange(ctx, node, start, step, n, floating):
    """arange at a symbolic length (or start, step): the indices 0..n-1 by Range, then
    start + step * i as the static case computes it (in float64 for floating results),
    so the length never depends on rounding."""
    i = ctx.emit("Range", [ctx.int_scalar(0), ctx.int_scalar(n), ctx.int_scalar(1)], hint="i")
    work = "float64" if floating else "int64"
    i = ctx.cast(i, "int64", work)
    scaled = ctx.emit("Mul", [i, ctx.scalar(step, work)])
    values = ctx.emit("Add", [scaled, ctx.scalar(start, work)])
    ctx.emit("Identity", [ctx.cast(values, work, _out_dtype(ctx, node))], [ctx.out(node)])


@converts("linspace")
def _linspace(ctx, node):
    start, end = float(node.attrs[0]), float(node.attrs[1])
    n = _static_sizes(ctx, node)[0]
    step = (end - start) / (n - 1) if n > 1 else 0.0
    i = np.arange(n, dtype=np.float64)  # both ends exact, as ember's kernel
    _factory(ctx, node, np.where(i < n // 2, start + step * i, end - step * (n - 1 - i)))


@converts("eye")
def _eye(ctx, node):
    sizes = _out_sizes(ctx, node)
    if not has_symbolic(sizes):
        return _factory(ctx, node, np.eye(*sizes))
    zeros = ctx.emit("ConstantOfShape", [ctx.ints(sizes, "shape")],
                     value=numpy_helper.from_array(np.zeros(1, dtype=np.float32), "value"))
    eye = ctx.emit("EyeLike", [zeros], dtype=onnx_type("float32"))
    ctx.emit("Identity", [ctx.cast(eye, "float32", _out_dtype(ctx, node))], [ctx.out(node)])


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
    k = ctx.int_scalar(node.attrs[0], "k")
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
    k = ctx.dims_of(node.inputs[0], [dim], "k")
    ctx.emit("TopK", [ctx.input(node, 0), k], [ctx.out(node, 0), ctx.out(node, 1)], axis=dim,
             largest=int(descending), sorted=1)


@converts("topk")
def _topk(ctx, node):
    k, dim, largest, _sorted = node.attrs  # TopK always sorts
    ctx.emit("TopK", [ctx.input(node, 0), ctx.ints([k], "k")],
             [ctx.out(node, 0), ctx.out(node, 1)], axis=dim, largest=int(largest), sorted=1)
