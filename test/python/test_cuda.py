"""ember.cuda and CUDA tensors: devices, streams, events, the CUDA caching allocator,
pinned memory and transfers. Tests marked `cuda` need a GPU (skipped without one,
with the reason); the others check what happens without one."""
import numpy as np
import pytest

import ember
from conftest import DEVICES, NO_GPU_REASON

ALL_DTYPES = [ember.bool, ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64,
              ember.float16, ember.bfloat16, ember.float32, ember.float64]


def sample(shape, dtype):
    """Distinct small values every dtype holds exactly (0/1 for bool)."""
    n = int(np.prod(shape))
    values = ember.arange(n) % (2 if dtype == ember.bool else 100)
    return values.to(dtype).reshape(shape)


def as_numpy(t):
    return t.cpu().to(ember.float64).numpy()


def assert_same(actual, expected):
    assert actual.dtype == expected.dtype
    assert tuple(actual.shape) == tuple(expected.shape)
    np.testing.assert_array_equal(as_numpy(actual), as_numpy(expected))


# ---- without a GPU ----

@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the behaviour without a GPU")
def test_without_gpu_everything_says_why():
    assert ember.cuda.is_available() is False
    assert ember.cuda.device_count() == 0
    assert DEVICES == ["cpu"]
    for call in [ember.cuda.current_device, ember.cuda.synchronize, ember.cuda.Stream,
                 ember.cuda.current_stream, ember.cuda.memory_allocated,
                 ember.cuda.memory_summary, lambda: ember.cuda.set_device(0),
                 lambda: ember.zeros(2).cuda(), lambda: ember.zeros(2, device="cuda"),
                 lambda: ember.ones(2).to("cuda:0"), lambda: ember.zeros(2).pin_memory(),
                 ember.cuda.get_device_name, ember.cuda.get_device_capability,
                 ember.cuda.get_device_properties, ember.cuda.mem_get_info]:
        with pytest.raises(RuntimeError, match=NO_GPU_REASON):
            call()
    assert ember.zeros(2).is_pinned() is False
    assert ember.cuda.is_bf16_supported() is False  # as torch without a GPU
    ember.cuda.empty_cache()  # nothing cached: a no-op, as in PyTorch
    event = ember.cuda.Event()
    assert event.query()  # never recorded
    with pytest.raises(RuntimeError, match=NO_GPU_REASON):
        event.record()
    with ember.cuda.stream(None):  # None: no stream to switch to
        pass


def test_is_built_matches_the_build():
    assert ember.cuda.is_built() in (True, False)
    if not ember.cuda.is_built():
        assert not ember.cuda.is_available()


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the behaviour without a GPU")
def test_dataloader_pin_memory_without_gpu_warns_and_does_nothing():
    data = ember.utils.data.TensorDataset(ember.arange(6.0))
    with pytest.warns(UserWarning, match="pin_memory"):
        loader = ember.utils.data.DataLoader(data, batch_size=3, pin_memory=True)
    (batch,) = next(iter(loader))
    assert not batch.is_pinned()


def test_record_stream_needs_a_cuda_tensor():
    if not ember.cuda.is_available():
        pytest.skip(NO_GPU_REASON)  # making a Stream object needs a GPU
    with pytest.raises(RuntimeError, match="expected a CUDA tensor"):
        ember.zeros(2).record_stream(ember.cuda.current_stream())


def test_device_fixture_runs_on_every_available_device(device):
    x = ember.ones(3, device=device)
    assert x.device.type == device
    assert_same(x.cpu(), ember.ones(3))


# ---- with a GPU ----

@pytest.mark.cuda
def test_devices_and_the_device_context():
    n = ember.cuda.device_count()
    assert n >= 1
    current = ember.cuda.current_device()
    with ember.cuda.device(n - 1):
        assert ember.cuda.current_device() == n - 1
    assert ember.cuda.current_device() == current
    with pytest.raises(RuntimeError, match="invalid CUDA device index"):
        ember.cuda.set_device(n)
    x = ember.empty(2, device="cuda")
    assert x.device == ember.device("cuda", current)
    assert x.is_cuda
    assert x.to("cuda") is x or x.to("cuda").data_ptr() == x.data_ptr()
    ember.cuda.synchronize()


@pytest.mark.cuda
def test_device_properties_and_memory_info():
    props = ember.cuda.get_device_properties(0)
    assert isinstance(props.name, str) and props.name
    assert ember.cuda.get_device_name() == props.name == ember.cuda.get_device_name("cuda:0")
    assert ember.cuda.get_device_capability() == (props.major, props.minor)
    assert props.major >= 1 and props.multi_processor_count > 0 and props.warp_size == 32
    assert props.uuid.startswith("GPU-") and len(props.uuid) == 40
    assert "_CudaDeviceProperties(name=" in repr(props)
    free, total = ember.cuda.mem_get_info()
    assert 0 < free <= total == props.total_memory
    # What the caching allocator holds counts as used, until empty_cache().
    x = ember.empty(256 * 1024 * 1024, dtype=ember.uint8, device="cuda")
    assert ember.cuda.mem_get_info()[0] <= free - 256 * 1024 * 1024 + (2 << 20)
    del x
    ember.cuda.empty_cache()
    assert ember.cuda.is_bf16_supported() == (props.major >= 8)
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        theirs = torch.cuda.get_device_properties(0)
        assert (props.name, props.major, props.minor, props.total_memory,
                props.multi_processor_count, props.L2_cache_size) == \
            (theirs.name, theirs.major, theirs.minor, theirs.total_memory,
             theirs.multi_processor_count, theirs.L2_cache_size)
        assert ember.cuda.get_device_capability() == torch.cuda.get_device_capability()


@pytest.mark.cuda
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_transfers_round_trip(dtype):
    host = sample((4, 6), dtype)
    dev = host.cuda()
    assert dev.is_cuda and dev.dtype == dtype
    assert_same(dev.cpu(), host)
    assert_same(host.to("cuda").to("cpu"), host)
    assert_same(host.t().cuda().cpu(), host.t())           # non-contiguous host source
    assert_same(dev.t().cpu(), host.t())                   # non-contiguous device source
    assert_same(dev[:, 1::2].cpu(), host[:, 1::2])
    assert_same(dev.clone().cpu(), host)                   # device -> device
    assert_same(dev.t().contiguous().cpu(), host.t().contiguous())
    dst = ember.zeros(6, 4, dtype=dtype, device="cuda").t()
    dst.copy_(dev)                                         # strided device destination
    assert_same(dst.cpu(), host)
    host_dst = ember.zeros(6, 4, dtype=dtype).t()
    host_dst.copy_(dev)                                    # strided host destination
    assert_same(host_dst, host)


@pytest.mark.cuda
def test_transfers_broadcast_and_cast_on_the_host_side():
    row = sample((5,), ember.int64)
    dst = ember.empty(3, 5, device="cuda")
    dst.copy_(row)
    np.testing.assert_array_equal(as_numpy(dst), np.broadcast_to(as_numpy(row), (3, 5)))
    back = ember.empty(3, 5, dtype=ember.float64)
    back.copy_(dst)
    np.testing.assert_array_equal(back.numpy(), np.broadcast_to(as_numpy(row), (3, 5)))
    assert_same(row.to("cuda", ember.float32).cpu(), row.to(ember.float32))


@pytest.mark.cuda
@pytest.mark.parametrize("src", ALL_DTYPES, ids=str)
def test_device_copies_convert_like_the_cpu(src):
    for dst in ALL_DTYPES:
        host = sample((3, 4), src)
        # Negatives and fractions too (a negative float to uint8 included: both devices
        # follow one rule, lib/kernels/float_to_int.h).
        if src not in (ember.bool, ember.uint8):
            host = (host.to(ember.float64) - 50.25).to(src)
        dev = host.cuda()
        assert_same(dev.to(dst).cpu(), host.to(dst))
        strided = ember.empty(4, 3, dtype=dst, device="cuda").t()
        strided.copy_(dev)
        assert_same(strided.cpu(), host.to(dst))


@pytest.mark.cuda
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_fill_and_factories(dtype):
    assert_same(ember.zeros(3, 2, dtype=dtype, device="cuda").cpu(), ember.zeros(3, 2, dtype=dtype))
    assert_same(ember.ones(7, dtype=dtype, device="cuda").cpu(), ember.ones(7, dtype=dtype))
    x = ember.zeros(4, 4, dtype=dtype, device="cuda")
    x[:, ::2].fill_(1)
    expected = ember.zeros(4, 4, dtype=dtype)
    expected[:, ::2].fill_(1)
    assert_same(x.cpu(), expected)


@pytest.mark.cuda
def test_unsupported_cuda_dtypes_say_so_and_host_reads_work():
    x = ember.ones(3, device="cuda")
    assert (x + x).tolist() == [2.0, 2.0, 2.0]
    ints = ember.ones(2, 2, dtype=ember.int64, device="cuda")
    with pytest.raises(NotImplementedError, match="mm.*int64.*CUDA"):
        ember.mm(ints, ints)  # cuBLAS has no integer products
    assert ember.ones(1, device="cuda").item() == 1.0
    assert x.tolist() == [1.0, 1.0, 1.0]
    np.testing.assert_array_equal(x.cpu().numpy(), [1, 1, 1])
    assert "cuda:0" in repr(x)


@pytest.mark.cuda
def test_streams_and_the_stream_context():
    default = ember.cuda.default_stream()
    assert default.cuda_stream == 0
    assert ember.cuda.current_stream() == default
    s = ember.cuda.Stream()
    assert s != default
    high = ember.cuda.Stream(priority=-1)
    assert high.priority < s.priority
    with ember.cuda.stream(s):
        assert ember.cuda.current_stream() == s
        x = ember.ones(1000, device="cuda")
        assert_same(x.cpu(), ember.ones(1000))
    assert ember.cuda.current_stream() == default
    s.synchronize()
    assert s.query()
    assert "ember.cuda.Stream" in repr(s)
    event = s.record_event()
    default.wait_event(event)
    event.synchronize()
    assert event.query()
    shared = ember.cuda.Event()
    s.record_event(shared)  # records the caller's event, not a copy of it
    shared.synchronize()
    assert shared.query()


@pytest.mark.cuda
def test_events_order_streams_and_time_them():
    producer, consumer = ember.cuda.Stream(), ember.cuda.Stream()
    big = ember.empty(1 << 22, device="cuda")
    start, done = ember.cuda.Event(enable_timing=True), ember.cuda.Event(enable_timing=True)
    with ember.cuda.stream(producer):
        start.record()
        for i in range(5):
            big.fill_(i)
        done.record()
    big.record_stream(producer)
    done.wait(consumer)
    with ember.cuda.stream(consumer):
        host = big.cpu()
    assert host[0].item() == 4.0 and host[-1].item() == 4.0
    done.synchronize()
    assert done.query()
    assert start.elapsed_time(done) >= 0.0
    with pytest.raises(RuntimeError, match="enable_timing"):
        ember.cuda.Event().elapsed_time(ember.cuda.Event())
    consumer.wait_stream(producer)
    ember.cuda.synchronize()


@pytest.mark.cuda
def test_allocator_statistics_and_a_steady_loop_without_cudamalloc():
    ember.cuda.synchronize()
    ember.cuda.empty_cache()
    ember.cuda.reset_peak_memory_stats()
    base = ember.cuda.memory_allocated()
    x = ember.empty(1000, device="cuda")  # 4000 B, rounded to 4096 B
    assert ember.cuda.memory_allocated() == base + 4096
    assert ember.cuda.memory_reserved() >= ember.cuda.memory_allocated()
    stats = ember.cuda.memory_stats()
    assert stats["allocated_bytes"] == stats["allocated_bytes.all.current"] == base + 4096
    del x
    assert ember.cuda.memory_allocated() == base
    assert ember.cuda.max_memory_allocated() >= base + 4096
    for _ in range(2):  # warm-up
        a, b = ember.empty(1 << 10, device="cuda"), ember.empty(1 << 20, device="cuda")
    del a, b
    raw_allocs = ember.cuda.memory_stats()["num_raw_allocs"]
    for i in range(100):
        a, b = ember.empty(1 << 10, device="cuda"), ember.empty(1 << 20, device="cuda")
        b.fill_(i)
    del a, b
    assert ember.cuda.memory_stats()["num_raw_allocs"] == raw_allocs
    assert "cuda:0" in ember.cuda.memory_summary()
    with pytest.raises(ember.cuda.OutOfMemoryError, match="CUDA out of memory"):
        ember.empty(1 << 50, dtype=ember.uint8, device="cuda")
    assert issubclass(ember.cuda.OutOfMemoryError, RuntimeError)


@pytest.mark.cuda
def test_pinned_memory_and_non_blocking_copies():
    host = sample((64, 3), ember.float32)
    assert not host.is_pinned()
    pinned = host.t().pin_memory()
    assert pinned.is_pinned() and pinned.device.type == "cpu"
    assert_same(pinned, host.t())
    dev = pinned.cuda(non_blocking=True)
    back = ember.empty(3, 64).pin_memory()
    back.copy_(dev, non_blocking=True)
    ember.cuda.synchronize()
    assert_same(back, host.t())
    assert_same(pinned.to("cuda", non_blocking=True).cpu(), host.t())


@pytest.mark.cuda
def test_dataloader_pins_batches():
    data = ember.utils.data.TensorDataset(ember.arange(6.0), ember.arange(6))
    loader = ember.utils.data.DataLoader(data, batch_size=3, pin_memory=True)
    for x, y in loader:
        assert x.is_pinned() and y.is_pinned()
        assert_same(x.cuda(non_blocking=True).cpu(), x)


# ---- random-number generators per device ----

def test_cuda_seeding_without_gpu_is_silently_ignored():
    if ember.cuda.is_available():
        pytest.skip("checks the behaviour without a GPU")
    ember.cuda.manual_seed(1)
    ember.cuda.manual_seed_all(1)
    ember.cuda.seed()
    ember.cuda.seed_all()
    with pytest.raises(RuntimeError):
        ember.cuda.get_rng_state()


def test_manual_seed_seeds_the_cpu_generator_as_before():
    ember.manual_seed(5)
    a = ember.randn(4)
    ember.manual_seed(5)
    np.testing.assert_array_equal(ember.randn(4).numpy(), a.numpy())


@pytest.mark.cuda
def test_each_cuda_device_has_its_own_generator():
    ember.manual_seed(3)  # seeds the CPU and every CUDA generator
    cpu = ember.randn(8)
    gpu = ember.randn(8, device="cuda")
    # The same Philox stream from the same seed: the same numbers on both devices,
    # and drawing on one does not move the other.
    np.testing.assert_allclose(gpu.cpu().numpy(), cpu.numpy(), rtol=1e-6)
    state = ember.cuda.get_rng_state()
    x = ember.rand(5, device="cuda")
    ember.cuda.set_rng_state(state)
    np.testing.assert_array_equal(ember.rand(5, device="cuda").cpu().numpy(), x.cpu().numpy())
    ember.cuda.manual_seed(9)
    y = ember.rand(5, device="cuda")
    ember.cuda.manual_seed(9)
    np.testing.assert_array_equal(ember.rand(5, device="cuda").cpu().numpy(), y.cpu().numpy())
