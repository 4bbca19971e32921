"""The autograd function behind nn.CrossMapLRN2d (torch.nn.modules._functions.CrossMapLRN2d).

PyTorch's forward and backward are reproduced as they are, including their quirks, so
that values and gradients match torch's: the forward's running window over channels never
drops channel 0 once it has been added (channels c >= (size - 1) / 2 + 1 keep its square in
their scale), and the hand-written backward sums the ratios over a window that is offset
by one channel from the forward's, so it is not the exact gradient of the forward (torch's
own gradcheck of CrossMapLRN2d fails). Both are vectorized over channels here.
"""
from .. import _C
from ..autograd.function import Function

__all__ = ["cross_map_lrn2d"]


def _window_sum(x, low, high):
    """out[:, c] = sum of x[:, c + o] for o in [low, high], zero outside the channels."""
    channels = x.shape[1]
    pad = max(abs(low), abs(high), 1)
    zeros = _C.zeros((x.shape[0], pad) + tuple(x.shape[2:]), dtype=x.dtype, device=x.device)
    padded = _C.cat([zeros, x, zeros], 1)
    total = None
    for o in range(low, high + 1):
        part = padded[:, pad + o:pad + o + channels]
        total = part if total is None else total + part
    if total is None:
        return _C.zeros_like(x)
    return total


class _CrossMapLRN2d(Function):
    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        channels = input.shape[1]
        pre_pad = int((size - 1) / 2 + 1)
        square = input * input
        scale = _window_sum(square, -(pre_pad - 1), pre_pad - 1)
        if channels > pre_pad:  # torch's running sum keeps channel 0 from here on
            keep = (_C.arange(channels, device=input.device) >= pre_pad).to(input.dtype)
            scale = scale + square[:, :1] * keep.reshape(1, channels, 1, 1)
        scale = scale * (alpha / size) + k
        output = scale.pow(-beta) * input
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        ctx.scale = scale
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output = ctx.saved_tensors
        size, alpha, beta = ctx.size, ctx.alpha, ctx.beta
        scale = ctx.scale
        cache_ratio_value = 2 * alpha * beta / size
        inverse_pre_pad = int(size - (size - 1) / 2)
        ratio = grad_output * output / scale
        accum = _window_sum(ratio, -inverse_pre_pad, size - 1 - inverse_pre_pad)
        grad_input = scale.pow(-beta) * grad_output - cache_ratio_value * input * accum
        return grad_input, None, None, None, None


def cross_map_lrn2d(input, size, alpha=1e-4, beta=0.75, k=1):
    """What nn.CrossMapLRN2d computes (torch has no functional form of it)."""
    return _CrossMapLRN2d.apply(input, size, alpha, beta, k)
