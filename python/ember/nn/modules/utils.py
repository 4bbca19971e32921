"""Argument helpers shared by the layers: _single/_pair (int or tuple -> tuple)."""
import collections.abc
import itertools


def _ntuple(n, name):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(itertools.repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")


def _reverse_repeat_tuple(t, n):
    """(a, b) -> (b, b, a, a) for n=2: F.pad's order for per-dimension padding."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _factory_kwargs(device, dtype):
    """The device=/dtype= keywords of a layer, as ember.empty takes them."""
    return {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}
