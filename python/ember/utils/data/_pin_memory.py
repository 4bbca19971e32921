"""DataLoader(pin_memory=True): each batch's tensors are copied to page-locked host
memory, so that .cuda(non_blocking=True) overlaps the copy with other work."""
import collections.abc

import ember

from ._collate import _is_namedtuple, _rebuild_mapping, _rebuild_sequence


def pin_memory(data):
    """data with every tensor in it pinned (recursing like default_convert); an object
    with its own pin_memory() method is pinned by it."""
    if isinstance(data, ember.Tensor):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: pin_memory(data[key]) for key in data})
    if _is_namedtuple(data):
        return type(data)(*(pin_memory(d) for d in data))
    if isinstance(data, tuple):
        return [pin_memory(d) for d in data]
    if isinstance(data, collections.abc.Sequence):
        return _rebuild_sequence(data, [pin_memory(d) for d in data])
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
