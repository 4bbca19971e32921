"""Tensor creation from other objects and a few factories torch has: asarray (numpy
arrays, buffers, DLPack objects, tensors, scalars, sequences), frombuffer, from_file,
to_dlpack, randint_like and empty_permuted."""
import warnings

from . import _C
from ._C import Tensor
from ._storage import _as_device

__all__ = ["asarray", "frombuffer", "from_file", "to_dlpack", "randint_like", "empty_permuted"]

# struct format characters of the buffer protocol -> dtype (what asarray infers from a
# buffer when no dtype is given).
_BUFFER_FORMATS = {"B": _C.uint8, "b": _C.int8, "h": _C.int16, "i": _C.int32, "l": _C.int64,
                   "q": _C.int64, "f": _C.float32, "d": _C.float64, "e": _C.float16,
                   "?": _C.bool, "c": _C.uint8}


_warned_not_writable = False


def _element_size(dtype):
    return dtype.itemsize


def _is_numpy_array(obj):
    return type(obj).__module__ == "numpy" and type(obj).__name__ == "ndarray"


def _is_numpy_scalar(obj):
    return type(obj).__module__ == "numpy" and hasattr(obj, "dtype") and not _is_numpy_array(obj)


def _buffer_length(obj):
    try:
        with memoryview(obj) as view:
            contiguous, length, fmt = view.contiguous, view.nbytes, view.format
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if not contiguous:
        raise RuntimeError("could not retrieve a contiguous buffer from the given object "
                           "(non-contiguous buffers are not supported)")
    return length, fmt


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the memory of a Python buffer (bytearray, array.array,
    memoryview, mmap, ...), not copied: writes go to the buffer. count elements of dtype
    (-1: all that follow offset), starting offset bytes in."""
    length, _ = _buffer_length(buffer)
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    item = _element_size(dtype)
    if count < 0:
        if (length - offset) % item:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({item})")
        count = (length - offset) // item
    elif offset + count * item > length:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    raw, writable = _C._bytes_of_buffer(buffer, offset, count * item)
    global _warned_not_writable
    from ._global_settings import is_warn_always_enabled
    if not writable and (not _warned_not_writable or is_warn_always_enabled()):
        _warned_not_writable = True
        warnings.warn("The given buffer is not writable, and ember does not support "
                      "non-writable tensors. This means you can write to the underlying "
                      "(supposedly non-writable) buffer using the tensor. You may want to "
                      "copy the buffer to protect its data or make it writable before "
                      "converting it to a tensor. This warning is shown once.", UserWarning,
                      stacklevel=2)
    result = _C._storage_view(raw, dtype, 0, [count], [1])
    if requires_grad:
        result.requires_grad_(True)
    return result


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False, requires_grad=False):
    """A 1-D tensor of size elements mapped from filename. shared=True: writes go to the
    file (grown if shorter); else the tensor is a private copy-on-write view."""
    from ._storage import UntypedStorage
    if layout is not None and str(layout) != "ember.strided":
        raise NotImplementedError(f"from_file: layout {layout} is not supported")
    if pin_memory:
        raise NotImplementedError("from_file: pin_memory=True is not supported")
    dtype = _C.get_default_dtype() if dtype is None else dtype
    if not isinstance(size, int) or size < 0:
        raise RuntimeError(f"from_file: size must be a non-negative int, got {size!r}")
    storage = UntypedStorage.from_file(filename, bool(shared), size * _element_size(dtype))
    result = storage._view(dtype, 0, [size], [1])
    if device is not None and _as_device(device) != result.device:
        result = result.to(device)
    if requires_grad:
        result.requires_grad_(True)
    return result


def to_dlpack(tensor):
    """A DLPack capsule of tensor (legacy, unversioned), for another library's from_dlpack."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")
    return tensor.__dlpack__()


def _alias_checks(tensor, dtype, device, copy, what):
    """The tensor itself when it already has dtype and device (copy not True), else a
    converted copy; copy=False refuses to convert, as torch."""
    want_dtype = tensor.dtype if dtype is None else dtype
    want_device = tensor.device if device is None else _as_device(device)
    if want_device.type == "cuda" and want_device.index is None and tensor.is_cuda:
        want_device = tensor.device
    same = want_dtype == tensor.dtype and want_device == tensor.device
    if same and copy is not True:
        return tensor
    if copy is False:
        if want_dtype != tensor.dtype:
            raise ValueError(f"can't alias {what} with dtype '{tensor.dtype}' into dtype "
                             f"'{want_dtype}'.")
        raise ValueError(f"can't alias {what} from device '{tensor.device}' to "
                         f"'{want_device}'.")
    converted = tensor.to(device=want_device, dtype=want_dtype)
    if converted is tensor or converted._is_view_of(tensor):
        converted = converted.clone()
    return converted  # still in tensor's autograd graph, as torch's


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """obj as a tensor, sharing its memory when it can (as torch.asarray): a tensor, a
    numpy array, a DLPack object or a buffer (bytes, bytearray, array.array, memoryview)
    is aliased unless copy=True or a dtype/device change forces a copy (copy=False then
    raises ValueError); scalars and sequences are always copied (copy=False raises)."""
    if copy not in (None, True, False):
        raise TypeError(f"asarray(): copy must be a bool or None, got {type(copy).__name__}")
    if _is_numpy_scalar(obj):  # e.g. np.float32(2.5): a 0-dim array of its dtype
        import numpy
        obj = numpy.asarray(obj)
    if isinstance(obj, Tensor):
        result = _alias_checks(obj, dtype, device, copy, "tensor")
    elif _is_numpy_array(obj):
        try:
            shared = _C.from_numpy(obj)
        except TypeError:
            if copy is False:
                raise
            shared = None
        if shared is None:
            result = _C.tensor(obj, dtype=dtype, device=device)
        else:
            result = _alias_checks(shared, dtype, device, copy, "tensor")
    elif hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        result = _alias_checks(_C.from_dlpack(obj), dtype, device, copy, "tensor")
    elif _has_buffer(obj) and not isinstance(obj, (str,)):
        length, fmt = _buffer_length(obj)
        fmt = fmt.lstrip("@=<>!")
        if dtype is None:
            dtype = _BUFFER_FORMATS.get(fmt)
            if dtype is None:
                raise TypeError(f"asarray(): buffer format '{fmt}' has no ember dtype")
        item = _element_size(dtype)
        if length % item:
            raise ValueError(f"buffer length ({length} bytes) must be a multiple of element "
                             f"size ({item})")
        if length == 0:
            shared = _C.empty(0, dtype=dtype)
        else:
            shared = frombuffer(obj, dtype=dtype)
        result = _alias_checks(shared, None, device, copy, "buffer")
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        result = _C.tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        result.requires_grad_(True)
    return result


def _has_buffer(obj):
    try:
        memoryview(obj).release()
        return True
    except TypeError:
        return False


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,  # noqa: A002
                 requires_grad=False, memory_format=None, generator=None):
    """Random integers in [low, high) shaped like input, in input's dtype and device
    unless given: randint_like(input, high) or randint_like(input, low, high)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"randint_like(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if high is None:
        low, high = 0, low
    if layout is not None and str(layout) != "ember.strided":
        raise NotImplementedError(f"randint_like: layout {layout} is not supported")
    if int(low) >= int(high):
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={int(low)} >= to={int(high)}")
    kwargs = {"dtype": input.dtype if dtype is None else dtype,
              "device": input.device if device is None else device}
    if generator is not None:
        kwargs["generator"] = generator
    result = _C.randint(int(low), int(high), tuple(input.shape), **kwargs)
    if requires_grad:
        result.requires_grad_(True)
    return result


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialized tensor of logical shape size whose memory is laid out in the
    order physical_layout (dims from outermost to innermost)."""
    size = [int(s) for s in size]
    physical_layout = [int(d) for d in physical_layout]
    n = len(size)
    if len(physical_layout) != n:
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {n} is not equal to "
                           f"len(physical_layout) = {len(physical_layout)}")
    seen = set()
    for i, d in enumerate(physical_layout):
        if not 0 <= d < n:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {n - 1}, "
                             f"but got {d} at index {i}).  NB: negative dims not currently "
                             "supported; file an issue if you want it.")
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    strides, step = [0] * n, 1
    for d in reversed(physical_layout):
        strides[d] = step
        step *= max(size[d], 1)
    kwargs = {"dtype": dtype, "device": device}
    if pin_memory:
        kwargs["pin_memory"] = True
    result = _C.empty_strided(size, strides, **{k: v for k, v in kwargs.items() if v is not None})
    if requires_grad:
        result.requires_grad_(True)
    return result
