"""ember.profiler: where time goes, op by op (torch.profiler's API).

    from ember.profiler import profile, record_function, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(inputs)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))

Every op that goes through the dispatcher is recorded (with its nesting), every
backward node the autograd engine runs, and every record_function range. Times are
host (CPU) times; see docs/profiler.md."""
from ._events import DeviceType, EventList, FunctionEvent, FunctionEventAvg  # noqa: F401
from ._record_function import record_function
from .profiler import (ProfilerAction, ProfilerActivity, profile, schedule,
                       supported_activities, tensorboard_trace_handler)

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity", "DeviceType", "record_function"]
