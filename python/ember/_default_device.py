"""ember.set_default_device / get_default_device: the device factories use when not
given one, as torch's (which lists the same factories in torch.utils._device).

While a default device is set, each factory in ember and ember._C is replaced by a
wrapper that fills in device= when it is missing or None (so Python code inside ember,
e.g. nn layers creating their parameters, follows it too); setting None puts the
original functions back, so nothing is paid when no default device is set. The *_like
factories and Tensor.new_* keep their input's device, as in torch. A name imported
with `from ember import zeros` before the call keeps the function it had."""
import functools
import sys

from . import _C

__all__ = ["set_default_device", "get_default_device"]

# torch.utils._device._device_constructors(), for the names ember has.
_FACTORIES = (
    "empty", "empty_permuted", "empty_strided", "ones", "zeros", "full", "arange", "range",
    "linspace", "logspace", "eye", "rand", "randn", "randint", "randperm", "tril_indices",
    "triu_indices", "tensor", "as_tensor", "asarray", "scalar_tensor", "bartlett_window",
    "blackman_window", "hamming_window", "hann_window", "kaiser_window",
)

_current = None
_originals = {}  # (module name, function name) -> the function replaced


def _with_default_device(fn):
    @functools.wraps(fn)
    def factory(*args, **kwargs):
        if kwargs.get("device") is None and _current is not None:
            kwargs["device"] = _current
        return fn(*args, **kwargs)
    factory._ember_default_device_wrapper = True
    return factory


def _modules():
    return [sys.modules["ember"], _C]


def _install():
    for module in _modules():
        for name in _FACTORIES:
            fn = getattr(module, name, None)
            if fn is None or getattr(fn, "_ember_default_device_wrapper", False):
                continue
            _originals[(module.__name__, name)] = fn
            setattr(module, name, _with_default_device(fn))


def _uninstall():
    for module in _modules():
        for name in _FACTORIES:
            fn = _originals.pop((module.__name__, name), None)
            if fn is not None:
                setattr(module, name, fn)


def set_default_device(device):
    """Makes factories without device= (or device=None) allocate on device; None
    restores the CPU default. The device is checked but not initialized, as in torch."""
    global _current
    if device is None:
        _current = None
        _uninstall()
        return
    from ._storage import _as_device
    _current = _as_device(device)
    _install()


def get_default_device():
    """The device factories use when not given one (cpu unless set_default_device);
    "cuda" without an index reads as the current CUDA device."""
    if _current is None:
        return _C.device("cpu")
    if _current.type == "cuda" and _current.index is None:
        from . import cuda
        return _C.device("cuda", cuda.current_device())
    return _current
