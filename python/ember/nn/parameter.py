"""nn.Parameter: a Tensor that a Module registers as one of its parameters."""
from .. import _C
from .._C import Tensor


class Parameter(Tensor):
    """Parameter(data=None, requires_grad=True), as torch.nn.Parameter.

    A detached alias of `data` (same memory) whose class marks it as a module
    parameter. The results of ops on a Parameter are plain Tensors.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        return Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        # Everything was done by __new__; this only stops Tensor's (absent) __init__.
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __copy__(self):
        return type(self)(self.data, self.requires_grad)

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.data, self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)
