"""The recorded events as PyTorch's profiler hands them out: FunctionEvent (one range:
an op, a backward node or a record_function), FunctionEventAvg (the events of one key
added up) and EventList (key_averages(), table(), export_chrome_trace())."""
import enum
import json
import os

from ._format import format_time
from ._table import build_table


class DeviceType(enum.Enum):
    CPU = 0
    CUDA = 1


class EventKind(enum.IntEnum):
    """What a range is (the C++ profiler's ember::profiler::EventKind)."""
    OP = 0
    BACKWARD_NODE = 1
    USER_RANGE = 2


class Interval:
    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start


class _TimeStrings:
    """The *_str properties PyTorch's events have (times in microseconds)."""

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self):
        return 0.0 if self.count == 0 else self.device_time_total / self.count

    @property
    def cuda_time(self):
        return self.device_time

    @property
    def self_cuda_time_total(self):
        return self.self_device_time_total

    @property
    def cuda_time_total(self):
        return self.device_time_total

    @property
    def self_cpu_time_total_str(self):
        return format_time(self.self_cpu_time_total)

    @property
    def cpu_time_total_str(self):
        return format_time(self.cpu_time_total)

    @property
    def cpu_time_str(self):
        return format_time(self.cpu_time)

    @property
    def self_device_time_total_str(self):
        return format_time(self.self_device_time_total)

    @property
    def device_time_total_str(self):
        return format_time(self.device_time_total)

    @property
    def device_time_str(self):
        return format_time(self.device_time)


class FunctionEvent(_TimeStrings):
    """One recorded range. Times are host (CPU) times in microseconds."""

    def __init__(self, id, name, thread, start_us, end_us, kind=EventKind.OP, device="",
                 input_shapes=None, cpu_memory_usage=0, device_memory_usage=0, depth=0,
                 use_device=None):
        self.id = id
        # As PyTorch's: the step ranges of profile.step() all count as "ProfilerStep*" in
        # events and tables; the Chrome trace keeps each step's own name.
        self.trace_name = name
        if name.startswith("ProfilerStep#"):
            name = "ProfilerStep*"
        self.name = name
        self.key = name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.kind = EventKind(kind)
        self.device = device
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.depth = depth
        self.use_device = use_device
        self.device_type = DeviceType.CUDA if device.startswith("cuda") else DeviceType.CPU
        self.is_user_annotation = self.kind == EventKind.USER_RANGE
        self.cpu_children = []
        self.cpu_parent = None
        self.count = 1
        self.node_id = -1
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.overload_name = ""
        self.stack = []
        self.scope = 0
        self.flops = 0
        self.sequence_nr = -1
        self.device_time_total = 0
        self.self_device_time_total = 0

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self):
        return self.device_memory_usage - sum(c.device_memory_usage for c in self.cpu_children)

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
                f"cpu_time={self.cpu_time_total_str} start_us={self.time_range.start:.3f} "
                f"end_us={self.time_range.end:.3f} "
                f"cpu_children={[c.id for c in self.cpu_children]} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class FunctionEventAvg(_TimeStrings):
    """The events of one key (one name, or name and input shapes) added up."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.device_time_total = 0
        self.self_cpu_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.is_user_annotation = False
        self.flops = 0

    # What the first event added decides about the group, and what every event adds to.
    _TAKEN_FROM_FIRST = ("key", "node_id", "is_async", "is_remote", "cpu_parent", "cpu_children",
                         "overload_name", "input_shapes", "stack", "scope", "device_type", "is_legacy",
                         "use_device", "is_user_annotation")
    _SUMMED = ("cpu_time_total", "device_time_total", "self_cpu_time_total", "self_device_time_total",
               "cpu_memory_usage", "device_memory_usage", "self_cpu_memory_usage",
               "self_device_memory_usage", "count", "flops")

    def add(self, other):
        """Adds other (an event of the same key) into this average."""
        if self.key is None:
            for field in self._TAKEN_FROM_FIRST:
                setattr(self, field, getattr(other, field))
        if other.key != self.key:
            raise ValueError(f"FunctionEventAvg.add: keys differ: {other.key} vs {self.key}")
        for field in self._SUMMED:
            setattr(self, field, getattr(self, field) + getattr(other, field))
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of FunctionEvent (or FunctionEventAvg) with PyTorch's summaries."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False):
        super().__init__(*args)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as a text table like PyTorch's (sort_by: an attribute such as
        "cpu_time_total", "self_cpu_time_total", "count", "cpu_memory_usage")."""
        del max_src_column_width  # no source locations (with_stack is not supported)
        return build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width,
                           profile_memory=self._profile_memory,
                           top_level_events_only=top_level_events_only, time_unit=time_unit)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """One FunctionEventAvg per name (per name and input shapes when grouped), in
        the order the names first occur."""
        if group_by_stack_n:
            raise NotImplementedError("key_averages: group_by_stack_n needs with_stack=True, "
                                      "which ember's profiler does not support")
        del group_by_overload_name  # ember's ops have one name each: no overload names
        averages = {}
        for event in self:
            key = (event.key, str(event.input_shapes)) if group_by_input_shapes else event.key
            averages.setdefault(key, FunctionEventAvg()).add(event)
        return EventList(averages.values(), use_device=self._use_device,
                         profile_memory=self._profile_memory, with_flops=self._with_flops)

    def total_average(self):
        total = FunctionEventAvg()
        for event in self:
            total.cpu_time_total += event.cpu_time_total
            total.self_cpu_time_total += event.self_cpu_time_total
            total.cpu_memory_usage += event.cpu_memory_usage
            total.self_cpu_memory_usage += event.self_cpu_memory_usage
            total.device_memory_usage += event.device_memory_usage
            total.self_device_memory_usage += event.self_device_memory_usage
            total.count += event.count
        total.key = "Total"
        return total

    def export_chrome_trace(self, path):
        """Writes the events as a Chrome trace (chrome://tracing, Perfetto): JSON with
        "traceEvents", one complete ("X") event per range, times in microseconds."""
        pid = os.getpid()
        trace = []
        threads = set()
        for event in self:
            if not isinstance(event, FunctionEvent):
                raise TypeError("export_chrome_trace: needs the raw events, not key_averages()")
            threads.add(event.thread)
            args = {"External id": event.id, "Depth": event.depth}
            if event.device:
                args["Device"] = event.device
            if event.input_shapes:
                args["Input Dims"] = event.input_shapes
            if self._profile_memory:
                args["CPU Mem"] = event.cpu_memory_usage
                if event.device_memory_usage:
                    args["Device Mem"] = event.device_memory_usage
            trace.append({
                "ph": "X",
                "cat": "user_annotation" if event.kind == EventKind.USER_RANGE else "cpu_op",
                "name": event.trace_name,
                "pid": pid,
                "tid": event.thread,
                "ts": event.time_range.start,
                "dur": event.cpu_time_total,
                "args": args,
            })
        for tid in sorted(threads):
            trace.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                          "args": {"name": f"thread {tid}"}})
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace}, f)


def events_from_records(records, use_device=None, profile_memory=False):
    """An EventList from _C._profiler_stop()'s tuples, children linked to parents."""
    events = EventList(use_device=use_device, profile_memory=profile_memory)
    by_id = {}
    parents = []
    for (name, kind, id_, parent_id, depth, start_ns, end_ns, tid, device, shapes,
         cpu_mem, dev_mem) in records:
        event = FunctionEvent(id_, name, tid, start_ns / 1000.0, end_ns / 1000.0, kind=kind,
                              device=device, input_shapes=shapes, cpu_memory_usage=cpu_mem,
                              device_memory_usage=dev_mem, depth=depth, use_device=use_device)
        events.append(event)
        by_id[id_] = event
        parents.append(parent_id)
    for event, parent_id in zip(events, parents):
        parent = by_id.get(parent_id)
        if parent is not None:
            event.set_cpu_parent(parent)
            parent.append_cpu_child(event)
    return events
