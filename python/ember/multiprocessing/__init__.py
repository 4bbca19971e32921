"""ember.multiprocessing: Python's multiprocessing with torch.multiprocessing's spawn API.

    import ember.multiprocessing as mp
    mp.spawn(train, args=(world_size,), nprocs=world_size)   # train(rank, world_size)

Everything in the standard `multiprocessing` module is re-exported (Process, Queue,
SimpleQueue, Pool, Manager, get_context, set_start_method, ...), plus spawn /
start_processes / ProcessContext and the sharing-strategy switches, as in PyTorch.

Sharing memory: a tensor moved into shared memory with `share_memory_()` (or a module's
with `Module.share_memory()`) is the same memory in every process it reaches: sent
through a Queue/Pipe or as an argument of a "spawn"/"forkserver" Process, it travels as a
file descriptor (reductions.py), and under "fork" the child inherits the mapping. Writes
are seen both ways, so Hogwild training works as with torch. What differs from PyTorch:
torch also moves a tensor that is NOT shared into shared memory when it is pickled for
another process; ember sends such a tensor by value (a copy: the receiver's writes are
not seen by the sender). Call share_memory_() first for shared writes, or send results
back through a Queue. The sharing strategy is a recorded setting: kept and validated as
torch keeps it, descriptors are always used.
"""
import multiprocessing
import sys

from multiprocessing import *  # noqa: F401,F403

from .spawn import (  # noqa: F401
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

from .reductions import init_reductions  # noqa: E402

init_reductions()

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__

# The same names and defaults as torch.multiprocessing on each platform.
if sys.platform in ("darwin", "win32"):
    _sharing_strategy = "file_system"
    _all_sharing_strategies = {"file_system"}
else:
    _sharing_strategy = "file_descriptor"
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Set the strategy for sharing CPU tensors (one of get_all_sharing_strategies()).

    ember sends tensors between processes by pickling (a copy), so the strategy is
    recorded for programs that read it back; it does not change how tensors travel.
    """
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        # torch raises AssertionError here (it asserts), with this message.
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, "
                             f"expected one of {_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current strategy for sharing CPU tensors."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The set of sharing strategies this platform knows."""
    return _all_sharing_strategies
