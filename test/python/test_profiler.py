"""ember.profiler and ember.autograd.profiler: the ops, backward nodes and
record_function ranges recorded (names, counts, nesting, shapes, threads), time
consistency, the schedule against torch.profiler's, Chrome traces, the off path."""
import json
import os
import threading
import time

import pytest

import ember
from ember import _C
from ember.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule

torch = pytest.importorskip("torch")


def names(events):
    return [e.name for e in events]


def counts(prof):
    return {avg.key: avg.count for avg in prof.key_averages()}


def small_model():
    ember.manual_seed(0)
    return ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(), ember.nn.Linear(8, 8),
                               ember.nn.ReLU(), ember.nn.Linear(8, 2))


# ---- what is recorded -------------------------------------------------------------------

def test_imports_as_torch_has_them():
    import ember.autograd.profiler as legacy
    from ember.profiler import ProfilerActivity as PA, profile as p, record_function as rf  # noqa
    assert ember.profiler.profile is p
    assert legacy.record_function is rf
    assert ember.autograd.profiler is legacy
    assert {a.name for a in ProfilerActivity} == set(torch.profiler.ProfilerActivity.__members__)
    assert [a.name for a in ProfilerAction] == [a.name for a in torch.profiler.ProfilerAction
                                                if a.name != "DEVICE_STOPPED"]


def test_op_counts_match_what_ran_and_torch_counts():
    a, b = ember.ones(2, 3), ember.ones(2, 3)
    ta, tb = torch.ones(2, 3), torch.ones(2, 3)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(5):
            ember.add(a, b)
        for _ in range(3):
            ember.mul(a, b)
        ember.mm(a, b.t())
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as tprof:
        for _ in range(5):
            torch.add(ta, tb)
        for _ in range(3):
            torch.mul(ta, tb)
        torch.mm(ta, tb.t())
    n = counts(prof)
    tn = {avg.key.replace("aten::", ""): avg.count for avg in tprof.key_averages()}
    for op in ("add", "mul", "mm"):
        assert n[op] == tn[op], op
    assert (n["add"], n["mul"], n["mm"]) == (5, 3, 1)


def test_model_forward_backward_records_one_addmm_and_backward_node_per_linear():
    model = small_model()
    x = ember.randn(3, 4)
    with profile() as prof:
        model(x).sum().backward()
    n = counts(prof)
    assert n["addmm"] == 3
    assert n["relu"] == 2
    assert n["AddmmBackward0"] == 3
    assert n["ReluBackward0"] == 2
    assert n["AccumulateGrad"] == 6  # a weight and a bias per Linear
    backward_nodes = [e for e in prof.events() if e.name == "AddmmBackward0"]
    # the ops a backward formula runs nest in its node
    assert all(any(c.name == "mm" for c in e.cpu_children) for e in backward_nodes)
    assert all(e.kind.name == "BACKWARD_NODE" for e in backward_nodes)


def test_self_time_at_most_total_and_self_times_add_up_to_top_level_totals():
    model = small_model()
    with profile() as prof:
        with record_function("step"):
            model(ember.randn(5, 4)).sum().backward()
    events = prof.events()
    for e in events:
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total + 1e-6
        for c in e.cpu_children:  # children lie inside their parent
            assert e.time_range.start <= c.time_range.start <= c.time_range.end <= e.time_range.end
    top_total = sum(e.cpu_time_total for e in events if e.cpu_parent is None)
    assert sum(e.self_cpu_time_total for e in events) == pytest.approx(top_total, rel=1e-9)
    for avg in prof.key_averages():
        assert avg.self_cpu_time_total <= avg.cpu_time_total + 1e-6
        assert avg.cpu_time == pytest.approx(avg.cpu_time_total / avg.count)
    total = prof.key_averages().total_average()
    assert total.self_cpu_time_total == pytest.approx(top_total, rel=1e-9)


def test_record_function_ranges_nest_as_written():
    a = ember.ones(3)

    @record_function("decorated")
    def inner():
        return ember.exp(a)

    with profile() as prof:
        with record_function("outer"):
            ember.neg(a)
            with record_function("middle"):
                inner()
        ember.sin(a)
    by_name = {e.name: e for e in prof.events()}
    assert by_name["outer"].cpu_parent is None and by_name["outer"].depth == 0
    assert by_name["middle"].cpu_parent is by_name["outer"]
    assert by_name["decorated"].cpu_parent is by_name["middle"]
    assert by_name["exp"].cpu_parent is by_name["decorated"] and by_name["exp"].depth == 3
    assert by_name["neg"].cpu_parent is by_name["outer"]
    assert by_name["sin"].cpu_parent is None
    assert by_name["outer"].kind.name == "USER_RANGE"


def test_record_shapes_gives_input_shapes_and_grouping():
    a, b, c = ember.ones(2, 3), ember.ones(2, 3), ember.ones(4)
    with profile(record_shapes=True) as prof:
        ember.add(a, b)
        ember.add(a, b)
        ember.add(c, c)
    adds = [e for e in prof.events() if e.name == "add"]
    assert [e.input_shapes for e in adds] == [[[2, 3], [2, 3]], [[2, 3], [2, 3]], [[4], [4]]]
    grouped = {(avg.key, str(avg.input_shapes)): avg.count
               for avg in prof.key_averages(group_by_input_shape=True)}
    assert grouped[("add", "[[2, 3], [2, 3]]")] == 2
    assert grouped[("add", "[[4], [4]]")] == 1
    table = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total")
    assert "Input Shapes" in table and "[[4], [4]]" in table
    with profile() as plain:
        ember.add(a, b)
    assert all(e.input_shapes == [] for e in plain.events())
    assert "Input Shapes" not in plain.key_averages().table()


def test_table_layout_matches_torch():
    a = ember.ones(8)
    with profile() as prof:
        for _ in range(4):
            ember.add(a, a)
        ember.exp(a)
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=1)
    lines = table.splitlines()
    header = lines[1].split("  ")
    assert [h.strip() for h in header if h.strip()] == [
        "Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    assert lines[0] == lines[2] == lines[-2] and set(lines[0]) == {"-", " "}
    assert len(lines) == 6  # separator, header, separator, one row, separator, total
    assert lines[-1].startswith("Self CPU time total: ")
    rows = prof.key_averages().table(sort_by="count").splitlines()[3:-2]
    assert rows[0].split()[0] == "add" and rows[0].split()[6] == "4"
    with pytest.raises(AttributeError):
        prof.key_averages().table(sort_by="no_such_column")
    assert ember.profiler.EventList().table() == ""


def test_profile_memory_reports_allocated_bytes():
    a = ember.ones(1024)
    with profile(profile_memory=True) as prof:
        ember.add(a, a)
    add = next(e for e in prof.events() if e.name == "add")
    assert add.cpu_memory_usage >= 1024 * 4
    table = prof.key_averages().table()
    assert "CPU Mem" in table and "Self CPU Mem" in table


@pytest.mark.parametrize("flag", ["with_stack", "with_flops", "with_modules"])
def test_unsupported_options_raise(flag):
    with pytest.raises(NotImplementedError, match=flag):
        profile(**{flag: True})
    with pytest.raises(NotImplementedError, match=flag):
        ember.autograd.profiler.profile(**{flag: True})
    profile(**{flag: False})


def test_bad_activities_raise():
    with pytest.raises(TypeError):
        profile(activities=["cpu"])
    with pytest.raises(AssertionError):
        profile(activities=[])


# ---- schedule ---------------------------------------------------------------------------

def _recorded_steps(profiler_module, sched, steps, add_one):
    """The steps each on_trace_ready call saw: step k runs 2**k adds, so the adds a
    window recorded name its steps (torch's events call every step "ProfilerStep*")."""
    windows = []

    def ready(prof):
        adds = sum(avg.count for avg in prof.key_averages() if avg.key.endswith("add"))
        windows.append([k for k in range(steps) if adds >> k & 1])

    with profiler_module.profile(schedule=sched, on_trace_ready=ready) as prof:
        for step in range(steps):
            for _ in range(2 ** step):
                add_one()
            prof.step()
    return windows


@pytest.mark.filterwarnings("ignore:Warning. Profiler clears events")
@pytest.mark.parametrize("kw", [
    dict(wait=1, warmup=1, active=2),
    dict(wait=1, warmup=1, active=2, repeat=2),
    dict(wait=2, warmup=1, active=3, repeat=1, skip_first=2),
    dict(wait=3, warmup=1, active=1, repeat=2, skip_first=1, skip_first_wait=1),
])
def test_schedule_records_the_steps_torch_records(kw):
    a, ta = ember.ones(2), torch.ones(2)
    for step in range(30):
        assert schedule(**kw)(step).name == torch.profiler.schedule(**kw)(step).name
    ours = _recorded_steps(ember.profiler, schedule(**kw), 11, lambda: ember.add(a, a))
    theirs = _recorded_steps(torch.profiler, torch.profiler.schedule(**kw), 11,
                             lambda: torch.add(ta, ta))
    assert ours == theirs and ours


def test_schedule_records_only_active_steps_ops():
    a = ember.ones(2)
    seen = []

    def ready(prof):
        seen.append(counts(prof).get("add", 0))

    with profile(schedule=schedule(wait=1, warmup=1, active=2), on_trace_ready=ready) as prof:
        for step in range(4):
            for _ in range(step + 1):  # step k runs k + 1 adds
                ember.add(a, a)
            prof.step()
    assert seen == [3 + 4]  # steps 2 and 3 only


def test_schedule_bad_arguments_raise_like_torch():
    for kw in (dict(wait=-1, warmup=1, active=1), dict(wait=0, warmup=1, active=0)):
        with pytest.raises(AssertionError):
            schedule(**kw)
        with pytest.raises(AssertionError):
            torch.profiler.schedule(**kw)


# ---- traces -----------------------------------------------------------------------------

def test_export_chrome_trace_is_valid_json(tmp_path):
    a = ember.ones(2, 2)
    with profile(record_shapes=True) as prof:
        with record_function("block"):
            ember.mm(a, a)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert {e["name"] for e in complete} >= {"block", "mm"}
    mm = next(e for e in complete if e["name"] == "mm")
    block = next(e for e in complete if e["name"] == "block")
    assert mm["args"]["Input Dims"] == [[2, 2], [2, 2]]
    assert block["cat"] == "user_annotation" and mm["cat"] == "cpu_op"
    assert block["ts"] <= mm["ts"] and mm["ts"] + mm["dur"] <= block["ts"] + block["dur"] + 1e-6
    assert mm["tid"] == threading.get_native_id() and mm["pid"] == os.getpid()


def test_tensorboard_trace_handler_writes_one_file_per_window(tmp_path):
    a = ember.ones(2)
    handler = ember.profiler.tensorboard_trace_handler(str(tmp_path / "logs"), worker_name="w0")
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=2),
                 on_trace_ready=handler) as prof:
        for _ in range(5):
            ember.add(a, a)
            prof.step()
    files = sorted(os.listdir(tmp_path / "logs"))
    assert len(files) == 2
    for f in files:
        assert f.startswith("w0.") and f.endswith(".pt.trace.json")
        assert "traceEvents" in json.loads((tmp_path / "logs" / f).read_text())


# ---- off path, errors, threads ----------------------------------------------------------

def test_profiling_off_records_nothing_and_costs_nothing_measurable():
    a = ember.ones(1)

    def loop_ns():
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter_ns()
            for _ in range(20000):
                ember.add(a, a)
            best = min(best, (time.perf_counter_ns() - t) / 20000)
        return best

    before = loop_ns()
    with profile() as prof:
        ember.add(a, a)
    assert not _C._profiler_enabled()
    ember.add(a, a)  # after the run: not in it
    assert counts(prof) == {"add": 1}
    after = loop_ns()
    assert after < 2.0 * before  # the off path is one atomic load (docs/PERF.md)
    with profile() as empty:
        pass
    assert len(empty.events()) == 0
    prof.stop()  # a second stop keeps the trace
    assert counts(prof) == {"add": 1}
    with record_function("nobody listens"):  # a range without a profiler records nothing
        ember.add(a, a)


def test_exception_inside_profiled_region_stops_the_profiler():
    a = ember.ones(2)
    with pytest.raises(ValueError):
        with profile() as prof:
            with record_function("failing"):
                ember.add(a, a)
                raise ValueError("boom")
    assert not _C._profiler_enabled()
    assert counts(prof) == {"failing": 1, "add": 1}
    # an op that raises leaves the profiler running until the region ends, then stopped
    with pytest.raises(RuntimeError, match="mm"):
        with profile() as prof2:
            ember.add(a, a)
            ember.mm(ember.ones(2, 3), ember.ones(2, 3))
    assert counts(prof2)["add"] == 1
    assert not _C._profiler_enabled()
    ready = []
    with pytest.raises(KeyError):
        with profile(schedule=schedule(wait=0, warmup=1, active=3),
                     on_trace_ready=lambda p: ready.append(counts(p))) as prof3:
            for _ in range(2):
                ember.add(a, a)
                prof3.step()
            raise KeyError("mid window")
    assert ready == [{"ProfilerStep*": 2, "add": 1}]  # step 1, and step 2 cut short
    assert not _C._profiler_enabled()


def test_one_profiler_at_a_time():
    with profile():
        with pytest.raises(RuntimeError, match="already running"):
            with profile():
                pass
    with ember.autograd.profiler.profile() as legacy:
        with pytest.raises(RuntimeError, match="not reentrant"):
            legacy.__enter__()
    assert not _C._profiler_enabled()


def test_ops_in_two_threads_are_recorded_with_their_thread_ids():
    a = ember.ones(3)
    tids = {}

    def work(tag, op):
        tids[tag] = threading.get_native_id()
        for _ in range(4):
            op(a)

    with profile() as prof:
        threads = [threading.Thread(target=work, args=("exp", ember.exp)),
                   threading.Thread(target=work, args=("sin", ember.sin))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        ember.neg(a)
    by_op = {}
    for e in prof.events():
        by_op.setdefault(e.name, set()).add(e.thread)
    assert by_op["exp"] == {tids["exp"]} and by_op["sin"] == {tids["sin"]}
    assert by_op["neg"] == {threading.get_native_id()}
    assert tids["exp"] != tids["sin"]
    assert counts(prof)["exp"] == 4 and counts(prof)["sin"] == 4


# ---- the legacy API ---------------------------------------------------------------------

def test_legacy_autograd_profiler():
    model = small_model()
    with ember.autograd.profiler.profile(record_shapes=True) as prof:
        with ember.autograd.profiler.record_function("forward"):
            out = model(ember.randn(2, 4))
    assert counts(prof)["addmm"] == 3
    assert prof.function_events[0].name == "forward"
    assert "addmm" in prof.table(sort_by="self_cpu_time_total")
    assert prof.self_cpu_time_total == pytest.approx(
        sum(e.self_cpu_time_total for e in prof.function_events))
    assert out.shape == (2, 2)
    with ember.autograd.profiler.profile(enabled=False) as off:
        model(ember.randn(2, 4))
    with pytest.raises(RuntimeError):
        off.key_averages()
    unfinished = ember.autograd.profiler.profile()
    with pytest.raises(RuntimeError, match="didn't finish"):
        unfinished.key_averages()


def test_without_schedule_on_trace_ready_runs_once_at_exit_and_no_step_ranges():
    a = ember.ones(2)
    ready = []
    with profile(on_trace_ready=lambda p: ready.append(counts(p))) as prof:
        ember.add(a, a)
        prof.step()  # without a schedule every step records, and no step ranges are made
        ember.add(a, a)
        assert ready == []
    assert ready == [{"add": 2}]
    with profile() as prof:
        with record_function("load", "batch=3"):
            pass
    assert names(prof.events()) == ["load"]  # as torch's
