"""Context managers (and decorators) that switch gradient recording."""
import functools

from .. import _C


class _GradModeBase:
    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args):
                return fn(*args, **kwargs)
        return wrapper


class _NoParamDecorator(_GradModeBase):
    """Also usable as a bare decorator, as in torch: `@no_grad` without parentheses
    builds the context manager and wraps the function."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecorator):
    """Within the block, no op is recorded for autograd (torch.no_grad)."""
    _args = ()

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False


class enable_grad(_NoParamDecorator):
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
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {type(mode).__name__}")
        self._args = (mode,)
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(bool(mode))

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False


# Whether the innermost inference_mode block of this thread is on
# (torch.is_inference_mode_enabled); per thread, kept in C++ where new tensors read it.
is_inference_mode_enabled = _C.is_inference_mode_enabled


class inference_mode(_GradModeBase):
    """No op is recorded inside, and the tensors made inside are inference tensors
    (Tensor.is_inference()): outside inference mode they cannot be saved for backward,
    written in place or made to require grad, as in PyTorch (ember/inference_mode.h)."""

    def __init__(self, mode=True):
        self._args = (mode,)
        self._mode = bool(mode)

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        self._prev_inference = is_inference_mode_enabled()
        _C._set_inference_mode_enabled(self._mode)
        if self._mode:
            _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        _C._set_inference_mode_enabled(self._prev_inference)
        return False


_multithreading_enabled = True


def is_multithreading_enabled():
    """Whether multithreaded backward is allowed (torch.autograd.is_multithreading_enabled).

    ember's engine runs every node of a backward pass on the calling thread (CUDA
    work is ordered by streams, not by engine threads), so both settings run the same
    way; the switch is kept so programs that set and read it behave as in PyTorch."""
    return _multithreading_enabled


class set_multithreading_enabled(_GradModeBase):
    """set_multithreading_enabled(mode): sets the switch now; as a context manager,
    restores it on exit (see is_multithreading_enabled)."""

    def __init__(self, mode):
        global _multithreading_enabled
        self._args = (bool(mode),)
        self._prev = _multithreading_enabled
        _multithreading_enabled = bool(mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        global _multithreading_enabled
        _multithreading_enabled = self._prev
        return False
