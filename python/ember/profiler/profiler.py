"""torch.profiler's API: profile (a context manager with step() and a schedule),
schedule, ProfilerAction, ProfilerActivity, tensorboard_trace_handler."""
import enum
import os
import socket
import time
import warnings
from functools import partial

from ._record_function import record_function
from ._session import Session, refuse_unsupported


class ProfilerActivity(enum.Enum):
    """What to profile. ember records host (CPU) time for every op; with CUDA, a CUDA
    op's time is the time to queue its kernels (no device-side kernel timings)."""
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What the profiler does at a step (what a schedule returns)."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    from .. import cuda
    activities = {ProfilerActivity.CPU}
    if cuda.is_available():
        activities.add(ProfilerActivity.CUDA)
    return activities


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The action at each step: skip_first steps NONE, then cycles of wait steps NONE,
    warmup steps WARMUP, active steps RECORD (the last one RECORD_AND_SAVE), repeat
    times (0: forever). skip_first_wait != 0 skips the first cycle's wait."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        in_cycle = step % cycle
        if in_cycle < wait:
            return ProfilerAction.NONE
        if in_cycle < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if in_cycle < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _record_every_step(_step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An on_trace_ready that writes each trace into dir_name as
    "{worker_name}.{time_ns}.pt.trace.json" (worker_name: "{hostname}_{pid}")."""

    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


class profile:
    """Profiles the ops run inside `with profile(...) as prof:`. With a schedule,
    prof.step() marks each step, only the schedule's active steps are recorded, and
    on_trace_ready(prof) runs at the end of each active window (without a schedule:
    once, at the end). prof.key_averages().table(), prof.events(),
    prof.export_chrome_trace(path) read the last recorded window."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, use_cuda=None, custom_trace_id_callback=None):
        del experimental_config, acc_events, custom_trace_id_callback
        refuse_unsupported("ember.profiler.profile", with_stack, with_flops, with_modules)
        if execution_trace_observer is not None:
            raise NotImplementedError("ember.profiler.profile: execution_trace_observer is not "
                                      "supported by ember's profiler")
        self.activities = set(activities) if activities is not None else supported_activities()
        if not self.activities:
            raise AssertionError("No valid profiler activities found")
        for activity in self.activities:
            if not isinstance(activity, ProfilerActivity):
                raise TypeError(f"ember.profiler.profile: activities must be ProfilerActivity "
                                f"values, got {activity!r}")
        if use_cuda:
            self.activities.add(ProfilerActivity.CUDA)
        self.use_device = "cuda" if ProfilerActivity.CUDA in self.activities else None
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.record_steps = schedule is not None
        self.schedule = schedule if schedule is not None else _record_every_step
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self.schedule(self.step_num)
        self._session = None
        self._events = None
        self._stopped = False
        self.profiler = None
        A = ProfilerAction
        warn = partial(warnings.warn, stacklevel=3)
        # (previous action, next action) -> what to do; None: the profiler stops.
        self._transitions = {
            (A.NONE, A.RECORD): [self._start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self._start_trace],
            (A.WARMUP, A.NONE): [partial(warn, "Incorrect schedule: WARMUP followed by NONE")],
            (A.WARMUP, A.RECORD): [self._start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self._start_trace],
            (A.RECORD, A.NONE): [partial(warn, "Incorrect schedule: RECORD followed by NONE"),
                                 self._stop_trace],
            (A.RECORD, A.WARMUP): [partial(warn, "Incorrect schedule: RECORD followed by WARMUP"),
                                   self._stop_trace],
            (A.RECORD_AND_SAVE, A.NONE): [self._stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [self._stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.RECORD): [self._stop_trace, self._trace_ready, self._start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [self._stop_trace, self._trace_ready,
                                                     self._start_trace],
            (A.RECORD, None): [self._stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self._stop_trace, self._trace_ready],
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.stop()
        return False

    def start(self):
        self._stopped = False
        self._transit(ProfilerAction.NONE, self.current_action)
        self._enter_step()

    def stop(self):
        if self._stopped:  # a second stop() keeps the recorded trace
            return
        self._stopped = True
        self._exit_step()
        try:
            self._transit(self.current_action, None)
        finally:
            if self._session is not None and self._session.running:  # an action raised
                self._events = self._session.stop()

    def step(self):
        """Marks the start of the next step (and acts as the schedule says)."""
        self._exit_step()
        prev_action = self.current_action
        action = self.schedule(self.step_num + 1)
        if not isinstance(action, ProfilerAction):
            raise TypeError(f"ember.profiler.profile: the schedule returned {action!r}, "
                            f"not a ProfilerAction")
        self.step_num += 1
        self.current_action = action
        self._transit(prev_action, action)
        self._enter_step()

    def _enter_step(self):
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _exit_step(self):
        if self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    def _transit(self, prev_action, next_action):
        for action in self._transitions.get((prev_action, next_action), []):
            action()

    def _start_trace(self):
        self._session = Session(self.record_shapes, self.profile_memory, self.use_device)
        self._session.start()
        self.profiler = self

    def _stop_trace(self):
        if self._session is not None and self._session.running:
            self._events = self._session.stop()

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _recorded(self):
        if self._events is None:
            raise RuntimeError("ember.profiler.profile: no recorded trace yet (the profiler has "
                               "not finished an active window)")
        return self._events

    @property
    def function_events(self):
        return self._recorded()

    def events(self):
        """The raw events (FunctionEvent) of the last recorded window."""
        return self._recorded()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False, include_python_functions=False):
        del include_python_functions  # no Python function events are recorded
        return self._recorded().key_averages(group_by_input_shape, group_by_stack_n,
                                             group_by_overload_name)

    def export_chrome_trace(self, path):
        """Writes the last recorded window as a Chrome trace JSON file."""
        return self._recorded().export_chrome_trace(path)
