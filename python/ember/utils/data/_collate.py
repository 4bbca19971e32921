"""default_collate (samples -> one batch) and default_convert (one sample's numpy
arrays -> tensors), with torch.utils.data's rules: tensors are stacked, numbers
and numpy arrays become tensors, strings stay lists, and tuples, lists,
namedtuples and dicts are collated field by field, recursively."""
import collections.abc
import copy
import re

import ember

__all__ = ["default_collate", "default_convert"]

try:
    import numpy as np
except ImportError:  # numpy is optional here: without it there are no arrays to collate
    np = None

# numpy dtypes that cannot become tensors: strings, bytes and objects.
_np_str_obj_array_pattern = re.compile(r"[SaUO]")

_collate_err_msg = ("default_collate: batch must contain tensors, numpy arrays, numbers, "
                    "dicts or lists; found {}")


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def _rebuild_mapping(elem, values):
    # The batch keeps the sample's mapping type where it can be rebuilt.
    if isinstance(elem, collections.abc.MutableMapping):
        clone = copy.copy(elem)
        clone.update(values)
        return clone
    try:
        return type(elem)(values)
    except TypeError:
        return values


def _rebuild_sequence(elem, values):
    try:
        return type(elem)(values)
    except TypeError:
        return values


def default_convert(data):
    """Turns the numpy arrays and numpy scalars in data into tensors (recursing
    through mappings, namedtuples and sequences); leaves everything else alone."""
    if isinstance(data, ember.Tensor):
        return data
    if np is not None and isinstance(data, (np.ndarray, np.generic)):
        if data.dtype.kind in "SaUO" or _np_str_obj_array_pattern.search(data.dtype.str):
            return data
        return ember.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def default_collate(batch):
    """Merges a list of samples into a batch: tensors are stacked along a new first
    dimension; numpy arrays and numpy scalars become tensors (then stacked); ints
    become an int64 tensor, floats a float64 tensor, bools a bool tensor; str and
    bytes stay as they are (a list of them); mappings, namedtuples and sequences are collated element by
    element (a tuple becomes a list, as in PyTorch)."""
    elem = batch[0]
    if isinstance(elem, ember.Tensor):
        return ember.stack(list(batch), 0)
    if np is not None and isinstance(elem, np.ndarray):
        if _np_str_obj_array_pattern.search(elem.dtype.str) is not None:
            raise TypeError(_collate_err_msg.format(elem.dtype))
        return default_collate([ember.as_tensor(b) for b in batch])
    if np is not None and isinstance(elem, np.generic):
        if _np_str_obj_array_pattern.search(elem.dtype.str) is not None:
            return batch  # numpy strings stay strings
        return ember.as_tensor(np.array(batch))
    if isinstance(elem, float):
        return ember.tensor(batch, dtype=ember.float64)
    if isinstance(elem, int):  # bool is an int: a batch of bools becomes a bool tensor
        return ember.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch  # as it came: a list, or a tuple inside a transposed sequence
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        return _rebuild_sequence(elem, [default_collate(samples) for samples in transposed])
    raise TypeError(_collate_err_msg.format(type(elem)))
