"""ember.utils.benchmark (torch.utils.benchmark's Timer / Measurement / Compare, as the
PyTorch benchmark recipe uses them): the same attributes, counts and table layout as
torch's for the same calls, thread count set for the run and restored after."""
import pytest

import ember
import ember.utils.benchmark as benchmark

torch = pytest.importorskip("torch")
import torch.utils.benchmark as torch_benchmark  # noqa: E402


def _timer(lib, bench, description="mul", **kwargs):
    x = lib.randn(100, 64)
    return bench.Timer(stmt="(x * x).sum(-1)", globals={"x": x}, label="L", sub_label="s",
                       description=description, **kwargs)


def test_timeit_gives_one_measurement_of_number_runs_as_torch():
    for lib, bench in ((ember, benchmark), (torch, torch_benchmark)):
        m = _timer(lib, bench, num_threads=1).timeit(50)
        assert m.number_per_run == 50 and len(m.times) == 1 and len(m.raw_times) == 1
        assert m.times[0] == pytest.approx(m.raw_times[0] / 50)
        assert m.mean == m.median == m.times[0] > 0 and m.iqr == 0
        assert (m.task_spec.label, m.task_spec.sub_label, m.description, m.task_spec.num_threads) == \
            ("L", "s", "mul", 1)
        text = repr(m).splitlines()
        assert text[1:3] == ["L: s", "mul"] and text[-1] == "  1 measurement, 50 runs , 1 thread"


def test_blocked_autorange_runs_blocks_for_min_run_time():
    m = _timer(ember, benchmark).blocked_autorange(min_run_time=0.05)
    assert sum(m.raw_times) >= 0.05 and m.number_per_run >= 1 and len(m.times) >= 1
    assert min(m.times) <= m.median <= max(m.times)
    lines = repr(m).splitlines()
    assert lines[3].startswith("  Median: ") and lines[-1].endswith("runs per measurement, 1 thread")
    seen = []
    _timer(ember, benchmark).blocked_autorange(callback=lambda n, t: seen.append(n), min_run_time=0.01)
    assert seen and all(n == seen[0] for n in seen)


def test_adaptive_autorange_stops_and_keeps_the_thread_count():
    before = ember.get_num_threads()
    m = _timer(ember, benchmark, num_threads=1).adaptive_autorange(max_run_time=0.5)
    assert len(m.times) >= 1 and m.median > 0
    assert ember.get_num_threads() == before


def test_compare_table_has_torchs_layout():
    tables = []
    for lib, bench in ((ember, benchmark), (torch, torch_benchmark)):
        results = [_timer(lib, bench, description=d).timeit(20) for d in ("mul", "sum")]
        tables.append(str(bench.Compare(results)).strip().splitlines())
    for lines in tables:  # title, header, thread line, row, blank, unit
        assert lines[0].startswith("[") and " L " in lines[0] and lines[0].endswith("]")
        assert lines[1].split("|")[1:] and [c.strip() for c in lines[1].split("|")[1:]] == ["mul", "sum"]
        assert lines[2].startswith("1 threads: ")
        assert lines[3].split("|")[0].strip() == "s"
        assert lines[-1].startswith("Times are in ")


def test_bad_statements_raise_value_error_as_torch():
    for bench in (benchmark, torch_benchmark):
        with pytest.raises(ValueError):
            bench.Timer(stmt=lambda: None)
