"""ember.futures: torch.futures' Future, collect_all and wait_all.

A Future holds a value that becomes available later: an asynchronous collective's result
(ember.distributed's Work.get_future()), or one set by hand (set_result). then() chains a
callback, and the Future it returns holds the callback's result; a DDP communication hook
returns such a chain. Callbacks run once, when the future completes, on the thread that
completes it (for a collective's future: the first that waits on it or asks done())."""
import threading

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    """A value that will exist: wait() blocks for it, then() chains work after it."""

    def __init__(self, *, devices=None):
        self._lock = threading.Lock()
        self._event = threading.Event()
        self._value = None
        self._exception = None
        self._callbacks = []

    # ---- completion -------------------------------------------------------------------
    def _poll(self, block):
        """Subclasses whose work completes elsewhere finish the future here (waiting for
        that work when block is true)."""

    def _complete(self, value=None, exception=None):
        with self._lock:
            if self._event.is_set():
                raise RuntimeError("Future can only be marked completed once.")
            self._value, self._exception = value, exception
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def set_result(self, result):
        """Completes the future with result (its callbacks run now)."""
        self._complete(value=result)

    def set_exception(self, result):
        """Completes the future with an error that wait() and value() raise."""
        if not isinstance(result, BaseException):
            raise TypeError(f"set_exception: expected an exception, got {type(result).__name__}")
        self._complete(exception=result)

    # ---- reading ----------------------------------------------------------------------
    def done(self):
        self._poll(False)
        return self._event.is_set()

    def wait(self):
        """Blocks until the future completes; returns its value (or raises its error)."""
        self._poll(True)
        self._event.wait()
        if self._exception is not None:
            raise self._exception
        return self._value

    def value(self):
        """The value of a completed future (raises its error)."""
        if not self.done():
            raise RuntimeError("Future.value(): the future has not completed yet; call wait()")
        if self._exception is not None:
            raise self._exception
        return self._value

    # ---- chaining -----------------------------------------------------------------------
    def add_done_callback(self, callback):
        """Runs callback(self) when the future completes (now, if it has)."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback):
        """A Future holding callback(self) once this one completes (its error, if the
        callback raises)."""
        chained = _Chained(self)

        def run(fut):
            try:
                result = callback(fut)
            except Exception as e:  # noqa: BLE001 - delivered through the chained future
                chained.set_exception(e)
            else:
                chained.set_result(result)

        self.add_done_callback(run)
        return chained

    def __repr__(self):
        state = "done" if self._event.is_set() else "pending"
        return f"<ember.futures.Future {state}>"


class _Chained(Future):
    """then()'s future: completes when its source does (polling the source)."""

    def __init__(self, source):
        super().__init__()
        self._source = source

    def _poll(self, block):
        self._source._poll(block)


class _WorkFuture(Future):
    """The future of an asynchronous collective: its value is the Work's result (the list
    of output tensors), available once the Work completes."""

    def __init__(self, work):
        super().__init__()
        self._work = work

    def _poll(self, block):
        if self._event.is_set() or (not block and not self._work.is_completed()):
            return
        work = self._work
        try:
            work.wait()
        except Exception as e:  # noqa: BLE001 - delivered through the future
            if not self._event.is_set():
                self._complete(exception=e)
            return
        with self._lock:
            finished = self._event.is_set()
        if not finished:
            try:
                self._complete(value=work.result())
            except RuntimeError:  # another thread completed it meanwhile
                pass


def collect_all(futures):
    """A Future of the list of futures, completed once all of them are."""
    futures = list(futures)
    collected = _Collected(futures)
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            collected.set_result(futures)

    if not futures:
        collected.set_result([])
    for f in futures:
        f.add_done_callback(one_done)
    return collected


class _Collected(Future):
    def __init__(self, futures):
        super().__init__()
        self._futures = futures

    def _poll(self, block):
        for f in self._futures:
            f._poll(block)


def wait_all(futures):
    """The values of all futures (waiting for each; the first error raises)."""
    return [f.wait() for f in futures]
