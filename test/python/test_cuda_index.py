"""The indexing kernels on CUDA (lib/cuda/index/) against the CPU, for what the op
database's device check (test_opdb.py::test_device_matches_cpu: every row's samples of
cat, flip, tril/triu, gather, index_select, take, the scatter family, index_add/copy/
fill, masked_fill, nonzero, advanced indexing and index_put_, strided, empty and 0-dim,
every dtype the row claims, in-place forms and float64 gradients) does not reach:
nonzero of NaN and signed zeros and over a long input (several blocks), CPU 0-dim
masks and values on CUDA tensors, a None in index_put's indices, out-of-range indices
raised at the next synchronization, and CPU index tensors indexing CUDA tensors. The
per-op dims x dtypes grids live in the op database. Every test needs a GPU (skipped
without one)."""
import numpy as np
import pytest

import ember
from cuda_compare import check_against_cpu

pytestmark = pytest.mark.cuda


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def idx(a):
    return np.asarray(a, dtype=np.int64)


def expect_index_error(fn):
    """fn queues a kernel that finds a bad index: IndexError at the next synchronization,
    and the device works afterwards."""
    with pytest.raises(IndexError):
        fn()
        ember.cuda.synchronize()
    assert (ember.ones(3, device="cuda") + 1).sum().item() == 6


# ---- masks, nonzero --------------------------------------------------------------------------

def test_masked_fill_takes_a_cpu_scalar_mask():
    x = ember.ones(3, device="cuda")
    assert x.masked_fill(ember.tensor(True), 0.0).cpu().tolist() == [0.0, 0.0, 0.0]


def test_nonzero_nan_signed_zero_and_large():
    check_against_cpu(lambda t: ember.nonzero(t), np.array([np.nan, 0.0, -0.0, 1.0]))
    big = (np.arange(300000) % 7 == 0).astype(np.float32)  # a scan over many blocks
    check_against_cpu(lambda t: ember.nonzero(t), big)


# ---- index_put -----------------------------------------------------------------------------

def test_index_put_with_broadcast_indices_and_cpu_scalar_value():
    def put(t, i, v):  # every row (a [3, 1] index broadcast against i), columns i, repeated
        rows = ember.arange(3, device=t.device).unsqueeze(1)
        return ember.index_put(t, (rows, i), v, accumulate=True)
    check_against_cpu(put, randn(3, 4), idx([1, 1, 3]), randn(3, 3), grad=True)
    x = ember.zeros(4, device="cuda")
    x[ember.tensor([1, 3], device="cuda")] = ember.tensor(2.0)
    assert x.cpu().tolist() == [0.0, 2.0, 0.0, 2.0]


# ---- data-dependent errors -----------------------------------------------------------------

def test_out_of_range_indices_raise_index_error():
    x = ember.arange(12.0, device="cuda").reshape(3, 4)
    bad = ember.tensor([[0, 4]], device="cuda")
    expect_index_error(lambda: ember.gather(x, 1, bad))
    expect_index_error(lambda: ember.gather(x, 1, -bad - 1))  # gather does not wrap
    expect_index_error(lambda: ember.index_select(x, 0, ember.tensor([3], device="cuda")))
    # PyTorch's kinds: scatter_ and index_add_ into a matrix raise RuntimeError, checked
    # before anything is written (test_nothing_lost.py).
    for write in (lambda: x.clone().scatter_(1, bad, ember.ones(1, 2, device="cuda")),
                  lambda: x.clone().scatter_add_(1, bad, ember.ones(1, 2, device="cuda")),
                  lambda: x.clone().index_add_(0, ember.tensor([3], device="cuda"),
                                               ember.ones(1, 4, device="cuda"))):
        with pytest.raises(RuntimeError, match="out of bounds"):
            write()
    expect_index_error(lambda: x.clone().index_fill_(0, ember.tensor([-4], device="cuda"), 1.0))
    expect_index_error(lambda: ember.take(x, ember.tensor([12], device="cuda")))
    expect_index_error(lambda: x[ember.tensor([3], device="cuda")])
    expect_index_error(lambda: x.clone().index_put_((ember.tensor([-4], device="cuda"),),
                                                    ember.ones(4, device="cuda"), accumulate=True))


def test_cpu_index_tensors_index_cuda_tensors():
    x = ember.arange(12.0).reshape(3, 4)
    idx = ember.tensor([2, 0])
    mask = ember.tensor([True, False, True])
    g = x.to("cuda")
    np.testing.assert_array_equal(g[idx].cpu().numpy(), x[idx].numpy())
    np.testing.assert_array_equal(g[mask].cpu().numpy(), x[mask].numpy())
    np.testing.assert_array_equal(g[:, idx].cpu().numpy(), x[:, idx].numpy())
    g[idx] = 0.0
    x[idx] = 0.0
    np.testing.assert_array_equal(g.cpu().numpy(), x.numpy())
    with pytest.raises(RuntimeError, match="same device"):
        x[idx.to("cuda")]
