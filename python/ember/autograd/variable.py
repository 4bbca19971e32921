"""torch.autograd.Variable: the pre-0.4 wrapper, kept because old programs still call it.

Since PyTorch 0.4 a Variable is a Tensor: `Variable(t)` returns a new tensor sharing
t's data, detached from t's graph, with requires_grad as asked; `volatile` only warns.
isinstance(x, Variable) is True for every tensor, while `type(x) == Variable` is False,
as in torch (programs' `repackage_hidden` helpers rely on one or the other).
"""
import warnings

from .. import _C


_HEAP_TYPE_FLAG = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python


def _type_name(obj):
    """The C tp_name torch prints: 'int', 'numpy.ndarray', a Python class's bare name."""
    cls = type(obj)
    if cls.__flags__ & _HEAP_TYPE_FLAG or cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _C.Tensor)


class Variable(metaclass=_VariableMeta):
    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use "
                          "`with torch.no_grad():` instead.", UserWarning, stacklevel=2)
        if data is None:
            data = _C.empty(0)
        elif not isinstance(data, _C.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {_type_name(data)}")
        result = data.detach()
        if requires_grad:
            # requires_grad_ raises torch's RuntimeError for integer and bool dtypes.
            result.requires_grad_(True)
        return result
