"""PyTorch's storages: ember.UntypedStorage (the bytes under tensors), TypedStorage
(the same bytes seen as elements of one dtype, deprecated in torch but what
Tensor.storage() returns) and the legacy classes FloatStorage, LongStorage, ...

A storage aliases its tensors' memory, as in torch: a write through a storage is seen
by every tensor viewing it, and Tensor.set_(storage, ...) makes a tensor over it. A
storage object holds an "anchor", an empty uint8 tensor that shares the memory's
ember Storage; everything else is read through tensors made over that Storage by
ember._C._storage_view (csrc/storage_bindings.cpp), outside autograd.
"""
import collections.abc
import copy as _copy
import warnings
import weakref

from . import _C
from ._C import Tensor

__all__ = ["StorageBase", "UntypedStorage", "TypedStorage", "is_storage"]

_uint8 = _C.uint8

# Storage classes per dtype (torch.storage._dtype_to_storage_type_map), for the dtypes
# ember has.
_STORAGE_NAMES = {
    _C.float64: "DoubleStorage", _C.float32: "FloatStorage", _C.float16: "HalfStorage",
    _C.bfloat16: "BFloat16Storage", _C.int64: "LongStorage", _C.int32: "IntStorage",
    _C.int16: "ShortStorage", _C.int8: "CharStorage", _C.uint8: "ByteStorage",
    _C.bool: "BoolStorage",
}


def _as_device(device):
    """An ember.device from a device, a string ("cuda:1") or a CUDA index."""
    if isinstance(device, _C.device):
        return device
    if isinstance(device, int) and not isinstance(device, bool):
        return _C.device("cuda", device)
    return _C.device(device)


def _empty_anchor(tensor):
    """An empty uint8 tensor over tensor's Storage: keeps the memory alive, no autograd."""
    return _C._storage_view(tensor, _uint8, 0, [0], [1])


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool) or (
        isinstance(x, Tensor) and x.dim() == 0 and not x.is_floating_point() and x.dtype != _C.bool)


class _TypedConversions:
    """storage.double(), .float(), ...: a TypedStorage copy in that dtype (each class
    defines _to(dtype))."""

    def double(self): return self._to(_C.float64)  # noqa: E704
    def float(self): return self._to(_C.float32)  # noqa: E704,A003
    def half(self): return self._to(_C.float16)  # noqa: E704
    def bfloat16(self): return self._to(_C.bfloat16)  # noqa: E704
    def long(self): return self._to(_C.int64)  # noqa: E704
    def int(self): return self._to(_C.int32)  # noqa: E704,A003
    def short(self): return self._to(_C.int16)  # noqa: E704
    def char(self): return self._to(_C.int8)  # noqa: E704
    def byte(self): return self._to(_C.uint8)  # noqa: E704
    def bool(self): return self._to(_C.bool)  # noqa: E704,A003


class StorageBase:
    """The base class of UntypedStorage (torch._C.StorageBase)."""
    is_sparse = False


# One UntypedStorage object per ember Storage (as torch keeps one Python object per
# StorageImpl): t.untyped_storage() is t.untyped_storage(). The key is the Storage's
# address, which cannot be reused while the object (and so its anchor) is alive.
_storage_objects = weakref.WeakValueDictionary()


class UntypedStorage(_TypedConversions, StorageBase):
    """Bytes that tensors view: UntypedStorage(size=0, *, device=None) or
    UntypedStorage(sequence of ints, *, device=None)."""

    def __init__(self, *args, device=None):
        if len(args) > 1:
            raise TypeError(f"ember.UntypedStorage() received an invalid combination of "
                            f"arguments - got {tuple(type(a).__name__ for a in args)}, but "
                            "expected one of: (int size), (sequence of ints)")
        where = _as_device("cpu" if device is None else device)
        if not args or _is_int(args[0]):
            nbytes = int(args[0]) if args else 0
            if nbytes < 0:
                raise RuntimeError(f"ember.UntypedStorage(): negative size {nbytes}")
            data = _C.empty(nbytes, dtype=_uint8, device=where)
        else:
            sequence = args[0]
            if not isinstance(sequence, collections.abc.Sequence) or isinstance(sequence, (str, bytes)):
                raise RuntimeError(f"ember.UntypedStorage(): Expected a sequence type, but got "
                                   f"{type(sequence).__name__}")
            for item in sequence:
                if not _is_int(item):
                    raise RuntimeError(
                        f"ember.UntypedStorage(): tried to construct a storage from a sequence "
                        f"({type(sequence).__name__}), but one of the items was of type "
                        f"{type(item).__name__} instead of int")
            # Bytes wrap modulo 256, as torch stores them.
            data = _C.tensor([int(v) % 256 for v in sequence], dtype=_uint8, device=where)
        self._init_view(_empty_anchor(data), 0, None)
        _storage_objects[_C._storage_key(data)] = self

    def _init_view(self, anchor, byte_offset, fixed_nbytes):
        self._anchor = anchor
        self._byte_offset = byte_offset
        self._fixed_nbytes = fixed_nbytes  # None: the whole Storage (resizable)

    @classmethod
    def _wrap(cls, anchor, byte_offset=0, fixed_nbytes=None):
        obj = cls.__new__(cls)
        obj._init_view(anchor, byte_offset, fixed_nbytes)
        return obj

    @classmethod
    def _of_tensor(cls, tensor):
        """The storage of tensor's memory (Tensor.untyped_storage())."""
        key = _C._storage_key(tensor)
        found = _storage_objects.get(key)
        if found is None:
            found = cls._wrap(_empty_anchor(tensor))
            _storage_objects[key] = found
        return found

    # ---- size, place, identity ----------------------------------------------------
    def nbytes(self):
        if self._fixed_nbytes is not None:
            return self._fixed_nbytes
        return _C._storage_nbytes(self._anchor) - self._byte_offset

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        return 1

    @property
    def device(self):
        return self._anchor.device

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def get_device(self):
        return self.device.index

    def data_ptr(self):
        return _C._storage_data_ptr(self._anchor) + self._byte_offset

    @property
    def _cdata(self):
        if self._byte_offset == 0 and self._fixed_nbytes is None:
            return _C._storage_key(self._anchor)
        return id(self)

    @property
    def filename(self):
        """The file this storage maps (from_file with shared=True), else None."""
        return _C._storage_filename(self._anchor)

    def resizable(self):
        return self._fixed_nbytes is None

    def untyped(self):
        return self

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return "ember.UntypedStorage"
        return _legacy_type_convert(self, dtype, non_blocking)

    # ---- tensors over the bytes ---------------------------------------------------
    def _view(self, dtype, byte_offset, size, stride):
        return _C._storage_view(self._anchor, dtype, self._byte_offset + byte_offset, size, stride)

    def _bytes(self):
        return self._view(_uint8, 0, [self.nbytes()], [1])

    def _index(self, idx):
        if not _is_int(idx):
            raise TypeError(f"can't index a ember.UntypedStorage with {type(idx).__name__}")
        idx, n = int(idx), self.nbytes()
        wrapped = idx + n if idx < 0 else idx
        if not 0 <= wrapped < n:
            raise IndexError(f"index {wrapped} out of range for storage of size {n}")
        return wrapped

    def _slice(self, key):
        start, stop, step = key.indices(self.nbytes())
        if step != 1:
            raise RuntimeError(f"Trying to slice with a step of {step}, but only a step of 1 "
                               "is supported")
        return start, max(stop, start)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            start, stop = self._slice(idx)
            # A storage of those bytes that aliases these (torch's storage slices do).
            return UntypedStorage._wrap(self._anchor, self._byte_offset + start, stop - start)
        return self._bytes()[self._index(idx)].item()

    def __setitem__(self, idx, value):
        if not _is_int(value):
            raise RuntimeError(f"can only set storage content with a int types, but got "
                               f"{type(value).__name__} instead")
        if isinstance(idx, slice):
            start, stop = self._slice(idx)
            self._view(_uint8, start, [stop - start], [1]).fill_(int(value) % 256)
        elif _is_int(idx):
            self._bytes()[self._index(idx)] = int(value) % 256
        else:
            raise RuntimeError(f"can't index a ember.UntypedStorage with {type(idx).__name__}")

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self):
        return self._bytes().cpu().tolist()

    def fill_(self, value):
        self[:] = value
        return self

    def copy_(self, source, non_blocking=None):
        if isinstance(source, TypedStorage):
            source = source._untyped_storage
        if not isinstance(source, UntypedStorage):
            raise TypeError(f"copy_: expected a storage, got {type(source).__name__}")
        if source.nbytes() != self.nbytes():
            raise RuntimeError(f"size does not match, self was {self.nbytes()} bytes but src "
                               f"was {source.nbytes()} bytes")
        self._bytes().copy_(source._bytes())
        return self

    # ---- copies and moves ---------------------------------------------------------
    def clone(self):
        return UntypedStorage(self.nbytes(), device=self.device).copy_(self)

    def new(self):
        return UntypedStorage(0, device=self.device)

    def _moved(self, device, non_blocking=False):
        data = self._bytes().to(device, non_blocking=non_blocking)
        return UntypedStorage._of_tensor(data.clone() if data.data_ptr() == self.data_ptr() else data)

    def cpu(self):
        return self if self.device.type == "cpu" else self._moved("cpu")

    def cuda(self, device=None, non_blocking=False):
        where = _as_device("cuda" if device is None else device)
        if self.device == where or (self.is_cuda and device is None):
            return self
        return self._moved(where, non_blocking)

    def to(self, *, device, non_blocking=False):
        where = _as_device(device)
        if self.device == where:
            return self
        return self._moved(where, non_blocking)

    def is_pinned(self, device="cuda"):
        return self._bytes().is_pinned()

    def pin_memory(self, device="cuda"):
        if self.device.type != "cpu":
            raise TypeError(f"cannot pin '{self.type()}' only CPU memory can be pinned")
        return UntypedStorage._of_tensor(self._bytes().pin_memory())

    def resize_(self, size):
        if self._fixed_nbytes is not None:
            raise RuntimeError("Trying to resize storage that is not resizable")
        if not _is_int(size) or int(size) < 0:
            raise RuntimeError(f"resize_: the new size must be a non-negative int, got {size!r}")
        size = int(size)
        # ember's ops do not check tensors against their storage's bounds, so a storage is
        # shrunk only when no tensor other than this object's anchor views it.
        if size < self.nbytes() and _C._storage_use_count(self._anchor) > 1:
            raise RuntimeError(f"resize_: cannot shrink a storage of {self.nbytes()} bytes to "
                               f"{size} while tensors still view it")
        _C._storage_resize_(self._anchor, size)
        return self

    # ---- shared memory and files --------------------------------------------------
    def is_shared(self):
        return _C._storage_is_shared(self._anchor)

    def share_memory_(self):
        """Moves a CPU storage into shared memory (MAP_SHARED), seen by processes forked
        afterwards; a no-op on CUDA, as in torch."""
        _C._storage_share_memory_(self._anchor)
        return self

    @classmethod
    def _new_shared(cls, size, *, device="cpu"):
        return cls(size, device=device).share_memory_()

    @classmethod
    def from_file(cls, filename, shared=False, nbytes=0):
        """nbytes of filename mapped into memory. shared: writes go to the file (grown
        to nbytes if shorter); else changes stay private."""
        return cls._of_tensor(_C._storage_from_file(str(filename), bool(shared), int(nbytes)))

    def byteswap(self, dtype):
        """Reverses the bytes of each element of dtype, in place."""
        size = dtype.itemsize
        if self.nbytes() % size:
            raise RuntimeError(f"byteswap: {self.nbytes()} bytes are not whole elements of "
                               f"{size} bytes")
        grouped = self._bytes().view(-1, size)
        grouped.copy_(grouped.flip(1))

    # ---- conversions to typed storages --------------------------------------------
    def _to(self, dtype):
        return _typed_copy(self._bytes(), dtype, self.data_ptr())


    # ---- Python protocols ---------------------------------------------------------
    def __repr__(self):
        info = f"[ember.UntypedStorage(device={self.device}) of size {len(self)}]"
        return " " + "\n ".join(str(v) for v in self.tolist()) + "\n" + info

    __str__ = __repr__

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        memo = memo.setdefault("ember", {})
        if self._cdata in memo:
            return memo[self._cdata]
        new = self.clone()
        memo[self._cdata] = new
        return new

    def __sizeof__(self):
        return super().__sizeof__() + self.nbytes()

    def __reduce__(self):
        return (_rebuild_untyped_storage, (bytes(self.tolist()), str(self.device)))


def _rebuild_untyped_storage(data, device):
    """Unpickles an UntypedStorage: its bytes and device."""
    return UntypedStorage(list(data), device=device)


def _typed_copy(source, dtype, data_ptr):
    """A TypedStorage of dtype holding source's values converted (a copy, as torch's
    storage.float() etc. always are)."""
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"Argument 'dtype' must be ember.dtype, not {type(dtype).__name__}")
    converted = source.to(dtype)
    if converted.data_ptr() == data_ptr:
        converted = converted.clone()
    return TypedStorage(wrap_storage=UntypedStorage._of_tensor(converted), dtype=dtype,
                        _internal=True)


def _legacy_type_convert(storage, dtype, non_blocking):
    """UntypedStorage.type(X) as torch's: X (a storage class or its dotted name) of
    storage.size() elements with storage's bytes copied in, which only fits when X's
    elements are bytes (torch raises the same size mismatch otherwise)."""
    cls = dtype
    if isinstance(dtype, str):
        module, _, name = dtype.rpartition(".")
        classes = {"torch": _LEGACY_CLASSES, "ember": _LEGACY_CLASSES,
                   "torch.cuda": CUDA_LEGACY_CLASSES, "ember.cuda": CUDA_LEGACY_CLASSES}
        cls = classes.get(module, {}).get(name)
        if name == "UntypedStorage" and module in ("torch", "torch.storage", "ember"):
            cls = UntypedStorage
        if cls is None:
            raise ValueError(f"invalid type: '{dtype}'")
    if cls is type(storage):
        return storage
    if cls is not UntypedStorage and (not isinstance(cls, _LegacyStorageMeta)
                                      or cls is _LegacyStorage):
        raise ValueError(f"invalid type: {dtype!r}")
    return cls(storage.size()).copy_(storage, non_blocking)


# ---- TypedStorage ----------------------------------------------------------------------

_always_warn_typed_storage_removal = False
_warned_typed_storage_removal = False


def _get_always_warn_typed_storage_removal():
    return _always_warn_typed_storage_removal


def _set_always_warn_typed_storage_removal(always_warn):
    global _always_warn_typed_storage_removal
    if not isinstance(always_warn, bool):
        raise AssertionError(f"always_warn must be bool, got {type(always_warn).__name__}")
    _always_warn_typed_storage_removal = always_warn


def _warn_typed_storage_removal(stacklevel=2):
    """torch's once-per-process warning that TypedStorage is deprecated."""
    global _warned_typed_storage_removal
    if _always_warn_typed_storage_removal or not _warned_typed_storage_removal:
        warnings.warn(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage "
            "will be the only storage class. This should only matter to you if you are using "
            "storages directly.  To access UntypedStorage directly, use "
            "tensor.untyped_storage() instead of tensor.storage()",
            UserWarning, stacklevel=stacklevel + 1)
        _warned_typed_storage_removal = True


def _reset_warn_typed_storage_removal():
    global _warned_typed_storage_removal
    _warned_typed_storage_removal = False


_LEGACY_NEW_HELP = (".__new__ received an invalid combination of arguments. Expected one of:\n"
                    " * no arguments\n * (int size)\n * (Sequence data)\n"
                    " * (*, UntypedStorage wrap_storage)")
_TYPED_INIT_HELP = ("TypedStorage.__init__ received an invalid combination of arguments. "
                    "Expected one of:\n * (*, ember.device device, ember.dtype dtype)\n"
                    " * (int size, *, ember.device device, ember.dtype dtype)\n"
                    " * (Sequence data, *, ember.device device, ember.dtype dtype)\n"
                    " * (*, UntypedStorage wrap_storage, ember.dtype dtype)")


class TypedStorage(_TypedConversions):
    """An UntypedStorage seen as elements of dtype (deprecated in torch, still what
    Tensor.storage() returns)."""

    is_sparse = False

    def __new__(cls, *args, wrap_storage=None, dtype=None, device=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        if cls is _LegacyStorage:
            raise RuntimeError("Only child classes of _LegacyStorage can be instantiated")
        if cls is TypedStorage:
            return super().__new__(cls)
        # A legacy class (FloatStorage(...)): a TypedStorage of its dtype and device.
        help_ = f"{cls}{_LEGACY_NEW_HELP}"
        if device is not None:
            raise RuntimeError(help_ + "\nKeyword argument 'device' cannot be specified")
        if dtype is not None:
            raise RuntimeError(help_ + "\nKeyword argument 'dtype' cannot be specified")
        if wrap_storage is None:
            if len(args) > 1:
                raise RuntimeError(help_ + "\nToo many positional arguments")
            if len(args) == 1 and not _is_int(args[0]) and not isinstance(
                    args[0], collections.abc.Sequence):
                raise TypeError(help_ + f"\nArgument type not recognized: {type(args[0])}")
            return TypedStorage(*args, dtype=cls.dtype, device=cls._device_type, _internal=True)
        if args:
            raise RuntimeError(help_ + "\nNo positional arguments should be given when using "
                               "'wrap_storage'")
        if not isinstance(wrap_storage, UntypedStorage):
            raise TypeError(help_ + "\nArgument 'wrap_storage' must be UntypedStorage, but got "
                            f"{type(wrap_storage)}")
        if wrap_storage.device.type != cls._device_type:
            raise RuntimeError(help_ + f"\nDevice of 'wrap_storage' must be {cls._device_type}, "
                               f"but got {wrap_storage.device.type}")
        return TypedStorage(wrap_storage=wrap_storage, dtype=cls.dtype, _internal=True)

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        if wrap_storage is not None:
            if args:
                raise RuntimeError(_TYPED_INIT_HELP + "\nNo positional arguments should be "
                                   "given when using 'wrap_storage'")
            if dtype is None:
                raise RuntimeError(_TYPED_INIT_HELP + "\nArgument 'dtype' must be specified")
            if not isinstance(dtype, _C.dtype):
                raise TypeError(_TYPED_INIT_HELP + "\nArgument 'dtype' must be ember.dtype, "
                                f"not {type(dtype)}")
            if device is not None:
                raise RuntimeError(_TYPED_INIT_HELP + "\nArgument 'device' should not be "
                                   "specified when 'wrap_storage' is given")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(_TYPED_INIT_HELP + "\nArgument 'wrap_storage' must be "
                                f"UntypedStorage, but got {type(wrap_storage)}")
            self.dtype = dtype
            self._untyped_storage = wrap_storage
            return
        self.dtype = _C.get_default_dtype() if dtype is None else dtype
        where = _as_device("cpu" if device is None else device)
        if not args:
            self._untyped_storage = UntypedStorage(device=where)
        elif len(args) > 1:
            raise RuntimeError(_TYPED_INIT_HELP + "\nToo many positional arguments")
        elif _is_int(args[0]):
            self._untyped_storage = UntypedStorage(int(args[0]) * self._element_size(),
                                                   device=where)
        elif isinstance(args[0], collections.abc.Sequence):
            values = _C.tensor(args[0], dtype=self.dtype, device=where)
            self._untyped_storage = UntypedStorage._of_tensor(values)
        else:
            raise TypeError(_TYPED_INIT_HELP + f"\nArgument type not recognized: {type(args[0])}")

    # ---- the elements -------------------------------------------------------------
    def _element_size(self):
        return self.dtype.itemsize

    def _size(self):
        return self._untyped_storage.nbytes() // self._element_size()

    def _tensor(self):
        """A 1-D tensor of this storage's elements, aliasing them."""
        return self._untyped_storage._view(self.dtype, 0, [self._size()], [1])

    def _new_wrapped_storage(self, untyped_storage):
        if type(self) is TypedStorage:
            return TypedStorage(wrap_storage=untyped_storage, dtype=self.dtype, _internal=True)
        return type(self)(wrap_storage=untyped_storage)

    def _maybe_wrap_index(self, idx):
        if type(idx) is not int:
            raise TypeError(f"can't index a {type(self)} with {type(idx)}")
        n = self._size()
        if idx >= n or idx < -n:
            raise IndexError(f"index {idx} out of range for storage of size {n}")
        return idx % n

    def __len__(self):
        _warn_typed_storage_removal()
        return self._size()

    def size(self):
        _warn_typed_storage_removal()
        return self._size()

    def __getitem__(self, idx):
        _warn_typed_storage_removal()
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(idx, int):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        return self._tensor()[self._maybe_wrap_index(idx)].item()

    def __setitem__(self, idx, value):
        _warn_typed_storage_removal()
        self._setitem(idx, value)

    def _setitem(self, idx, value):
        if not isinstance(idx, (int, slice)):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        if is_storage(value):
            raise RuntimeError(f"cannot set item with value type {type(value)}")
        self._tensor()[idx] = value

    def __iter__(self):
        _warn_typed_storage_removal()
        return iter(self._tensor().cpu().tolist())

    def tolist(self):
        _warn_typed_storage_removal()
        return self._tensor().cpu().tolist()

    def fill_(self, value):
        _warn_typed_storage_removal()
        self._setitem(slice(0, self._size()), value)
        return self

    def copy_(self, source, non_blocking=None):
        _warn_typed_storage_removal()
        if isinstance(source, TypedStorage):
            source = source._untyped_storage
        self._untyped_storage.copy_(source, non_blocking)
        return self

    # ---- size, place, identity ----------------------------------------------------
    def nbytes(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.nbytes()

    def element_size(self):
        _warn_typed_storage_removal()
        return self._element_size()

    @property
    def device(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.device

    @property
    def is_cuda(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.device.type == "cuda"

    def get_device(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.get_device()

    def data_ptr(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.data_ptr()

    @property
    def _cdata(self):
        return self._untyped_storage._cdata

    @property
    def filename(self):
        return self._untyped_storage.filename

    def untyped(self):
        _warn_typed_storage_removal()
        return self._untyped_storage

    def _get_legacy_storage_class(self):
        name = _STORAGE_NAMES.get(self.dtype)
        if name is None:
            return None
        if self._untyped_storage.device.type == "cuda":
            from . import cuda as _cuda
            return getattr(_cuda, name, None)
        return _LEGACY_CLASSES.get(name)

    def type(self, dtype=None, non_blocking=False):
        _warn_typed_storage_removal()
        if dtype is None:
            legacy = self._get_legacy_storage_class()
            if legacy is not None:
                return legacy.__module__ + "." + legacy.__name__
            return "ember.TypedStorage"
        return self._untyped_storage.type(dtype, non_blocking)

    def pickle_storage_type(self):
        _warn_typed_storage_removal()
        try:
            return _STORAGE_NAMES[self.dtype]
        except KeyError as e:
            raise KeyError(f"dtype {self.dtype} is not recognized") from e

    def resizable(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.resizable()

    def resize_(self, size):
        _warn_typed_storage_removal()
        self._untyped_storage.resize_(size * self._element_size())

    def is_shared(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.is_shared()

    def share_memory_(self):
        _warn_typed_storage_removal()
        self._untyped_storage.share_memory_()
        return self

    def is_pinned(self, device="cuda"):
        _warn_typed_storage_removal()
        return self._untyped_storage.is_pinned(device)

    def pin_memory(self, device="cuda"):
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(self._untyped_storage.pin_memory(device))

    # ---- copies and moves ---------------------------------------------------------
    def clone(self):
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(self._untyped_storage.clone())

    def cpu(self):
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(self._untyped_storage.cpu())

    def cuda(self, device=None, non_blocking=False):
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(self._untyped_storage.cuda(device, non_blocking))

    def to(self, *, device, non_blocking=False):
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(
            self._untyped_storage.to(device=device, non_blocking=non_blocking))

    def _to(self, dtype):
        return _typed_copy(self._tensor(), dtype, self._untyped_storage.data_ptr())


    # ---- Python protocols ---------------------------------------------------------
    def __str__(self):
        _warn_typed_storage_removal()
        info = (f"[{typename(self)}(dtype={self.dtype}, device={self.device}) "
                f"of size {len(self)}]")
        return " " + "\n ".join(str(v) for v in self._tensor().cpu().tolist()) + "\n" + info

    def __repr__(self):
        _warn_typed_storage_removal()
        return str(self)

    def __copy__(self):
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(_copy.copy(self._untyped_storage))

    def __deepcopy__(self, memo):
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(_copy.deepcopy(self._untyped_storage, memo))

    def __sizeof__(self):
        _warn_typed_storage_removal()
        return super().__sizeof__() + self.nbytes()

    def __reduce__(self):
        return (_rebuild_typed_storage, (self._untyped_storage, self.dtype))


def _rebuild_typed_storage(untyped, dtype):
    return TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)


class _LegacyStorageMeta(type):
    """isinstance(s, FloatStorage): s is a TypedStorage of float32 on the CPU."""

    def __instancecheck__(cls, instance):
        if type(instance) is TypedStorage:
            return (cls._device_type == instance._untyped_storage.device.type
                    and cls.dtype == instance.dtype)
        return False


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    dtype = None
    _device_type = "cpu"

    @classmethod
    def _new_shared(cls, size):
        untyped = UntypedStorage._new_shared(size * cls.dtype.itemsize)
        return cls(wrap_storage=untyped)


def _make_legacy_classes(device_type, module):
    return {name: _LegacyStorageMeta(name, (_LegacyStorage,), {
        "dtype": dtype, "_device_type": device_type, "__module__": module,
        "__doc__": f"A TypedStorage of {dtype} on {device_type} (legacy class)."})
        for dtype, name in _STORAGE_NAMES.items()}


_LEGACY_CLASSES = _make_legacy_classes("cpu", "ember")
CUDA_LEGACY_CLASSES = _make_legacy_classes("cuda", "ember.cuda")
globals().update(_LEGACY_CLASSES)
__all__ += sorted(_LEGACY_CLASSES)


def is_storage(obj):
    """True if obj is a storage (UntypedStorage or TypedStorage)."""
    return isinstance(obj, (TypedStorage, UntypedStorage))


def typename(obj):
    """torch.typename: the type of obj as a string ("ember.FloatTensor" for tensors)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in {"", "builtins"}:
        return qualname
    return f"{module}.{qualname}"


# The module name users see (ember.UntypedStorage, as torch's torch.UntypedStorage).
for _cls in (StorageBase, UntypedStorage, TypedStorage):
    _cls.__module__ = "ember"
del _cls
