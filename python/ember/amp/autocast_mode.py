"""ember.autocast (torch.autocast): regions in which chosen ops run in a lower precision.

The state lives in C++ (include/ember/autocast.h: per thread, per device type) and the
policy of each op in its op schema row (lib/dispatch/schema/*.toml, fields `autocast`
for CUDA and `autocast_cpu`); the dispatcher's autocast layer casts the inputs. This
module is torch's Python surface over it: the context manager and decorator, the
state functions under torch's names, custom_fwd/custom_bwd. docs/amp.md has the lists.
"""
import collections.abc
import functools
import warnings

from .. import _C

__all__ = ["autocast", "autocast_decorator", "is_autocast_available", "custom_fwd", "custom_bwd"]

# The device types autocast has in ember; torch's other names are known but have none.
_AUTOCAST_DEVICE_TYPES = ("cpu", "cuda")
_TORCH_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                       "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                       "privateuseone")


def _check_device_type(device_type):
    """torch's message for a name that is no device type at all."""
    if not isinstance(device_type, str):
        raise TypeError(f"device_type must be a str, got {type(device_type).__name__}")
    if device_type not in _TORCH_DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_TORCH_DEVICE_TYPES)} device type at start of "
                           f"device string: {device_type}")


def _state_device(device_type, what):
    _check_device_type(device_type)
    if device_type not in _AUTOCAST_DEVICE_TYPES:
        raise RuntimeError(f"{what}: ember has no autocast for device type '{device_type}' "
                           f"(it has {', '.join(_AUTOCAST_DEVICE_TYPES)})")
    return device_type


def is_autocast_available(device_type):
    """Whether autocast exists for `device_type` ('cpu' and 'cuda' in ember)."""
    _check_device_type(device_type)
    return device_type in _AUTOCAST_DEVICE_TYPES


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for `device_type` on this thread (no argument: CUDA, as torch)."""
    if device_type is None:
        device_type = "cuda"
    _check_device_type(device_type)
    if device_type not in _AUTOCAST_DEVICE_TYPES:
        return False
    return _C._autocast_is_enabled(device_type)


def set_autocast_enabled(device_type, enabled=None):
    """set_autocast_enabled(device_type, enabled), or set_autocast_enabled(enabled) for CUDA."""
    if enabled is None:  # torch's one-argument form: CUDA
        device_type, enabled = "cuda", device_type
    _C._autocast_set_enabled(_state_device(device_type, "set_autocast_enabled"), bool(enabled))


def get_autocast_dtype(device_type):
    """The lower-precision dtype of `device_type`'s regions (bfloat16 on cpu, float16 on cuda)."""
    return _C._autocast_get_dtype(_state_device(device_type, "get_autocast_dtype"))


def set_autocast_dtype(device_type, dtype):
    _C._autocast_set_dtype(_state_device(device_type, "set_autocast_dtype"), dtype)


def _deprecated(old, new):
    warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.", DeprecationWarning,
                  stacklevel=3)


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_gpu_dtype(dtype):
    _deprecated("set_autocast_gpu_dtype", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


is_autocast_cache_enabled = _C.is_autocast_cache_enabled
set_autocast_cache_enabled = _C.set_autocast_cache_enabled
clear_autocast_cache = _C.clear_autocast_cache
autocast_increment_nesting = _C.autocast_increment_nesting
autocast_decrement_nesting = _C.autocast_decrement_nesting


def _cuda_available():
    from .. import cuda
    return cuda.is_available()


def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:
    """torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None): a context
    manager or decorator. Inside it, ops on `device_type` tensors run as their autocast
    policy says (docs/amp.md): lower precision (matmul, linear, conv), float32 (losses,
    softmax on CUDA, ...) or the widest input dtype. The state is per thread."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        from .. import bfloat16, float16
        if enabled:
            if device_type == "cuda":
                if not _cuda_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                                  stacklevel=2)
                    enabled = False
                elif self.fast_dtype == bfloat16:
                    from .. import cuda
                    if not cuda.is_bf16_supported():
                        raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch "
                                           "dtype to float16.")
            if enabled and self.fast_dtype not in (bfloat16, float16):
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling "
                              f"autocast.\n{name} Autocast only supports dtypes of torch.bfloat16, "
                              "torch.float16 currently.", stacklevel=2)
                enabled = False
        self._enabled = bool(enabled)

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        # The outermost region drops the cached parameter copies.
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")
        return autocast_decorator(self, func)


def _cast(value, device_type, dtype):
    """Casts floating tensors of `device_type` (not float64) in value, through containers."""
    from .. import Tensor, float64
    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype != float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)):
        return value
    if type(value).__module__ == "numpy":
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        iterable = (_cast(v, device_type, dtype) for v in value)
        return type(value)(iterable) if isinstance(value, (list, tuple)) else iterable
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorates a custom autograd Function's forward: with cast_inputs, inside an autocast
    region its floating inputs are cast to cast_inputs and it runs with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        in_region = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if in_region:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorates a custom autograd Function's backward: it runs with the autocast state
    its forward ran with."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
