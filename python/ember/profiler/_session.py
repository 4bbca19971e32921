"""One recording run of the profiler: the engine under both torch.profiler.profile
and the legacy torch.autograd.profiler.profile."""
from .. import _C
from ._events import events_from_records


def refuse_unsupported(api, with_stack=False, with_flops=False, with_modules=False):
    """ember's profiler records no Python stacks, FLOPs or module hierarchy: asking for
    them is an error rather than a silently missing column."""
    for flag, value in (("with_stack", with_stack), ("with_flops", with_flops),
                        ("with_modules", with_modules)):
        if value:
            raise NotImplementedError(f"{api}: {flag}=True is not supported by ember's profiler "
                                      f"(it records op names, times, shapes and memory only)")


class Session:
    """Starts recording at start(), returns the EventList at stop()."""

    def __init__(self, record_shapes=False, profile_memory=False, use_device=None):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.use_device = use_device
        self.running = False

    def start(self):
        _C._profiler_start(bool(self.record_shapes), bool(self.profile_memory))
        self.running = True

    def stop(self):
        if not self.running:
            return None
        self.running = False
        return events_from_records(_C._profiler_stop(), use_device=self.use_device,
                                   profile_memory=self.profile_memory)
