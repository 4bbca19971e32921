"""ember.histogram / ember.histogramdd (and Tensor.histogram), as torch's: counts (or
summed weights) of the values in bins given by a count (equal bins over range, or over
the data's min..max) or by their edges; density=True scales them to integrate to 1.

A value v falls in bin i when edges[i] <= v < edges[i+1]; the last bin also holds
v == edges[-1]; values outside the edges are not counted. The bin of each value is found
by a binary search in the edges (as torch does for given edges; for a bin count torch
interpolates then corrects against the same edges, which gives the same bin)."""
import math

from . import _C
from ._C import Tensor
from ._return_types import named_tuple

__all__ = ["histogram", "histogramdd"]


histogram_type = named_tuple("histogram", ["hist", "bin_edges"])
histogramdd_type = named_tuple("histogramdd", ["hist", "bin_edges"])

_TORCH_TYPE_NAMES = {_C.int64: "Long", _C.int32: "Int", _C.int16: "Short", _C.int8: "Char",
                     _C.uint8: "Byte", _C.bool: "Bool"}


def _check_input(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"histogramdd\" not implemented for "
                                  f"'{_TORCH_TYPE_NAMES.get(input.dtype, str(input.dtype))}'")


def _outer_edges(points, dims, range):  # noqa: A002 (torch's name)
    """(leftmost, rightmost) per dim: range, else the data's min and max (0 and 1 for no
    data); equal ends are widened by 0.5 each way."""
    if range is not None:
        range = [float(v) for v in range]
        if len(range) != 2 * dims:
            raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range "
                               f"should have {2 * dims} elements, but got {len(range)}")
        lows, highs = range[0::2], range[1::2]
    elif points.size(0) > 0:
        lows = [float(v) for v in points.amin(0).tolist()]
        highs = [float(v) for v in points.amax(0).tolist()]
    else:
        lows, highs = [0.0] * dims, [1.0] * dims
    ends = []
    for d, (low, high) in enumerate(zip(lows, highs)):
        if not (math.isfinite(low) and math.isfinite(high)):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{low:g}, {high:g}] "
                               "is not finite")
        if low > high:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                               f"{low:g} max {high:g} for dimension {d}")
        if low == high:
            low, high = low - 0.5, high + 0.5
        ends.append((low, high))
    return ends


def _edges(points, bins, range, op):  # noqa: A002
    """The bin edges of each dim (1-D tensors in the points' dtype and device)."""
    dims = points.size(1)
    if isinstance(bins, Tensor):
        bins = [bins]
    elif isinstance(bins, int):
        bins = [bins] * dims
    bins = list(bins)
    if len(bins) != dims:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    if all(isinstance(b, Tensor) for b in bins):
        if range is not None:
            raise TypeError(f"{op}(): range cannot be given with bin edges")
        for d, b in enumerate(bins):
            if b.dtype != points.dtype:
                raise RuntimeError(
                    f"torch.histogramdd: input tensor and bins tensors should have the same "
                    f"dtype, but got input with dtype {points.dtype} and bins for dimension {d} "
                    f"with dtype {b.dtype}")
            if b.dim() != 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, "
                                   f"but got {b.dim()} dimensions in the bins tensor for "
                                   f"dimension {d}")
            if b.numel() < 2:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got "
                                   f"{b.numel() - 1} for dimension {d}")
        return [b.to(points.device) for b in bins]
    for d, b in enumerate(bins):
        if not isinstance(b, int) or isinstance(b, bool):
            raise TypeError(f"{op}(): bins must be an int, a 1-D tensor, or a sequence of ints "
                            f"or of tensors, got {type(b).__name__}")
        if b <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for "
                               f"dimension {d}")
    ends = _outer_edges(points, dims, range)
    return [_C.linspace(low, high, b + 1, dtype=points.dtype, device=points.device)
            for (low, high), b in zip(ends, bins)]


def _counts(points, edges, weight, density):
    """The histogram of points (N, D) over edges (one tensor per dim)."""
    sizes = [e.numel() - 1 for e in edges]
    flat = _C.zeros(points.size(0), dtype=_C.int64, device=points.device)
    inside = _C.ones(points.size(0), dtype=_C.bool, device=points.device)
    for d, e in enumerate(edges):
        column = points[:, d].contiguous()
        index = _C.searchsorted(e, column, right=True) - 1
        # The last edge closes the last bin.
        index = _C.where(column == e[-1], _C.full_like(index, sizes[d] - 1), index)
        inside = inside & (index >= 0) & (index < sizes[d]) & (column <= e[-1])
        flat = flat * sizes[d] + index.clamp(0, sizes[d] - 1)
    values = (_C.ones(points.size(0), dtype=points.dtype, device=points.device)
              if weight is None else weight.reshape(-1))
    values = _C.where(inside, values, _C.zeros_like(values))
    total = math.prod(sizes)
    hist = _C.zeros(total, dtype=points.dtype, device=points.device).index_add(0, flat, values)
    hist = hist.reshape(sizes)
    if density:
        volume = None
        for d, e in enumerate(edges):
            shape = [1] * len(edges)
            shape[d] = sizes[d]
            width = (e[1:] - e[:-1]).reshape(shape)
            volume = width if volume is None else volume * width
        hist = hist / (hist.sum() * volume)
    return hist


def _check_weight(weight, input, leading_shape):
    if weight is None:
        return None
    if not isinstance(weight, Tensor):
        raise TypeError(f"histogram(): weight must be a Tensor, not {type(weight).__name__}")
    if weight.dtype != input.dtype:
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, it should have "
                           f"the same dtype as the input tensor, but got input with dtype "
                           f"{input.dtype} and weight with dtype {weight.dtype}")
    if tuple(weight.shape) != tuple(leading_shape):
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have "
                           f"the same shape as the input tensor excluding its innermost "
                           f"dimension, but got input with shape {list(leading_shape) + [1]} "
                           f"and weight with shape {list(weight.shape)}")
    return weight.to(input.device)


def histogram(input, bins, *, range=None, weight=None, density=False, out=None):  # noqa: A002
    """(hist, bin_edges) of the values of input (any shape, floating point)."""
    _check_input(input, "histogram")
    weight = _check_weight(weight, input, input.shape)
    points = input.detach().reshape(-1, 1)
    if isinstance(bins, (list, tuple)):
        raise TypeError("histogram(): bins must be an int or a 1-D tensor")
    edges = _edges(points, bins, range, "histogram")
    hist = _counts(points, edges, None if weight is None else weight.detach(), density)
    bin_edges = edges[0]
    if out is not None:
        from ._out_variants import write_outputs
        return write_outputs("histogram", histogram_type(hist, bin_edges), out)
    return histogram_type(hist, bin_edges.clone() if isinstance(bins, Tensor) else bin_edges)


def histogramdd(input, bins, *, range=None, weight=None, density=False):  # noqa: A002
    """(hist, bin_edges) of points: input's last dim holds each point's D coordinates;
    hist has one dim per coordinate."""
    _check_input(input, "histogramdd")
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    weight = _check_weight(weight, input, input.shape[:-1])
    points = input.detach().reshape(-1, input.size(-1))
    edges = _edges(points, bins, range, "histogramdd")
    hist = _counts(points, edges, None if weight is None else weight.detach(), density)
    return histogramdd_type(hist, tuple(edges))
