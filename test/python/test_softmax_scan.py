"""softmax, log_softmax, cumsum and cumprod against float64 numpy references."""
import math
import warnings

import numpy as np
import pytest

import ember
from test_reduce import ALL, FLOATS, INTS, E, N, check, layouts, sample, shape_of

SHAPES = [(), (1,), (7,), (3, 4), (2, 3, 5), (4, 1, 3), (0,), (2, 0, 3), (3, 0)]


def dims_of(ndim):
    return [0, -1] if ndim == 0 else list(range(-ndim, ndim))


def np_softmax(a, axis, log):
    if a.ndim == 0:
        return np.array(0.0) if log else np.array(1.0)
    with np.errstate(all="ignore"):
        m = np.max(a, axis=axis, keepdims=True) if a.size else 0
        e = np.exp(a - m)
        s = np.sum(e, axis=axis, keepdims=True)
        return (a - m - np.log(s)) if log else e / s


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("log", [False, True])
def test_softmax(shape, dtype, log):
    a, t = sample(shape, dtype, -10, 10)
    fn = ember.log_softmax if log else ember.softmax
    for an, tn in layouts(a, t):
        for dim in dims_of(an.ndim):
            ref = np_softmax(an, dim, log)
            check(fn(tn, dim), ref, dtype, exact_dtype=dtype)
            method = tn.log_softmax if log else tn.softmax
            check(method(dim=dim), ref, dtype)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_dtype_argument(log):
    a, t = sample((3, 5), ember.float32)
    fn = ember.log_softmax if log else ember.softmax
    check(fn(t, 1, dtype=ember.float64), np_softmax(a, 1, log), exact_dtype=ember.float64)
    ints = E(np.arange(6).reshape(2, 3))
    check(fn(ints, 0, dtype=ember.float32), np_softmax(np.arange(6.0).reshape(2, 3), 0, log),
          exact_dtype=ember.float32)
    h = t.half()
    check(fn(h, 1, ember.float32), np_softmax(N(h).astype(np.float64), 1, log), exact_dtype=ember.float32)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape, dim", [((3, 70001), 1), ((1, 300000), 1), ((300000,), 0),
                                        ((70001, 3), 0), ((5, 20000, 3), 1), ((2, 4096), 0)])
def test_softmax_large(shape, dim, log):
    """Rows in parallel, one long row split across threads, and columns."""
    a = (RNG.standard_normal(shape) * 5).astype(np.float32)
    got = (ember.log_softmax if log else ember.softmax)(E(a), dim)
    rtol = 1e-5 if log else 1e-4
    np.testing.assert_allclose(N(got), np_softmax(a.astype(np.float64), dim, log), rtol=rtol, atol=1e-6)


RNG = np.random.default_rng(1)


def test_softmax_is_stable_and_handles_special_values():
    big = E(np.array([1000.0, 1001.0, 1002.0], dtype=np.float32))
    check(big.softmax(0), np_softmax(np.array([0.0, 1.0, 2.0]), 0, False))
    check(big.log_softmax(0), np_softmax(np.array([0.0, 1.0, 2.0]), 0, True))
    inf, nan = math.inf, math.nan
    # As PyTorch: a row holding nan, +inf or only -inf gives nan; -inf entries give 0 / -inf.
    for row, soft, logsoft in [([-inf, 0.0], [0.0, 1.0], [-inf, 0.0]),
                               ([-inf, -inf], [nan, nan], [nan, nan]),
                               ([nan, 1.0], [nan, nan], [nan, nan]),
                               ([inf, 1.0], [nan, nan], [nan, nan])]:
        for n in (1, 100000):  # one row; a long row split across threads
            x = E(np.repeat(np.array(row, dtype=np.float32), n))
            s, l = N(x.softmax(0)), N(x.log_softmax(0))
            exp_s = np.repeat(np.array(soft), n) / (n if n > 1 and not np.isnan(soft).any() else 1)
            exp_l = np.repeat(np.array(logsoft), n) - (math.log(n) if n > 1 else 0)
            np.testing.assert_allclose(s, exp_s, rtol=1e-5, equal_nan=True, err_msg=str(row))
            np.testing.assert_allclose(l, exp_l, rtol=1e-5, equal_nan=True, err_msg=str(row))
        col = E(np.repeat(np.array(row, dtype=np.float32)[:, None], 8, axis=1))  # the columns path
        np.testing.assert_allclose(N(col.softmax(0)), np.repeat(np.array(soft)[:, None], 8, axis=1),
                                   equal_nan=True)


# ---- cumsum / cumprod -----------------------------------------------------------------------

def scan_dtype(dtype):
    return ember.int64 if dtype in INTS or dtype == ember.bool else dtype


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", SHAPES)
def test_cumsum_cumprod(shape, dtype):
    a, t = sample(shape, dtype, -2, 2)
    for an, tn in layouts(a, t):
        for dim in dims_of(an.ndim):
            ax = None if an.ndim == 0 else dim
            ref_s = np.cumsum(an.astype(np.float64), axis=ax).reshape(an.shape)
            ref_p = np.cumprod(an.astype(np.float64), axis=ax).reshape(an.shape)
            rtol = 2e-2 if dtype in (ember.float16, ember.bfloat16) else None
            check(ember.cumsum(tn, dim), ref_s, dtype, exact_dtype=scan_dtype(dtype), rtol=rtol,
                  atol=0.05 if rtol else None)
            check(tn.cumprod(dim), ref_p, dtype, exact_dtype=scan_dtype(dtype), rtol=rtol,
                  atol=0.05 if rtol else None)


def test_cumsum_dtype_argument_and_large():
    b = E(np.array([True, True, False, True]))
    check(b.cumsum(0), np.array([1, 2, 2, 3]), exact_dtype=ember.int64)
    check(b.cumsum(0, dtype=ember.float32), np.array([1.0, 2.0, 2.0, 3.0]), exact_dtype=ember.float32)
    check(E(np.arange(1, 5)).cumprod(0, dtype=ember.float64), np.array([1.0, 2.0, 6.0, 24.0]),
          exact_dtype=ember.float64)
    f = E(np.array([0.5, 1.5, 2.5], dtype=np.float32))
    check(f.cumsum(0, dtype=ember.int32), np.array([0, 1, 3]), exact_dtype=ember.int32)
    a = RNG.random((3, 100000)).astype(np.float32)
    np.testing.assert_allclose(N(E(a).cumsum(1)), np.cumsum(a.astype(np.float64), 1), rtol=1e-6)
    np.testing.assert_allclose(N(E(a.T.copy()).cumsum(0)), np.cumsum(a.T.astype(np.float64), 0), rtol=1e-6)
    np.testing.assert_allclose(N(E(a).t().cumsum(0)), np.cumsum(a.T.astype(np.float64), 0), rtol=1e-6)
    assert shape_of(ember.zeros(0, 3).cumsum(1)) == (0, 3)
