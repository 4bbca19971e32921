"""The Tensor methods about its storage: untyped_storage(), storage() (the deprecated
TypedStorage view), set_ (make a tensor view a storage or another tensor's memory),
is_shared() and share_memory_()."""
from . import _C
from ._C import Tensor
from ._storage import TypedStorage, UntypedStorage, _is_int, _warn_typed_storage_removal


def untyped_storage(self):
    """The UntypedStorage of this tensor's memory (the same object on every call)."""
    return UntypedStorage._of_tensor(self)


def _typed_storage(self):
    return TypedStorage(wrap_storage=UntypedStorage._of_tensor(self), dtype=self.dtype,
                        _internal=True)


def storage(self):
    """The TypedStorage of this tensor's memory, with torch's deprecation warning."""
    _warn_typed_storage_removal(stacklevel=2)
    return _typed_storage(self)


def _contiguous_strides(size):
    strides, step = [], 1
    for s in reversed(size):
        strides.append(step)
        step *= max(s, 1)
    return list(reversed(strides))


def _check_settable(self):
    if self.requires_grad and self.grad_fn is None and _C.is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _storage_source(self, source):
    """(untyped storage, its element size in self's dtype) for set_(source, ...)."""
    if isinstance(source, TypedStorage):
        if source.dtype != self.dtype:
            raise RuntimeError(
                f"Expected a Storage of type {self.dtype} or an UntypedStorage, but got type "
                f"{source.dtype} for argument 1 'storage'")
        return source._untyped_storage
    return source


def set_(self, source=None, storage_offset=None, size=None, stride=None):
    """Tensor.set_: set_() makes self empty; set_(tensor) makes self view tensor's memory
    with its geometry; set_(storage) views a whole storage as 1-D; set_(storage,
    storage_offset, size, stride=None) views it with that geometry (a storage too small
    for it is grown, as in torch). self keeps its identity and dtype."""
    if source is None:
        if storage_offset is not None or size is not None or stride is not None:
            raise TypeError("set_(): storage_offset, size and stride need a source")
        _check_settable(self)
        _C._tensor_set_(self, _C.empty(0, dtype=self.dtype, device=self.device))
        return self
    if isinstance(source, Tensor):
        if source.dtype != self.dtype:
            raise RuntimeError(f"Could not set tensor of type {source.dtype} to a tensor of "
                               f"type {self.dtype}")
        if storage_offset is None:
            _check_settable(self)
            _C._tensor_set_(self, source.detach())
            return self
        storage = UntypedStorage._of_tensor(source)
    elif isinstance(source, (TypedStorage, UntypedStorage)):
        storage = _storage_source(self, source)
    else:
        raise TypeError(f"set_() received an invalid combination of arguments - got "
                        f"({type(source).__name__}), but expected one of: (), (Storage source), "
                        "(Storage source, int storage_offset, tuple of ints size, tuple of ints "
                        "stride = None), (Tensor source)")
    item = self.element_size()
    if storage_offset is None:  # the whole storage, 1-D
        offset, size, stride = 0, [storage.nbytes() // item], [1]
    else:
        if size is None:
            raise TypeError("set_(): size is required with storage_offset")
        if not _is_int(storage_offset):
            raise TypeError(f"set_(): storage_offset must be an int, got "
                            f"{type(storage_offset).__name__}")
        offset = int(storage_offset)
        size = [int(s) for s in size]
        stride = _contiguous_strides(size) if stride is None else [int(s) for s in stride]
        if offset < 0:
            raise RuntimeError(f"Tensor: invalid storage offset {offset}")
        if len(size) != len(stride):
            raise RuntimeError(f"unequal size length ({len(size)}) and stride length "
                               f"({len(stride)})")
        if any(s < 0 for s in size):
            raise RuntimeError(f"set_(): negative size in {size}")
        if any(s < 0 for s in stride):
            raise RuntimeError(f"set_(): negative stride in {stride}")
    _check_settable(self)
    if all(s > 0 for s in size):
        needed = (offset + 1 + sum((s - 1) * st for s, st in zip(size, stride))) * item
        if needed > storage.nbytes():
            storage.resize_(needed + storage._byte_offset)  # raises for storage slices
    _C._tensor_set_(self, storage._view(self.dtype, offset * item, size, stride))
    return self


def is_shared(self):
    """Whether this tensor's memory is shared between processes (share_memory_, or CUDA)."""
    return _C._storage_is_shared(self)


def share_memory_(self):
    """Moves this tensor's storage into shared memory (a no-op if it is there or on CUDA)."""
    _C._storage_share_memory_(self)
    return self


def install():
    Tensor.untyped_storage = untyped_storage
    Tensor.storage = storage
    Tensor._typed_storage = _typed_storage
    Tensor.set_ = set_
    Tensor.is_shared = is_shared
    Tensor.share_memory_ = share_memory_

