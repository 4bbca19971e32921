"""ember.cuda: CUDA devices, streams, events and the CUDA caching allocator.

Mirrors torch.cuda. Without a CUDA build or without a GPU, is_available() is False,
device_count() is 0 and the rest raise RuntimeError ("ember was built without CUDA"
or "no CUDA GPU is available"). The work is done by ember::cuda in C++ (_C._cuda).
"""
import warnings

from .. import _C

_cuda = _C._cuda

Stream = _cuda.Stream
Event = _cuda.Event
OutOfMemoryError = _C.OutOfMemoryError  # a RuntimeError, as torch.cuda.OutOfMemoryError
is_available = _cuda.is_available
device_count = _cuda.device_count
current_device = _cuda.current_device
empty_cache = _cuda.empty_cache


def is_built():
    """Whether ember was compiled with the CUDA backend."""
    return _cuda.is_built()


def _index(device):
    """None, an int, "cuda:1" or an ember.device -> a CUDA device index (-1: current)."""
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    d = _C.device(device) if isinstance(device, str) else device
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return -1 if d.index is None else d.index


def _device(device):
    index = _index(device)
    return _C.device("cuda", current_device() if index < 0 else index)


def set_device(device):
    """Makes `device` (an int, "cuda:1" or an ember.device) the current CUDA device."""
    index = _index(device)
    if index >= 0:
        _cuda.set_device(index)


def get_device_properties(device=None):
    """What the GPU is: name, major/minor (compute capability), total_memory (bytes),
    multi_processor_count, L2_cache_size, uuid, ... (torch.cuda's fields)."""
    return _cuda.get_device_properties(_index(device))


def get_device_name(device=None):
    """The GPU's name, e.g. 'NVIDIA H100 80GB HBM3'."""
    return get_device_properties(device).name


def get_device_capability(device=None):
    """The GPU's compute capability as (major, minor), e.g. (9, 0) for Hopper."""
    props = get_device_properties(device)
    return props.major, props.minor


def mem_get_info(device=None):
    """(free, total) device memory in bytes as the driver sees it: what the caching
    allocator holds counts as used (empty_cache() returns it)."""
    return _cuda.mem_get_info(_index(device))


def is_bf16_supported(including_emulation=True):
    """Whether the current GPU computes in bfloat16: compute capability 8.0 or newer
    (False without a GPU). ember's bfloat16 kernels need no emulation, so
    including_emulation changes nothing."""
    del including_emulation
    return is_available() and get_device_capability()[0] >= 8


def synchronize(device=None):
    """Waits for all work queued on every stream of `device` (default: the current one)."""
    _cuda.synchronize(_index(device))


class device:
    """Context manager that makes a CUDA device current and restores the previous one."""

    def __init__(self, device):
        self.index = _index(device)
        self.previous = -1

    def __enter__(self):
        if self.index >= 0:
            self.previous = current_device()
            _cuda.set_device(self.index)
        return self

    def __exit__(self, *exc):
        if self.previous >= 0:
            _cuda.set_device(self.previous)
        return False


def current_stream(device=None):
    return _cuda.current_stream(_index(device))


def default_stream(device=None):
    return _cuda.default_stream(_index(device))


def set_stream(stream):
    if stream is not None:
        _cuda.set_stream(stream)


class StreamContext:
    """Makes `stream` (and its device) current inside a `with`; None does nothing."""

    def __init__(self, stream):
        self.stream = stream
        self.previous_stream = None
        self.device = None

    def __enter__(self):
        if self.stream is None:
            return self.stream
        self.device = device(self.stream.device_index)
        self.device.__enter__()
        self.previous_stream = current_stream(self.stream.device_index)
        _cuda.set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            _cuda.set_stream(self.previous_stream)
            self.device.__exit__(*exc)
        return False


def stream(stream):
    """with ember.cuda.stream(s): ops queue their work on s."""
    return StreamContext(stream)


# ---- memory of the CUDA caching allocator ----

def memory_stats(device=None):
    """The allocator's counters. ember's names (allocated_bytes, num_raw_allocs, ...)
    plus PyTorch's names for the common ones ("allocated_bytes.all.current", ...)."""
    stats = _C.memory_stats(_device(device))
    stats.update({
        "allocated_bytes.all.current": stats["allocated_bytes"],
        "allocated_bytes.all.peak": stats["peak_allocated_bytes"],
        "reserved_bytes.all.current": stats["reserved_bytes"],
        "reserved_bytes.all.peak": stats["peak_reserved_bytes"],
    })
    return stats


def memory_allocated(device=None):
    return _C.memory_stats(_device(device))["allocated_bytes"]


def max_memory_allocated(device=None):
    return _C.memory_stats(_device(device))["peak_allocated_bytes"]


def memory_reserved(device=None):
    return _C.memory_stats(_device(device))["reserved_bytes"]


def max_memory_reserved(device=None):
    return _C.memory_stats(_device(device))["peak_reserved_bytes"]


def reset_peak_memory_stats(device=None):
    _C.reset_peak_memory_stats(_device(device))


def memory_summary(device=None, abbreviated=False):
    return _cuda.memory_summary(_index(device))


def reset_accumulated_memory_stats(device=None):
    """Zeroes the allocator's counters that only grow (allocations, frees, cudaMalloc
    calls, cache hits, OOMs); current amounts and peaks stay."""
    _cuda.reset_accumulated_memory_stats(_index(device))


def set_per_process_memory_fraction(fraction, device=None):
    """Lets the caching allocator of `device` reserve at most fraction * the GPU's memory;
    past it a request raises OutOfMemoryError as if the GPU were full."""
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    _cuda.set_per_process_memory_fraction(fraction, _index(device))


def get_per_process_memory_fraction(device=None):
    """The fraction set by set_per_process_memory_fraction (1.0 until set)."""
    return _cuda.get_per_process_memory_fraction(_index(device))


def memory_snapshot():
    """Every segment the CUDA caching allocators hold, on every device, as
    torch.cuda.memory_snapshot() lists them: dicts with device, address, total_size,
    allocated_size, active_size, requested_size, stream, segment_type ("small"/"large"),
    segment_pool_id and blocks (address, size, requested_size, state)."""
    return [seg for d in range(device_count()) for seg in _C.memory_snapshot(_C.device("cuda", d))]


def get_arch_list():
    """The GPU architectures ember's kernels were compiled for ("sm_90"; "compute_90" for
    PTX); [] when no GPU is available."""
    return _cuda.get_arch_list()


def can_device_access_peer(device, peer_device):
    """Whether `device` can access the memory of `peer_device` directly."""
    device, peer_device = _index(device), _index(peer_device)
    if device < 0 or device >= device_count():
        raise AssertionError("Invalid device id")
    if peer_device < 0 or peer_device >= device_count():
        raise AssertionError("Invalid peer device id")
    return _cuda.can_device_access_peer(device, peer_device)


class ExternalStream(Stream):
    """A CUDA stream made outside ember (by another library), from its cudaStream_t as an
    int. ember neither creates nor destroys it: it must outlive its use here."""

    def __init__(self, stream_ptr, device=None):
        if not isinstance(stream_ptr, int) or isinstance(stream_ptr, bool):
            raise TypeError(f"ExternalStream: stream_ptr must be an int (a cudaStream_t), got "
                            f"{type(stream_ptr).__name__}")
        super().__init__(stream_ptr=stream_ptr, device=device, _external=True)


# PyTorch's older names, which it keeps with a FutureWarning.
def memory_cached(device=None):
    warnings.warn("ember.cuda.memory_cached has been renamed to ember.cuda.memory_reserved",
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None):
    warnings.warn("ember.cuda.max_memory_cached has been renamed to "
                  "ember.cuda.max_memory_reserved", FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def reset_max_memory_allocated(device=None):
    warnings.warn("ember.cuda.reset_max_memory_allocated now calls "
                  "ember.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    warnings.warn("ember.cuda.reset_max_memory_cached now calls "
                  "ember.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def init():
    """Initializes CUDA now (ember does it on first use); raises without a GPU."""
    _index(None)
    current_device()


def is_initialized():
    """Whether CUDA has been set up in this process: with ember, whenever a GPU is present
    (the runtime starts when ember.cuda first asks for devices)."""
    return is_available()


class device_of(device):  # noqa: N801 (torch's name)
    """with device_of(tensor): the tensor's CUDA device is current inside (nothing changes
    for a CPU tensor)."""

    def __init__(self, obj):
        index = obj.get_device() if isinstance(obj, _C.Tensor) and obj.is_cuda else -1
        super().__init__(index)


__all__ = [
    "Event", "OutOfMemoryError", "Stream", "StreamContext", "current_device", "current_stream", "default_stream",
    "device", "device_count", "empty_cache", "is_available", "is_built", "max_memory_allocated",
    "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats", "memory_summary",
    "reset_peak_memory_stats", "set_device", "set_stream", "stream", "synchronize",
    "memory_cached", "max_memory_cached", "reset_max_memory_allocated", "reset_max_memory_cached",
    "init", "is_initialized", "device_of", "reset_accumulated_memory_stats",
    "set_per_process_memory_fraction", "get_per_process_memory_fraction", "memory_snapshot",
    "get_arch_list", "can_device_access_peer", "ExternalStream",
    "CUDAGraph", "graph", "graph_pool_handle", "make_graphed_callables", "is_current_stream_capturing",
]


# ---- random numbers: each CUDA device has its own default generator (as in PyTorch) ----

# As in PyTorch, seeding without a GPU is silently ignored (code that seeds "everything"
# runs on CPU-only machines); reading a state needs a GPU.

def _generator(device=None):
    return _C._default_generator(_device(device))


def manual_seed(seed):
    """Seeds the current CUDA device's default generator (torch.cuda.manual_seed)."""
    if is_available():
        _generator().manual_seed(seed)


def manual_seed_all(seed):
    """Seeds every CUDA device's default generator."""
    for i in range(device_count()):
        _generator(i).manual_seed(seed)


def seed():
    """Seeds the current device's generator from a non-deterministic source."""
    if is_available():
        _generator().seed()


def seed_all():
    """Seeds every device's generator with one non-deterministic seed."""
    if not is_available():
        return
    s = _generator(0).seed()
    for i in range(1, device_count()):
        _generator(i).manual_seed(s)


def initial_seed():
    return _generator().initial_seed()


def get_rng_state(device="cuda"):
    """The generator state of `device` as a uint8 tensor (torch.cuda.get_rng_state)."""
    return _generator(device).get_state()


def set_rng_state(new_state, device="cuda"):
    _generator(device).set_state(new_state)


def get_rng_state_all():
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states):
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


# ---- the legacy typed tensor classes: ember.cuda.FloatTensor, ... (ember/_legacy_types.py) ----
from .._legacy_types import CUDA_TYPES as _CUDA_TYPES  # noqa: E402

globals().update(_CUDA_TYPES)

# ---- names answered without C++ (ember/cuda/_extras.py) and the legacy CUDA storages ----
from ._extras import *  # noqa: E402,F401,F403
from . import amp, graphs, memory, random, streams  # noqa: E402,F401  (torch.cuda's submodule paths)
from .graphs import (CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing,  # noqa: E402,F401
                     make_graphed_callables)
from .._storage import CUDA_LEGACY_CLASSES as _CUDA_STORAGES  # noqa: E402

globals().update(_CUDA_STORAGES)  # ember.cuda.FloatStorage, ...
