"""Process-wide switches torch programs set: set_default_tensor_type (deprecated, in old
scripts), set_warn_always / is_warn_always_enabled, and the deterministic debug mode
(another spelling of use_deterministic_algorithms' state)."""
import sys
import warnings

from . import _C

__all__ = ["set_default_tensor_type", "set_warn_always", "is_warn_always_enabled",
           "set_deterministic_debug_mode", "get_deterministic_debug_mode"]

_warn_always = False


def set_warn_always(b):
    """When True, ember's once-per-process warnings given from Python (frombuffer's and
    asarray's not-writable buffer warning) are given every time, as torch's TORCH_WARN_ONCE."""
    global _warn_always
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _warn_always = b


def is_warn_always_enabled():
    return _warn_always


def set_deterministic_debug_mode(debug_mode):
    """"default"/0: nondeterministic ops allowed; "warn"/1: they warn; "error"/2: they
    raise (use_deterministic_algorithms(True))."""
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = modes[debug_mode]
    elif not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode == 0:
        _C.use_deterministic_algorithms(False)
    elif debug_mode == 1:
        _C.use_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        _C.use_deterministic_algorithms(True)
    else:
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")


def get_deterministic_debug_mode():
    if not _C.are_deterministic_algorithms_enabled():
        return 0
    return 1 if _C.is_deterministic_algorithms_warn_only_enabled() else 2


def _legacy_type_from_name(name):
    from . import cuda
    from ._legacy_types import CPU_TYPES
    module, _, cls = name.rpartition(".")
    if not module:
        raise ModuleNotFoundError(f"No module named '{name}'")
    if module in ("torch", "ember"):
        found = CPU_TYPES.get(cls)
    elif module in ("torch.cuda", "ember.cuda"):
        found = getattr(cuda, cls, None) if cls.endswith("Tensor") else None
    else:
        raise ModuleNotFoundError(f"No module named '{module}'")
    if found is None:
        raise AttributeError(f"module '{module}' has no attribute '{cls}'")
    return found


def set_default_tensor_type(t):
    """Deprecated in torch: t is a floating-point legacy tensor type (ember.DoubleTensor,
    "torch.FloatTensor", ember.cuda.FloatTensor, ...); sets the default dtype, and the
    default device for the CUDA ones (which need a GPU)."""
    from . import _default_device, _storage, cuda
    from ._legacy_types import _LegacyTensorType
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                  UserWarning, stacklevel=2)
    if isinstance(t, str):
        t = _legacy_type_from_name(t)
    if not isinstance(t, _LegacyTensorType):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if t._device_type == "cuda" and not cuda.is_available():
        raise TypeError(f"type ember.cuda.{t.__name__} not available. CUDA is not available "
                        "(no GPU, or ember built without CUDA).")
    _C.set_default_dtype(t.dtype)
    if t._device_type == "cuda":
        _default_device.set_default_device("cuda")
    elif _default_device._current is not None and _default_device._current.type == "cuda":
        _default_device.set_default_device(None)
    # ember.Storage follows the default type, as torch.Storage does.
    classes = _storage.CUDA_LEGACY_CLASSES if t._device_type == "cuda" else _storage._LEGACY_CLASSES
    sys.modules["ember"].Storage = classes[_storage._STORAGE_NAMES[t.dtype]]
