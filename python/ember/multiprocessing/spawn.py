"""spawn / start_processes: run fn(i, *args) in nprocs processes and report failures
as torch.multiprocessing.spawn does (the failing process's index and its traceback).

How a failure travels: each child gets a path that does not exist yet. A child whose
function raises writes the formatted traceback (pickled) to that path and exits with a
non-zero code; the parent, seeing a non-zero exit, looks for the file. A file means
"it raised" (ProcessRaisedException carries the traceback), no file means "it died"
(ProcessExitedException carries the exit code or the signal's name).
"""
import logging
import multiprocessing as _stdlib_mp
import os
import pickle
import signal as _signal
import sys
import tempfile
import time
import traceback
import warnings
from multiprocessing.connection import wait as _wait_for_sentinels

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException",
           "spawn", "SpawnContext", "start_processes"]

_logger = logging.getLogger(__name__)

# How long the stragglers get to honour SIGTERM before SIGKILL, when the caller gave
# no grace period (torch waits the same 30 s).
_DEFAULT_TERMINATE_WAIT_S = 30


class ProcessException(Exception):
    """A child process of spawn/start_processes failed."""

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg, error_index, error_pid):
        Exception.__init__(self, msg)
        # Which child failed (its rank) and its process id, for the caller to inspect.
        self.error_index, self.error_pid = error_index, error_pid
        self.msg = msg

    def __reduce__(self):
        # Rebuild from the constructor's own arguments so the exception survives pickling.
        return self.__class__, (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A child process raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A child process exited with a non-zero code or was killed by a signal."""

    __slots__ = ["exit_code"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        ProcessException.__init__(self, msg, error_index, error_pid)
        # signal_name is set only when a signal (negative exit code) ended the child.
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        state = (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)
        return self.__class__, state


def _leave_traceback_for_parent(path):
    """Called inside an `except` block of the child: save the traceback being handled."""
    report = traceback.format_exc()
    with open(path, "wb") as sink:
        pickle.dump(report, sink)


def _child_main(fn, rank, args, error_path):
    """The child's entry point: run fn(rank, *args) and turn an exception into a traceback
    file plus a non-zero exit (1, or 128+SIGINT for Ctrl-C)."""
    launcher_pid = os.getppid()
    try:
        fn(rank, *args)
        return
    except KeyboardInterrupt:
        # Ctrl-C reaches the whole process group; if the launcher is gone (we were
        # re-parented) nobody will read the report, so skip it.
        if launcher_pid == os.getppid():
            _leave_traceback_for_parent(error_path)
        status = 128 + _signal.SIGINT
    except Exception:
        _leave_traceback_for_parent(error_path)
        status = 1
    sys.exit(status)


def _describe_signal(signum):
    try:
        return _signal.Signals(signum).name
    except ValueError:
        return f"<Unknown signal {signum}>"


class ProcessContext:
    """The processes start_processes(join=False) started; join() waits and reports failures."""

    def __init__(self, processes, error_files):
        self.processes = processes
        self.error_files = error_files
        # Sentinels of the processes not yet reaped, mapped to their index.
        self.sentinels = {}
        for rank, proc in enumerate(processes):
            self.sentinels[proc.sentinel] = rank

    def pids(self):
        return [int(proc.pid) for proc in self.processes]

    def _wait_all(self, seconds):
        """Join every process, all of them sharing one deadline `seconds` from now."""
        deadline = time.monotonic() + seconds
        for proc in self.processes:
            proc.join(max(0.0, deadline - time.monotonic()))

    def _first_failure(self, timeout):
        """Reap the processes that finished within `timeout`; the index of the first one
        with a non-zero exit code, or None."""
        finished = _wait_for_sentinels(list(self.sentinels), timeout=timeout)
        for sentinel in finished:
            rank = self.sentinels.pop(sentinel)
            proc = self.processes[rank]
            proc.join()
            if proc.exitcode != 0:
                return rank
        return None

    def _stop_survivors(self, grace_period):
        """SIGTERM what is still running, then SIGKILL what ignores it."""
        if grace_period is not None:
            # Let the others notice the failure and exit on their own first.
            self._wait_all(grace_period)
        survivors = [proc for proc in self.processes if proc.is_alive()]
        for proc in survivors:
            _logger.warning("Terminating process %s via signal SIGTERM", proc.pid)
            proc.terminate()
        self._wait_all(_DEFAULT_TERMINATE_WAIT_S if grace_period is None else grace_period)
        for proc in self.processes:
            if proc.is_alive():
                _logger.warning("Unable to shutdown process %s via SIGTERM , forcefully exiting via SIGKILL",
                                proc.pid)
                proc.kill()
            proc.join()

    def _raise_for(self, rank):
        proc = self.processes[rank]
        report_path = self.error_files[rank]
        if os.access(report_path, os.R_OK):
            with open(report_path, "rb") as source:
                child_traceback = pickle.load(source)
            os.unlink(report_path)
            header = f"\n\n-- Process {rank:d} terminated with the following error:\n"
            raise ProcessRaisedException(header + child_traceback, rank, proc.pid)
        code = proc.exitcode
        if code >= 0:
            raise ProcessExitedException(f"process {rank:d} terminated with exit code {code:d}",
                                         error_index=rank, error_pid=proc.pid, exit_code=code)
        # A negative exit code is the number of the signal that killed the child.
        signame = _describe_signal(-code)
        raise ProcessExitedException(f"process {rank:d} terminated with signal {signame}",
                                     error_index=rank, error_pid=proc.pid, exit_code=code,
                                     signal_name=signame)

    def join(self, timeout=None, grace_period=None):
        """Wait up to `timeout` seconds for processes to finish.

        Returns True once every process has exited successfully, False when some are
        still running. When one exits with a non-zero status, the others are terminated
        (after `grace_period` seconds, if given) and ProcessRaisedException (it raised:
        its traceback) or ProcessExitedException (exit code or signal) is raised.
        """
        if not self.sentinels:
            return True
        failed_rank = self._first_failure(timeout)
        if failed_rank is None:
            return not self.sentinels
        self._stop_survivors(grace_period)
        self._raise_for(failed_rank)


class SpawnContext(ProcessContext):
    """The pre-1.4 name of ProcessContext (with torch's warning)."""

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def _unused_error_path():
    """A fresh path that does not exist: the child creates it only when it fails."""
    handle, path = tempfile.mkstemp(prefix="ember-errorfile-", suffix=".pickle")
    os.close(handle)
    os.remove(path)
    return path


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start nprocs processes running fn(i, *args) with the given start method
    ("spawn", "fork" or "forkserver"). Returns None after joining them all when
    join=True, else the ProcessContext. Arguments are pickled: tensors are copies."""
    method_context = _stdlib_mp.get_context(start_method)
    paths = [_unused_error_path() for _ in range(nprocs)]
    children = []
    for rank, path in enumerate(paths):
        child = method_context.Process(target=_child_main, args=(fn, rank, args, path), daemon=daemon)
        child.start()
        children.append(child)
    context = ProcessContext(children, paths)
    if join:
        # join() returns False while some are still running and raises on a failure.
        finished = False
        while not finished:
            finished = context.join()
        return None
    return context


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Spawn nprocs processes that run fn(i, *args), i the process index.

    fn must be defined at the top level of a module (it is pickled). If one process
    exits with a non-zero status, the rest are terminated and the cause is raised
    (ProcessRaisedException with the child's traceback, or ProcessExitedException).
    Returns None when join=True, else a ProcessContext. start_method other than
    "spawn" is deprecated (FutureWarning) and ignored, as in torch; use start_processes.
    """
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t"
                      " torch.multiprocessing.start_processes(...)", FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
