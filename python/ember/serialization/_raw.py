"""Storages as raw bytes: what a checkpoint holds for each storage is its elements'
bytes, in the byte order its "byteorder" record (zip) or sys_info (legacy) names."""
import sys

from .. import _C
from ._torch_names import dtype_name


def tensor_bytes(t):
    """The row-major bytes of t's elements, read on the CPU. ember's pickling support
    (Tensor.__reduce_ex__) gives them for every dtype, bfloat16 included, which numpy
    does not have."""
    _, args = _C.Tensor.__reduce_ex__(t.detach(), 2)
    return args[0]


def tensor_from_bytes(data, dtype, byteorder=sys.byteorder):
    """A 1-d CPU tensor of dtype holding data (bytes of whole elements, already
    checked to be len(data) // itemsize of them), byte-swapped if the file's byte
    order is not this machine's."""
    if byteorder != sys.byteorder and dtype.itemsize > 1:
        data = _byteswap(data, dtype.itemsize)
    return _C._tensor_from_bytes(data, dtype_name(dtype), (len(data) // dtype.itemsize,))


def _byteswap(data, itemsize):
    # Byte i of each element takes byte itemsize-1-i: one extended-slice copy per byte.
    out = bytearray(len(data))
    for i in range(itemsize):
        out[i::itemsize] = data[itemsize - 1 - i::itemsize]
    return bytes(out)
