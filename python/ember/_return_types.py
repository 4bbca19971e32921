"""ember.return_types: the named tuples that max(dim=), sort, svd, frexp, ... return, as
torch.return_types. Some are made in C++ (csrc/reduce_bindings.h, csrc/shape_index.cpp),
the rest here (named_tuple); install() gives them all PyTorch's repr, one field per line:

    ember.return_types.max(
    values=tensor([3., 4.]),
    indices=tensor([1, 1]))
"""
from __future__ import annotations

import collections

from . import _C


def _repr(self):
    cls = type(self)
    fields = ",\n".join(f"{name}={value!r}" for name, value in zip(cls.__match_args__, self))
    return f"ember.return_types.{cls.__name__.rsplit('.', 1)[-1]}(\n{fields})"


def named_tuple(name, fields):
    """A named tuple type ember.return_types.<name> with PyTorch's repr, registered there."""
    cls = collections.namedtuple(name, fields)
    cls.__module__ = "ember.return_types"
    cls.__qualname__ = name
    cls.__repr__ = _repr
    setattr(_C.return_types, name, cls)
    return cls


def install():
    """PyTorch's repr on every type in ember.return_types (the C++ ones included)."""
    for cls in vars(_C.return_types).values():
        if isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "__match_args__"):
            cls.__repr__ = _repr
