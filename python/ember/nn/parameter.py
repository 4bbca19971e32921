"""nn.Parameter: a Tensor that a Module registers as one of its parameters."""
from .. import _C
from .._C import Tensor


class _NotATensorError(AttributeError, TypeError):
    """nn.Parameter(5): torch raises AttributeError (it calls data.detach()); it is also
    the TypeError it is."""


class Parameter(Tensor):
    """Parameter(data=None, requires_grad=True), as torch.nn.Parameter.

    A detached alias of `data` (same memory) whose class marks it as a module
    parameter. The results of ops on a Parameter are plain Tensors.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, Tensor):
            raise _NotATensorError(f"nn.Parameter: data must be a Tensor, got {type(data).__name__}")
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


# ---- lazy (uninitialized) parameters and buffers ------------------------------------------

# What torch lets an uninitialized tensor do: conversions, size(), copy_ and the properties.
_ALLOWED_METHODS = frozenset({
    "size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char",
    "short", "int", "long", "cuda", "cpu", "to", "get_device",
})


def _tensor_methods():
    """The public methods of Tensor that an uninitialized tensor refuses (torch's rule)."""
    names = set()
    for name in dir(Tensor):
        # The mixin's own methods (share_memory_ with torch's message) answer for themselves.
        if name.startswith("_") or name in _ALLOWED_METHODS or name in vars(UninitializedTensorMixin):
            continue
        attr = getattr(Tensor, name, None)
        if callable(attr) and not isinstance(attr, (property, type)):
            names.add(name)
    return frozenset(names)


_BLOCKED_METHODS = None


def _uninitialized_error(cls_name, what):
    return ValueError(
        f"Attempted to use an uninitialized parameter in {what}. This error happens when you "
        "are using a `LazyModule` or explicitly manipulating "
        f"`ember.nn.parameter.{cls_name}` objects. When using LazyModules Call `forward` with "
        "a dummy batch to initialize the parameters before calling ember functions")


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share (torch's mixin): no data
    until materialize(shape); the shape and most methods refuse to be used before that."""

    _allowed_methods = _ALLOWED_METHODS

    def materialize(self, shape, device=None, dtype=None):
        """Gives the tensor data of `shape` (uninitialized memory) on its device and dtype
        (or the ones given) and turns it into its cls_to_become (Parameter / Tensor)."""
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        if isinstance(shape, int):
            shape = (shape,)
        self.data = _C.empty(*tuple(shape), device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
            "initialized one. Call `forward` to initialize the parameters before accessing their "
            "attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    def __getattribute__(self, name):
        global _BLOCKED_METHODS
        if name[0] != "_":
            if _BLOCKED_METHODS is None:
                _BLOCKED_METHODS = _tensor_methods()
            if name in _BLOCKED_METHODS:
                raise _uninitialized_error(type(self).__name__,
                                           f"<method '{name}' of 'ember.Tensor' objects>")
        return super().__getattribute__(name)


def _refuse(op):
    def method(self, *args, **kwargs):
        raise _uninitialized_error(type(self).__name__,
                                   f"<method '{op}' of 'ember.Tensor' objects>")
    method.__name__ = op
    return method


# Operators are looked up on the type, not through __getattribute__: refuse them here.
for _op in ("__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__",
            "__rmul__", "__imul__", "__truediv__", "__rtruediv__", "__itruediv__",
            "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__",
            "__matmul__", "__rmatmul__", "__neg__", "__pos__", "__abs__", "__getitem__",
            "__setitem__", "__lt__", "__le__", "__gt__", "__ge__", "__and__", "__or__",
            "__xor__", "__invert__", "__float__", "__int__", "__bool__", "__len__",
            "__iter__"):
    setattr(UninitializedTensorMixin, _op, _refuse(_op))
del _op


def is_lazy(param):
    """Whether param is an UninitializedParameter or an UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """UninitializedParameter(requires_grad=True, device=None, dtype=None): a Parameter
    whose shape is not known yet (lazy modules); materialize() makes it a Parameter."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        kw = {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}
        return Tensor._make_subclass(cls, _C.empty(0, **kw), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        data = self.data
        result = type(self)(self.requires_grad, data.device, data.dtype)
        memo[id(self)] = result
        return result

    def __copy__(self):
        data = self.data
        return type(self)(self.requires_grad, data.device, data.dtype)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """UninitializedBuffer(requires_grad=False, device=None, dtype=None, persistent=True): a
    buffer whose shape is not known yet (lazy modules); materialize() makes it a Tensor."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        kw = {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}
        ret = Tensor._make_subclass(cls, _C.empty(0, **kw), requires_grad)
        ret.persistent = persistent
        ret._is_buffer = True
        return ret

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        data = self.data
        result = type(self)(self.requires_grad, data.device, data.dtype,
                            getattr(self, "persistent", True))
        memo[id(self)] = result
        return result


# ---- Buffer --------------------------------------------------------------------------------

class _BufferMeta(type(Tensor)):
    """isinstance(t, Buffer) is True for the tensors Buffer(...) returned (their _is_buffer)."""

    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer",
                                                                      False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Buffer(data=None, *, persistent=True), as torch.nn.Buffer: marks a tensor that a
    Module attribute assignment registers as a buffer (persistent: in the state_dict).

    It returns a detached alias of data (a plain Tensor, same memory and requires_grad)
    carrying the flag; isinstance(t, Buffer) recognises it."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _C.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
