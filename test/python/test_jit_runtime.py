"""The deployment runtime of ember.jit (docs/jit.md, "The deployment runtime"):
memory planned per input shape and served from an arena, dying inputs reused in
place, and one traced or loaded module called from 8 threads at once. Results are
compared with the eager module (itself tested against torch elsewhere) and, for the
transformer, with torch's."""
import threading

import numpy as np
import pytest

import ember
import ember.nn as nn

torch = pytest.importorskip("torch")

_jit = ember._C._jit


def _close(a, b, atol=1e-5):
    a = a.numpy() if hasattr(a, "numpy") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    return a.shape == b.shape and np.allclose(a, b, atol=atol, rtol=1e-4)


def _mlp():
    ember.manual_seed(0)
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 256), nn.ReLU(), nn.Dropout(0.2),
                         nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)).eval()


def _cnn():
    ember.manual_seed(1)
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 2 * 2, 10)).eval()


def _encoder(module=nn, d_model=64, ff=256):
    layer = module.TransformerEncoderLayer(d_model, 4, dim_feedforward=ff, batch_first=True)
    return module.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval() \
        if module is torch.nn else module.TransformerEncoder(layer, 2).eval()


def _trace(model, x):
    with ember.no_grad():
        return ember.jit.trace(model, x)


def _run_peak(fn, x):
    """Bytes the call adds to the CPU allocator's peak over what was allocated before
    it (its intermediates, its arena and its output), and the result."""
    ember.reset_peak_memory_stats()
    base = ember.memory_stats()["allocated_bytes"]
    out = fn(x)
    return ember.memory_stats()["peak_allocated_bytes"] - base, out


@pytest.fixture(autouse=True)
def _runtime_on():
    _jit._set_memory_planning(True)
    _jit._set_fusion(True)
    yield
    _jit._set_memory_planning(True)
    _jit._set_fusion(True)


@pytest.mark.parametrize("make,shape", [(_mlp, (16, 8, 8)), (_cnn, (8, 1, 8, 8))])
def test_planned_runs_match_eager_and_use_the_arena(make, shape):
    model = make()
    x = ember.randn(*shape)
    traced = _trace(model, x)
    with ember.no_grad():
        want = model(x)
        first = traced(x)  # recorded
        s1 = ember.memory_stats()
        second = traced(x)  # served from the arena
        s2 = ember.memory_stats()
        third = traced(x)
        s3 = ember.memory_stats()
    for got in (first, second, third):
        assert _close(got, want)
    # After the first run, a run asks the allocator for its arena and its output only.
    assert s3["num_allocs"] - s2["num_allocs"] <= 3
    # A run holds nothing once it returns but its output (kept alive here).
    assert s3["allocated_bytes"] - s2["allocated_bytes"] == s2["allocated_bytes"] - s1["allocated_bytes"]
    # Outputs never live in the arena: they survive later runs unchanged.
    assert _close(first, want) and _close(second, want)


def test_transformer_matches_torch_and_plans_less_memory_than_eager():
    tmodel = _encoder(torch.nn)
    emodel = _encoder(nn)
    emodel.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                            for k, v in tmodel.state_dict().items()})
    xn = np.random.default_rng(0).standard_normal((8, 32, 64)).astype(np.float32)
    x = ember.from_numpy(xn.copy())
    traced = _trace(emodel, x)
    with torch.no_grad():
        want = tmodel(torch.from_numpy(xn))
    with ember.no_grad():
        for _ in range(3):
            assert _close(traced(x), want, atol=1e-4)
        eager_peak, _ = _run_peak(emodel, x)
        planned_peak, out = _run_peak(traced, x)
        _jit._set_memory_planning(False)
        unplanned_peak, out_off = _run_peak(traced, x)
        _jit._set_memory_planning(True)
    assert _close(out, want, atol=1e-4) and _close(out_off, want, atol=1e-4)
    assert planned_peak < unplanned_peak
    assert planned_peak < eager_peak


def test_each_input_signature_gets_its_plan():
    ember.manual_seed(2)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10)).eval()
    x = ember.randn(6, 64)
    traced = _trace(model, x)
    xt = ember.randn(64, 6).t()  # same sizes, other strides
    with ember.no_grad():
        for _ in range(3):
            for inp in (x, xt):
                assert _close(traced(inp), model(inp))
        with pytest.raises(RuntimeError):
            traced(ember.randn(6, 64, dtype=ember.float64))  # the op's own dtype error
        assert _close(traced(x), model(x))


def test_in_place_reuse_leaves_live_values_alone():
    def fn(x, w):
        a = x @ w
        b = a.relu()            # a dies: may run in place
        v = b.view(-1)          # b's storage is also v's
        c = b.sigmoid()         # b dies here, but v is still needed
        d = v.exp().view(8, 8) + c
        e = d @ w
        return e.neg(), e, (e * 2).tanh()   # e is an output: never written into

    x, w = ember.randn(8, 8), ember.randn(8, 8)
    traced = _trace(fn, (x, w))
    for _ in range(3):
        x2 = ember.randn(8, 8)
        with ember.no_grad():
            got, want = traced(x2, w), fn(x2, w)
        for g, e in zip(got, want):
            assert _close(g, e)


def test_planning_with_gradients_on():
    model = _mlp()
    x = ember.randn(4, 8, 8)
    traced = _trace(model, x)  # shares model's parameters: gradients reach them
    for _ in range(3):
        model.zero_grad()
        traced(x).pow(2).sum().backward()
        got = [p.grad.clone() for p in model.parameters()]
        model.zero_grad()
        model(x).pow(2).sum().backward()
        for g, p in zip(got, model.parameters()):
            assert _close(g, p.grad)


def test_eight_threads_share_one_loaded_module(tmp_path):
    model = _cnn()
    x = ember.randn(4, 1, 8, 8)
    _trace(model, x).save(tmp_path / "cnn.ember")
    loaded = ember.jit.load(tmp_path / "cnn.ember")
    inputs = [ember.randn(4, 1, 8, 8) for _ in range(8)]
    inputs[1::2] = [t.transpose(2, 3) for t in inputs[1::2]]  # two input signatures
    with ember.no_grad():
        wants = [model(t) for t in inputs]
    barrier = threading.Barrier(8)
    errors, wrong = [], []

    def work(i):
        try:
            with ember.no_grad():
                barrier.wait()
                for _ in range(30):
                    if not _close(loaded(inputs[i]), wants[i]):
                        wrong.append(i)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    before = ember.memory_stats()["allocated_bytes"]
    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert not wrong
    assert ember.memory_stats()["allocated_bytes"] == before  # every arena went back


def test_planning_switch_is_off_and_on():
    assert _jit._memory_planning_enabled()
    _jit._set_memory_planning(False)
    assert not _jit._memory_planning_enabled()
    model = _mlp()
    x = ember.randn(3, 8, 8)
    traced = _trace(model, x)
    with ember.no_grad():
        a = ember.memory_stats()["num_allocs"]
        traced(x)
        b = ember.memory_stats()["num_allocs"]
        traced(x)
        c = ember.memory_stats()["num_allocs"]
    assert c - b == b - a  # nothing planned: every run allocates as the first did


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_fusion_and_planning_together_match_eager(dtype):
    def fn(x, w, b):
        h = x @ w
        g = (h + b).sigmoid() * h - 0.5      # a pointwise chain after a product
        r = g.relu() * 2 + g.exp().neg()     # and another, reading g twice
        return r @ w.t(), g

    x, w, b = (ember.randn(16, 24, dtype=dtype), ember.randn(24, 24, dtype=dtype),
               ember.randn(24, dtype=dtype))
    traced = _trace(fn, (x, w, b))
    with ember.no_grad():
        want = fn(x, w, b)
        for fusion in (True, False, True):
            _jit._set_fusion(fusion)
            for _ in range(2):
                got = traced(x, w, b)
                for g, e in zip(got, want):
                    assert g.dtype == e.dtype and _close(g, e, atol=1e-6)


def test_switches_are_read_by_each_run():
    assert _jit._fusion_enabled() and _jit._memory_planning_enabled()
    _jit._set_fusion(False)
    assert not _jit._fusion_enabled()
    _jit._set_fusion(True)
    assert _jit._fusion_enabled()


def test_one_dynamic_file_plans_each_shape(tmp_path):
    """A graph traced with dynamic shapes runs at many sizes: each input shape gets
    its own plan (8 kept per module, least recently used out), and every run is right,
    including shapes that come back after being dropped."""
    from ember.jit import Dim
    ember.manual_seed(4)
    model = _encoder(nn, d_model=32, ff=64)
    traced = ember.jit.trace(model, ember.randn(3, 6, 32),
                             dynamic_shapes=({0: Dim("batch"), 1: Dim("seq", max=512)},))
    traced.save(tmp_path / "t.ember")
    loaded = ember.jit.load(tmp_path / "t.ember")
    shapes = [(1, 5), (7, 30), (2, 3), (4, 9), (1, 6), (3, 3), (5, 2), (2, 8), (6, 4), (1, 5), (7, 30)]
    with ember.no_grad():
        for b, s in shapes + shapes[::-1]:
            x = ember.randn(b, s, 32)
            want = model(x)
            for _ in range(2):
                assert _close(loaded(x), want, atol=2e-5)


def test_kept_outputs_do_not_fragment_the_arena():
    """A caller that keeps every run's output (predictions over a data set) must not
    make each run take a fresh arena: outputs are moved out of a large arena, so the
    memory reserved grows by about the outputs kept, as without planning."""
    model = _encoder(nn, d_model=64, ff=512)  # a 4 MiB arena at batch 64, 512 KiB outputs
    x = ember.randn(64, 32, 64)
    growth = {}
    for planning in (False, True):
        _jit._set_memory_planning(planning)
        traced = _trace(model, x)
        with ember.no_grad():
            traced(x), traced(x)
            ember.empty_cache()
            before = ember.memory_stats()["reserved_bytes"]
            kept = [traced(x) for _ in range(12)]
            growth[planning] = ember.memory_stats()["reserved_bytes"] - before
            for k in kept[1:]:
                assert _close(k, kept[0])
        del kept
    assert growth[True] <= growth[False] + (4 << 20), growth


@pytest.mark.parametrize("batch", [4, 256])  # a small arena, and one over 1 MiB
def test_outputs_that_alias_survive_later_runs(batch):
    """Outputs that are views of an intermediate, two outputs on one storage, an input
    returned as it is, an empty output: each keeps its value and its aliasing after the
    arena it was made in is reused by later runs."""
    def fn(x, w):
        h = (x @ w).relu()
        return h[1:], h, x, h.sum(0).view(1, -1), x[:0] * 2

    w = ember.randn(512, 512, dtype=ember.float64)
    x = ember.randn(batch, 512, dtype=ember.float64)
    traced = _trace(fn, (x, w))
    with ember.no_grad():
        kept = []
        for i in range(4):
            xi = x + i
            kept.append((traced(xi, w), fn(xi, w)))
        for got, want in kept:
            for g, e in zip(got, want):
                assert g.dtype == e.dtype and _close(g, e, atol=1e-9)
            tail, whole = got[0], got[1]
            tail.mul_(0)  # h[1:] and h share their memory, as in eager
            assert float(whole[1:].abs().sum()) == 0.0 and float(whole[0].abs().sum()) > 0


def test_a_run_that_raises_gives_its_arena_back():
    """A planned run that fails half-way (an index out of range, known only from the
    data) raises the op's error, holds no memory afterwards, leaves its inputs as they
    were, and the next run is right."""
    def fn(x, idx):
        h = (x * 2).exp()
        return h.index_select(0, idx) + 1

    x, good = ember.randn(6, 5), ember.tensor([0, 5, 2])
    traced = _trace(fn, (x, good))
    bad = ember.tensor([0, 6, 2])
    with ember.no_grad():
        traced(x, good), traced(x, good)  # recorded, then planned
        x_before = x.clone()
        before = ember.memory_stats()["allocated_bytes"]
        with pytest.raises(IndexError):
            traced(x, bad)
        assert ember.memory_stats()["allocated_bytes"] == before
        assert _close(x, x_before)
        assert _close(traced(x, good), fn(x, good))
