"""The names PyTorch's checkpoints give to the pieces of a tensor, and ember's objects
for them.

torch.save pickles a tensor as a call of torch._utils._rebuild_tensor_v2 on a storage
that the pickle names by a persistent id ("storage", torch.FloatStorage, key, location,
numel); a dtype as the global torch.float32; torch.Size and torch.device as calls of
their classes. ember's pickler writes these same names, so that torch.load reads
ember's files, and ember's unpicklers map them back to ember's objects, so that ember
reads torch's files without importing torch (ember never imports it).
"""
from .. import _C, _layout

# The torch storage class of each dtype ember has (torch.storage._dtype_to_storage_type_map).
STORAGE_CLASS_OF_DTYPE = {
    "float64": "DoubleStorage", "float32": "FloatStorage", "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
    "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
}
DTYPE_NAMES = tuple(STORAGE_CLASS_OF_DTYPE)

# Storage classes and dtypes that torch has and ember does not: a checkpoint may name
# them, and loading it then says which dtype ember lacks (rather than "unknown global").
UNSUPPORTED_STORAGE_CLASSES = {
    "ComplexFloatStorage": "complex64", "ComplexDoubleStorage": "complex128",
    "QInt8Storage": "qint8", "QInt32Storage": "qint32", "QUInt8Storage": "quint8",
    "QUInt4x2Storage": "quint4x2", "QUInt2x4Storage": "quint2x4",
}
UNSUPPORTED_DTYPES = (
    "complex32", "complex64", "complex128", "uint16", "uint32", "uint64",
    "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz", "float8_e8m0fnu",
    "float4_e2m1fn_x2", "qint8", "qint32", "quint8", "quint4x2", "quint2x4",
    "bits8", "bits16", "bits1x8", "bits2x4", "bits4x2",
    *(f"int{n}" for n in range(1, 8)), *(f"uint{n}" for n in range(1, 8)),
)

# The memory formats torch pickles as globals torch.<name>; ember has the same constants.
MEMORY_FORMATS = ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d")


def dtype_name(dtype):
    """'float32' for ember.float32: the name torch gives the dtype too."""
    return str(dtype).rpartition(".")[2]


class TorchGlobal:
    """A global of torch's (module and name) that ember's pickler writes as such, e.g.
    GLOBAL 'torch._utils _rebuild_tensor_v2'. There is one object per name, so that
    pickle's memo writes each name once and refers back to it after."""

    __slots__ = ("module", "name")
    _interned = {}

    def __new__(cls, module, name):
        key = (module, name)
        obj = cls._interned.get(key)
        if obj is None:
            obj = super().__new__(cls)
            obj.module, obj.name = module, name
            cls._interned[key] = obj
        return obj

    def __repr__(self):
        return f"{self.module}.{self.name}"

    def __call__(self, *args):
        # Only written by name: pickle's save_reduce merely checks that it is callable.
        raise TypeError(f"{self!r} is torch's, and ember only writes its name")


REBUILD_TENSOR_V2 = TorchGlobal("torch._utils", "_rebuild_tensor_v2")
REBUILD_PARAMETER = TorchGlobal("torch._utils", "_rebuild_parameter")
REBUILD_PARAMETER_WITH_STATE = TorchGlobal("torch._utils", "_rebuild_parameter_with_state")
REBUILD_FROM_TYPE_V2 = TorchGlobal("torch._tensor", "_rebuild_from_type_v2")
GET_LAYOUT = TorchGlobal("torch.serialization", "_get_layout")


def storage_class(dtype):
    """The torch storage class a storage of this ember dtype is pickled as."""
    return TorchGlobal("torch", STORAGE_CLASS_OF_DTYPE[dtype_name(dtype)])


def saved_name(obj):
    """The torch global (module, name) that ember's pickler writes for obj, one of
    ember's own objects that torch has under another name; None for anything else."""
    if isinstance(obj, TorchGlobal):
        return obj.module, obj.name
    if isinstance(obj, _C.dtype):
        return "torch", dtype_name(obj)
    if isinstance(obj, _layout.memory_format):
        return "torch", obj._name
    if isinstance(obj, type):
        from ..nn import parameter
        classes = {_C.Tensor: ("torch", "Tensor"), _C.Size: ("torch", "Size"),
                   _C.device: ("torch", "device")}
        for name in ("Parameter", "UninitializedParameter", "UninitializedBuffer", "Buffer"):
            if hasattr(parameter, name):  # torch.nn.parameter's classes that ember has
                classes[getattr(parameter, name)] = ("torch.nn.parameter", name)
        return classes.get(obj)
    return None


class StorageType:
    """What a torch storage class (torch.FloatStorage, torch.UntypedStorage) stands for
    when ember reads a checkpoint: the dtype of the storage's elements. dtype is None
    for the storage classes of dtypes that ember does not have."""

    __slots__ = ("torch_name", "dtype_name", "dtype")

    def __init__(self, torch_name, dtype_name):
        self.torch_name, self.dtype_name = torch_name, dtype_name
        self.dtype = getattr(_C, dtype_name) if dtype_name in DTYPE_NAMES else None

    def __repr__(self):
        return self.torch_name


def storage_types():
    """{full torch name: StorageType} for every storage class a checkpoint may name,
    CPU and CUDA (files from old PyTorch name torch.cuda.FloatStorage for GPU tensors)."""
    table = {}
    classes = {**{c: d for d, c in STORAGE_CLASS_OF_DTYPE.items()}, **UNSUPPORTED_STORAGE_CLASSES}
    for cls, dtype in classes.items():
        for module in ("torch", "torch.cuda"):
            table[f"{module}.{cls}"] = StorageType(f"{module}.{cls}", dtype)
    # An untyped storage holds bytes: torch reads it as uint8 (serialization.py, _load).
    for name in ("torch.UntypedStorage", "torch.storage.UntypedStorage",
                 "torch.cuda.UntypedStorage"):
        table[name] = StorageType(name, "uint8")
    return table


def constants():
    """{full torch name: ember object} for the torch constants and classes a checkpoint
    may name: dtypes, memory formats, torch.Size, torch.device, torch.Tensor and
    torch.nn.Parameter (the last four are only to be called through the safe
    constructors of _rebuild, which the unpicklers put in their place)."""
    from ..nn.parameter import Parameter
    table = {f"torch.{name}": getattr(_C, name) for name in DTYPE_NAMES}  # ember.float32, ...
    table.update({f"torch.{name}": getattr(_layout, name) for name in MEMORY_FORMATS})
    table.update({"torch.Size": _C.Size, "torch.device": _C.device, "torch.Tensor": _C.Tensor,
                  "torch.nn.parameter.Parameter": Parameter})
    return table


# torch's names for kinds of tensors ember does not have: loading a checkpoint that uses
# one says so, rather than that the name is unknown.
_UNSUPPORTED_KINDS = {
    "torch._utils._rebuild_qtensor": "quantized tensors",
    "torch._utils._rebuild_sparse_tensor": "sparse tensors",
    "torch._utils._rebuild_nested_tensor": "nested tensors",
    "torch._utils._rebuild_meta_tensor_no_storage": "meta tensors",
    "torch._utils._rebuild_wrapper_subclass": "tensor subclasses without a storage (DTensor, ...)",
    "torch._utils._rebuild_device_tensor_from_numpy": "tensors of devices other than cpu and cuda",
    "torch._utils._rebuild_device_tensor_from_cpu_tensor":
        "tensors of devices other than cpu and cuda",
    **{f"torch.{q}": "quantized tensors" for q in (
        "per_tensor_affine", "per_tensor_symmetric", "per_channel_affine",
        "per_channel_symmetric", "per_channel_affine_float_qparams")},
}


def unsupported(full_name):
    """Why ember cannot load what torch names full_name, or None if ember has it (or
    torch does not have it)."""
    if full_name in _UNSUPPORTED_KINDS:
        return (f"it holds {_UNSUPPORTED_KINDS[full_name]} ({full_name}), which ember does not "
                "support")
    if full_name.startswith("torch.") and full_name[6:] in UNSUPPORTED_DTYPES:
        return f"it uses the dtype {full_name}, which ember does not have"
    return None
