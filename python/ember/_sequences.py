"""Sequence factories and set tests that PyTorch has beside arange and unique:
torch.logspace, the deprecated torch.range (end included), torch.isin and
torch.unravel_index, built from ember's ops.
"""
import builtins
import math
import warnings

from . import _C
from ._C import Tensor

__all__ = ["logspace", "range", "isin", "unravel_index"]


def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None,
             requires_grad=False):
    """base ** linspace(start, end, steps), computed in float64, then cast to dtype.
    (out= is added by _out_variants.)"""
    exponents = _C.linspace(start, end, steps, dtype=_C.float64, device=device)
    values = _C.pow(base, exponents)
    dtype = dtype if dtype is not None else _C.get_default_dtype()
    return values.to(dtype).requires_grad_(requires_grad)


def range(start=0, end=None, step=1, *, dtype=None, layout=None, device=None,  # noqa: A001
          requires_grad=False):
    """Deprecated in PyTorch: start, start + step, ... up to and including end.
    (out= is added by _out_variants.)"""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = int(math.floor((end - start) / step)) + 1
    dtype = dtype if dtype is not None else _C.get_default_dtype()
    values = _C.arange(count, dtype=_C.float64, device=device) * step + start
    return values.to(dtype).requires_grad_(requires_grad)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """For each of elements, whether it equals one of test_elements (NaN equals nothing);
    either may be a number. The result has elements' shape."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments: expected at "
                        "least one Tensor")
    device = (elements if isinstance(elements, Tensor) else test_elements).device
    elements_t = elements if isinstance(elements, Tensor) else _C.tensor(elements, device=device)
    tests = test_elements if isinstance(test_elements, Tensor) else _C.tensor(test_elements,
                                                                              device=device)
    common = _C.promote_types(elements_t.dtype, tests.dtype)
    values, pool = elements_t.to(common), tests.reshape(-1).to(common)
    if common.is_floating_point:
        pool = pool[~_C.isnan(pool)]  # NaN equals nothing, and would upset the search
    if pool.numel() == 0:
        found = _C.zeros(values.shape, dtype=_C.bool, device=device)
    else:
        # Binary search in the sorted pool: one pass whatever the sizes.
        pool = pool.sort().values
        at = _C.searchsorted(pool, values.reshape(-1)).clamp_(max=pool.numel() - 1)
        found = (pool[at] == values.reshape(-1)).reshape(values.shape)
    return ~found if invert else found


def unravel_index(indices, shape):
    """The coordinates in a tensor of `shape` of each flat (row-major) index, as a tuple of
    tensors shaped like indices; indices wrap modulo the number of elements, as in
    PyTorch."""
    if not isinstance(indices, Tensor):
        indices = _C.tensor(indices)
    if indices.dtype.is_floating_point or indices.dtype == _C.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(not isinstance(s, int) for s in shape):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {shape}")
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    remaining = indices.to(_C.int64)
    total = math.prod(shape)
    if total > 0:
        remaining = _C.remainder(remaining, total)
    coordinates = []
    for size in reversed(shape):
        coordinates.append(_C.remainder(remaining, builtins.max(size, 1)))
        remaining = _C.div(remaining, builtins.max(size, 1), rounding_mode="floor")
    return tuple(reversed(coordinates))
