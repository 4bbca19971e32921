"""Linear algebra, convolution, pooling and the nn ops (norms, dropout, embedding, pad, ...)."""
import numpy as np

from .._dtypes import numpy_dtype
from .._symbolic import has_symbolic
from .helpers import _out_dtype, _out_sizes, _ndim, _k, _reduce, _operands
from .registry import converts


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
    height, width = ctx.sizes(node.inputs[0])[2:]
    if has_symbolic([height, width]):  # h * w at run time
        plane = ctx.emit("ReduceProd", [ctx.ints([height, width], "plane")], keepdims=0)
    else:
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
    x = ctx.input(node, 0)
    if (out_h, out_w) == (1, 1):  # at any input size
        return ctx.emit("GlobalAveragePool", [x], [ctx.out(node)])
    in_h, in_w = ctx.static(ctx.sizes(node.inputs[0])[2:], "pooling window (the input's size)")
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
    depth = ctx.int_scalar(_out_sizes(ctx, node)[-1], "depth")
    off_on = ctx.const(np.asarray([0, 1], dtype=numpy_dtype(_out_dtype(ctx, node))), "values")
    ctx.emit("OneHot", [ctx.input(node, 0), depth, off_on], [ctx.out(node)], axis=-1)


@converts("lstm_cell_fused")
def _lstm_cell_fused(ctx, node):
    """One LSTM step's pointwise part: gates [B, 4H] (i, f, g, o) and c [B, H] give
    h' = sigmoid(o) tanh(c'), c' = sigmoid(f) c + sigmoid(i) tanh(g)."""
    hidden = ctx.sizes(node.inputs[1])[1]
    gates, c = ctx.input(node, 0), ctx.input(node, 1)
    i, f, g, o = ctx.emit("Split", [gates, ctx.ints([hidden] * 4, "split")],
                          [ctx.fresh(n) for n in ("gate_i", "gate_f", "gate_g", "gate_o")], axis=1)
    kept = ctx.emit("Mul", [ctx.emit("Sigmoid", [f]), c])
    added = ctx.emit("Mul", [ctx.emit("Sigmoid", [i]), ctx.emit("Tanh", [g])])
    c_new = ctx.emit("Add", [kept, added], [ctx.out(node, 1)])
    ctx.emit("Mul", [ctx.emit("Sigmoid", [o]), ctx.emit("Tanh", [c_new])], [ctx.out(node, 0)])


@converts("gru_cell_fused")
def _gru_cell_fused(ctx, node):
    """One GRU step's pointwise part: gx, gh [B, 3H] (r, z, n) and h [B, H] give
    h' = n + z (h - n), r = sigmoid(gx_r + gh_r), z = sigmoid(gx_z + gh_z),
    n = tanh(gx_n + r gh_n)."""
    hidden = ctx.sizes(node.inputs[2])[1]
    split = ctx.ints([hidden] * 3, "split")
    xr, xz, xn = ctx.emit("Split", [ctx.input(node, 0), split],
                          [ctx.fresh(n) for n in ("gx_r", "gx_z", "gx_n")], axis=1)
    hr, hz, hn = ctx.emit("Split", [ctx.input(node, 1), split],
                          [ctx.fresh(n) for n in ("gh_r", "gh_z", "gh_n")], axis=1)
    r = ctx.emit("Sigmoid", [ctx.emit("Add", [xr, hr])])
    z = ctx.emit("Sigmoid", [ctx.emit("Add", [xz, hz])])
    n = ctx.emit("Tanh", [ctx.emit("Add", [xn, ctx.emit("Mul", [r, hn])])])
    diff = ctx.emit("Sub", [ctx.input(node, 2), n])
    ctx.emit("Add", [n, ctx.emit("Mul", [z, diff])], [ctx.out(node)])


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
