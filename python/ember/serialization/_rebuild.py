"""ember's versions of the functions a PyTorch checkpoint calls to rebuild its tensors
(torch._utils._rebuild_tensor_v2 and its kin), and of the constructors its pickle may
call (torch.Size, torch.device, bytes).

The unpicklers put these in place of torch's names. Every argument comes from the
file, so each function checks what it is given before it uses it: a bad checkpoint
raises RuntimeError (or pickle.UnpicklingError), and never makes ember read or
allocate memory the file does not back.
"""
import pickle

from .. import _C
from .._C import Tensor
from ._errors import type_name
from ._raw import tensor_bytes, tensor_from_bytes

_MAX_DIMS = 64          # what ember's tensors (and safetensors files) allow
_INT64_MAX = 2 ** 63 - 1


class LoadedStorage:
    """A storage read from a checkpoint: numel elements of dtype, starting at element
    offset of tensor, a 1-d ember tensor on the device map_location chose. The
    tensors rebuilt on a storage are views of that tensor, so they share memory as
    they did when they were saved."""

    __slots__ = ("tensor", "dtype", "offset", "numel", "_reinterpreted")

    def __init__(self, tensor, dtype, offset=0, numel=None):
        self.tensor, self.dtype, self.offset = tensor, dtype, offset
        self.numel = tensor.numel() - offset if numel is None else numel
        self._reinterpreted = {}

    def view(self, offset, numel):
        """The storage of elements [offset, offset + numel): the storage views of the
        legacy format."""
        if not (_is_int(offset) and _is_int(numel) and 0 <= offset and 0 <= numel
                and offset + numel <= self.numel):
            raise RuntimeError(f"ember.load: a storage view of {numel!r} elements at offset "
                               f"{offset!r} does not fit its storage of {self.numel} elements")
        return LoadedStorage(self.tensor, self.dtype, self.offset + offset, numel)

    def as_dtype(self, dtype):
        """The same bytes read as elements of another dtype. ember cannot view memory
        as another dtype, so this is a copy (made once per dtype)."""
        if dtype == self.dtype:
            return self
        if dtype not in self._reinterpreted:
            nbytes = self.numel * self.dtype.itemsize
            if nbytes % dtype.itemsize:
                raise RuntimeError(f"ember.load: a storage of {nbytes} bytes cannot hold "
                                   f"elements of {dtype}")
            data = tensor_bytes(self.tensor[self.offset:self.offset + self.numel].cpu())
            t = tensor_from_bytes(data, dtype).to(self.tensor.device)
            self._reinterpreted[dtype] = LoadedStorage(t, dtype)
        return self._reinterpreted[dtype]


def _is_int(x):
    return type(x) is int  # not bool, not a float that happens to be whole


def _ints(value, what):
    if not isinstance(value, (tuple, list)) or not all(_is_int(v) for v in value):
        raise RuntimeError(f"ember.load: a tensor's {what} is {_excerpt(value)}, not a sequence "
                           "of ints")
    return tuple(value)


def _excerpt(value):
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001  (a value from the file whose repr fails or nests too deep)
        return f"a {type_name(value)}"
    return text if len(text) <= 60 else text[:57] + "..."


def strided_view(storage, storage_offset, size, stride):
    """The tensor of this geometry over storage: _rebuild_tensor's set_(), checked as
    torch checks it, and then some (no negative strides, no element past the end)."""
    if not isinstance(storage, LoadedStorage):
        raise RuntimeError(f"ember.load: a tensor's storage is {type_name(storage)}, not a "
                           "storage of the checkpoint")
    size, stride = _ints(size, "size"), _ints(stride, "stride")
    if not _is_int(storage_offset):
        raise RuntimeError(f"ember.load: a tensor's storage offset is {_excerpt(storage_offset)}, "
                           "not an int")
    if len(size) != len(stride) or len(size) > _MAX_DIMS:
        raise RuntimeError(f"ember.load: a tensor has size {_excerpt(size)} and stride "
                           f"{_excerpt(stride)}: they must have the same length, at most "
                           f"{_MAX_DIMS}")
    if storage_offset < 0 or any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError(f"ember.load: a tensor has size {size}, stride {stride} and storage "
                           f"offset {storage_offset}; none may be negative")
    numel = 1
    for s in size:
        numel *= s
    if numel > _INT64_MAX or any(s > _INT64_MAX for s in size + stride):
        raise RuntimeError(f"ember.load: a tensor of size {size} and stride {stride} is too large")
    if numel == 0:
        # An empty tensor reads nothing; it gets memory of its own, as torch's would.
        return _C.empty_strided(size, stride, dtype=storage.dtype, device=storage.tensor.device)
    last = storage_offset + sum((s - 1) * st for s, st in zip(size, stride))
    if last >= storage.numel:
        raise RuntimeError(f"ember.load: a tensor of size {size}, stride {stride} and storage "
                           f"offset {storage_offset} reaches element {last} of a storage of "
                           f"{storage.numel} elements")
    view = _C.as_strided(storage.tensor, size, stride, storage.offset + storage_offset)
    return view.detach()  # a leaf that aliases the storage, not an autograd view of it


def _set_requires_grad(t, requires_grad):
    if type(requires_grad) is not bool:
        raise RuntimeError(f"ember.load: requires_grad is {_excerpt(requires_grad)}, not a bool")
    if requires_grad:
        t.requires_grad_(True)  # RuntimeError for an integer dtype, as in torch


def _check_metadata(metadata):
    # torch records the conjugate and negative bits of complex views here; a real tensor
    # has neither, so ember accepts only metadata that sets nothing.
    if metadata is None:
        return
    if not isinstance(metadata, dict) or any(metadata.values()):
        raise RuntimeError(f"ember.load: a tensor has metadata {_excerpt(metadata)}, which ember "
                           "does not support")


class Rebuilders:
    """The rebuild functions and safe constructors of one load.

    trusted (weights_only=False) lets a tensor's Python attributes be set as torch
    sets them (setattr); otherwise only plain attributes that the class does not
    define can be set, so that no property or descriptor runs on data from the file.
    load_storage_bytes(data) reads the legacy-format blob of a storage that was
    pickled on its own (torch.storage._load_from_bytes).
    """

    def __init__(self, trusted, load_storage_bytes):
        self.trusted = trusted
        self._load_storage_bytes = load_storage_bytes
        # The functions whose results _rebuild_from_type_v2 may turn into a subclass.
        self.tensor_functions = (self.rebuild_tensor, self.rebuild_tensor_v2,
                                 self.rebuild_tensor_v3, self.rebuild_parameter,
                                 self.rebuild_parameter_with_state)

    def functions(self):
        """{torch's full name: this load's function for it}."""
        return {
            "torch._utils._rebuild_tensor": self.rebuild_tensor,
            "torch._utils._rebuild_tensor_v2": self.rebuild_tensor_v2,
            "torch._utils._rebuild_tensor_v3": self.rebuild_tensor_v3,
            "torch._utils._rebuild_parameter": self.rebuild_parameter,
            "torch._utils._rebuild_parameter_with_state": self.rebuild_parameter_with_state,
            "torch._tensor._rebuild_from_type_v2": self.rebuild_from_type_v2,
            "torch.serialization._get_layout": get_layout,
            "torch.storage._load_from_bytes": self.load_from_bytes,
        }

    # ---- tensors -----------------------------------------------------------------------
    def rebuild_tensor(self, storage, storage_offset, size, stride):
        return strided_view(storage, storage_offset, size, stride)

    def rebuild_tensor_v2(self, storage, storage_offset, size, stride, requires_grad,
                          backward_hooks, metadata=None):
        # backward_hooks: torch keeps them only for compatibility; they are never run.
        t = strided_view(storage, storage_offset, size, stride)
        _set_requires_grad(t, requires_grad)
        _check_metadata(metadata)
        return t

    def rebuild_tensor_v3(self, storage, storage_offset, size, stride, requires_grad,
                          backward_hooks, dtype, metadata=None):
        # torch's newer dtypes are pickled as an untyped (byte) storage and the dtype.
        if not isinstance(dtype, _C.dtype):
            raise RuntimeError(f"ember.load: a tensor's dtype is {_excerpt(dtype)}, not a dtype")
        if not isinstance(storage, LoadedStorage):
            raise RuntimeError(f"ember.load: a tensor's storage is {type_name(storage)}, not a "
                               "storage of the checkpoint")
        t = strided_view(storage.as_dtype(dtype), storage_offset, size, stride)
        _set_requires_grad(t, requires_grad)
        _check_metadata(metadata)
        return t

    def rebuild_parameter(self, data, requires_grad, backward_hooks):
        from ..nn.parameter import Parameter
        if not isinstance(data, Tensor) or type(requires_grad) is not bool:
            raise RuntimeError("ember.load: a Parameter must be rebuilt from a tensor and a bool, "
                               f"not {type_name(data)} and {type_name(requires_grad)}")
        return Parameter(data, requires_grad)

    def rebuild_parameter_with_state(self, data, requires_grad, backward_hooks, state):
        return self.set_state(self.rebuild_parameter(data, requires_grad, backward_hooks), state)

    def rebuild_from_type_v2(self, func, new_type, args, state):
        """A tensor of a subclass of Tensor, or with Python attributes."""
        if not self.trusted and func not in self.tensor_functions:
            raise pickle.UnpicklingError(f"_rebuild_from_type_v2 may only call a tensor rebuild "
                                         f"function, not {_excerpt(func)}")
        if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
            raise RuntimeError(f"ember.load: {_excerpt(new_type)} is not a tensor type")
        if not isinstance(args, tuple):
            raise RuntimeError("ember.load: the arguments of a tensor rebuild are "
                               f"{type_name(args)}")
        t = func(*args)
        if not isinstance(t, Tensor):
            raise RuntimeError(f"ember.load: a tensor rebuild made {type_name(t)}")
        if type(t) is not new_type:
            t = Tensor._make_subclass(new_type, t, t.requires_grad)
        return self.set_state(t, state)

    def set_state(self, obj, state):
        """torch._utils._set_obj_state: state is None, a dict of attributes, or
        (dict, slots) as object.__getstate__ gives it."""
        if state is None:
            return obj
        slots = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slots = state
        for part in (state, slots):
            if part is None:
                continue
            if not isinstance(part, dict):
                raise RuntimeError(f"ember.load: a tensor's state is {type_name(part)}, not a dict")
            for name, value in part.items():
                if self.trusted:
                    setattr(obj, name, value)
                elif (type(name) is str and not name.startswith("__")
                      and not hasattr(type(obj), name) and hasattr(obj, "__dict__")):
                    obj.__dict__[name] = value
                else:
                    raise pickle.UnpicklingError(
                        f"weights_only load cannot set the attribute {_excerpt(name)} of a "
                        f"{type_name(obj)} (only plain attributes its class does not define)")
        return obj

    def load_from_bytes(self, data):
        """torch.storage._load_from_bytes: a storage pickled on its own holds a
        legacy-format checkpoint of just that storage."""
        if type(data) is not bytes:
            raise RuntimeError(f"ember.load: _load_from_bytes needs bytes, not {type_name(data)}")
        return self._load_storage_bytes(data)


# ---- safe constructors ---------------------------------------------------------------------
# What a weights_only load calls in place of a class that pickle protocol 2 calls: each
# takes only the arguments that pickling such an object produces, so that a crafted
# file cannot make it allocate (bytes(10**12)), look up a codec (which imports a
# module) or parse anything but plain values.

def get_layout(name):
    """torch.serialization._get_layout: ember has one layout, strided."""
    from .. import _layout
    if name != "torch.strided":
        raise RuntimeError(f"ember.load: the checkpoint uses the layout {_excerpt(name)}; ember "
                           "has only torch.strided")
    return _layout.strided


_LATIN1 = ("latin1", "latin-1", "iso-8859-1", "iso8859-1")
_ENCODINGS = _LATIN1 + ("utf-8", "utf8", "ascii")


def codecs_encode(obj, encoding="utf-8", errors="strict"):
    """_codecs.encode, with which protocol 2 pickles bytes: encode(str, 'latin1')."""
    if type(obj) is not str or encoding not in _ENCODINGS or errors != "strict":
        raise pickle.UnpicklingError("_codecs.encode is allowed only on a str with one of the "
                                     f"encodings {', '.join(_ENCODINGS)}")
    return obj.encode(encoding)


def make_bytes(*args):
    """bytes(): protocol 2 pickles b'' as bytes() and protocol 3 bytes as themselves."""
    if not args:
        return b""
    if len(args) == 1 and isinstance(args[0], (bytes, bytearray)):
        return bytes(args[0])
    if len(args) == 2 and type(args[0]) is str and args[1] in _LATIN1:
        return args[0].encode("latin-1")
    raise pickle.UnpicklingError("bytes() is allowed only on bytes or (str, 'latin-1')")


def make_bytearray(*args):
    """bytearray(): protocol 2 pickles it as bytearray(bytes) (older Pythons as
    bytearray(str, 'latin-1'))."""
    return bytearray(make_bytes(*args))


def make_complex(*args):
    if len(args) > 2 or not all(type(a) in (int, float) for a in args):
        raise pickle.UnpicklingError("complex() is allowed only on at most two numbers")
    return complex(*args)


def make_size(*args):
    """torch.Size((2, 3)), as torch.Size pickles."""
    if len(args) != 1:
        raise pickle.UnpicklingError("torch.Size() takes one sequence of ints")
    return _C.Size(_ints(args[0], "size"))


def make_device(*args):
    """torch.device('cuda', 0) or torch.device('cpu'), as torch.device pickles."""
    if not (1 <= len(args) <= 2 and type(args[0]) is str
            and (len(args) == 1 or args[1] is None or _is_int(args[1]))):
        raise pickle.UnpicklingError("torch.device() is allowed only on a str and an int index")
    return _C.device(*args) if len(args) == 1 or args[1] is not None else _C.device(args[0])
