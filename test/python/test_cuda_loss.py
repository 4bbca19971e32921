"""CUDA kernels of the losses (lib/cuda/loss/) against the CPU kernels
(cuda_compare.check_against_cpu), for what the op database's device check
(test_opdb.py::test_device_matches_cpu: the samples of cross_entropy, nll_loss, the
pointwise losses and binary_cross_entropy(_with_logits) and their backward rows over
every reduction, weights, ignore_index, label smoothing, probability targets, spatial,
broadcast, strided and empty inputs, in every floating dtype) does not reach: large
inputs (many blocks), probabilities of exactly 0 and 1, large logits, and the data
errors a kernel reports (raised at the next synchronization). The per-op reduction x
dtype grids live in the op database. They need a GPU (skipped without one)."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from cuda_compare import check_against_cpu

pytestmark = pytest.mark.cuda

FLOATS = [ember.float16, ember.bfloat16, ember.float32, ember.float64]
REDUCTIONS = ["none", "mean", "sum"]


def data(shape, dtype=ember.float32, seed=0, low=None, high=None):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(shape) if low is None else rng.uniform(low, high, size=shape)
    return ember.from_numpy(v).to(dtype)


def classes(shape, C, seed=1):
    return ember.from_numpy(np.random.default_rng(seed).integers(0, C, size=shape).astype(np.int64))


# ---- cross_entropy / nll_loss ---------------------------------------------------------------

def test_large_cross_entropy():
    check_against_cpu(lambda x, t: F.cross_entropy(x, t), data((20_000, 100)), classes((20_000,), 100),
                      grad=True, atol=1e-4, rtol=1e-4)
    check_against_cpu(lambda x, t: F.cross_entropy(x, t), data((4, 10, 64, 64)), classes((4, 64, 64), 10),
                      grad=True, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("op", ["cross_entropy", "nll_loss"])
def test_target_out_of_range_raises_at_sync(op):
    x = ember.randn(4, 3, device="cuda", requires_grad=True)
    t = ember.tensor([0, 1, 3, 2], device="cuda")
    loss = getattr(F, op)(x, t)  # queued: the kernel reports, the host raises on the next read
    with pytest.raises(IndexError):
        loss.item()
    ember.cuda.synchronize()  # the error was raised once and cleared
    t = ember.tensor([0, 1, -5, 2], device="cuda")
    with pytest.raises(IndexError):
        print(getattr(F, op)(x, t))
    ok = getattr(F, op)(x, ember.tensor([0, 1, 2, -100], device="cuda"))
    ok.backward()
    assert x.grad is not None and x.grad.cpu().shape == (4, 3)


# ---- element-wise losses ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_at_0_and_1(dtype, reduction):
    # log(0) clamped to -100, as in PyTorch
    edge = ember.tensor([0.0, 1.0, 0.5, 1.0]).to(dtype)
    check_against_cpu(lambda p, t: F.binary_cross_entropy(p, t, reduction=reduction),
                      edge, ember.tensor([0.0, 1.0, 1.0, 0.0]).to(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_with_large_logits(dtype, reduction):
    x = (data((5, 6), dtype) * 30).to(dtype)  # large logits: no overflow
    t = data((5, 6), dtype, seed=2, low=0.0, high=1.0)
    w = data((6,), dtype, seed=3, low=0.5, high=2.0)
    pw = data((6,), dtype, seed=4, low=0.5, high=3.0)
    check_against_cpu(lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction=reduction), x, t, grad=True)
    check_against_cpu(lambda x, t, w, pw: F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=pw,
                                                                             reduction=reduction),
                      x, t, w, pw, grad=True)


def test_large_pointwise_loss():
    check_against_cpu(lambda x, y: F.mse_loss(x, y), data((10_000_000,)), data((10_000_000,), seed=9),
                      grad=True, atol=1e-4, rtol=1e-4)


def test_binary_cross_entropy_invalid_probability_raises_before_running():
    p = ember.tensor([0.2, 1.5, 0.3], device="cuda")
    t = ember.tensor([0.0, 1.0, 1.0], device="cuda")
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(p, t)
    with pytest.raises(RuntimeError, match="target should be between 0 and 1"):
        F.binary_cross_entropy(p.clamp(0, 1), t * 2)
    assert np.isfinite(F.binary_cross_entropy(p.clamp(0, 1), t).item())
