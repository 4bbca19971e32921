"""torch.Stream and torch.Event: the device-generic stream and event.

Stream(device) / Event(device) give the device's own kind: ember.cuda.Stream /
ember.cuda.Event on a CUDA device (they count as Stream / Event for isinstance), and on
the CPU, where every op runs to completion before it returns, a stream that is always done
and, as torch's, an event that cannot be recorded ("cpu backend doesn't support events")."""
import abc

from . import _C

__all__ = ["Stream", "Event"]


def _device_of(device, what):
    from . import cuda
    if device is None:  # the current accelerator, else the CPU
        return _C.device("cuda") if cuda.is_available() else _C.device("cpu")
    dev = device if isinstance(device, _C.device) else _C.device(device)
    if dev.type not in ("cpu", "cuda"):
        raise RuntimeError(f"{what}: ember has no {dev.type} streams (cpu or cuda)")
    return dev


class Stream(metaclass=abc.ABCMeta):
    """Stream(device=None, *, priority=0): an in-order queue of work on a device."""

    def __new__(cls, device=None, *, priority=0):
        if cls is not Stream:
            return super().__new__(cls)
        dev = _device_of(device, "Stream")
        if dev.type == "cuda":
            from . import cuda
            return cuda.Stream(dev, priority=priority)
        return _CpuStream._make(dev, priority)


class _CpuStream(Stream):
    """The CPU's stream: its work is done when each op returns."""

    @classmethod
    def _make(cls, device, priority):
        s = object.__new__(cls)
        s.device, s.priority = device, priority
        return s

    def __init__(self, *args, **kwargs):
        pass  # made by _make

    device_type = 0  # torch's DeviceType.CPU
    device_index = -1
    stream_id = 0

    def query(self):
        return True

    def synchronize(self):
        pass

    def wait_stream(self, stream):  # waits through an event, as torch's
        raise RuntimeError("cpu backend doesn't support events.")

    def wait_event(self, event):
        raise RuntimeError("cpu backend doesn't support events.")

    def record_event(self, event=None):
        raise RuntimeError("cpu backend doesn't support events.")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __eq__(self, other):
        return isinstance(other, _CpuStream)

    def __hash__(self):
        return hash("ember.Stream(cpu)")

    def __repr__(self):
        return "ember.Stream device_type=cpu, device_index=-1, stream_id=0"


class Event(metaclass=abc.ABCMeta):
    """Event(device=None, *, enable_timing=False, blocking=False, interprocess=False)."""

    def __new__(cls, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        if cls is not Event:
            return super().__new__(cls)
        dev = _device_of(device, "Event")
        if dev.type == "cuda":
            from . import cuda
            return cuda.Event(enable_timing=enable_timing, blocking=blocking)
        return _CpuEvent._make(dev)


class _CpuEvent(Event):
    """A CPU event, as torch's: it exists, but the CPU backend records none."""

    @classmethod
    def _make(cls, device):
        e = object.__new__(cls)
        e.device = device
        return e

    def __init__(self, *args, **kwargs):
        pass  # made by _make

    event_id = 0

    def _unsupported(self, *args, **kwargs):
        raise RuntimeError("cpu backend doesn't support events.")

    record = wait = query = synchronize = elapsed_time = _unsupported

    def __repr__(self):
        return "ember.Event device_type=cpu, device_index=-1, event_id=0"


def _register_cuda_kinds():
    from . import cuda
    Stream.register(cuda.Stream)
    Event.register(cuda.Event)
