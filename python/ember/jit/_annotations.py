"""torch.jit's annotations and helpers for TorchScript programs, as they behave in eager
code: the markers (ignore, unused, export, interface, annotate, Final) return what they are
given, fork runs its call at once, the fusion switches are remembered settings (ember's
traced graphs are not fused by them)."""
import builtins
import contextlib
import typing

from .. import _C


def script_if_tracing(fn):
    return fn


def script_method(fn):
    return fn


def is_scripting():
    """False: ember never compiles Python to TorchScript."""
    return False


def is_tracing():
    """Whether ember.jit.trace is recording on this thread."""
    return _C._jit.is_tracing()


def ignore(drop=False, **kwargs):
    """@ignore / @ignore(drop=...): the function is left to Python (all of it is, here)."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def annotate(the_type, the_value):
    """the_value (the type annotates it for a compiler)."""
    return the_value


Final = typing.Final


class Attribute(typing.NamedTuple):
    """torch.jit.Attribute(value, type): a module attribute with its TorchScript type."""
    value: typing.Any
    type: typing.Any


def _matches(obj, target):
    origin = typing.get_origin(target)
    if origin is None:
        if target is typing.Any:
            return True
        if target is None or target is type(None):
            return obj is None
        if not builtins.isinstance(target, type):
            raise RuntimeError("The second argument to `torch.jit.isinstance` must be a type or "
                               "a tuple of types")
        return builtins.isinstance(obj, target)
    args = typing.get_args(target)
    if origin is typing.Union:
        return any(_matches(obj, a) for a in args)
    if origin is list:
        return builtins.isinstance(obj, list) and all(_matches(o, args[0]) for o in obj)
    if origin is tuple:
        return (builtins.isinstance(obj, tuple) and len(obj) == len(args)
                and all(_matches(o, a) for o, a in zip(obj, args)))
    if origin is dict:
        return builtins.isinstance(obj, dict) and all(
            _matches(k, args[0]) and _matches(v, args[1]) for k, v in obj.items())
    return builtins.isinstance(obj, origin)


def isinstance(obj, target_type):  # noqa: A001 - torch.jit.isinstance's name
    """Whether obj is of target_type, containers checked element by element
    (List[int], Dict[str, Tensor], Optional[...])."""
    if builtins.isinstance(target_type, tuple):
        return any(_matches(obj, t) for t in target_type)
    return _matches(obj, target_type)


class Future:
    """What fork returns: the call has run (ember runs it at once); wait() gives its value."""

    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value

    def value(self):
        return self._value

    def done(self):
        return True

    def then(self, callback):
        return Future(callback(self))


def fork(func, *args, **kwargs):
    return Future(func(*args, **kwargs))


def wait(future):
    return future.wait()


_fusion = {"strategy": [("STATIC", 2), ("DYNAMIC", 10)], "onednn": False}


def set_fusion_strategy(strategy):
    previous, _fusion["strategy"] = _fusion["strategy"], list(strategy)
    return previous


def enable_onednn_fusion(enabled):
    _fusion["onednn"] = bool(enabled)


def onednn_fusion_enabled():
    return _fusion["onednn"]


@contextlib.contextmanager
def optimized_execution(should_optimize):
    yield


@contextlib.contextmanager
def strict_fusion():
    yield


__all__ = ["script_if_tracing", "script_method", "is_scripting", "is_tracing", "ignore", "unused",
           "export", "interface", "annotate", "Final", "Attribute", "isinstance", "Future", "fork",
           "wait", "set_fusion_strategy", "enable_onednn_fusion", "onednn_fusion_enabled",
           "optimized_execution", "strict_fusion"]
