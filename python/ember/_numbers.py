"""torch's number constants (torch.pi, torch.inf, ...) and its sym_* helpers.

ember's sizes are plain Python ints (a traced graph finds its symbolic sizes by fitting,
docs/jit.md), so torch.sym_int and friends act on ordinary numbers here, as torch's do
outside a compiler."""
import builtins
import math

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None


def _number(x, fn):
    from ._C import Tensor
    if isinstance(x, Tensor):
        raise TypeError(f"{fn}: expected a Python number, got a Tensor")
    if not isinstance(x, (int, float, bool)):
        raise TypeError(f"{fn}: expected a Python number, got {type(x).__name__}")
    return x


def sym_int(a):
    """int(a), truncating a float toward zero."""
    return int(_number(a, "sym_int"))


def sym_float(a):
    return float(_number(a, "sym_float"))


def sym_not(a):
    return not _number(a, "sym_not")


def sym_max(a, b):
    return builtins.max(_number(a, "sym_max"), _number(b, "sym_max"))


def sym_min(a, b):
    return builtins.min(_number(a, "sym_min"), _number(b, "sym_min"))


def sym_ite(b, t, f):
    """t if b else f."""
    return t if _number(b, "sym_ite") else f


def sym_sum(args):
    return builtins.sum(_number(a, "sym_sum") for a in args)


def sym_sqrt(a):
    return math.sqrt(_number(a, "sym_sqrt"))


def _check_range(size, min, max):  # noqa: A002 (torch's names)
    if max is None:
        max = 2 ** 63 - 1
    if not min <= size <= max:
        raise RuntimeError(f"Invalid value range for {size} between [{min}, {max}].")


def sym_constrain_range(size, min=None, max=None):  # noqa: A002
    """Checks that the int size lies in [min, max] (a compiler records it as a fact)."""
    _check_range(_number(size, "sym_constrain_range"), -(2 ** 63) if min is None else min, max)


def sym_constrain_range_for_size(size, min=None, max=None):  # noqa: A002
    """The same for a size: at least 0 (or min)."""
    _check_range(_number(size, "sym_constrain_range_for_size"), 0 if min is None else min, max)


def sym_fresh_size(expr):
    """expr (a compiler gives it a fresh symbol)."""
    return expr


def init_num_threads():
    """Nothing to do: ember's thread pool (OpenMP) starts with the first parallel op."""


__all__ = ["pi", "e", "inf", "nan", "newaxis", "sym_int", "sym_float", "sym_not", "sym_max",
           "sym_min", "sym_ite", "sym_sum", "sym_sqrt", "sym_constrain_range",
           "sym_constrain_range_for_size", "sym_fresh_size", "init_num_threads"]
