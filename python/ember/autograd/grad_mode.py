"""Context managers (and decorators) that switch gradient recording."""
import functools
import threading

from .. import _C


class _GradModeBase:
    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args):
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeBase):
    """Within the block, no op is recorded for autograd (torch.no_grad)."""
    _args = ()

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False


class enable_grad(_GradModeBase):
    """Within the block, ops are recorded again, even inside no_grad."""
    _args = ()

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False


class set_grad_enabled(_GradModeBase):
    """set_grad_enabled(mode): sets grad mode now; as a context manager, restores it on exit."""

    def __init__(self, mode):
        self._args = (bool(mode),)
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(bool(mode))

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False


# Whether the innermost inference_mode block of this thread is on
# (torch.is_inference_mode_enabled); per thread, as grad mode is.
_inference_state = threading.local()


def is_inference_mode_enabled():
    """True inside an enabled inference_mode block."""
    return getattr(_inference_state, "on", False)


class inference_mode(_GradModeBase):
    """Like no_grad (ember keeps no separate inference tensors)."""

    def __init__(self, mode=True):
        self._args = (mode,)
        self._mode = bool(mode)

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        self._prev_inference = is_inference_mode_enabled()
        _inference_state.on = self._mode
        if self._mode:
            _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        _inference_state.on = self._prev_inference
        return False
