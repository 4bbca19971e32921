"""What runs inside a DataLoader worker process: its seeding, its loop (index
lists in, batches out) and get_worker_info(); and ExceptionWrapper, which
carries an exception and its worker traceback back to the main process."""
import os
import pickle
import queue
import random
import sys
import traceback

import ember

from . import _fetch

# Imported here, in the main process: an import inside a freshly forked worker can
# trip over an import lock that another thread of the parent held at the fork.
try:
    import numpy.random as _np_random
except ImportError:
    _np_random = None

__all__ = ["WorkerInfo", "get_worker_info"]

# How long the main process waits for a result before checking that the workers
# are still alive.
MP_STATUS_CHECK_INTERVAL = 5.0
# How long a worker waits for a request before checking that the main process is
# alive and has not asked it to stop. The stop request normally arrives as None on
# its index queue, but when the iterator dies in a garbage-collected cycle, the
# queue's own finalizer may have ended the thread that would send it.
WORKER_POLL_INTERVAL = 0.2


class WorkerInfo:
    """id, num_workers, seed and dataset (the worker's own copy) of a worker process."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({items})"


_worker_info = None


def get_worker_info():
    """In a DataLoader worker process: its WorkerInfo; in the main process: None."""
    return _worker_info


class ExceptionWrapper:
    """An exception caught in a worker, with its formatted traceback, re-raised in
    the main process as the same type with the worker's traceback in the message."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where
        try:
            pickle.dumps(self.exc_type)
        except Exception:
            # A class that cannot travel to the main process (one defined in a function):
            # it arrives as a RuntimeError, its name still in the traceback.
            self.exc_type = RuntimeError

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            # KeyError shows its argument's repr, which would mangle the newlines.
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except TypeError:
            # An exception type whose constructor needs other arguments.
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    def __repr__(self):
        return self


class _IterableDatasetStopIteration:
    """A worker's note that its copy of an IterableDataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ResumeIteration:
    """Sent to persistent workers at the start of each new epoch."""


class _ParentWatchdog:
    # A worker whose main process died would otherwise wait for work forever.
    def __init__(self):
        self.parent_pid = os.getppid()

    def is_alive(self):
        return os.getppid() == self.parent_pid


def _seed_worker(seed, worker_id):
    # Like PyTorch: Python's random and ember get base_seed + worker_id, numpy a state
    # derived from both, so random augmentations differ from worker to worker.
    random.seed(seed)
    ember.manual_seed(seed)
    if _np_random is not None:
        base = seed - worker_id
        _np_random.seed(_np_random.SeedSequence([worker_id, base & 0xFFFFFFFF, base >> 32]).generate_state(4))


def _worker_loop(kind, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn,
                 drop_last, base_seed, init_fn, worker_id, num_workers):
    global _worker_info
    try:
        # One thread per worker: the workers already use the cores (and OpenMP's
        # thread pool does not survive fork).
        ember.set_num_threads(1)
        seed = base_seed + worker_id
        _seed_worker(seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _fetch.create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        iteration_end = False
        watchdog = _ParentWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=WORKER_POLL_INTERVAL)
            except queue.Empty:
                if done_event.is_set():
                    break
                continue
            if isinstance(r, _ResumeIteration):
                # A new epoch with persistent workers: a fresh stream for iterable datasets.
                data_queue.put((r, None))
                iteration_end = False
                if init_exception is None:
                    fetcher = _fetch.create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last)
                continue
            if r is None:  # the main process asks this worker to exit
                break
            if done_event.is_set() or iteration_end:
                continue  # shutting down, or nothing left to give: drop the request
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and kind == _fetch.ITERABLE:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, r  # free the batch before waiting for the next request
    except KeyboardInterrupt:
        pass  # the main process handles Ctrl-C and shuts the workers down
    if done_event.is_set():
        # Nobody reads the results any more: exit without flushing them.
        data_queue.cancel_join_thread()
        data_queue.close()
