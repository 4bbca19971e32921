"""ember.accelerator: torch.accelerator's device-generic API. ember's one accelerator
is CUDA, so each function is the ember.cuda one; without a GPU, is_available() is False,
current_accelerator() is None and the rest raise as ember.cuda's do.
"""
from . import _C
from . import cuda as _cuda

__all__ = ["current_accelerator", "current_device_idx", "current_device_index",
           "get_device_capability", "current_stream", "device_count", "device_index",
           "empty_cache", "get_memory_info", "is_available", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_peak_memory_stats", "set_device_idx", "set_device_index", "set_stream",
           "synchronize"]


def is_available():
    """Whether an accelerator (a CUDA GPU) can be used now."""
    return _cuda.is_available()


def current_accelerator(check_available=False):
    """ember.device("cuda") when ember has an accelerator (built with CUDA; with
    check_available, also a GPU present), else None."""
    if not _cuda.is_built() or (check_available and not _cuda.is_available()):
        return None
    return _C.device("cuda")


def device_count():
    return _cuda.device_count()


def current_device_index():
    return _cuda.current_device()


def set_device_index(device, /):
    _cuda.set_device(device)


# The names PyTorch had first (deprecated there, kept working).
current_device_idx = current_device_index
set_device_idx = set_device_index


class device_index:  # noqa: N801 (torch's name)
    """A `with` block on accelerator device `device` (None: stay where you are)."""

    def __init__(self, device, /):
        self._inner = _cuda.device(-1 if device is None else device)

    def __enter__(self):
        self._inner.__enter__()
        return self

    def __exit__(self, *exc):
        return self._inner.__exit__(*exc)


def current_stream(device=None, /):
    return _cuda.current_stream(device)


def set_stream(stream):
    _cuda.set_stream(stream)


def synchronize(device=None, /):
    _cuda.synchronize(device)


def get_device_capability(device=None, /):
    """{"major": ..., "minor": ...}: the compute capability of the device."""
    major, minor = _cuda.get_device_capability(device)
    return {"major": major, "minor": minor}


def get_memory_info(device_index=None, /):
    """(free, total) bytes of the device's memory."""
    return _cuda.mem_get_info(device_index)


def empty_cache():
    _cuda.empty_cache()


def memory_stats(device_index=None, /):
    return _cuda.memory_stats(device_index)


def memory_allocated(device_index=None, /):
    return _cuda.memory_allocated(device_index)


def max_memory_allocated(device_index=None, /):
    return _cuda.max_memory_allocated(device_index)


def memory_reserved(device_index=None, /):
    return _cuda.memory_reserved(device_index)


def max_memory_reserved(device_index=None, /):
    return _cuda.max_memory_reserved(device_index)


def reset_peak_memory_stats(device_index=None, /):
    _cuda.reset_peak_memory_stats(device_index)
