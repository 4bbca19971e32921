"""F.fractional_max_pool2d / 3d (and the _with_indices forms): max pooling over windows
whose starts are pseudo-random (Graham, "Fractional Max-Pooling").

The window starts along a dim of input size I, output size O and pool size K follow
PyTorch's generate_intervals, computed in the input's dtype from one sample u per
(batch, channel, dim):

    alpha = (I - K) / (O - 1)
    start[i] = int((i + u) * alpha) - int(u * alpha)   for i < O - 1
    start[O - 1] = I - K

The samples are _random_samples[n, c] (torch's layout: [W, H] for 2-d, [T, H, W] for 3-d)
or drawn with ember.rand. Each output is the first maximum (in window order) of its K-box;
its flat index is found without gradient and the value gathered from the input, so the
gradient reaches exactly that position, as torch's backward.
"""
from .. import _C
from ..autograd import no_grad

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]

_DIM_NAMES = ("time", "height", "width")


def _ints(value, n):
    if isinstance(value, int):
        return (value,) * n
    return tuple(value)


def _intervals(u, in_size, out_size, pool):
    """The window starts (N, C, out_size) as int64 from the samples u (N, C)."""
    n, c = u.shape
    last = _C.full((n, c, 1), in_size - pool, dtype=_C.int64, device=u.device)
    if out_size == 0:
        return last.narrow(2, 0, 0)
    if out_size == 1:
        return last
    dtype, device = u.dtype, u.device
    alpha = (_C.full((), in_size - pool, dtype=dtype, device=device)
             / _C.full((), out_size - 1, dtype=dtype, device=device))
    i = _C.arange(out_size - 1, dtype=dtype, device=device)
    u = u.unsqueeze(2)
    head = ((i + u) * alpha).trunc().to(_C.int64) - (u * alpha).trunc().to(_C.int64)
    return _C.cat([head, last], 2)


def _check_samples(input, samples, nd):
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    batch = 1 if input.dim() == nd + 1 else input.shape[0]
    channels = input.shape[-nd - 1]
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                           f"{samples.shape[2]}.")


def _fractional_max_pool(input, kernel_size, output_size, samples, nd):
    name = f"fractional_max_pool{nd}d"
    kernel = _ints(kernel_size, nd)
    word = "Ints" if nd == 2 else "three Ints"
    if len(kernel) != nd:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or tuple of {word}")
    output_size = _ints(output_size, nd)
    if len(output_size) != nd:
        raise RuntimeError(f"{name}: output_size must either be a single Int or tuple of {word}")
    where = name + "()" if nd == 2 else name + "_out()"
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"{name}(): kernel size should be greater than zero, but got "
                           + "x".join(str(k) for k in kernel))
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{where}: Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    for i in range(1, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(input.shape)} with dimension {i} being "
                               "empty.")
    spatial = tuple(input.shape[-nd:])
    for name_d, o, k, i in zip(_DIM_NAMES[3 - nd:], output_size, kernel, spatial):
        # torch's 3-d check is strict (a window may not end on the last element)
        if o + k - 1 > i or (nd == 3 and o + k - 1 == i):
            raise RuntimeError(f"{where}: pool {name_d} {k} too large relative to input "
                               f"{name_d} {i}")
    _check_samples(input, samples, nd)
    if samples.requires_grad and _C.is_grad_enabled():
        raise RuntimeError(f"The function '{name}' is not differentiable with respect to "
                           "argument 'random_samples'. This input cannot have requires_grad True.")
    unbatched = input.dim() == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    n, c = x.shape[0], x.shape[1]
    if any(o < 0 for o in output_size):
        o = min(output_size)
        raise RuntimeError(f"Trying to create tensor with negative dimension {o}: "
                           f"{[n, c, *output_size]}")
    # torch's sample layout: 2-d [W, H], 3-d [T, H, W]
    order = (1, 0) if nd == 2 else (0, 1, 2)
    u = samples.narrow(0, 0, n).detach()
    with no_grad():
        # (N, C, out, k) positions per dim, combined into flat indices of the spatial plane
        flat = None
        stride = 1
        for d in reversed(range(nd)):
            starts = _intervals(u[:, :, order[d]], spatial[d], output_size[d], kernel[d])
            pos = starts.unsqueeze(3) + _C.arange(kernel[d], dtype=_C.int64, device=x.device)
            shape = [n, c] + [1] * (2 * nd)
            shape[2 + d] = output_size[d]
            shape[2 + nd + d] = kernel[d]
            term = pos.reshape(shape) * stride
            flat = term if flat is None else flat + term
            stride *= spatial[d]
        plane = stride
        outs = 1
        for o in output_size:
            outs *= o
        window = 1
        for k in kernel:
            window *= k
        cand = flat.expand(n, c, *output_size, *kernel).reshape(n, c, outs, window)
        vals = x.detach().reshape(n, c, plane).gather(2, cand.reshape(n, c, outs * window))
        best = vals.reshape(n, c, outs, window).max(3)[1]
        indices = cand.gather(3, best.unsqueeze(3)).reshape(n, c, *output_size)
    values = x.reshape(n, c, plane).gather(2, indices.reshape(n, c, outs))
    values = values.reshape(n, c, *output_size)
    if unbatched:
        return values.squeeze(0), indices.squeeze(0)
    return values, indices


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool2d(..., return_indices=True): (values, flat H * W indices)."""
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool2d requires specifying either an output_size or an "
                         "output_ratio")
    if output_size is None:
        if len(output_ratio) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single "
                             "Int or tuple of Ints.")
        ratio = tuple(output_ratio)
        output_size = [int(input.shape[-2] * ratio[0]), int(input.shape[-1] * ratio[1])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 3 else input.size(0)
        _random_samples = _C.rand(n_batch, input.size(-3), 2, dtype=input.dtype,
                                  device=input.device)
    return _fractional_max_pool(input, kernel_size, output_size, _random_samples, 2)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None) over (N, C, H, W) or (C, H, W)."""
    values, indices = fractional_max_pool2d_with_indices(input, kernel_size, output_size,
                                                         output_ratio, False, _random_samples)
    return (values, indices) if return_indices else values


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool3d(..., return_indices=True): (values, flat T * H * W indices)."""
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool3d requires specifying either an output_size or an "
                         "output_ratio")
    if output_size is None:
        ratio = (tuple(output_ratio) if not isinstance(output_ratio, (int, float))
                 else (output_ratio,) * 3)
        output_size = [int(input.shape[-3] * ratio[0]), int(input.shape[-2] * ratio[1]),
                       int(input.shape[-1] * ratio[2])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 4 else input.size(0)
        _random_samples = _C.rand(n_batch, input.size(-4), 3, dtype=input.dtype,
                                  device=input.device)
    return _fractional_max_pool(input, kernel_size, output_size, _random_samples, 3)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None) over (N, C, T, H, W) or (C, T, H, W)."""
    values, indices = fractional_max_pool3d_with_indices(input, kernel_size, output_size,
                                                         output_ratio, False, _random_samples)
    return (values, indices) if return_indices else values
