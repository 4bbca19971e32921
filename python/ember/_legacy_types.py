"""PyTorch's legacy typed tensor classes: ember.FloatTensor, ember.LongTensor, ...
and their CUDA twins in ember.cuda.

Older programs still build tensors with them (FloatTensor(2, 3), LongTensor([1, 2])),
test for a kind with isinstance(x, FloatTensor) and convert with x.type(FloatTensor).
Each class here is such a constructor and kind test; the tensors it makes are ordinary
ember.Tensor objects, as in PyTorch.
"""
from . import _C
from ._C import Tensor

_KINDS = {"Float": _C.float32, "Double": _C.float64, "Half": _C.float16,
          "BFloat16": _C.bfloat16, "Long": _C.int64, "Int": _C.int32, "Short": _C.int16,
          "Char": _C.int8, "Byte": _C.uint8, "Bool": _C.bool}


class _LegacyTensorType(type):
    """The metaclass: calling a class constructs a tensor; isinstance tests dtype and device."""

    def __instancecheck__(cls, obj):
        return (isinstance(obj, Tensor) and obj.dtype == cls.dtype
                and obj.device.type == cls._device_type)

    def __call__(cls, *args, device=None):
        if device is not None and _C.device(device).type != cls._device_type:
            raise RuntimeError(f"legacy constructor expects device type: {cls._device_type} but "
                               f"device type: {_C.device(device).type} was passed")
        where = device if device is not None else cls._device_type
        if not args:
            return _C.empty(0, dtype=cls.dtype, device=where)
        if len(args) == 1 and isinstance(args[0], Tensor):
            if args[0].dtype != cls.dtype:
                raise TypeError(f"expected {cls.dtype} (got {args[0].dtype})")
            return args[0].detach()
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return _C.empty(list(args), dtype=cls.dtype, device=where)
        if len(args) == 1 and isinstance(args[0], _C.Size):
            return _C.empty(list(args[0]), dtype=cls.dtype, device=where)
        if len(args) == 1:
            return _C.tensor(args[0], dtype=cls.dtype, device=where)
        raise TypeError(f"new() received an invalid combination of arguments: "
                        f"{tuple(type(a).__name__ for a in args)}")

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _make(kind, dtype, device_type, module):
    return _LegacyTensorType(f"{kind}Tensor", (), {"dtype": dtype, "_device_type": device_type,
                                                   "is_cuda": device_type == "cuda",
                                                   "__module__": module})


CPU_TYPES = {f"{k}Tensor": _make(k, d, "cpu", "ember") for k, d in _KINDS.items()}
CUDA_TYPES = {f"{k}Tensor": _make(k, d, "cuda", "ember.cuda") for k, d in _KINDS.items()}

_type = Tensor.type


def _type_as_legacy(self, dtype=None, non_blocking=False, **kwargs):
    """Tensor.type, which also takes a legacy class: x.type(ember.cuda.FloatTensor)."""
    if isinstance(dtype, _LegacyTensorType):
        return self.to(device=dtype._device_type, dtype=dtype.dtype, non_blocking=non_blocking)
    return _type(self, dtype, non_blocking, **kwargs)


Tensor.type = _type_as_legacy
