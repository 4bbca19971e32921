"""ember.utils.benchmark: torch.utils.benchmark's Timer, Measurement and Compare, for the
PyTorch benchmark recipe and scripts that time their ops with it.

    t = benchmark.Timer(stmt="x @ x", globals={"x": x}, label="matmul", description="ember")
    m = t.blocked_autorange(min_run_time=0.2)     # or t.timeit(100), t.adaptive_autorange()
    print(m.median, m.mean, m.iqr)
    benchmark.Compare([m, ...]).print()

Timing is Python's timeit (perf_counter) around the compiled statement, with
ember.set_num_threads(num_threads) for the measurement, as torch's Timer does. ember runs
on the CPU only here, so there is nothing to synchronize. Not provided: the callgrind
instruction counts (collect_callgrind) and the Fuzzer.
"""
import math
import statistics
import timeit as _timeit

from .. import get_num_threads, set_num_threads

__all__ = ["Compare", "Measurement", "TaskSpec", "Timer", "select_unit", "trim_sigfig"]


def select_unit(t):
    """(unit name, scale) for a time t in seconds, as torch: ns, us, ms or s."""
    time_unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3) if t > 0 else -3, "s")
    time_scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[time_unit]
    return time_unit, time_scale


def trim_sigfig(x, n):
    """x rounded to n significant figures."""
    if x == 0:
        return x
    magnitude = int(math.ceil(math.log10(abs(x))))
    scale = 10 ** (magnitude - n)
    return float(round(x / scale) * scale)


class TaskSpec:
    """What was timed: the statement, its setup and labels, and the thread count."""

    def __init__(self, stmt, setup, global_setup="", label=None, sub_label=None, description=None,
                 env=None, num_threads=1):
        self.stmt, self.setup, self.global_setup = stmt, setup, global_setup
        self.label, self.sub_label, self.description = label, sub_label, description
        self.env, self.num_threads = env, num_threads

    @property
    def title(self):
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        return f"stmt: {self.stmt}" if "\n" not in self.stmt else "stmt:\n" + self.stmt


class Measurement:
    """The times of one Timer run: raw_times are per block of number_per_run runs."""

    def __init__(self, number_per_run, raw_times, task_spec, metadata=None):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata

    def __getattr__(self, name):  # label, sub_label, description, stmt, ... of the task
        if name != "task_spec" and "task_spec" in self.__dict__ and hasattr(self.task_spec, name):
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        return statistics.median(self.times)

    @property
    def mean(self):
        return statistics.mean(self.times)

    @property
    def iqr(self):
        if len(self.times) < 2:
            return 0.0
        q = statistics.quantiles(self.times, n=4, method="inclusive")
        return q[2] - q[0]

    @property
    def has_warnings(self):
        return len(self.times) >= 4 and self.iqr / self.median > 0.1

    def __repr__(self):
        unit, scale = select_unit(self.median)
        lines = [f"<ember.utils.benchmark.Measurement object at {hex(id(self))}>", self.task_spec.title]
        if self.task_spec.description:
            lines.append(self.task_spec.description)
        n = len(self.times)
        threads = f"{self.task_spec.num_threads} thread{'s' if self.task_spec.num_threads != 1 else ''}"
        if n == 1:
            lines.append(f"  {self.median / scale:.2f} {unit}")
            lines.append(f"  1 measurement, {self.number_per_run} runs , {threads}")
        else:
            lines.append(f"  Median: {self.median / scale:.2f} {unit}")
            if n >= 4:
                q = statistics.quantiles(self.times, n=4, method="inclusive")
                lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({q[0] / scale:.2f} to {q[2] / scale:.2f})")
            lines.append(f"  {n} measurements, {self.number_per_run} runs per measurement, {threads}")
        return "\n".join(lines)

    __str__ = __repr__


class Timer:
    """Times stmt (a string, run with setup first, in a namespace holding globals)."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=_timeit.default_timer,
                 globals=None, label=None, sub_label=None, description=None, env=None,
                 num_threads=1, language="python"):
        if language not in ("python", "py"):
            raise ValueError(f"ember.utils.benchmark.Timer: only Python statements can be timed, "
                             f"got language={language!r}")
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = TaskSpec(stmt, setup, global_setup, label, sub_label, description, env,
                                   num_threads)

    def _run(self, number):
        saved = get_num_threads()
        set_num_threads(self._task_spec.num_threads)
        try:
            return self._timer.timeit(number=number)
        finally:
            set_num_threads(saved)

    def _estimate_block_size(self, min_run_time):
        number = 1
        while True:
            if self._run(number) >= min_run_time / 1000 or number >= 10 ** 7:
                return number
            number *= 10

    def timeit(self, number=1000000):
        self._run(max(int(number // 100), 2))  # warm up
        return Measurement(number, [self._run(number)], self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of number_per_run runs (each block about 1/1000 of min_run_time or more)
        until min_run_time has passed in total."""
        number = self._estimate_block_size(min_run_time)
        times, total = [], 0.0
        while total < min_run_time or not times:
            t = self._run(number)
            total += t
            if callback:
                callback(number, t)
            times.append(t)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """Blocks of min_run_time until the IQR/median of the times is under threshold (with
        at least 3 blocks) or max_run_time has passed."""
        number = self._estimate_block_size(min_run_time=0.05)
        times, total = [], 0.0
        while total < max_run_time:
            t = self._run(number)
            total += t
            if callback:
                callback(number, t)
            times.append(t)
            m = Measurement(number, times, self._task_spec)
            if len(times) > 3 and total >= min_run_time and m.iqr / m.median < threshold:
                break
        return Measurement(number, times, self._task_spec)


class Compare:
    """A table of Measurements: a block per label, a row per (threads, sub_label), a
    column per description, the medians in one unit (as torch's Compare prints them)."""

    def __init__(self, results):
        self._results = [r for r in results if r is not None]
        self._trim_significant_figures = False
        self._highlight_warnings = False

    def trim_significant_figures(self):
        self._trim_significant_figures = True

    def highlight_warnings(self):
        self._highlight_warnings = True

    def colorize(self, rowwise=False):
        pass  # plain text only: no terminal colors

    def extend_results(self, results):
        self._results.extend(results)

    def __str__(self):
        return "\n".join(self._render_label(label) for label in
                         dict.fromkeys(r.task_spec.label for r in self._results))

    def print(self):
        print(str(self))

    def _render_label(self, label):
        results = [r for r in self._results if r.task_spec.label == label]
        unit, scale = select_unit(min(r.median for r in results))
        columns = list(dict.fromkeys(r.task_spec.description for r in results))
        rows = list(dict.fromkeys((r.task_spec.num_threads, r.task_spec.sub_label or "") for r in results))
        cells = {}
        for r in results:
            value = r.median / scale
            if self._trim_significant_figures:
                value = trim_sigfig(value, 3)
            cells[(r.task_spec.num_threads, r.task_spec.sub_label or "", r.task_spec.description)] = value
        digits = 1 if max(cells.values()) >= 10 else 2 if max(cells.values()) >= 1 else 3
        header = [""] + [str(c) if c is not None else "" for c in columns]
        body = []
        for threads, sub in rows:
            body.append([f"  {sub}"] + [f"{cells[(threads, sub, c)]:.{digits}f}" if (threads, sub, c) in cells
                                        else "" for c in columns])
        widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
        fmt = lambda row: "  |  ".join(cell.rjust(w) for cell, w in zip(row, widths))  # noqa: E731
        lines = [fmt(header)]
        width = len(lines[0])
        title = f" {label} " if label else ""
        lines.insert(0, "[" + title.center(width, "-") + "]")
        last_threads = None
        for (threads, _), row in zip(rows, body):
            if threads != last_threads:
                lines.append(f"{threads} threads: ".ljust(width, "-"))
                last_threads = threads
            lines.append(fmt(row))
        unit_name = {"ns": "nanoseconds (ns)", "us": "microseconds (us)", "ms": "milliseconds (ms)",
                     "s": "seconds (s)"}[unit]
        return "\n".join(lines) + f"\n\nTimes are in {unit_name}.\n"
