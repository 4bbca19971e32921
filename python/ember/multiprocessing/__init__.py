"""ember.multiprocessing: Python's multiprocessing with torch.multiprocessing's spawn API.

    import ember.multiprocessing as mp
    mp.spawn(train, args=(world_size,), nprocs=world_size)   # train(rank, world_size)

Everything in the standard `multiprocessing` module is re-exported (Process, Queue,
SimpleQueue, Pool, Manager, get_context, set_start_method, ...), plus spawn /
start_processes / ProcessContext and the sharing-strategy switches, as in PyTorch.

What differs from PyTorch: torch registers pickling reducers that move a tensor sent
through a Queue or as a spawned Process's argument into shared memory, so parent and
child see one buffer. ember registers none: whatever is pickled on its way to another
process (every Queue/Pipe item, Pool task, and the arguments of a "spawn" or
"forkserver" Process, so all of spawn()'s) arrives as a copy, and the child's writes
are not seen by the parent, even when the tensor is_shared(). Send results back
through a Queue. The one case that shares memory is the "fork" start method, which
pickles nothing for the Process itself: the child inherits the parent's objects, and a
tensor made shared with `share_memory_()` before the fork (a MAP_SHARED buffer) is the
same memory in both, so writes are seen both ways; a tensor that is not shared is a
copy-on-write copy there. The sharing strategy is therefore a recorded setting: kept
and validated as torch keeps it, it changes no behaviour.
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
