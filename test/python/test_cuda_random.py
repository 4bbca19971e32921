"""Random ops and factories on CUDA (lib/cuda/random/, lib/cuda/factory/): the same
seed gives the same numbers on CUDA as on the CPU (element i draws Philox counter
offset + i on both, kernels/philox.h): bit for bit, except normal_ (log/cos on the
device may differ from the host's libm in the last place). Plus distribution
sanity checks on the device, non-contiguous outputs, each device's own generator,
and the factories arange, linspace, eye made on the device. The op database's
device check (test_opdb.py::test_device_matches_cpu) reaches none of this: it runs
the random rows on a device without comparing their values, and its factory
entries take no device (they make CPU tensors). Skipped without a GPU."""
import numpy as np
import pytest

import ember

pytestmark = pytest.mark.cuda

FLOATS = [ember.float16, ember.bfloat16, ember.float32, ember.float64]
INTS = [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64]


def values(t):
    return t.cpu().to(ember.float64).numpy()


def on_both(draw, seed=1234):
    """draw(device) after the same manual_seed on each device: (cpu, cuda)."""
    ember.manual_seed(seed)
    cpu = draw("cpu")
    ember.manual_seed(seed)
    cuda = draw("cuda")
    assert cuda.is_cuda and cpu.device.type == "cpu"
    assert cpu.dtype == cuda.dtype and tuple(cpu.shape) == tuple(cuda.shape)
    return cpu, cuda


def assert_bitwise(cpu, cuda):
    np.testing.assert_array_equal(values(cuda), values(cpu))


@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_matches_cpu_bitwise(dtype):
    cpu, cuda = on_both(lambda d: ember.empty(1000, 3, dtype=dtype, device=d).uniform_(-2, 3))
    assert_bitwise(cpu, cuda)
    v = values(cuda)
    assert v.min() >= -2 and v.max() < 3


@pytest.mark.parametrize("dtype", FLOATS)
def test_rand_matches_cpu_bitwise(dtype):
    assert_bitwise(*on_both(lambda d: ember.rand(17, 33, dtype=dtype, device=d)))


@pytest.mark.parametrize("dtype", FLOATS)
def test_normal_matches_cpu_within_rounding(dtype):
    cpu, cuda = on_both(lambda d: ember.empty(4096, dtype=dtype, device=d).normal_(1.5, 2.0))
    tol = {ember.float16: 2e-3, ember.bfloat16: 1e-2, ember.float32: 1e-6, ember.float64: 1e-12}[dtype]
    np.testing.assert_allclose(values(cuda), values(cpu), rtol=tol, atol=tol)


def test_randn_distribution():
    ember.manual_seed(7)
    v = values(ember.randn(200000, device="cuda"))
    assert abs(v.mean()) < 0.02 and abs(v.std() - 1) < 0.02


def test_rand_distribution():
    ember.manual_seed(7)
    v = values(ember.rand(200000, device="cuda", dtype=ember.float64))
    assert abs(v.mean() - 0.5) < 0.01 and abs(v.var() - 1 / 12) < 0.005
    assert v.min() >= 0 and v.max() < 1


@pytest.mark.parametrize("dtype", INTS + [ember.bool] + FLOATS)
def test_random_matches_cpu_bitwise(dtype):
    assert_bitwise(*on_both(lambda d: ember.empty(2000, dtype=dtype, device=d).random_()))


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_random_range_matches_cpu(dtype):
    cpu, cuda = on_both(lambda d: ember.empty(3000, dtype=dtype, device=d).random_(3, 50))
    assert_bitwise(cpu, cuda)
    v = values(cuda)
    assert v.min() >= 3 and v.max() < 50 and len(np.unique(v)) == 47


def test_randint_full_int64_range_matches_cpu():
    lo, hi = -(2 ** 63), 2 ** 63 - 1
    cpu, cuda = on_both(lambda d: ember.empty(500, dtype=ember.int64, device=d).random_(lo, hi))
    assert cuda.cpu().tolist() == cpu.tolist()


def test_randint_matches_cpu():
    cpu, cuda = on_both(lambda d: ember.randint(-5, 5, (64, 9), device=d))
    assert cuda.dtype == ember.int64
    assert cuda.cpu().tolist() == cpu.tolist()


@pytest.mark.parametrize("dtype", [ember.bool, ember.int32, ember.float16, ember.float32, ember.float64])
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_bernoulli_matches_cpu(dtype, p):
    cpu, cuda = on_both(lambda d: ember.empty(5000, dtype=dtype, device=d).bernoulli_(p))
    assert_bitwise(cpu, cuda)
    mean = values(cuda).mean()
    assert abs(mean - p) < 0.03


def test_bernoulli_tensor_p_matches_cpu():
    p = ember.linspace(0, 1, 1000)
    cpu, cuda = on_both(lambda d: ember.bernoulli(p.to(d)))
    assert_bitwise(cpu, cuda)


@pytest.mark.parametrize("n", [0, 1, 2, 17, 1000])
@pytest.mark.parametrize("dtype", [ember.int64, ember.int32, ember.float32])
def test_randperm_matches_cpu(n, dtype):
    cpu, cuda = on_both(lambda d: ember.randperm(n, dtype=dtype, device=d))
    assert_bitwise(cpu, cuda)
    assert sorted(values(cuda).tolist()) == list(range(n))


def test_non_contiguous_outputs_fill_in_logical_order():
    def draw(d):
        base = ember.zeros(8, 6, device=d)
        base.t().uniform_()  # transposed: filled through a dense buffer, row-major order of the view
        base[:, ::2].normal_()  # sliced
        return base
    cpu, cuda = on_both(draw)
    np.testing.assert_allclose(values(cuda), values(cpu), rtol=1e-6, atol=1e-6)


def test_empty_and_zero_dim():
    cpu, cuda = on_both(lambda d: ember.empty(0, 3, device=d).uniform_())
    assert cuda.numel() == 0
    cpu, cuda = on_both(lambda d: ember.empty((), device=d).normal_())
    np.testing.assert_allclose(values(cuda), values(cpu), rtol=1e-6)


def test_generator_offset_advances_alike_on_both_devices():
    def draws(d):
        a = ember.rand(5, device=d)
        b = ember.randn(7, device=d)
        c = ember.randint(0, 100, (3,), device=d)
        return ember.cat([a, b, c.to(ember.float32)])
    cpu, cuda = on_both(draws)
    np.testing.assert_allclose(values(cuda), values(cpu), rtol=1e-6)


def test_each_device_draws_from_its_own_generator():
    # As in PyTorch, CPU and CUDA have separate default generators, both seeded by
    # manual_seed; ember's are the same Philox stream, so they draw the same numbers.
    ember.manual_seed(3)
    a = ember.rand(10)
    b = ember.rand(10, device="cuda")
    np.testing.assert_array_equal(values(a), values(b))
    c = ember.rand(10)  # drawing on CUDA did not move the CPU generator
    ember.manual_seed(3)
    both = ember.rand(20)
    np.testing.assert_array_equal(np.concatenate([values(a), values(c)]), values(both))


# ---- factories -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_arange_matches_cpu(dtype):
    for args in [(10,), (2, 30, 3), (5, -7, -2)]:
        c = ember.arange(*args, dtype=dtype)
        g = ember.arange(*args, dtype=dtype, device="cuda")
        assert g.is_cuda
        np.testing.assert_array_equal(values(g), values(c))


def test_arange_float_steps_match_cpu():
    for args in [(0.0, 1.0, 0.1), (-3.5, 2.25, 0.25)]:
        for dtype in [ember.float32, ember.float64, ember.int64]:
            c = ember.arange(*args, dtype=dtype)
            g = ember.arange(*args, dtype=dtype, device="cuda")
            np.testing.assert_array_equal(values(g), values(c))
    assert ember.arange(0, device="cuda").numel() == 0


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_linspace_matches_cpu(dtype):
    for steps in [0, 1, 2, 7, 100]:
        c = ember.linspace(-3, 11, steps, dtype=dtype)
        g = ember.linspace(-3, 11, steps, dtype=dtype, device="cuda")
        np.testing.assert_array_equal(values(g), values(c))


@pytest.mark.parametrize("dtype", [ember.bool, ember.int32, ember.float16, ember.float32])
def test_eye_matches_cpu(dtype):
    for n, m in [(0, 0), (1, 1), (4, 4), (3, 7), (6, 2)]:
        c = ember.eye(n, m, dtype=dtype)
        g = ember.eye(n, m, dtype=dtype, device="cuda")
        assert g.is_cuda
        np.testing.assert_array_equal(values(g), values(c))
