"""The indexing and shape-rearranging kernels on CUDA (lib/cuda/index/) against the CPU:
cat, flip, tril/triu, gather, index_select, scatter (tensor, value, reduce), scatter_add,
index_add/copy/fill, take, masked_fill, nonzero, advanced indexing and index_put_.
Every test needs a GPU (skipped without one)."""
import numpy as np
import pytest

import ember
from cuda_compare import check_against_cpu

pytestmark = pytest.mark.cuda

ALL_DTYPES = [ember.bool, ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64,
              ember.float16, ember.bfloat16, ember.float32, ember.float64]
NUMERIC = [d for d in ALL_DTYPES if d != ember.bool]
FLOATS = [ember.float16, ember.bfloat16, ember.float32, ember.float64]


def sample(shape, dtype, seed=0):
    """Small distinct-ish values every dtype holds exactly (0/1 for bool)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2 if dtype == ember.bool else 50, size=shape)
    return ember.from_numpy(a.astype(np.float64)).to(dtype)


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


# ---- cat, flip, tril, triu -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_cat_dtypes(dtype):
    a, b = sample((2, 3), dtype), sample((4, 3), dtype, seed=1)
    check_against_cpu(lambda x, y: ember.cat([x, y], 0), a, b)
    check_against_cpu(lambda x, y: ember.cat([x.t(), y.t()], 1), a, b)


def test_cat_mixed_dtypes_empty_and_grad():
    check_against_cpu(lambda x, y: ember.cat([x, y], 1), sample((3, 2), ember.int32),
                      sample((3, 4), ember.float16))
    check_against_cpu(lambda x, y: ember.cat([x, y, x[:, :0]], -1), randn(3, 2), randn(3, 5), grad=True)
    check_against_cpu(lambda x: ember.cat([x[:0], x[:0]]), randn(4, 2))
    check_against_cpu(lambda x: ember.cat([ember.zeros(0, device=x.device), x]), randn(5))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_flip(dtype):
    x = sample((3, 4, 5), dtype)
    for dims in ([0], [2], [0, 2], [1, -1]):
        check_against_cpu(lambda t, d=dims: ember.flip(t, d), x)
    check_against_cpu(lambda t: ember.flip(t.transpose(0, 2), [1]), x)


def test_flip_grad_empty_0dim():
    check_against_cpu(lambda t: ember.flip(t[:, ::2], [0, 1]), randn(4, 6), grad=True)
    check_against_cpu(lambda t: ember.flip(t, [0]), randn(0, 3))
    check_against_cpu(lambda t: ember.flip(t, [0]), np.array(2.5))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("k", [-2, 0, 1, 7])
def test_tril_triu(dtype, k):
    x = sample((2, 4, 5), dtype)
    check_against_cpu(lambda t: ember.tril(t, k), x)
    check_against_cpu(lambda t: ember.triu(t, k), x)
    check_against_cpu(lambda t: ember.triu(t.transpose(1, 2), k), x)


def test_tril_triu_grad_and_empty():
    check_against_cpu(lambda t: ember.tril(t[::2], -1) + ember.triu(t[1::2], 1), randn(6, 5), grad=True)
    check_against_cpu(lambda t: ember.tril(t), randn(0, 3))
    check_against_cpu(lambda t: ember.triu(t), randn(3, 0, 2))


# ---- gather, index_select ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather(dtype, dim):
    x = sample((4, 5, 6), dtype)
    size = x.shape[dim]
    index = np.random.default_rng(2).integers(0, size, size=(3, 4, 5))
    check_against_cpu(lambda t, i: ember.gather(t, dim, i), x, idx(index))
    strided_index = ember.from_numpy(np.ascontiguousarray(index.transpose(2, 1, 0))).transpose(0, 2)
    check_against_cpu(lambda t, i: ember.gather(t.transpose(0, 2), dim, i), sample((6, 5, 4), dtype),
                      strided_index)


def test_gather_grad_empty_0dim():
    index = idx(np.random.default_rng(3).integers(0, 4, size=(4, 6)))
    check_against_cpu(lambda t, i: ember.gather(t, 0, i), randn(4, 6), index, grad=True)
    check_against_cpu(lambda t, i: ember.gather(t, 1, i), randn(3, 4), idx(np.zeros((3, 0))))
    check_against_cpu(lambda t, i: ember.gather(t, 0, i), np.array(5.0), idx([0, 0]), grad=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_index_select(dtype, dim):
    x = sample((4, 5, 6), dtype)
    index = idx([2, 0, 2, 1])
    check_against_cpu(lambda t, i: ember.index_select(t, dim, i), x, index)
    check_against_cpu(lambda t, i: ember.index_select(t[:, 1:, ::2], dim, i[::2]), x, index)


def test_index_select_grad_empty():
    check_against_cpu(lambda t, i: ember.index_select(t, 0, i), randn(5, 3), idx([4, 0, 4, 4]), grad=True)
    check_against_cpu(lambda t, i: ember.index_select(t, 1, i), randn(5, 3), idx([]))
    check_against_cpu(lambda t, i: ember.index_select(t, 0, i), np.array(4.0), idx([0]))


# ---- scatter family ------------------------------------------------------------------------

def unique_rows_index(shape, size, dim, seed=0):
    """An index whose entries along dim are distinct (a plain scatter is then deterministic)."""
    rng = np.random.default_rng(seed)
    moved = list(shape)
    moved[dim], moved[-1] = moved[-1], moved[dim]
    out = np.empty(moved, dtype=np.int64)
    for pos in np.ndindex(*moved[:-1]):
        out[pos] = rng.permutation(size)[:moved[-1]]
    return np.swapaxes(out, dim, -1)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_plain(dtype, dim):
    x, src = sample((5, 6), dtype), sample((3, 4), dtype, seed=1)
    index = unique_rows_index((3, 4), 5 if dim == 0 else 6, dim)
    check_against_cpu(lambda t, i, s: ember.scatter(t, dim, i, s), x, index, src)
    check_against_cpu(lambda t, i: ember.scatter(t, dim, i, 3), x, index)
    check_against_cpu(lambda t, i, s: t.t().scatter_(dim, i, s), sample((6, 5), dtype), index, src)


@pytest.mark.parametrize("dtype", NUMERIC + [ember.bool])
@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_reduce_with_repeats(dtype, reduce):
    x, src = sample((4, 5), dtype), sample((6, 5), dtype, seed=1)
    index = idx(np.random.default_rng(4).integers(0, 4, size=(6, 5)))
    tol = dict(atol=0.1, rtol=0.05) if dtype in (ember.float16, ember.bfloat16) else {}
    check_against_cpu(lambda t, i, s: ember.scatter(t, 0, i, s, reduce=reduce), x, index, src, **tol)
    check_against_cpu(lambda t, i: ember.scatter(t, 0, i, 2, reduce=reduce), x, index, **tol)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_scatter_add(dtype):
    x, src = sample((4, 5), dtype), sample((4, 7), dtype, seed=1)
    index = idx(np.random.default_rng(5).integers(0, 5, size=(4, 7)))
    tol = dict(atol=0.5, rtol=0.05) if dtype in (ember.float16, ember.bfloat16) else {}
    check_against_cpu(lambda t, i, s: ember.scatter_add(t, 1, i, s), x, index, src, **tol)


def test_scatter_grads_and_empty():
    index = idx(np.random.default_rng(6).integers(0, 4, size=(3, 5)))
    check_against_cpu(lambda t, i, s: ember.scatter_add(t, 0, i, s), randn(4, 5), index, randn(3, 5),
                      grad=True)
    check_against_cpu(lambda t, i, s: ember.scatter(t, 0, i, s), randn(4, 5),
                      unique_rows_index((3, 5), 4, 0), randn(3, 5), grad=True)
    check_against_cpu(lambda t, i, s: ember.scatter(t, 0, i, s), randn(4, 5), idx(np.zeros((0, 5))),
                      randn(0, 5))


@pytest.mark.parametrize("dtype", NUMERIC + [ember.bool])
@pytest.mark.parametrize("dim", [0, 1])
def test_index_add_copy_fill(dtype, dim):
    x = sample((5, 6), dtype)
    src = sample((3, 6) if dim == 0 else (5, 3), dtype, seed=1)
    tol = dict(atol=0.5, rtol=0.05) if dtype in (ember.float16, ember.bfloat16) else {}
    check_against_cpu(lambda t, i, s: ember.index_add(t, dim, i, s), x, idx([4, 0, 4]), src, **tol)
    if dtype != ember.bool:
        check_against_cpu(lambda t, i, s: ember.index_add(t, dim, i, s, alpha=2), x, idx([1, 1, 2]), src,
                          **tol)
    check_against_cpu(lambda t, i, s: ember.index_copy(t, dim, i, s), x, idx([2, 0, 4]), src)
    check_against_cpu(lambda t, i: ember.index_fill(t, dim, i, 1), x, idx([0, -1]))
    check_against_cpu(lambda t, i: t.t().index_fill_(1 - dim, i, 0), sample((6, 5), dtype), idx([1, -2]))


def test_index_add_copy_fill_grads():
    check_against_cpu(lambda t, i, s: ember.index_add(t, 0, i, s, alpha=0.5), randn(4, 3), idx([1, 1, 3]),
                      randn(3, 3), grad=True)
    check_against_cpu(lambda t, i, s: ember.index_copy(t, 1, i, s), randn(4, 3), idx([2, 0]), randn(4, 2),
                      grad=True)
    check_against_cpu(lambda t, i: ember.index_fill(t, 1, i, 2.0), randn(4, 3), idx([2]), grad=True)


# ---- take, masked_fill, nonzero ------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_take(dtype):
    x = sample((4, 5), dtype)
    index = idx([[0, 19, -1], [-20, 7, 7]])
    check_against_cpu(lambda t, i: ember.take(t, i), x, index)
    check_against_cpu(lambda t, i: ember.take(t.t(), i), x, index)
    check_against_cpu(lambda t, i: ember.take(t, i), x, idx(np.zeros((0, 2))))


def test_take_grad_0dim():
    check_against_cpu(lambda t, i: ember.take(t[:, 1:], i), randn(3, 4), idx([0, 8, 8, -1]), grad=True)
    check_against_cpu(lambda t, i: ember.take(t, i), np.array(3.0), idx(0))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_masked_fill(dtype):
    x = sample((3, 4), dtype)
    mask = np.random.default_rng(7).random((3, 4)) < 0.5
    check_against_cpu(lambda t, m: ember.masked_fill(t, m, 1), x, mask)
    check_against_cpu(lambda t, m: ember.masked_fill(t.t(), m[0], 0), sample((4, 3), dtype), mask)


def test_masked_fill_grad_and_cpu_scalar_mask():
    mask = np.random.default_rng(8).random((3, 4)) < 0.5
    check_against_cpu(lambda t, m: ember.masked_fill(t, m, 2.5), randn(3, 4), mask, grad=True)
    x = ember.ones(3, device="cuda")
    assert x.masked_fill(ember.tensor(True), 0.0).cpu().tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_nonzero(dtype):
    rng = np.random.default_rng(9)
    a = rng.integers(1, 50, size=(4, 5, 3)) * (rng.random((4, 5, 3)) < 0.4)
    x = ember.from_numpy(a.astype(np.float64)).to(dtype)
    check_against_cpu(lambda t: ember.nonzero(t), x)
    check_against_cpu(lambda t: ember.nonzero(t.transpose(0, 2)), x)


def test_nonzero_edges():
    check_against_cpu(lambda t: ember.nonzero(t), np.zeros((3, 4)))
    check_against_cpu(lambda t: ember.nonzero(t), np.zeros((0, 4)))
    check_against_cpu(lambda t: ember.nonzero(t), np.array(2.0))
    check_against_cpu(lambda t: ember.nonzero(t), np.array(0.0))
    check_against_cpu(lambda t: ember.nonzero(t), np.array([np.nan, 0.0, -0.0, 1.0]))
    big = (np.arange(300000) % 7 == 0).astype(np.float32)
    check_against_cpu(lambda t: ember.nonzero(t), big)


# ---- advanced indexing ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_advanced_index(dtype):
    x = sample((4, 5, 6), dtype)
    rows, cols = idx([0, -1, 2, 2]), idx([[1], [-5], [4]])
    check_against_cpu(lambda t, i: t[i], x, rows)
    check_against_cpu(lambda t, i, j: t[i, j], x, rows, cols)
    check_against_cpu(lambda t, i, j: t[:, i, j], x, rows, idx([1, -5, 4, 0]))
    check_against_cpu(lambda t, i, j: t[i, :, j], x, rows, idx([0, 5, -6, 1]))
    check_against_cpu(lambda t, i: t.transpose(0, 2)[i], x, rows)


def test_boolean_index_and_grads():
    a = randn(4, 5)
    check_against_cpu(lambda t: t[t > 0], a, grad=True)
    check_against_cpu(lambda t: t[:, t[0] > 0], a, grad=True)
    check_against_cpu(lambda t: t[t > 100], a)
    check_against_cpu(lambda t, i: t[i, 1:], a, idx([3, 3, 0]), grad=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(dtype, accumulate):
    x = sample((5, 4), dtype)
    tol = dict(atol=0.5, rtol=0.05) if dtype in (ember.float16, ember.bfloat16) else {}
    rows = idx([0, -1, 3]) if not accumulate else idx([0, 4, -1, 4, 2])
    vals = sample((len(rows), 4), dtype, seed=2)

    def put(t, i, v):
        t = t.clone()
        t.index_put_((i,), v, accumulate=accumulate)
        return t
    check_against_cpu(put, x, rows, vals, **tol)
    check_against_cpu(lambda t, i, v: put(t, i, v[0]), x, rows, vals, **tol)  # broadcast values


def test_index_put_grads_and_cpu_scalar_value():
    def put(t, i, v):
        return ember.index_put(t, (None, i), v, accumulate=True)
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
    expect_index_error(lambda: x.clone().scatter_(1, bad, ember.ones(1, 2, device="cuda")))
    expect_index_error(lambda: x.clone().scatter_add_(1, bad, ember.ones(1, 2, device="cuda")))
    expect_index_error(lambda: x.clone().index_add_(0, ember.tensor([3], device="cuda"),
                                                    ember.ones(1, 4, device="cuda")))
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
