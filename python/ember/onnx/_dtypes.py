"""ember dtypes as ONNX element types and numpy dtypes, and the promotion rule the
converter needs where a node's output dtype does not say which type its inputs meet in
(comparisons)."""
import numpy as np
from onnx import TensorProto

# ember dtype name -> ONNX TensorProto element type.
_ONNX_TYPES = {
    "bool": TensorProto.BOOL,
    "uint8": TensorProto.UINT8,
    "int8": TensorProto.INT8,
    "int16": TensorProto.INT16,
    "int32": TensorProto.INT32,
    "int64": TensorProto.INT64,
    "float16": TensorProto.FLOAT16,
    "bfloat16": TensorProto.BFLOAT16,
    "float32": TensorProto.FLOAT,
    "float64": TensorProto.DOUBLE,
}


def dtype_name(dtype):
    """'float32' for ember.float32 (or for the name itself)."""
    return dtype if isinstance(dtype, str) else dtype.name


def onnx_type(dtype):
    name = dtype_name(dtype)
    if name not in _ONNX_TYPES:
        raise TypeError(f"ember.onnx.export: dtype {name} has no ONNX element type")
    return _ONNX_TYPES[name]


def numpy_dtype(dtype):
    """The numpy dtype of an ember dtype; bfloat16 is ml_dtypes' (a dependency of onnx)."""
    name = dtype_name(dtype)
    if name == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def is_floating(dtype):
    return dtype_name(dtype) in ("float16", "bfloat16", "float32", "float64")


def _category(name):
    if name == "bool":
        return 0
    return 2 if is_floating(name) else 1


def common_dtype(operands):
    """The dtype that operands [(dtype name, ndim), ...] meet in, by PyTorch's rule: the
    highest category (bool < integer < floating) wins, and within it tensors with dims
    outrank 0-dim ones (a traced Python number is a 0-dim constant)."""
    import ember
    top = max(_category(name) for name, _ in operands)
    ranked = [(name, ndim) for name, ndim in operands if _category(name) == top]
    chosen = [name for name, ndim in ranked if ndim > 0] or [name for name, _ in ranked]
    result = chosen[0]
    for name in chosen[1:]:
        result = ember.promote_types(getattr(ember, result), getattr(ember, name)).name
    return result
