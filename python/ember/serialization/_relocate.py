"""map_location: where ember.load puts each storage, as torch.load decides it.

Each storage of a checkpoint carries the location it was saved from ("cpu", "cuda:0").
It is read on the CPU, then
- map_location None: moved back to its location;
- a str or ember.device: moved there, whatever its location;
- a dict: its location is looked up in the dict (kept if absent), then moved there;
- a function f(storage, location): f's result is the storage (None: as for None).
ember has no storage objects: the storage a function gets is a 1-d tensor of the
storage's dtype holding its elements, so lambda storage, loc: storage.cuda(1) works.
"""
from .. import _C
from .._C import Tensor
from ._errors import type_name


def restorer(map_location):
    """map_location as a function (storage tensor, location str) -> storage tensor.
    Raises TypeError for a map_location of another kind, before anything is read."""
    if map_location is None:
        return _restore
    if isinstance(map_location, dict):
        return lambda storage, location: _restore(storage, map_location.get(location, location))
    if isinstance(map_location, (str, bytes, _C.device)):
        target = map_location.decode() if isinstance(map_location, bytes) else map_location
        return lambda storage, location: _restore(storage, target)
    if callable(map_location):
        def restore(storage, location):
            moved = map_location(storage, location)
            if moved is None:
                return _restore(storage, location)
            return _checked(moved, storage)
        return restore
    raise TypeError("ember.load: map_location must be None, a str, an ember.device, a dict or "
                    f"a function, got {type_name(map_location)}")


def _target_device(location):
    if isinstance(location, _C.device):
        return location
    if not isinstance(location, str):
        raise RuntimeError(f"ember.load: a storage's location is {type_name(location)}, not a str")
    try:
        return _C.device(location)
    except (RuntimeError, ValueError, TypeError):
        raise RuntimeError(f"ember.load: don't know how to restore a storage saved on "
                           f"{location[:40]!r}: ember has cpu and cuda devices; pass "
                           "map_location='cpu' to load it on the CPU") from None


def _restore(storage, location):
    target = _target_device(location)
    if target.type == "cpu" and storage.device.type == "cpu":
        return storage
    try:
        return storage.to(target)
    except RuntimeError as e:
        raise RuntimeError(f"ember.load: cannot load the tensors onto {target}: {e}. If ember has "
                           "no GPU here, pass map_location='cpu' to load them on the CPU") from e


def _checked(moved, storage):
    if not isinstance(moved, Tensor):
        raise TypeError(f"ember.load: map_location returned {type_name(moved)}, not a tensor "
                        "(or None)")
    if moved.dtype != storage.dtype or moved.numel() != storage.numel():
        raise RuntimeError(f"ember.load: map_location returned a tensor of {moved.numel()} "
                           f"elements of {moved.dtype} for a storage of {storage.numel()} elements "
                           f"of {storage.dtype}")
    # The tensors of the storage are rebuilt as strided views of it, so it must be a
    # plain 1-d run of its elements.
    moved = moved.detach().reshape(-1)
    if not moved.is_contiguous() or moved.storage_offset() != 0:
        moved = moved.clone()
    return moved
