"""ember.cuda.streams: Stream, ExternalStream and Event under torch.cuda.streams' module
path (the same classes as ember.cuda's)."""
from . import Event, ExternalStream, Stream  # noqa: F401

__all__ = ["Stream", "ExternalStream", "Event"]
