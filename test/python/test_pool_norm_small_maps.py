"""Pooling and batch norm on small maps, where the CPU kernels take their own paths
(lib/cpu/pool.cpp: max pooling with at most 4 output columns scans each window
directly, average pooling precomputes its windows, global average pooling sums with
partial vectors; lib/cpu/norm.cpp: batch norm over spatial sizes below 16 works along
whole rows). Values, indices and gradients against PyTorch."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

rng = np.random.default_rng(21)


def pair(a, grad=False):
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if grad:
        e.requires_grad_()
        t.requires_grad_()
    return e, t


def close(e, t, rtol, atol):
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def tol(dtype):
    return dict(rtol=1e-12, atol=1e-12) if dtype == np.float64 else dict(rtol=2e-6, atol=2e-6)


MAX_CASES = [  # (input shape, kwargs): output widths 1..4
    ((3, 5, 4, 4), dict(kernel_size=2)),
    ((3, 5, 4, 4), dict(kernel_size=3, stride=1, padding=1)),
    ((2, 3, 5, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((2, 3, 6, 6), dict(kernel_size=2, stride=2, dilation=2)),
    ((2, 3, 3, 3), dict(kernel_size=3)),
    ((2, 3, 8, 8), dict(kernel_size=(2, 3), stride=(2, 3), padding=(1, 1))),
    ((4, 4), dict(kernel_size=2)),  # unbatched [C, H, W] with C = 4... as [1, 4, 4]
]


@pytest.mark.parametrize("shape, kw", MAX_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_small_maps_values_indices_gradients(shape, kw, dtype):
    if len(shape) == 2:
        shape = (1,) + shape
    a = rng.standard_normal(shape).astype(dtype)
    # ties, NaNs and -inf in some windows: the first maximum wins, the last NaN wins
    flat = a.reshape(-1)
    flat[::7] = 1.5
    flat[3::11] = np.nan
    flat[5::13] = -np.inf
    e, t = pair(a, grad=True)
    eo, ei = F.max_pool2d(e, return_indices=True, **kw)
    to, ti = TF.max_pool2d(t, return_indices=True, **kw)
    np.testing.assert_array_equal(ei.numpy(), ti.numpy())
    np.testing.assert_array_equal(np.isnan(eo.detach().numpy()), np.isnan(to.detach().numpy()))
    close(eo, to, **tol(dtype))
    g = rng.standard_normal(tuple(to.shape)).astype(dtype)
    (eo.nan_to_num() * ember.from_numpy(g)).sum().backward()
    (to.nan_to_num() * torch.from_numpy(g)).sum().backward()
    close(e.grad, t.grad, **tol(dtype))


def test_max_pool_all_minus_inf_window_reports_its_first_position():
    a = np.full((1, 1, 4, 4), -np.inf, dtype=np.float32)
    e, t = pair(a)
    eo, ei = F.max_pool2d(e, 3, stride=1, padding=1, return_indices=True)
    to, ti = TF.max_pool2d(t, 3, stride=1, padding=1, return_indices=True)
    np.testing.assert_array_equal(ei.numpy(), ti.numpy())


AVG_CASES = [
    ((3, 5, 4, 4), dict(kernel_size=2)),
    ((3, 5, 4, 4), dict(kernel_size=3, stride=1, padding=1)),
    ((3, 5, 4, 4), dict(kernel_size=3, stride=1, padding=1, count_include_pad=False)),
    ((2, 3, 5, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((2, 3, 5, 7), dict(kernel_size=2, divisor_override=3)),
    ((2, 3, 7, 7), dict(kernel_size=7)),
]


@pytest.mark.parametrize("shape, kw", AVG_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_avg_pool_small_maps(shape, kw, dtype):
    a = rng.standard_normal(shape).astype(dtype)
    e, t = pair(a, grad=True)
    eo, to = F.avg_pool2d(e, **kw), TF.avg_pool2d(t, **kw)
    close(eo, to, **tol(dtype))
    g = rng.standard_normal(tuple(to.shape)).astype(dtype)
    (eo * ember.from_numpy(g)).sum().backward()
    (to * torch.from_numpy(g)).sum().backward()
    close(e.grad, t.grad, **tol(dtype))


def test_avg_pool_integer_input_truncates_like_torch():
    a = rng.integers(-50, 50, size=(2, 3, 4, 4)).astype(np.int64)
    e, t = pair(a)
    np.testing.assert_array_equal(F.avg_pool2d(e, 2).numpy(), TF.avg_pool2d(t, 2).numpy())


@pytest.mark.parametrize("hw", [(1, 1), (2, 2), (3, 5), (4, 8), (5, 7), (8, 8), (9, 9), (28, 28)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_global_average_pool(hw, dtype):
    a = (rng.standard_normal((3, 7) + hw) + 3.0).astype(dtype)  # 21 planes: 16 at once, then 5
    e, t = pair(a, grad=True)
    eo, to = F.adaptive_avg_pool2d(e, 1), TF.adaptive_avg_pool2d(t, 1)
    close(eo, to, **(tol(dtype) if dtype == np.float64 else dict(rtol=1e-6, atol=1e-6)))
    eo.sum().backward()
    to.sum().backward()
    close(e.grad, t.grad, **tol(dtype))
    # float16 sums in float32
    h = ember.from_numpy(a.astype(np.float32)).half()
    ref = TF.adaptive_avg_pool2d(torch.from_numpy(a.astype(np.float32)).half().float(), 1)
    np.testing.assert_allclose(F.adaptive_avg_pool2d(h, 1).float().numpy(), ref.numpy(), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("out", [2, (3, 2)])
def test_adaptive_average_pool_small_outputs(out):
    a = rng.standard_normal((2, 3, 5, 7)).astype(np.float32)
    e, t = pair(a)
    close(F.adaptive_avg_pool2d(e, out), TF.adaptive_avg_pool2d(t, out), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("shape", [(32, 64, 2, 2), (4, 3, 3, 3), (5, 7, 1, 15), (6, 2, 4, 4), (3, 4, 1, 1)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_small_spatial(shape, training, dtype):
    c = shape[1]
    a = (rng.standard_normal(shape) * 2.0 + 5.0).astype(dtype)  # a large mean: two-pass variance
    e, t = pair(a, grad=True)
    w, b = rng.standard_normal(c).astype(dtype), rng.standard_normal(c).astype(dtype)
    (we, wt), (be, bt) = pair(w, grad=True), pair(b, grad=True)
    rm, rv = rng.standard_normal(c).astype(dtype), rng.random(c).astype(dtype) + 0.5
    (rme, rmt), (rve, rvt) = pair(rm), pair(rv)
    eo = F.batch_norm(e, rme, rve, we, be, training=training, momentum=0.3)
    to = TF.batch_norm(t, rmt, rvt, wt, bt, training=training, momentum=0.3)
    loose = dict(rtol=1e-10, atol=1e-10) if dtype == np.float64 else dict(rtol=2e-5, atol=2e-5)
    close(eo, to, **loose)
    close(rme, rmt, **loose)
    close(rve, rvt, **loose)
    g = rng.standard_normal(shape).astype(dtype)
    (eo * ember.from_numpy(g)).sum().backward()
    (to * torch.from_numpy(g)).sum().backward()
    for ge, gt in [(e.grad, t.grad), (we.grad, wt.grad), (be.grad, bt.grad)]:
        close(ge, gt, **(dict(rtol=1e-9, atol=1e-9) if dtype == np.float64 else dict(rtol=1e-4, atol=1e-4)))
