"""CUDA kernels of the reduce group (lib/cuda/reduce/) against the CPU kernels
(cuda_compare.check_against_cpu), for what the op database's device check
(test_opdb.py::test_device_matches_cpu: every row's samples over dims / keepdim /
None, several dims, strided, empty and 0-dim inputs, every dtype the row claims,
and gradients) does not reach: dtype arguments and integer promotion, empty
max ranges, NaN propagation and first indices, edge values, the kernels' strategies
(long reductions split across blocks, many short rows, long scans and softmax rows)
and determinism. They need a GPU (skipped without one)."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from cuda_compare import check_against_cpu

pytestmark = pytest.mark.cuda

FLOATS = [ember.float16, ember.bfloat16, ember.float32, ember.float64]
INTS = [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64]


def data(shape, dtype=ember.float32, seed=0):
    """Values every dtype holds (small integers for integer dtypes, 0/1 for bool)."""
    rng = np.random.default_rng(seed)
    if dtype == ember.bool:
        return ember.from_numpy(rng.integers(0, 2, size=shape).astype(np.bool_))
    if dtype in INTS:
        return ember.from_numpy(rng.integers(0, 5, size=shape).astype(np.int64)).to(dtype)
    return ember.from_numpy(rng.standard_normal(shape)).to(dtype)


# ---- sum, mean, prod ---------------------------------------------------------------------

def test_sum_dtype_argument_and_int_promotion():
    x = data((6, 7), ember.int32)
    check_against_cpu(lambda x: ember.sum(x, dim=1), x)  # int64 result
    check_against_cpu(lambda x: ember.sum(x, dim=0, dtype=ember.float64), x)
    check_against_cpu(lambda x: ember.sum(x, dtype=ember.int32), x)
    check_against_cpu(lambda x: ember.sum(x, dtype=ember.float32), data((5, 5), ember.float16))


def test_sum_non_contiguous():
    x = data((8, 9, 10))
    check_against_cpu(lambda x: x.transpose(0, 2).sum(dim=1), x, grad=True)
    check_against_cpu(lambda x: x[:, ::2, 1:].sum(dim=(0, 2)), x, grad=True)
    check_against_cpu(lambda x: x.permute(2, 0, 1).mean(dim=(0, 2), keepdim=True), x, grad=True)
    check_against_cpu(lambda x: x.expand(5, 3, 4).sum(0), data((1, 3, 4)), grad=True)


def test_empty_and_zero_dim():
    check_against_cpu(lambda x: x.sum(), data((0, 3)))
    check_against_cpu(lambda x: x.sum(0), data((0, 3)))
    check_against_cpu(lambda x: x.sum(1), data((0, 3)))
    check_against_cpu(lambda x: x.mean(0), data((0, 3)))  # NaN
    check_against_cpu(lambda x: x.prod(0), data((0, 3)))
    check_against_cpu(lambda x: ember.count_nonzero(x, dim=0), data((0, 3)))
    check_against_cpu(lambda x: ember.any(x, dim=0), data((0, 3), ember.bool))
    check_against_cpu(lambda x: ember.all(x, dim=0), data((0, 3), ember.bool))
    check_against_cpu(lambda x: ember.var(x, dim=0), data((0, 3)))
    check_against_cpu(lambda x: ember.logsumexp(x, dim=0), data((0, 3)))
    s = ember.tensor(2.5)
    for fn in (lambda x: x.sum(), lambda x: x.mean(), lambda x: x.prod(), lambda x: x.amax(),
               lambda x: x.max(dim=0), lambda x: x.argmax(), lambda x: ember.var(x, correction=0),
               lambda x: ember.logsumexp(x, dim=0), lambda x: x.norm(), lambda x: ember.cumsum(x, 0),
               lambda x: F.softmax(x, dim=0), lambda x: F.log_softmax(x, dim=0)):
        check_against_cpu(fn, s, grad=True)


@pytest.mark.parametrize("op", ["amax", "max", "argmax"])
def test_empty_max_raises(op):
    x = ember.zeros((0, 3), device="cuda")
    with pytest.raises(Exception):
        getattr(x, op)()


# ---- max / min ---------------------------------------------------------------------------

def test_nan_propagation_and_first_index():
    v = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 2.0, 1.0, 2.0], [-np.inf, -np.inf, -np.inf, -np.inf]])
    for dtype in FLOATS:
        x = ember.from_numpy(v).to(dtype)
        for fn in (lambda x: x.amax(1), lambda x: x.amin(1), lambda x: x.max(dim=1), lambda x: x.min(dim=1),
                   lambda x: x.argmax(1), lambda x: x.argmin(1), lambda x: x.argmax(), lambda x: x.amax(),
                   lambda x: ember.aminmax(x, dim=1), lambda x: x.norm(float("inf"), dim=1)):
            check_against_cpu(fn, x)
    # The first of equal maxima, and the first NaN, over a long split range too.
    big = np.zeros(3_000_000)
    big[2_000_000] = big[2_500_000] = 7.0
    check_against_cpu(lambda x: x.argmax(), big)
    big[1_000_123] = np.nan
    big[2_999_999] = np.nan
    check_against_cpu(lambda x: (x.argmax(), x.amax(), x.argmin()), big)


# ---- var / std / norm / logsumexp ----------------------------------------------------------

def test_var_edge_cases():
    check_against_cpu(lambda x: ember.var(x, dim=1), data((3, 1)))  # n - correction == 0: nan/inf
    check_against_cpu(lambda x: ember.std(x, dim=0, correction=3), data((2, 4)))
    check_against_cpu(lambda x: ember.var(x + 1e4, dim=1), data((3, 100_000)))  # Welford: no cancellation


def test_logsumexp_infinities():
    v = np.array([[1.0, np.inf, 0.0], [-np.inf, -np.inf, -np.inf], [np.nan, 1.0, 2.0], [1e30, 1e30, -1e30]])
    check_against_cpu(lambda x: ember.logsumexp(x, dim=1), v)


# ---- long reductions ------------------------------------------------------------------------

def test_large_single_output_reductions():
    n = 10_000_000
    x = np.random.default_rng(1).standard_normal(n)
    for dtype in (ember.float32, ember.float64):
        t = ember.from_numpy(x).to(dtype)
        check_against_cpu(lambda x: (x.sum(), x.mean(), x.amax(), x.argmin(), x.norm()), t,
                          atol=1e-3 if dtype == ember.float32 else None, rtol=1e-4 if dtype == ember.float32 else None)
        check_against_cpu(lambda x: (ember.var(x), ember.logsumexp(x, dim=0)), t,
                          atol=1e-4 if dtype == ember.float32 else None, rtol=1e-4 if dtype == ember.float32 else None)
    i = ember.from_numpy((x > 0).astype(np.int64))
    check_against_cpu(lambda x: (x.sum(), ember.count_nonzero(x), x.bool().all(), x.bool().any()), i)
    # Few long columns (strided path split across blocks), and few long rows.
    check_against_cpu(lambda x: x.sum(0), data((1_000_000, 3), ember.float64))
    check_against_cpu(lambda x: x.sum(1), data((2, 3_000_000), ember.float64))


def test_deterministic():
    x = ember.from_numpy(np.random.default_rng(2).standard_normal(5_000_000).astype(np.float32)).to("cuda")
    a = [x.sum().cpu().item() for _ in range(3)]
    b = [x.view(1000, 5000).sum(0).cpu().numpy() for _ in range(3)]
    assert a[0] == a[1] == a[2]
    assert all(np.array_equal(b[0], bi) for bi in b)


def test_many_outputs_short_rows():
    check_against_cpu(lambda x: (x.sum(1), x.amax(1), ember.var(x, dim=1)), data((100_000, 3)))
    check_against_cpu(lambda x: (x.sum(0), x.argmax(0)), data((3, 100_000)))


# ---- scans ------------------------------------------------------------------------------------

def test_scan_long_rows_and_views():
    check_against_cpu(lambda x: ember.cumsum(x, 0), data((100_000,), ember.float64), grad=True)
    check_against_cpu(lambda x: ember.cumsum(x, 1), data((3, 70_001), ember.int64))
    check_against_cpu(lambda x: ember.cumsum(x.transpose(0, 1), 1), data((50, 40)), grad=True)
    check_against_cpu(lambda x: ember.cumsum(x, 0, dtype=ember.float64), data((30, 4), ember.float32))
    check_against_cpu(lambda x: ember.cumsum(x, 0), data((0, 4)))
    check_against_cpu(lambda x: ember.cumsum(x, 1), data((4, 0)))


# ---- softmax / log_softmax ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,dim", [((4, 5, 6), -1), ((4, 5, 6), 1), ((4, 5, 6), 0), ((3, 2000), 1),
                                       ((2, 5000), -1), ((7, 1), 1), ((1000, 33), 1)])
@pytest.mark.parametrize("log", [False, True])
def test_softmax(dtype, shape, dim, log):
    fn = F.log_softmax if log else F.softmax
    x = (data(shape, dtype) * 10).to(dtype)
    check_against_cpu(lambda x: fn(x, dim=dim), x, grad=True)


def test_softmax_edge_cases():
    v = np.array([[1.0, np.inf, 0.0], [-np.inf, -np.inf, -np.inf], [np.nan, 1.0, 2.0], [1e4, -1e4, 1e4]])
    check_against_cpu(lambda x: (F.softmax(x, dim=1), F.log_softmax(x, dim=1)), v)
    check_against_cpu(lambda x: F.softmax(x.transpose(0, 1), dim=0), data((6, 9)), grad=True)
    check_against_cpu(lambda x: F.softmax(x, dim=1, dtype=ember.float64), data((6, 9)))
    check_against_cpu(lambda x: F.log_softmax(x, dim=0), data((0, 9)))
