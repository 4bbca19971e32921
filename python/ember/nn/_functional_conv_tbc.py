"""F.conv_tbc (also torch.conv_tbc): the 1-d convolution of (time, batch, channels) inputs,
as F.conv1d over the permuted input and weight."""
from .. import _C

__all__ = ["conv_tbc"]


def conv_tbc(input, weight, bias, pad=0):
    """torch.conv_tbc(input, weight, bias, pad=0): the 1-d convolution of a (time, batch,
    in_channels) input with a (kernel_width, in_channels, out_channels) weight, zero-padded
    by pad steps at both ends (negative pad crops); the output is (time', batch,
    out_channels)."""
    if not isinstance(bias, _C.Tensor):
        raise TypeError(f"conv_tbc(): argument 'bias' (position 3) must be Tensor, not "
                        f"{type(bias).__name__}")
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    time, batch, _ = input.shape
    kernel, _, out_channels = weight.shape
    out_len = time + 2 * pad - kernel + 1
    if out_len < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {out_len}: "
                           f"[{out_len}, {batch}, {out_channels}]")
    if out_len == 0:  # empty, but still part of the graph (zero gradients, as torch)
        zero = input[:0].sum() + weight[:0].sum() + bias[:0].sum()
        return zero.expand(0, batch, out_channels)
    x = input.permute(1, 2, 0)  # (batch, in, time)
    if pad < 0:
        x = x.narrow(2, -pad, time + 2 * pad)
    y = _C.conv1d(x, weight.permute(2, 1, 0), bias, 1, max(pad, 0))
    return y.permute(2, 0, 1)
