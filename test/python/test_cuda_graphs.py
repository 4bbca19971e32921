"""CUDA graphs and the allocator controls of ember.cuda (torch.cuda's names): CUDAGraph,
graph, graph_pool_handle, make_graphed_callables, is_current_stream_capturing,
memory_snapshot, set/get_per_process_memory_fraction, reset_accumulated_memory_stats,
get_arch_list, can_device_access_peer, ExternalStream.

Without a GPU the tests check the errors and the answers torch gives then; the GPU
tests skip with the reason. The allocator's pool logic itself is tested on a fake
device in test/cpp/memory/test_allocator_pools.cpp."""
import numpy as np
import pytest

import ember

HAS_GPU = ember.cuda.is_available()
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA GPU is available")
no_gpu = pytest.mark.skipif(HAS_GPU, reason="checks the answers without a GPU")

NEW_NAMES = ["CUDAGraph", "graph", "graph_pool_handle", "make_graphed_callables",
             "is_current_stream_capturing", "memory_snapshot", "set_per_process_memory_fraction",
             "get_per_process_memory_fraction", "reset_accumulated_memory_stats", "get_arch_list",
             "can_device_access_peer", "ExternalStream"]


@pytest.mark.parametrize("name", NEW_NAMES)
def test_names_exist_as_in_torch(name):
    assert hasattr(ember.cuda, name)
    assert name in ember.cuda.__all__
    torch = pytest.importorskip("torch")
    assert hasattr(torch.cuda, name)


def test_graphs_module_path():
    from ember.cuda.graphs import CUDAGraph, graph  # noqa: F401  (torch.cuda.graphs' path)
    assert issubclass(ember.cuda.ExternalStream, ember.cuda.Stream)


def test_fraction_argument_checks_come_first():
    with pytest.raises(TypeError, match="must be `float`"):
        ember.cuda.set_per_process_memory_fraction(1)
    with pytest.raises(ValueError, match="Allowed range"):
        ember.cuda.set_per_process_memory_fraction(1.5)
    with pytest.raises(ValueError, match="Allowed range"):
        ember.cuda.set_per_process_memory_fraction(-0.1)


def test_external_stream_argument_type():
    with pytest.raises(TypeError, match="stream_ptr"):
        ember.cuda.ExternalStream("0x1234")


def test_cpu_snapshot_matches_the_stats():
    keep = [ember.randn(1000), ember.randn(50, 3000)]
    segments = ember._C.memory_snapshot(ember.device("cpu"))
    stats = ember._C.memory_stats(ember.device("cpu"))
    assert sum(s["total_size"] for s in segments) == stats["reserved_bytes"]
    assert sum(s["allocated_size"] for s in segments) == stats["allocated_bytes"]
    assert len(segments) == stats["segments"]
    blocks = [b for s in segments for b in s["blocks"]]
    assert sum(b["state"] == "active_allocated" for b in blocks) == stats["active_allocs"]
    for s in segments:
        assert s["total_size"] == sum(b["size"] for b in s["blocks"])
        assert s["segment_type"] in ("small", "large")
        addresses = [b["address"] for b in s["blocks"]]
        assert addresses == sorted(addresses) and addresses[0] == s["address"]
    big = [b for b in blocks if b["requested_size"] == 50 * 3000 * 4]
    assert len(big) == 1 and big[0]["state"] == "active_allocated"
    del keep


def test_cpu_reset_accumulated_memory_stats():
    keep = ember.randn(300)
    ember._C.reset_accumulated_memory_stats(ember.device("cpu"))
    stats = ember._C.memory_stats(ember.device("cpu"))
    assert stats["num_allocs"] == 0 and stats["num_frees"] == 0 and stats["num_raw_allocs"] == 0
    assert stats["active_allocs"] >= 1 and stats["allocated_bytes"] >= 1200
    x = ember.randn(10)
    assert ember._C.memory_stats(ember.device("cpu"))["num_allocs"] >= 1
    del keep, x


@no_gpu
def test_answers_without_a_gpu():
    assert ember.cuda.is_current_stream_capturing() is False
    assert ember.cuda.get_arch_list() == []
    assert ember.cuda.memory_snapshot() == []
    g = ember.cuda.CUDAGraph()  # making one needs no GPU; capturing does
    for call in (g.capture_begin, ember.cuda.graph_pool_handle,
                 lambda: ember.cuda.reset_accumulated_memory_stats(),
                 lambda: ember.cuda.set_per_process_memory_fraction(0.5),
                 lambda: ember.cuda.get_per_process_memory_fraction(),
                 lambda: ember.cuda.ExternalStream(0)):
        with pytest.raises(RuntimeError, match="CUDA|GPU"):
            call()
    with pytest.raises(RuntimeError, match="nothing was captured|CUDA|GPU"):
        g.replay()
    with pytest.raises(AssertionError, match="Invalid device id"):
        ember.cuda.can_device_access_peer(0, 0)
    with pytest.raises(TypeError, match="CUDAGraph"):
        ember.cuda.graph(object())


@no_gpu
def test_make_graphed_callables_refuses_cpu_samples():
    lin = ember.nn.Linear(3, 2)
    with pytest.raises(ValueError, match="CUDA tensors"):
        ember.cuda.make_graphed_callables(lin, (ember.randn(4, 3),))
    with pytest.raises(ValueError, match="2 callables"):
        ember.cuda.make_graphed_callables((lin, lin), ((ember.randn(4, 3),),))


# ---- on a GPU ----

def _warm(fn, stream, times=3):
    stream.wait_stream(ember.cuda.current_stream())
    with ember.cuda.stream(stream):
        for _ in range(times):
            out = fn()
    ember.cuda.current_stream().wait_stream(stream)
    return out


@needs_gpu
def test_capture_and_replay_follow_new_inputs():
    x = ember.randn(1000).cuda()
    w = ember.randn(1000).cuda()
    fn = lambda: (x * w + 1).relu().sum()  # noqa: E731
    side = ember.cuda.Stream()
    _warm(fn, side)
    g = ember.cuda.CUDAGraph()
    with ember.cuda.graph(g, stream=side):
        assert ember.cuda.is_current_stream_capturing()
        out = fn()
    assert not ember.cuda.is_current_stream_capturing()
    for _ in range(3):
        fresh = np.random.randn(1000).astype(np.float32)
        x.copy_(ember.from_numpy(fresh))
        g.replay()
        expect = np.maximum(fresh * w.cpu().numpy() + 1, 0).sum()
        np.testing.assert_allclose(out.item(), expect, rtol=1e-4)
    assert isinstance(g.pool(), tuple) and g.pool()[1] == 0
    g.reset()
    with pytest.raises(RuntimeError, match="nothing was captured"):
        g.replay()


@needs_gpu
def test_capture_refuses_the_default_stream_and_random_draws():
    g = ember.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="non-default stream"):
        g.capture_begin()
    g2 = ember.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="random number generation"):
        with ember.cuda.graph(g2):
            ember.randn(10, device="cuda")
    assert not ember.cuda.is_current_stream_capturing()
    ember.cuda.synchronize()
    assert ember.ones(3, device="cuda").sum().item() == 3.0  # the device still works


@needs_gpu
def test_graphs_sharing_a_pool():
    pool = ember.cuda.graph_pool_handle()
    a = ember.randn(64, 64).cuda()
    side = ember.cuda.Stream()
    _warm(lambda: a @ a, side)
    g1, g2 = ember.cuda.CUDAGraph(), ember.cuda.CUDAGraph()
    with ember.cuda.graph(g1, pool=pool, stream=side):
        b = a @ a
    with ember.cuda.graph(g2, pool=g1.pool(), stream=side):
        c = b + 1
    assert g1.pool() == g2.pool() == pool
    g1.replay()
    g2.replay()
    ref = a.cpu().numpy() @ a.cpu().numpy() + 1
    np.testing.assert_allclose(c.cpu().numpy(), ref, rtol=1e-3, atol=1e-3)
    segments = [s for s in ember.cuda.memory_snapshot() if tuple(s["segment_pool_id"]) == pool]
    assert segments


@needs_gpu
def test_make_graphed_callables_matches_eager():
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(16, 32), ember.nn.ReLU(), ember.nn.Linear(32, 4)).cuda()
    eager = ember.nn.Sequential(ember.nn.Linear(16, 32), ember.nn.ReLU(), ember.nn.Linear(32, 4)).cuda()
    eager.load_state_dict(model.state_dict())
    sample = ember.randn(8, 16).cuda().requires_grad_()
    graphed = ember.cuda.make_graphed_callables(model, (sample,))
    for _ in range(3):
        x = ember.randn(8, 16).cuda().requires_grad_()
        xe = x.detach().clone().requires_grad_()
        out = graphed(x)
        ref = eager(xe)
        np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().cpu().numpy(), rtol=1e-5, atol=1e-5)
        out.sum().backward()
        ref.sum().backward()
        np.testing.assert_allclose(x.grad.cpu().numpy(), xe.grad.cpu().numpy(), rtol=1e-5, atol=1e-5)
        for p, q in zip(model.parameters(), eager.parameters()):
            np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.cpu().numpy(), rtol=1e-5, atol=1e-5)


@needs_gpu
def test_memory_fraction_caps_the_reservation():
    total = ember.cuda.get_device_properties().total_memory
    ember.cuda.empty_cache()
    try:
        ember.cuda.set_per_process_memory_fraction(0.01)
        assert ember.cuda.get_per_process_memory_fraction() == 0.01
        with pytest.raises(ember.cuda.OutOfMemoryError, match="set_per_process_memory_fraction"):
            ember.empty(int(total * 0.02) // 4, device="cuda")
        ok = ember.empty(int(total * 0.005) // 4, device="cuda")
        del ok
    finally:
        ember.cuda.set_per_process_memory_fraction(1.0)
    assert ember.cuda.get_per_process_memory_fraction() == 1.0


@needs_gpu
def test_snapshot_stats_and_device_answers():
    keep = ember.randn(1 << 20).cuda()
    segments = ember.cuda.memory_snapshot()
    assert sum(s["total_size"] for s in segments) == ember.cuda.memory_reserved()
    assert sum(s["allocated_size"] for s in segments) == ember.cuda.memory_allocated()
    ember.cuda.reset_accumulated_memory_stats()
    nested = ember.cuda.memory_stats_as_nested_dict()
    assert nested["allocation"]["all"]["allocated"] == 0
    assert nested["allocation"]["all"]["current"] >= 1
    major, minor = ember.cuda.get_device_capability()
    assert f"sm_{major}{minor}" in ember.cuda.get_arch_list() or \
        any(a.startswith("compute_") for a in ember.cuda.get_arch_list())
    assert isinstance(ember.cuda.can_device_access_peer(0, 0), bool)
    s = ember.cuda.Stream()
    ext = ember.cuda.ExternalStream(s.cuda_stream)
    assert ext == s and ext.device_index == s.device_index
    del keep


@pytest.mark.parametrize("module", ["memory", "random", "streams", "graphs"])
def test_submodule_paths_hold_torchs_names(module):
    import importlib
    ours = importlib.import_module(f"ember.cuda.{module}")
    torch = pytest.importorskip("torch")
    theirs = importlib.import_module(f"torch.cuda.{module}")
    for name in getattr(ours, "__all__", []):
        assert getattr(ours, name) is getattr(ember.cuda, name)
        assert hasattr(theirs, name), name


def test_cuda_amp_grad_scaler_is_the_cuda_scaler():
    torch = pytest.importorskip("torch")
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = ember.cuda.amp.GradScaler(init_scale=1024.0, enabled=False)
        theirs = torch.cuda.amp.GradScaler(init_scale=1024.0, enabled=False)
    assert sum(issubclass(w.category, FutureWarning) for w in caught) >= 2
    assert isinstance(ours, ember.amp.GradScaler)
    assert ours.is_enabled() == theirs.is_enabled()
    loss = ember.tensor(3.0)
    assert ours.scale(loss) is loss or ours.scale(loss).item() == theirs.scale(torch.tensor(3.0)).item()
