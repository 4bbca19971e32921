"""CUDA kernels of the reduce group (lib/cuda/reduce/): every op of reduce.def against
the CPU kernels (cuda_compare.check_against_cpu): dims / keepdim / None, several dims
(consecutive and not), non-contiguous inputs, empty and 0-dim inputs, the dtypes each
op takes, NaN propagation and first indices, long reductions split across blocks,
determinism, and gradients. They need a GPU (skipped without one)."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from cuda_compare import check_against_cpu

pytestmark = pytest.mark.cuda

FLOATS = [ember.float16, ember.bfloat16, ember.float32, ember.float64]
INTS = [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64]
ALL = [ember.bool] + INTS + FLOATS


def data(shape, dtype=ember.float32, seed=0):
    """Values every dtype holds (small integers for integer dtypes, 0/1 for bool)."""
    rng = np.random.default_rng(seed)
    if dtype == ember.bool:
        return ember.from_numpy(rng.integers(0, 2, size=shape).astype(np.bool_))
    if dtype in INTS:
        return ember.from_numpy(rng.integers(0, 5, size=shape).astype(np.int64)).to(dtype)
    return ember.from_numpy(rng.standard_normal(shape)).to(dtype)


# (dim, keepdim) cases over a [4, 5, 6] input: one dim, several (consecutive and not), all.
DIMS = [(None, False), (0, False), (1, True), (2, False), (-1, True), ((0, 1), False),
        ((0, 2), True), ((1, 2), False), ((0, 1, 2), True)]


def reduce_call(op, x, dim, keepdim, **kw):
    if dim is None:
        return op(x, **kw)
    return op(x, dim=dim, keepdim=keepdim, **kw)


# ---- sum, mean, prod ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("dim,keepdim", DIMS)
def test_sum(dtype, dim, keepdim):
    check_against_cpu(lambda x: reduce_call(ember.sum, x, dim, keepdim), data((4, 5, 6), dtype),
                      grad=dtype in FLOATS)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim,keepdim", DIMS)
def test_mean(dtype, dim, keepdim):
    check_against_cpu(lambda x: reduce_call(ember.mean, x, dim, keepdim), data((4, 5, 6), dtype), grad=True)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), (2, True)])
def test_prod(dtype, dim, keepdim):
    x = data((3, 4, 5), dtype)
    if dtype in FLOATS:
        x = (x * 0.5 + 1).to(dtype)
    check_against_cpu(lambda x: x.prod() if dim is None else x.prod(dim, keepdim=keepdim), x,
                      grad=dtype in FLOATS)


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

@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("dim,keepdim", DIMS)
def test_amax_amin(dtype, dim, keepdim):
    x = data((4, 5, 6), dtype)
    check_against_cpu(lambda x: reduce_call(ember.amax, x, dim, keepdim), x, grad=dtype in FLOATS)
    check_against_cpu(lambda x: reduce_call(ember.amin, x, dim, keepdim), x, grad=dtype in FLOATS)
    if dim is not None:
        check_against_cpu(lambda x: ember.aminmax(x, dim=dim if isinstance(dim, int) else dim[0],
                                                  keepdim=keepdim), x)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, True), (2, False), (-1, True)])
def test_max_min_dim_arg(dtype, dim, keepdim):
    x = data((4, 5, 6), dtype)  # small integers: many ties, the first index wins
    g = dtype in FLOATS
    check_against_cpu(lambda x: x.max(dim=dim, keepdim=keepdim), x, grad=g)
    check_against_cpu(lambda x: x.min(dim=dim, keepdim=keepdim), x, grad=g)
    if dtype == ember.bool:  # argmax/argmin take no bool (as PyTorch)
        return
    check_against_cpu(lambda x: x.argmax(dim=dim, keepdim=keepdim), x)
    check_against_cpu(lambda x: x.argmin(dim=dim, keepdim=keepdim), x)
    check_against_cpu(lambda x: x.argmax(), x)
    check_against_cpu(lambda x: x.argmin(keepdim=True), x)
    check_against_cpu(lambda x: x.transpose(0, 2).argmax(dim=1), x)


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

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim,keepdim", DIMS)
@pytest.mark.parametrize("correction", [0, 1, 2])
def test_var_std(dtype, dim, keepdim, correction):
    x = data((4, 5, 6), dtype)
    d = dim if dim is not None else None
    check_against_cpu(lambda x: ember.var(x, dim=d, correction=correction, keepdim=keepdim), x, grad=True)
    check_against_cpu(lambda x: ember.std(x, dim=d, correction=correction, keepdim=keepdim), x, grad=True)
    check_against_cpu(lambda x: ember.var_mean(x, dim=d, correction=correction, keepdim=keepdim), x, grad=True)
    check_against_cpu(lambda x: ember.std_mean(x, dim=d, correction=correction, keepdim=keepdim), x, grad=True)


def test_var_edge_cases():
    check_against_cpu(lambda x: ember.var(x, dim=1), data((3, 1)))  # n - correction == 0: nan/inf
    check_against_cpu(lambda x: ember.std(x, dim=0, correction=3), data((2, 4)))
    check_against_cpu(lambda x: ember.var(x + 1e4, dim=1), data((3, 100_000)))  # Welford: no cancellation


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("p", [2, 1, 0, 3, 0.5, float("inf"), float("-inf")])
@pytest.mark.parametrize("dim", [None, 1, (0, 2)])
def test_norm(dtype, p, dim):
    x = data((4, 5, 6), dtype)
    check_against_cpu(lambda x: x.norm(p) if dim is None else x.norm(p, dim=dim), x, grad=p not in (0,))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim,keepdim", [d for d in DIMS if d[0] is not None])
def test_logsumexp(dtype, dim, keepdim):
    x = (data((4, 5, 6), dtype) * 20).to(dtype)
    check_against_cpu(lambda x: ember.logsumexp(x, dim=dim, keepdim=keepdim), x, grad=True)


def test_logsumexp_infinities():
    v = np.array([[1.0, np.inf, 0.0], [-np.inf, -np.inf, -np.inf], [np.nan, 1.0, 2.0], [1e30, 1e30, -1e30]])
    check_against_cpu(lambda x: ember.logsumexp(x, dim=1), v)


# ---- any / all / count_nonzero -------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("dim,keepdim", DIMS)
def test_any_all_count_nonzero(dtype, dim, keepdim):
    x = data((4, 5, 6), dtype)
    check_against_cpu(lambda x: reduce_call(ember.any, x, dim if not isinstance(dim, tuple) else dim[0], keepdim), x)
    check_against_cpu(lambda x: reduce_call(ember.all, x, dim if not isinstance(dim, tuple) else dim[0], keepdim), x)
    check_against_cpu(lambda x: ember.count_nonzero(x) if dim is None else ember.count_nonzero(x, dim=dim), x)


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

@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_cumprod(dtype, dim):
    x = data((5, 7, 300), dtype)
    check_against_cpu(lambda x: ember.cumsum(x, dim), x, grad=dtype in FLOATS)
    y = data((5, 7, 9), dtype)
    if dtype in FLOATS:
        y = (y * 0.2 + 1).to(dtype)
    check_against_cpu(lambda x: ember.cumprod(x, dim), y, grad=dtype in FLOATS)


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
