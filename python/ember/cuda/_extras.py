"""torch.cuda names that ember can answer without C++ of their own: the allocator's
counters as torch's nested dict, the error classes torch code catches, and the legacy CUDA storage
classes (ember.cuda.FloatStorage, ...)."""
from .. import _C

__all__ = ["memory_stats_as_nested_dict", "AcceleratorError",
           "CudaError"]


class AcceleratorError(RuntimeError):
    """Exception raised while executing on a device (torch.AcceleratorError). ember
    reports its CUDA runtime failures as RuntimeError, of which this is a subclass, so
    `except RuntimeError` catches both; the class exists for code that names it."""


class CudaError(RuntimeError):
    """A CUDA runtime error code, as torch.cuda.CudaError(code)."""

    def __init__(self, code):
        self.code = int(code)
        super().__init__(f"CUDA error ({self.code})")


def _torch_named_stats(stats):
    """ember's allocator counters under torch's names (memory_stats' flat keys)."""
    return {
        "allocated_bytes.all.current": stats["allocated_bytes"],
        "allocated_bytes.all.peak": stats["peak_allocated_bytes"],
        "reserved_bytes.all.current": stats["reserved_bytes"],
        "reserved_bytes.all.peak": stats["peak_reserved_bytes"],
        "allocation.all.allocated": stats["num_allocs"],
        "allocation.all.freed": stats["num_frees"],
        "allocation.all.current": stats["active_allocs"],
        "segment.all.allocated": stats["num_raw_allocs"],
        "segment.all.freed": stats["num_raw_frees"],
        "segment.all.current": stats["segments"],
        "num_ooms": stats["num_ooms"],
    }


def memory_stats_as_nested_dict(device=None):
    """The CUDA allocator's counters as torch's nested dict ({"allocated_bytes": {"all":
    {"current": ..., "peak": ...}}, ...}); {} when CUDA is not available, as torch
    answers before CUDA is initialized."""
    from . import _device, is_available
    if not is_available():
        return {}
    nested = {}
    for key, value in _torch_named_stats(_C.memory_stats(_device(device))).items():
        node = nested
        *path, leaf = key.split(".")
        for part in path:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested
