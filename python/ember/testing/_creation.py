"""make_tensor: torch.testing.make_tensor's random test tensors (same value ranges, checks
and messages)."""
import collections.abc
import functools
import math
import warnings

import ember

__all__ = ["make_tensor"]


def _dtypes(*names):
    return [getattr(ember, name) for name in names if hasattr(ember, name)]


_INTEGRAL_TYPES = _dtypes("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64")
_FLOATING_TYPES = _dtypes("float16", "bfloat16", "float32", "float64")
_COMPLEX_TYPES = _dtypes("complex32", "complex64", "complex128")
_BOOLEAN_OR_INTEGRAL_TYPES = [ember.bool, *_INTEGRAL_TYPES]
_FLOATING_OR_COMPLEX_TYPES = [*_FLOATING_TYPES, *_COMPLEX_TYPES]


def _uniform_random_(t, low, high):
    # uniform_ over a range wider than the dtype's max would overflow: draw half, double.
    if high - low >= ember.finfo(t.dtype).max:
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of `shape` with random values in [low, high): defaults [-9, 9) for floating
    dtypes, [-9, 10) for integers, [0, 2) for bool, clamped to the dtype's range.
    noncontiguous=True gives a strided view; exclude_zero replaces zeros by 1 (integers) or
    the dtype's tiny (floating)."""
    def modify_low_high(low, high, *, lowest_inclusive, highest_exclusive, default_low, default_high):
        low = low if low is not None else default_low
        high = high if high is not None else default_high
        if any(isinstance(value, float) and math.isnan(value) for value in (low, high)):
            raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
        elif low == high and dtype in _FLOATING_OR_COMPLEX_TYPES:
            warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types "
                          "is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                          FutureWarning, stacklevel=3)
        elif low >= high:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        elif high < lowest_inclusive or low >= highest_exclusive:
            raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                             f"but {dtype} only supports [{lowest_inclusive}, {highest_exclusive})")
        low = min(max(low, lowest_inclusive), highest_exclusive)
        high = min(max(high, lowest_inclusive), highest_exclusive)
        if dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
            return math.ceil(low), math.ceil(high)
        return low, high

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                         f"but got {noncontiguous=} and {memory_format=}")
    if requires_grad and dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got {dtype=}")
    noncontiguous = noncontiguous and functools.reduce(lambda x, y: x * y, shape, 1) > 1
    if noncontiguous:
        # Twice the last dimension, then every other element: a view with stride 2.
        shape = (*shape[:-1], 2 * shape[-1])

    if dtype is ember.bool:
        low, high = modify_low_high(low, high, lowest_inclusive=0, highest_exclusive=2, default_low=0,
                                    default_high=2)
        result = ember.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
        info = ember.iinfo(dtype)
        low, high = modify_low_high(low, high, lowest_inclusive=info.min,
                                    highest_exclusive=info.max + (1 if dtype is not ember.int64 else 0),
                                    default_low=-9, default_high=10)
        result = ember.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING_OR_COMPLEX_TYPES:
        info = ember.finfo(dtype)
        low, high = modify_low_high(low, high, lowest_inclusive=info.min, highest_exclusive=info.max,
                                    default_low=-9, default_high=9)
        result = ember.empty(shape, device=device, dtype=dtype)
        _uniform_random_(ember.view_as_real(result) if dtype in _COMPLEX_TYPES else result, low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor()."
                        " To request support, file an issue at: https://github.com/pytorch/pytorch/issues")

    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOLEAN_OR_INTEGRAL_TYPES else ember.finfo(dtype).tiny
    if dtype in _FLOATING_OR_COMPLEX_TYPES:
        result.requires_grad = requires_grad
    return result
