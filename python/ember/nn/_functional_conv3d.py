"""F.conv3d, F.conv_transpose1d and F.conv_transpose3d: composites of ember's 2-d ops.

conv3d stacks the kernel's depth taps into the channels (an as_strided view of the depth
windows, one copy) and runs a single grouped conv2d over (N * D_out) planes.
conv_transpose3d runs one conv_transpose2d per input depth plane with every depth tap as
extra output channels, then overlap-adds the taps along depth with a 1-d fold.
conv_transpose1d is conv_transpose2d over a unit height. Everything is differentiable
through those ops; the checks and their messages are PyTorch's.
"""
import warnings

from .. import _C

__all__ = ["conv3d", "conv_transpose1d", "conv_transpose3d"]


def _conv_param(value, n, name):
    """stride / padding / dilation / output_padding as n ints (torch's expand rule)."""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                           "values to match the convolution dimensions, but got "
                           f"{name}={list(value)}")
    return value


def _check_rank(input, weight, n, opname):
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                           f"{opname}, but got input of size: {list(input.shape)}")
    if weight.dim() != n + 2:
        # torch derives the spatial rank from the weight and complains about the stride
        raise RuntimeError("expected stride to be a single integer value or a list of "
                           f"{max(weight.dim() - 2, 0)} values to match the convolution "
                           f"dimensions, but got stride={[1] * n}")


def _check_common(weight, bias, stride, dilation, groups, transposed, out_channels):
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.shape[0] % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{list(weight.shape)}] "
                           "instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_channels):
        t = "transposed=1, " if transposed else ""
        raise RuntimeError(f"Given {t}weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {out_channels} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    if any(k <= 0 for k in weight.shape[2:]):
        raise RuntimeError("kernel size should be greater than zero, but got: "
                           + " x ".join(str(k) for k in weight.shape[2:]))


def _same_padding(kernel, dilation):
    """padding='same': (left, right) per dim, the odd extra on the right (as torch)."""
    pads = []
    for k, d in zip(kernel, dilation):
        total = d * (k - 1)
        pads.append((total // 2, total - total // 2))
    return pads


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) over
    (N, C_in, D, H, W) or (C_in, D, H, W); weight (C_out, C_in / groups, kD, kH, kW)."""
    _check_rank(input, weight, 3, "conv3d")
    stride = _conv_param(stride, 3, "stride")
    dilation = _conv_param(dilation, 3, "dilation")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    kernel = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            pads = [(0, 0)] * 3
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = _same_padding(kernel, dilation)
            if any(lo != hi for lo, hi in pads):
                warnings.warn("Using padding='same' with even kernel lengths and odd dilation may "
                              "require a zero-padded copy of the input be created", stacklevel=2)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pads = [(p, p) for p in _conv_param(padding, 3, "padding")]
        if any(p < 0 for p, _ in pads):
            raise RuntimeError("negative padding is not supported")
    out_channels = weight.shape[0]
    _check_common(weight, bias, stride, dilation, groups, False, out_channels)
    unbatched = input.dim() == 4
    if unbatched:
        input = input.unsqueeze(0)
    n, c = input.shape[0], input.shape[1]
    if c != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {weight.shape[1] * groups} "
                           f"channels, but got {c} channels instead")
    padded = [input.shape[2 + i] + pads[i][0] + pads[i][1] for i in range(3)]
    eff = [dilation[i] * (kernel[i] - 1) + 1 for i in range(3)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError("Calculated padded input size per channel: ("
                           + " x ".join(map(str, padded)) + "). Kernel size: ("
                           + " x ".join(map(str, eff)) + "). Kernel size can't be greater than "
                           "actual input size")
    # Depth padding (and any asymmetric 'same' extra) is explicit; the rest is conv2d's.
    extra = [pads[i][1] - pads[i][0] for i in range(3)]
    if pads[0] != (0, 0) or extra[1] or extra[2]:
        input = _C.pad(input, [0, extra[2], 0, extra[1], pads[0][0], pads[0][1]])
    x = input.contiguous()
    kd, sd, dd = kernel[0], stride[0], dilation[0]
    d_out = (padded[0] - eff[0]) // sd + 1
    h, w = x.shape[3], x.shape[4]
    s_n, s_c, s_d, s_h, s_w = x.stride()
    # (N, C, D_out, kD, H, W): the depth taps of each output plane, a view.
    windows = x.as_strided((n, c, d_out, kd, h, w), (s_n, s_c, sd * s_d, dd * s_d, s_h, s_w),
                           x.storage_offset())
    cg = c // groups
    planes = (windows.reshape(n, groups, cg, d_out, kd, h, w).permute(0, 3, 1, 4, 2, 5, 6)
              .reshape(n * d_out, groups * kd * cg, h, w))
    og = out_channels // groups
    w2 = (weight.reshape(groups, og, cg, kd, kernel[1], kernel[2]).permute(0, 1, 3, 2, 4, 5)
          .reshape(out_channels, kd * cg, kernel[1], kernel[2]))
    y = _C.conv2d(planes, w2, None, stride[1:], (pads[1][0], pads[2][0]), dilation[1:], groups)
    y = y.reshape(n, d_out, out_channels, y.shape[2], y.shape[3]).permute(0, 2, 1, 3, 4)
    if bias is not None:
        y = y + bias.reshape(1, out_channels, 1, 1, 1)
    y = y.contiguous()
    return y.squeeze(0) if unbatched else y


def _check_transposed(input, weight, stride, padding, output_padding, dilation, n):
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(d <= 0 for d in dilation):
        names = ("depth", "height", "width")[3 - n:] if n > 1 else ("height", "width")
        dil = dilation if n > 1 else (1,) + tuple(dilation)
        raise RuntimeError("dilation should be greater than zero, but got "
                           + ", ".join(f"dilation_{a}: {d}" for a, d in zip(names, dil)))
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {weight.shape[0]} channels, but "
                           f"got {input.shape[1]} channels instead")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        # torch's message names the dims of the kernel that ran (2-d for conv_transpose1d)
        names = ("depth", "height", "width") if n == 3 else ("height", "width")
        pad = ((0,) if n == 1 else ()) + tuple(output_padding)
        st = ((1,) if n == 1 else ()) + tuple(stride)
        dl = ((1,) if n == 1 else ()) + tuple(dilation)
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           "got " + " ".join(f"output_padding_{a}: {v}" for a, v in zip(names, pad))
                           + " " + " ".join(f"stride_{a}: {v}" for a, v in zip(names, st))
                           + " " + " ".join(f"dilation_{a}: {v}" for a, v in zip(names, dl)))
    kernel = weight.shape[2:]
    spatial = input.shape[2:]
    out = [(spatial[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1)
           + output_padding[i] + 1 for i in range(n)]
    if any(o <= 0 for o in out):
        ins, outs = list(spatial), list(out)
        if n == 1:
            ins, outs = [1] + ins, [1] + outs
        raise RuntimeError("Given input size per channel: (" + " x ".join(map(str, ins))
                           + "). Calculated output size per channel: ("
                           + " x ".join(map(str, outs)) + "). Output size is too small")
    if input.shape[0] != 0 and input.shape[1] != 0 and any(s == 0 for s in spatial):
        raise RuntimeError("Only zero batch or zero channel inputs are supported, but got "
                           f"input shape: {list(input.shape)}")
    return out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) over (N, C_in, L) or (C_in, L); weight (C_in, C_out / groups, k)."""
    _check_rank(input, weight, 1, "conv_transpose1d")
    stride = _conv_param(stride, 1, "stride")
    padding = _conv_param(padding, 1, "padding")
    output_padding = _conv_param(output_padding, 1, "output_padding")
    dilation = _conv_param(dilation, 1, "dilation")
    out_channels = weight.shape[1] * groups
    _check_common(weight, bias, stride, dilation, groups, True, out_channels)
    unbatched = input.dim() == 2
    if unbatched:
        input = input.unsqueeze(0)
    _check_transposed(input, weight, stride, padding, output_padding, dilation, 1)
    y = _C.conv_transpose2d(input.unsqueeze(2), weight.unsqueeze(2), bias, (1, stride[0]),
                            (0, padding[0]), (0, output_padding[0]), groups, (1, dilation[0]))
    y = y.squeeze(2)
    return y.squeeze(0) if unbatched else y


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) over (N, C_in, D, H, W) or (C_in, D, H, W); weight
    (C_in, C_out / groups, kD, kH, kW)."""
    _check_rank(input, weight, 3, "conv_transpose3d")
    if isinstance(padding, str):
        raise TypeError("conv_transpose3d(): argument 'padding' must be tuple of ints, not str")
    stride = _conv_param(stride, 3, "stride")
    padding = _conv_param(padding, 3, "padding")
    output_padding = _conv_param(output_padding, 3, "output_padding")
    dilation = _conv_param(dilation, 3, "dilation")
    out_channels = weight.shape[1] * groups
    _check_common(weight, bias, stride, dilation, groups, True, out_channels)
    unbatched = input.dim() == 4
    if unbatched:
        input = input.unsqueeze(0)
    out = _check_transposed(input, weight, stride, padding, output_padding, dilation, 3)
    n, c, d = input.shape[0], input.shape[1], input.shape[2]
    kd, kh, kw = weight.shape[2:]
    cg, og = c // groups, weight.shape[1]
    # Every depth tap becomes og more output channels of one conv_transpose2d per plane.
    w2 = (weight.reshape(groups, cg, og, kd, kh, kw).permute(0, 1, 3, 2, 4, 5)
          .reshape(c, kd * og, kh, kw))
    planes = input.permute(0, 2, 1, 3, 4).reshape(n * d, c, input.shape[3], input.shape[4])
    y = _C.conv_transpose2d(planes, w2, None, stride[1:], padding[1:], output_padding[1:],
                            groups, dilation[1:])
    ho, wo = y.shape[2], y.shape[3]
    # Overlap-add the taps along depth: fold over (full depth, 1) with kernel (kD, 1).
    full = (d - 1) * stride[0] + dilation[0] * (kd - 1) + 1
    cols = (y.reshape(n, d, groups, kd, og, ho, wo).permute(0, 2, 4, 5, 6, 3, 1)
            .reshape(n, out_channels * ho * wo * kd, d))
    z = _C._nn.fold(cols, (full, 1), (kd, 1), (dilation[0], 1), (0, 0), (stride[0], 1))
    z = z.reshape(n, out_channels, ho, wo, full)
    if output_padding[0]:  # positions past the last tap: zeros (before the crop)
        z = _C.pad(z, [0, output_padding[0]])
    z = z.narrow(4, padding[0], out[0]).permute(0, 1, 4, 2, 3)
    if bias is not None:
        z = z + bias.reshape(1, out_channels, 1, 1, 1)
    z = z.contiguous()
    return z.squeeze(0) if unbatched else z
