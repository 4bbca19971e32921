"""ember.types: torch.types' type aliases, for annotations in programs run on ember."""
import os
from builtins import bool as _bool, bytes as _bytes, complex as _complex, float as _float  # noqa: F401
from builtins import int as _int, str as _str  # noqa: F401
from collections.abc import Sequence
from typing import IO, Union

from . import Size, Tensor
from . import device as _device
from . import dtype as _dtype
from . import layout as _layout  # noqa: F401
from ._storage import StorageBase as Storage

__all__ = ["Number", "Device", "FileLike", "Storage"]

_TensorOrTensors = Union[Tensor, Sequence[Tensor]]
_TensorOrOptionalTensors = Union[Tensor, Sequence[Union[Tensor, None]]]
_size = Union[Size, list, tuple]
_symsize = Union[Size, Sequence[int]]  # ember has no SymInt: sizes are ints
IntLikeType = int
FloatLikeType = float
BoolLikeType = bool
Number = Union[int, float, bool]
_Number = (int, float, bool)
FileLike = Union[str, os.PathLike, IO[bytes]]
Device = Union[_device, str, int, None]
