"""A memory budget with automatic rematerialization (dynamic tensor rematerialization,
DTR, as MegEngine has it; PyTorch has no counterpart).

While a budget is set on a device, an allocation there that would take the caching
allocator's allocated bytes past it first evicts activations that backward needs but
can recompute, choosing the one with the smallest recompute cost per byte and per unit
of time since its last use (counting the evicted tensors around it that a recompute
would also need). Backward, or any later op, that reads an evicted tensor recomputes
it from the op that made it, with the same random numbers for dropout. No change to the
model is needed::

    with ember.memory.budget(512 * 2**20):      # 512 MiB
        loss = model(x).square().mean()
        loss.backward()
    ember.memory_stats()["num_evictions"], ember.memory_stats()["num_recomputations"]

What can be evicted: tensors that only the autograd tape still holds (not a tensor
you hold, a parameter, an input or a view of one), made fresh by an op recorded for
backward (not a view); an in-place op on one (``nn.ReLU(inplace=True)``) is replayed
after its recompute, and training-mode batch norm is recomputed without touching its
running statistics. When even eviction cannot make room, the allocation raises
``ember.OutOfMemoryError`` naming the budget.

See docs/memory.md for the trade-off against checkpointing.
"""
import contextlib as _contextlib

from . import _C

__all__ = ["set_budget", "get_budget", "budget"]


def _device(device):
    return _C.device("cpu") if device is None else _C.device(device)


def _bytes(nbytes):
    if nbytes is None:
        return None
    if isinstance(nbytes, bool) or not isinstance(nbytes, int):
        raise TypeError(f"set_budget(): the budget must be an int number of bytes or None, "
                        f"got {type(nbytes).__name__}")
    return nbytes


def set_budget(nbytes, device=None):
    """Sets the memory budget of `device` (default: the CPU) to `nbytes` bytes, or clears
    it with None. Tensors already evicted stay so until read."""
    _C._set_memory_budget(_bytes(nbytes), _device(device))


def get_budget(device=None):
    """The budget of `device` in bytes, or None when none is set."""
    return _C._get_memory_budget(_device(device))


@_contextlib.contextmanager
def budget(nbytes, device=None):
    """Sets a budget for a ``with`` block, then restores the one before."""
    dev = _device(device)
    previous = _C._get_memory_budget(dev)
    _C._set_memory_budget(_bytes(nbytes), dev)
    try:
        yield
    finally:
        _C._set_memory_budget(previous, dev)
