"""The activations of ops/activation.h (elu, hardtanh, hardsigmoid, hardswish, mish,
logsigmoid, softshrink, hardshrink, threshold) as ONNX nodes; the composites
(softsign, glu, prelu, softmin, ...) export through the ops they are made of."""
from .helpers import _k, _x
from .registry import converts


@converts("elu")
def _elu(ctx, node):
    # attrs alpha, scale, input_scale: Elu or Selu where they fit, else the formula (celu).
    x, (alpha, scale, input_scale) = _x(ctx, node), [float(a) for a in node.attrs]
    if input_scale == 1.0 and scale == 1.0:
        ctx.emit("Elu", [x], [ctx.out(node)], alpha=alpha)
    elif input_scale == 1.0:
        ctx.emit("Selu", [x], [ctx.out(node)], alpha=alpha, gamma=scale)
    else:
        neg = ctx.emit("Sub", [ctx.emit("Exp", [ctx.emit("Mul", [x, _k(ctx, node, input_scale)])]),
                               _k(ctx, node, 1.0)])
        neg = ctx.emit("Mul", [neg, _k(ctx, node, alpha * scale)])
        pos = ctx.emit("Mul", [x, _k(ctx, node, scale)])
        ctx.emit("Where", [ctx.emit("Greater", [x, _k(ctx, node, 0.0)]), pos, neg], [ctx.out(node)])


@converts("hardtanh")
def _hardtanh(ctx, node):
    lo, hi = node.attrs
    y = ctx.emit("Max", [_x(ctx, node), _k(ctx, node, lo)])
    ctx.emit("Min", [y, _k(ctx, node, hi)], [ctx.out(node)])


@converts("hardsigmoid")
def _hardsigmoid(ctx, node):
    ctx.emit("HardSigmoid", [_x(ctx, node)], [ctx.out(node)], alpha=1.0 / 6, beta=0.5)


@converts("hardswish")
def _hardswish(ctx, node):
    ctx.emit("HardSwish", [_x(ctx, node)], [ctx.out(node)])


@converts("mish")
def _mish(ctx, node):
    # ONNX's Mish needs opset 18: x tanh(softplus(x)).
    x = _x(ctx, node)
    ctx.emit("Mul", [x, ctx.emit("Tanh", [ctx.emit("Softplus", [x])])], [ctx.out(node)])


@converts("logsigmoid")
def _logsigmoid(ctx, node):
    # -softplus(-x).
    sp = ctx.emit("Softplus", [ctx.emit("Neg", [_x(ctx, node)])])
    ctx.emit("Neg", [sp], [ctx.out(node)])


@converts("softshrink", "hardshrink")
def _shrink(ctx, node):
    lambd = float(node.attrs[0])
    bias = lambd if node.op == "softshrink" else 0.0
    ctx.emit("Shrink", [_x(ctx, node)], [ctx.out(node)], lambd=lambd, bias=bias)


@converts("threshold")
def _threshold(ctx, node):
    x, (threshold, value) = _x(ctx, node), node.attrs
    above = ctx.emit("Greater", [x, _k(ctx, node, threshold)])
    ctx.emit("Where", [above, x, _k(ctx, node, value)], [ctx.out(node)])
