"""3-d pooling: F.avg_pool3d, max_pool3d(_with_indices), adaptive_avg_pool3d,
adaptive_max_pool3d(_with_indices) and lp_pool3d, composed from ember's 2-d pools.

A box window over (D, H, W) is separable: each pool runs the 2-d op over (H, W) for every
depth plane, then the same op over (D, H_out * W_out) with a (kD, 1) window. Average pools
add window sums (divisor_override=1) and divide once by torch's divisor; max pools find
the flat (d, h, w) index of each maximum that way (the first in (d, h, w) order on ties, as
torch's kernels) and gather the values from the input, so the gradient flows to exactly
the positions torch's backward writes. Checks and messages are PyTorch's.
"""
import numpy as np

from .. import _C
from ..autograd import no_grad

__all__ = ["avg_pool3d", "max_pool3d", "max_pool3d_with_indices", "adaptive_avg_pool3d",
           "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "lp_pool3d"]


def _three(value, opname, what, allow_empty=False):
    """An int or a sequence of 1 or 3 ints as 3 ints; () means 'omitted' where allowed."""
    if isinstance(value, bool) or not isinstance(value, (int, tuple, list)):
        if isinstance(value, float):
            raise TypeError(f"{opname}(): argument '{what}' must be tuple of ints, not float")
        raise TypeError(f"{opname}(): argument '{what}' must be tuple of ints, not "
                        f"{type(value).__name__}")
    if isinstance(value, int):
        return (value,) * 3
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * 3
    if len(value) == 0 and allow_empty:
        return None
    if len(value) != 3:
        raise RuntimeError(_LENGTH_MESSAGES[opname][what])
    return value


_LENGTH_MESSAGES = {
    "max_pool3d": {
        "kernel_size": ("max_pool3d: kernel_size must either be a single int, or a tuple of "
                        "three ints"),
        "stride": ("max_pool3d: stride must either be omitted, a single int, or a tuple of "
                   "three ints"),
        "padding": "max_pool3d: padding must either be a single int, or a tuple of three ints",
        "dilation": "max_pool3d: dilation must be either a single int, or a tuple of three ints",
    },
    "avg_pool3d": {
        "kernel_size": "avg_pool3d: kernel_size must be a single int, or a tuple of three ints",
        "stride": "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints",
        "padding": "avg_pool3d: padding must be a single int, or a tuple of three ints",
    },
}


def _check_input(input, opname, tensor_message):
    if input.dim() not in (4, 5):
        raise RuntimeError(tensor_message)
    for i in range(input.dim() - 4, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"{opname}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {i} being empty")


def _pool_out(size, k, s, p, d, ceil_mode):
    """torch's pooling_output_shape."""
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _check_window(input, kernel, stride, padding, dilation, ceil_mode, is_avg):
    """pool3d_shape_check: the window arguments against the input; the output size."""
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(k <= 0 for k in kernel):
        raise RuntimeError("kernel size should be greater than zero, but got kT: {} kH: {} kW: {}"
                           .format(*kernel))
    if any(s < 0 for s in stride):
        raise RuntimeError("stride should be greater than zero, but got dT: {} dH: {} dW: {}"
                           .format(*stride))
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero, but got dilationT: {} "
                           "dilationH: {} dilationW: {}".format(*dilation))
    for p in padding:
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    for k, p, d in zip(kernel, padding, dilation):
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError("pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    spatial = tuple(input.shape[-3:])
    if is_avg and any(i < k for i, k in zip(spatial, kernel)):
        raise RuntimeError("input image (T: {} H: {} W: {}) smaller than kernel size "
                           "(kT: {} kH: {} kW: {})".format(*spatial, *kernel))
    out = tuple(_pool_out(spatial[i], kernel[i], stride[i], padding[i], dilation[i], ceil_mode)
                for i in range(3))
    if any(o < 1 for o in out):
        c = input.shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{spatial[0]}x{spatial[1]}x{spatial[2]}). "
                           f"Calculated output size: ({c}x{out[0]}x{out[1]}x{out[2]}). Output "
                           "size is too small")
    return out


def _batched(input):
    """(input as 5-d, whether it was unbatched)."""
    if input.dim() == 4:
        return input.unsqueeze(0), True
    return input, False


def _gather_flat(input, index):
    """input[n, c][flat index] for an index of shape (N, C, *out): differentiable in input."""
    n, c = input.shape[0], input.shape[1]
    size = 1
    for s in input.shape[2:]:
        size *= s
    count = 1
    for s in index.shape[2:]:
        count *= s
    out = input.reshape(n, c, size).gather(2, index.reshape(n, c, count))
    return out.reshape(index.shape)


def _window_sums_and_count(input, kernel, stride, padding, ceil_mode, count_include_pad,
                           divisor_override, out):
    """avg_pool3d: per-window sums over (D, H, W), and torch's divisor (a tensor or int)."""
    n, c, d, h, w = input.shape
    sums = _C.avg_pool2d(input.reshape(n, c * d, h, w), kernel[1:], stride[1:], padding[1:],
                         ceil_mode, True, 1)
    ho, wo = sums.shape[2], sums.shape[3]
    sums = _C.avg_pool2d(sums.reshape(n * c, 1, d, ho * wo), (kernel[0], 1), (stride[0], 1),
                         (padding[0], 0), ceil_mode, True, 1)
    sums = sums.reshape(n, c, out[0], ho, wo)
    if divisor_override is not None:
        return sums, divisor_override
    counts = []
    for size, k, s, p, o in zip((d, h, w), kernel, stride, padding, out):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, size + p)
        if count_include_pad:
            counts.append(end - start)
        else:
            counts.append(np.minimum(end, size) - np.maximum(start, 0))
    divisor = (counts[0][:, None, None] * counts[1][None, :, None] * counts[2][None, None, :])
    divisor = _C.from_numpy(divisor.astype(np.float64)).to(device=input.device, dtype=input.dtype)
    return sums, divisor


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None) over (N, C, D, H, W) or (C, D, H, W)."""
    kernel = _three(kernel_size, "avg_pool3d", "kernel_size")
    stride = None if stride is None else _three(stride, "avg_pool3d", "stride", True)
    stride = kernel if stride is None else stride
    padding = _three(padding, "avg_pool3d", "padding")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_input(input, "avg_pool3d", "non-empty 4D or 5D (batch mode) tensor expected for input")
    out = _check_window(input, kernel, stride, padding, (1, 1, 1), ceil_mode, True)
    x, unbatched = _batched(input)
    sums, divisor = _window_sums_and_count(x, kernel, stride, padding, ceil_mode,
                                           count_include_pad, divisor_override, out)
    result = sums / divisor
    return result.squeeze(0) if unbatched else result


def _max_indices(x, kernel, stride, padding, dilation, ceil_mode):
    """Flat (d, h, w) indices of the window maxima of a 5-d x (no gradient)."""
    n, c, d, h, w = x.shape
    with no_grad():
        v, idx_hw = _C.max_pool2d_with_indices(x.reshape(n, c * d, h, w), kernel[1:], stride[1:],
                                               padding[1:], dilation[1:], ceil_mode)
        ho, wo = v.shape[2], v.shape[3]
        _, idx_d = _C.max_pool2d_with_indices(v.reshape(n * c, 1, d, ho * wo), (kernel[0], 1),
                                              (stride[0], 1), (padding[0], 0), (dilation[0], 1),
                                              ceil_mode)
        depth = idx_d // (ho * wo)  # (N*C, 1, D_out, Ho*Wo): the depth of each maximum
        hw = idx_hw.reshape(n * c, 1, d, ho * wo).gather(2, depth)
        return (depth * (h * w) + hw).reshape(n, c, depth.shape[2], ho, wo)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool3d(..., return_indices=True): (values, flat indices into D * H * W)."""
    kernel = _three(kernel_size, "max_pool3d", "kernel_size")
    stride = None if stride is None else _three(stride, "max_pool3d", "stride", True)
    stride = kernel if stride is None else stride
    padding = _three(padding, "max_pool3d", "padding")
    dilation = _three(dilation, "max_pool3d", "dilation")
    _check_input(input, "max_pool3d_with_indices_out_cpu_template",
                 "non-empty 4D or 5D (batch mode) tensor expected for input")
    _check_window(input, kernel, stride, padding, dilation, ceil_mode, False)
    x, unbatched = _batched(input)
    indices = _max_indices(x.detach(), kernel, stride, padding, dilation, ceil_mode)
    values = _gather_flat(x, indices)
    if unbatched:
        return values.squeeze(0), indices.squeeze(0)
    return values, indices


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False); stride defaults to kernel_size."""
    values, indices = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation,
                                              ceil_mode)
    return (values, indices) if return_indices else values


def _adaptive_size(input, output_size, length_message):
    if isinstance(output_size, int):
        sizes = (output_size,) * 3
    else:
        sizes = list(output_size)  # None has no len(): TypeError, as torch
        if len(sizes) != 3:
            raise RuntimeError(length_message)
        sizes = tuple(input.shape[-3 + i] if s is None else int(s) for i, s in enumerate(sizes))
    return sizes




def _empty_like_output(x, shape):
    """An empty result of `shape` that still hangs off x's graph (zero gradient)."""
    return x.reshape(-1).narrow(0, 0, 0).reshape(shape)


def adaptive_avg_pool3d(input, output_size):
    """adaptive_avg_pool3d(input, output_size): int or 3 sizes (None keeps the input's)."""
    sizes = _adaptive_size(input, output_size, "adaptive_avg_pool3d: output_size must be 3")
    _check_input(input, "adaptive_avg_pool3d",
                     "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                     f"{list(input.shape)}")
    if any(s < 0 for s in sizes):
        raise RuntimeError("adaptive_avg_pool3d: elements of output_size must be greater than or "
                           f"equal to 0 but received {{{sizes[0]}, {sizes[1]},{sizes[2]}}}")
    x, unbatched = _batched(input)
    n, c, d, h, w = x.shape
    if 0 in sizes or n == 0:
        y = _empty_like_output(x, (n, c, *sizes))
    else:
        y = _C.adaptive_avg_pool2d(x.reshape(n, c * d, h, w), sizes[1:])
        y = _C.adaptive_avg_pool2d(y.reshape(n * c, 1, d, sizes[1] * sizes[2]),
                                   (sizes[0], sizes[1] * sizes[2]))
        y = y.reshape(n, c, *sizes)
    return y.squeeze(0) if unbatched else y


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool3d(..., return_indices=True): (values, flat indices)."""
    sizes = _adaptive_size(input, output_size,
                           "adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    _check_input(input, "adaptive_max_pool3d",
                     "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: "
                     f"{list(input.shape)}")
    x, unbatched = _batched(input)
    n, c, d, h, w = x.shape
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(sizes)}: {[n, c, *sizes]}")
    if 0 in sizes or n == 0:
        values = _empty_like_output(x, (n, c, *sizes))
        indices = _C.zeros(n, c, *sizes, dtype=_C.int64, device=x.device)
    else:
        with no_grad():
            xd = x.detach()
            v, idx_hw = _C._nn.adaptive_max_pool2d(xd.reshape(n, c * d, h, w), sizes[1:], True)
            plane = sizes[1] * sizes[2]
            _, idx_d = _C._nn.adaptive_max_pool2d(v.reshape(n * c, 1, d, plane),
                                                  (sizes[0], plane), True)
            depth = idx_d // plane
            hw = idx_hw.reshape(n * c, 1, d, plane).gather(2, depth)
            indices = (depth * (h * w) + hw).reshape(n, c, *sizes)
        values = _gather_flat(x, indices)
    if unbatched:
        return values.squeeze(0), indices.squeeze(0)
    return values, indices


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """adaptive_max_pool3d(input, output_size, return_indices=False)."""
    values, indices = adaptive_max_pool3d_with_indices(input, output_size)
    return (values, indices) if return_indices else values


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    (sum over each window of x^p)^(1/p), torch's composite of avg_pool3d."""
    kd, kw, kh = (kernel_size,) * 3 if isinstance(kernel_size, int) else tuple(kernel_size)
    if isinstance(norm_type, (int, float)):
        if norm_type == 0:
            raise ValueError(f"norm_type must be a non-zero value, but got {norm_type}")
        if norm_type == float("inf"):
            return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool3d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_C.sign(out) * _C.relu(_C.abs(out))).mul(kd * kw * kh).pow(1.0 / norm_type)
