"""CUDA kernels of the losses (lib/cuda/loss/): cross_entropy, nll_loss, mse_loss,
l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy(_with_logits) and their
backward, against the CPU kernels (cuda_compare.check_against_cpu): reductions,
weights, ignore_index, label smoothing, probability targets, spatial inputs,
broadcasting, non-contiguous and empty inputs, and the data errors a kernel reports
(raised at the next synchronization). They need a GPU (skipped without one)."""
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

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(8, 5), (5,), (4, 3, 6), (2, 4, 3, 5)])
def test_cross_entropy_class_indices(dtype, reduction, shape):
    C = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    x, t = data(shape, dtype), classes(tshape, C)
    check_against_cpu(lambda x, t: F.cross_entropy(x, t, reduction=reduction), x, t, grad=True)
    check_against_cpu(lambda x, t: F.nll_loss(F.log_softmax(x, dim=0 if len(shape) == 1 else 1), t,
                                              reduction=reduction), x, t, grad=True)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_weight_ignore_smoothing(reduction, smoothing):
    x, t = data((10, 6)), classes((10,), 6)
    t[3] = -100
    t[7] = 2
    w = data((6,), low=0.5, high=2.0)
    check_against_cpu(lambda x, t, w: F.cross_entropy(x, t, weight=w, reduction=reduction,
                                                      label_smoothing=smoothing), x, t, w, grad=True)
    check_against_cpu(lambda x, t: F.cross_entropy(x, t, ignore_index=2, reduction=reduction,
                                                   label_smoothing=smoothing), x, t.clamp(0, 5), grad=True)
    xs, ts = data((3, 6, 4, 5)), classes((3, 4, 5), 6)
    check_against_cpu(lambda x, t, w: F.cross_entropy(x, t, weight=w, reduction=reduction,
                                                      label_smoothing=smoothing), xs, ts, w, grad=True)
    check_against_cpu(lambda x, t, w: F.nll_loss(x, t, weight=w, ignore_index=1, reduction=reduction),
                      xs, ts, w, grad=True)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_probabilities(dtype, reduction):
    x = data((7, 5), dtype)
    q = F.softmax(data((7, 5), seed=3), dim=1).to(dtype)
    check_against_cpu(lambda x, q: F.cross_entropy(x, q, reduction=reduction), x, q, grad=True)
    check_against_cpu(lambda x, q: F.cross_entropy(x, q, reduction=reduction, label_smoothing=0.1), x, q, grad=True)
    w = data((5,), low=0.5, high=2.0)
    xs = data((2, 5, 3), dtype)
    qs = F.softmax(data((2, 5, 3), seed=4), dim=1).to(dtype)
    check_against_cpu(lambda x, q, w: F.cross_entropy(x, q, weight=w.to(x.dtype), reduction=reduction), xs, qs, w,
                      grad=True)


def test_class_losses_non_contiguous_empty_uint8():
    x, t = data((6, 8)), classes((8,), 6)
    check_against_cpu(lambda x, t: F.cross_entropy(x.t(), t), x, t, grad=True)
    check_against_cpu(lambda x, t: F.nll_loss(x[::2], t[::2]), data((16, 6)), classes((16,), 6), grad=True)
    check_against_cpu(lambda x, t: F.nll_loss(x, t), data((5, 4)), classes((5,), 4).to(ember.uint8), grad=True)
    for reduction in REDUCTIONS:  # empty: none -> empty, sum -> 0, mean -> nan
        check_against_cpu(lambda x, t: F.cross_entropy(x, t, reduction=reduction), data((0, 4)),
                          classes((0,), 4), grad=True)
    t = classes((6,), 3)
    t[:] = -100  # every target ignored: mean is 0 / 0 = nan
    check_against_cpu(lambda x, t: F.cross_entropy(x, t), data((6, 3)), t, grad=True)


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
@pytest.mark.parametrize("name,kw", [("mse_loss", {}), ("l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}),
                                     ("smooth_l1_loss", {"beta": 0.0}), ("huber_loss", {"delta": 0.7})])
def test_pointwise_losses(dtype, reduction, name, kw):
    fn = getattr(F, name)
    x, y = data((6, 7), dtype), data((6, 7), dtype, seed=5)
    check_against_cpu(lambda x, y: fn(x, y, reduction=reduction, **kw), x, y, grad=True)
    check_against_cpu(lambda x, y: fn(x.t(), y.t(), reduction=reduction, **kw), x, y, grad=True)
    if name in ("mse_loss", "l1_loss"):  # a broadcast target
        check_against_cpu(lambda x, y: fn(x, y[:1], reduction=reduction), x, y, grad=True)
    check_against_cpu(lambda x, y: fn(x, y, reduction=reduction, **kw), data((0, 3), dtype), data((0, 3), dtype),
                      grad=True)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(dtype, reduction):
    p = data((5, 6), dtype, low=0.05, high=0.95)
    t = data((5, 6), dtype, seed=2, low=0.0, high=1.0)
    w = data((6,), dtype, seed=3, low=0.5, high=2.0)
    check_against_cpu(lambda p, t: F.binary_cross_entropy(p, t, reduction=reduction), p, t, grad=True)
    check_against_cpu(lambda p, t, w: F.binary_cross_entropy(p, t, weight=w, reduction=reduction), p, t, w, grad=True)
    edge = ember.tensor([0.0, 1.0, 0.5, 1.0]).to(dtype)
    check_against_cpu(lambda p, t: F.binary_cross_entropy(p, t, reduction=reduction),
                      edge, ember.tensor([0.0, 1.0, 1.0, 0.0]).to(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_with_logits(dtype, reduction):
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


def test_binary_cross_entropy_invalid_probability_raises_at_sync():
    p = ember.tensor([0.2, 1.5, 0.3], device="cuda")
    t = ember.tensor([0.0, 1.0, 1.0], device="cuda")
    loss = F.binary_cross_entropy(p, t)
    with pytest.raises(ValueError):
        loss.item()
    ember.cuda.synchronize()
    assert np.isfinite(F.binary_cross_entropy(p.clamp(0, 1), t).item())
