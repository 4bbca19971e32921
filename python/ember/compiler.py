"""ember.compiler: the parts of torch.compiler a program meets, for an eager library.

ember has no graph compiler (ember.compile runs the model eagerly: python/ember/_compile.py),
so nothing is ever being compiled or exported, there is no compilation cache to reset,
and a function excluded from compilation (`disable`) or allowed into a graph runs as it is.
"""
from ._compile import compile  # noqa: F401,A004

__all__ = ["compile", "disable", "is_compiling", "is_dynamo_compiling", "is_exporting", "reset",
           "allow_in_graph", "assume_constant_result"]


def is_compiling() -> bool:
    """False: ember never traces a program through a compiler."""
    return False


def is_dynamo_compiling() -> bool:
    return False


def is_exporting() -> bool:
    return False


def reset() -> None:
    """Clears compilation caches: ember keeps none."""


def disable(fn=None, recursive=True, *, reason=None):
    """fn, run eagerly (as everything is in ember); usable as a decorator with or without
    arguments."""
    if fn is None:
        return lambda f: f
    return fn


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn
