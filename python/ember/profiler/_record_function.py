"""record_function: a named user range, as a context manager or a decorator."""
import functools

from .. import _C


class record_function:
    """Marks a block (or, as a decorator, each call of a function) as a named range in
    the profiler's events. Ops run inside it nest under it. Costs nothing measurable
    when no profiler runs."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self.record = None

    def __enter__(self):
        # As PyTorch's, the range is named by name alone (args is kept on the object).
        self.record = _C._RecordFunction(self.name)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self.record is not None:
            self.record.end()
            self.record = None
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapper
