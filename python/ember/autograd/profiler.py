"""ember.autograd.profiler: PyTorch's legacy profiler API (torch.autograd.profiler),
on the same engine as ember.profiler. Times are host (CPU) times; for a CUDA op that
is the time to queue its kernels, not the kernel's run time."""
from ..profiler._events import EventList, FunctionEvent, FunctionEventAvg  # noqa: F401
from ..profiler._record_function import record_function  # noqa: F401
from ..profiler._session import Session, refuse_unsupported


class profile:
    """with profile() as prof: ... records every op run inside (and the backward
    nodes and record_function ranges); then prof.key_averages().table(), prof.
    function_events, prof.export_chrome_trace(path)."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        del use_kineto, experimental_config, acc_events, custom_trace_id_callback
        self.enabled = enabled
        self._function_events = None
        if not enabled:
            return
        refuse_unsupported("ember.autograd.profiler.profile", with_stack, with_flops, with_modules)
        if not use_cpu:
            raise NotImplementedError("ember.autograd.profiler.profile: use_cpu=False (device-only "
                                      "profiling) is not supported: ember records host times only")
        self.use_device = use_device or ("cuda" if use_cuda else None)
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_flops = with_flops
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.entered = False
        self._session = Session(record_shapes, profile_memory, self.use_device)

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._session.start()
        self.entered = True
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.enabled:
            return False
        self._function_events = self._session.stop()
        return False

    def _check_finish(self):
        if self._function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    @property
    def function_events(self):
        self._check_finish()
        return self._function_events

    def events(self):
        return self.function_events

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        self._check_finish()
        return self._function_events.table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        self._check_finish()
        return self._function_events.key_averages(group_by_input_shape, group_by_stack_n,
                                                  group_by_overload_name)

    def total_average(self):
        self._check_finish()
        return self._function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """The sum of all events' self CPU times (microseconds)."""
        self._check_finish()
        return self._function_events.self_cpu_time_total

    def export_chrome_trace(self, path):
        self._check_finish()
        return self._function_events.export_chrome_trace(path)

    def __str__(self):
        return self.table()

    def __repr__(self):
        return "<unfinished ember.autograd.profiler.profile>" if self._function_events is None \
            else str(self._function_events)
