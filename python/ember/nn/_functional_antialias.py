"""F.interpolate(..., antialias=True): resampling 4-d images with a filter widened to the
downsampling factor (bilinear: triangle, bicubic: Keys' cubic with a = -0.5, lanczos: 3
lobes), as PIL and torch do, so that shrinking an image averages every input pixel
instead of skipping most of them.

The filter is separable: each spatial dim gets a [out, in] weight matrix (each row the
normalized filter around that output pixel's center), and the result is
W_h @ x @ W_w^T: two matmuls, differentiable through ember's autograd."""
import math

import numpy as np

_SUPPORT = {"bilinear": 1.0, "bicubic": 2.0, "lanczos": 3.0}


def _triangle(x):
    return max(0.0, 1.0 - abs(x))


def _cubic(x, a=-0.5):
    x = abs(x)
    if x < 1.0:
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    if x < 2.0:
        return (((x - 5.0) * x + 8.0) * x - 4.0) * a
    return 0.0


def _lanczos(x):
    x = abs(x)
    if x >= 3.0:
        return 0.0
    if x == 0.0:
        return 1.0
    px = math.pi * x
    return 3.0 * math.sin(px) * math.sin(px / 3.0) / (px * px)


_FILTERS = {"bilinear": _triangle, "bicubic": _cubic, "lanczos": _lanczos}


def _weights(in_size, out_size, scale, mode):
    """[out_size, in_size]: row i is the filter, widened by the scale when shrinking, around
    output pixel i's center in input coordinates, normalized to sum to 1."""
    widen = scale if scale >= 1.0 else 1.0
    support = _SUPPORT[mode] * widen
    filt = _FILTERS[mode]
    w = np.zeros((out_size, in_size))
    for i in range(out_size):
        center = scale * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), in_size)
        row = np.array([filt((j - center + 0.5) / widen) for j in range(lo, hi)])
        total = row.sum()
        w[i, lo:hi] = row / total if total != 0 else row
    return w


def _scale(in_size, out_size, align_corners, scale_factor):
    """Input pixels per output pixel (torch's area_pixel_compute_scale)."""
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    if scale_factor is not None:
        return 1.0 / scale_factor
    return in_size / out_size


def interpolate_antialias(input, size, scale_factor, mode, align_corners, recompute_scale_factor):
    import ember
    if mode not in _SUPPORT or input.dim() != 4:
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes "
                         "and requires a 4-D tensor as input")
    if not input.is_floating_point():
        raise NotImplementedError(f"interpolate: antialias=True needs a floating-point input, got "
                                  f"{input.dtype}")
    in_sizes = list(input.shape[2:])
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        out_sizes = [size, size] if isinstance(size, int) else list(size)
        factors = [None, None]
    else:
        factors = [scale_factor, scale_factor] if isinstance(scale_factor, (int, float)) \
            else list(scale_factor)
        if len(factors) != 2:
            raise ValueError("interpolate: scale_factor must have 2 entries for a 4-D input")
        out_sizes = [int(math.floor(n * f)) for n, f in zip(in_sizes, factors)]
        if recompute_scale_factor:
            factors = [None, None]
    if len(out_sizes) != 2 or any(not isinstance(n, int) or n <= 0 for n in out_sizes):
        raise ValueError(f"interpolate: the output size must be 2 positive ints, got {out_sizes}")
    mats = []
    for n_in, n_out, f in zip(in_sizes, out_sizes, factors):
        w = _weights(n_in, n_out, _scale(n_in, n_out, bool(align_corners), f), mode)
        mats.append(ember.tensor(w, dtype=input.dtype, device=input.device))
    w_h, w_w = mats
    return ember.matmul(ember.matmul(w_h, input), w_w.t())
