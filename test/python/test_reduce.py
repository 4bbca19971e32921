"""Reductions (sum, mean, prod, max/min, amax/amin, argmax/argmin, var/std, norm,
logsumexp, any/all, count_nonzero, aminmax) against float64 numpy references, on
contiguous, transposed, sliced, expanded, 0-dim and empty inputs of every dtype."""
import ctypes
import math
import warnings

import numpy as np
import pytest

import ember

NP_TO_EMBER = {
    np.dtype(np.bool_): ember.bool, np.dtype(np.uint8): ember.uint8, np.dtype(np.int8): ember.int8,
    np.dtype(np.int16): ember.int16, np.dtype(np.int32): ember.int32, np.dtype(np.int64): ember.int64,
    np.dtype(np.float16): ember.float16, np.dtype(np.float32): ember.float32,
    np.dtype(np.float64): ember.float64,
}
EMBER_TO_NP = {v: k for k, v in NP_TO_EMBER.items()}
FLOATS = [ember.float32, ember.float64, ember.float16, ember.bfloat16]
INTS = [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64]
ALL = FLOATS + INTS + [ember.bool]


def E(a, dtype=None):
    """A contiguous ember tensor with the values of numpy array a (bfloat16 via float32)."""
    a = np.array(a, order="C")  # (ascontiguousarray makes 0-d arrays 1-d)
    if hasattr(ember, "from_numpy"):
        t = ember.from_numpy(a).clone()
    else:
        t = ember.empty(list(a.shape), dtype=NP_TO_EMBER[a.dtype])
        if a.size:
            ctypes.memmove(t.data_ptr(), a.ctypes.data, a.nbytes)
    return t if dtype is None else t.to(dtype)


def shape_of(t):
    return tuple(t.shape) if hasattr(t, "shape") else tuple(t._shape)


def N(t):
    """The values of an ember tensor as numpy (bfloat16 as float32)."""
    if t.dtype == ember.bfloat16:
        t = t.float()
    t = t.contiguous()
    out = np.empty(shape_of(t), dtype=EMBER_TO_NP[t.dtype])
    if out.size:
        ctypes.memmove(out.ctypes.data, t.data_ptr(), out.nbytes)
    return out


def tol(dtype):
    return {ember.float16: (2e-3, 2e-3), ember.bfloat16: (1.6e-2, 1e-2),
            ember.float32: (2e-5, 1e-5)}.get(dtype, (1e-10, 1e-10))


def check(got, expected, dtype=None, exact_dtype=None, rtol=None, atol=None):
    if exact_dtype is not None:
        assert got.dtype == exact_dtype, f"dtype {got.dtype} != {exact_dtype}"
    g = N(got)
    e = np.asarray(expected)
    assert g.shape == e.shape, f"shape {g.shape} != {e.shape}"
    rtol_, atol_ = tol(dtype or got.dtype)
    rtol = rtol or rtol_
    atol = atol_ if atol is None else atol
    if g.dtype == np.bool_ or e.dtype == np.bool_:
        np.testing.assert_array_equal(g, e)
    else:
        np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True)


RNG = np.random.default_rng(0)


def sample(shape, dtype, low=-3, high=3):
    """Random values exactly representable in dtype (as float64 numpy) and the ember tensor."""
    if dtype == ember.bool:
        a = RNG.random(shape) < 0.5
    elif dtype in INTS:
        lo = 0 if dtype == ember.uint8 else low
        a = RNG.integers(lo, high + 1, size=shape).astype(EMBER_TO_NP[dtype])
    else:
        a = RNG.uniform(low, high, size=shape).astype(np.float32)
        if dtype == ember.float16:
            a = a.astype(np.float16)
        t = E(a, dtype)
        return N(t).astype(np.float64), t
    return a, E(a)


def layouts(a, t):
    """(numpy, ember) pairs with the same values: contiguous, transposed, sliced, expanded."""
    out = [(a, t)]
    if t.dim() >= 2:
        out.append((a, t.transpose(0, -1).contiguous().transpose(0, -1)))
        tt = t.transpose(0, 1)
        out.append((a.swapaxes(0, 1), tt))
    if t.dim() >= 1 and shape_of(t)[-1] > 1:
        sizes, strides = list(shape_of(t)), list(t.stride())
        sizes[-1], strides[-1] = (sizes[-1] + 1) // 2, strides[-1] * 2
        out.append((a[..., ::2], t.as_strided(sizes, strides, t.storage_offset())))
    if t.dim() >= 1 and shape_of(t)[0] >= 1:
        first = t.narrow(0, 0, 1)
        out.append((np.broadcast_to(a[:1], a.shape), first.expand(*shape_of(t))))
    return out


SHAPES = [(), (1,), (7,), (3, 4), (2, 3, 5), (4, 1, 3), (0,), (2, 0, 3)]


def dim_choices(ndim):
    choices = [None]
    if ndim == 0:
        return choices + [0, -1, (0,)]
    choices += list(range(ndim)) + [-1]
    if ndim >= 2:
        choices += [(0, ndim - 1), (-1, 0)]
    if ndim >= 3:
        choices += [(0, 1, 2), (1,)]
    return choices


def np_axis(dim, ndim):
    if dim is None or ndim == 0:
        return None
    return dim if isinstance(dim, tuple) else (dim,)


def call(fn, t, dim, keepdim, **kw):
    if dim is None:
        return fn(t, keepdim=keepdim, **kw) if keepdim else fn(t, **kw)
    return fn(t, dim, keepdim=keepdim, **kw)


# ---- sum / mean / prod -------------------------------------------------------------------

def sum_dtype(dtype):
    return ember.int64 if dtype in INTS or dtype == ember.bool else dtype


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", SHAPES)
def test_sum(shape, dtype):
    a, t = sample(shape, dtype)
    for an, tn in layouts(a, t):
        for dim in dim_choices(an.ndim):
            for keepdim in (False, True):
                ref = np.sum(an.astype(np.float64), axis=np_axis(dim, an.ndim), keepdims=keepdim)
                got = call(ember.sum, tn, dim, keepdim)
                check(got, ref, dtype, exact_dtype=sum_dtype(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_mean(shape, dtype):
    a, t = sample(shape, dtype)
    for an, tn in layouts(a, t):
        for dim in dim_choices(an.ndim):
            for keepdim in (False, True):
                with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ref = np.mean(an.astype(np.float64), axis=np_axis(dim, an.ndim), keepdims=keepdim)
                check(call(ember.mean, tn, dim, keepdim), ref, dtype, exact_dtype=dtype)
                check(call(lambda x, *a, **k: x.mean(*a, **k), tn, dim, keepdim), ref, dtype)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 2), (0, 3)])
def test_prod(shape, dtype):
    a, t = sample(shape, dtype, -2, 2)
    for an, tn in layouts(a, t):
        for dim in dim_choices(an.ndim):
            if isinstance(dim, tuple):
                # torch.prod takes one int dim: a tuple is a TypeError there, as here.
                with pytest.raises(TypeError):
                    call(ember.prod, tn, dim, False)
                continue
            ref = np.prod(an.astype(np.float64), axis=np_axis(dim, an.ndim))
            check(call(ember.prod, tn, dim, False), ref, dtype, exact_dtype=sum_dtype(dtype))


def test_sum_mean_prod_dtype_argument():
    a, t = sample((3, 4), ember.int32)
    check(t.sum(dtype=ember.float64), a.sum(), exact_dtype=ember.float64)
    check(t.sum(1, dtype=ember.int16), a.sum(1), exact_dtype=ember.int16)
    check(t.mean(dtype=ember.float32), a.mean(), exact_dtype=ember.float32)
    check(t.prod(0, dtype=ember.float64), a.astype(np.float64).prod(0), exact_dtype=ember.float64)
    f = E(np.array([0.5, 1.5, 2.5], dtype=np.float32))
    check(f.sum(dtype=ember.int64), np.array(3), exact_dtype=ember.int64)  # cast first, as PyTorch
    check(E(np.array([0, 2, 0])).sum(dtype=ember.bool), np.array(True), exact_dtype=ember.bool)


def test_empty_reductions():
    e = ember.empty(0)
    assert e.sum().item() == 0
    assert e.prod().item() == 1
    assert math.isnan(e.mean().item())
    assert e.sum().dtype == ember.float32
    check(ember.zeros(0, 3).sum(0), np.zeros(3))
    check(ember.zeros(0, 3).prod(0), np.ones(3))
    assert np.isnan(N(ember.zeros(0, 3).mean(0))).all()
    check(ember.zeros(3, 0).sum(1, keepdim=True), np.zeros((3, 1)))
    assert ember.empty(0, dtype=ember.int32).sum().dtype == ember.int64


def test_large_float32_sum_is_accurate():
    n = 1 << 24
    a = RNG.random(n, dtype=np.float32) + np.float32(0.5)
    t = E(a)
    exact = np.sum(a.astype(np.float64))
    assert abs(t.sum().item() - exact) / exact < 1e-6
    assert abs(t.mean().item() - exact / n) / (exact / n) < 1e-6
    # the same numbers reduced along an outer dim (the rows path) and in many short runs
    m = t.view(1 << 12, 1 << 12)
    ref0 = a.reshape(4096, 4096).astype(np.float64).sum(0)
    np.testing.assert_allclose(N(m.sum(0)), ref0, rtol=2e-6)
    np.testing.assert_allclose(N(m.sum(1)), a.reshape(4096, 4096).astype(np.float64).sum(1), rtol=2e-6)
    tall = t.view(1 << 22, 4)
    np.testing.assert_allclose(N(tall.sum(0)), a.reshape(-1, 4).astype(np.float64).sum(0), rtol=2e-6)
    np.testing.assert_allclose(N(t.view(4, -1).t().sum(0)), a.reshape(4, -1).astype(np.float64).sum(1),
                               rtol=2e-6)


@pytest.mark.parametrize("shape, dims", [
    ((3, 200001), 1), ((200001, 3), 0), ((5, 70000), 0), ((70000, 5), 1), ((4, 3, 40000), (0, 2)),
    ((40000, 3, 4), (0, 2)), ((2, 50000, 2), 1), ((33, 4097), None)])
def test_parallel_paths(shape, dims):
    """Shapes that split outputs or reduced ranges across threads, in each loop layout."""
    a = RNG.standard_normal(shape).astype(np.float32)
    t = E(a)
    ax = np_axis(dims, len(shape))
    a64 = a.astype(np.float64)
    scale = np.abs(a64).sum(axis=ax).max() * 1e-6  # float32 rounding of a sum with cancellation
    check(ember.sum(t, dims) if dims is not None else t.sum(), a64.sum(axis=ax), atol=scale)
    check(ember.amax(t, dims) if dims is not None else t.amax(), a64.max(axis=ax))
    check(ember.var(t, dims) if dims is not None else t.var(), a64.var(axis=ax, ddof=1), rtol=1e-4)
    check(ember.logsumexp(t, dims if dims is not None else tuple(range(len(shape)))),
          np.log(np.exp(a64).sum(axis=ax)))
    sparse = (a > 3.5).astype(np.int8)
    s = E(sparse)
    check(ember.any(s, dims) if dims is not None else s.any(), sparse.any(axis=ax))
    check(ember.all(s, dims) if dims is not None else s.all(), sparse.all(axis=ax))
    if isinstance(dims, int):
        v, i = t.max(dims)
        check(v, a64.max(axis=dims))
        np.testing.assert_array_equal(N(i), a.argmax(axis=dims))
        np.testing.assert_array_equal(N(t.argmin(dims)), a.argmin(axis=dims))
    tt = t.transpose(0, -1)
    check(tt.sum(0), a64.swapaxes(0, -1).sum(0), atol=np.abs(a64).sum(-1).max() * 1e-6)


# ---- max / min / amax / amin / argmax / argmin / aminmax ---------------------------------

def with_ties_and_nans(shape, dtype):
    """Few distinct values (many ties); floats also get some NaNs."""
    a, t = sample(shape, dtype, -2, 2)
    if dtype in FLOATS and a.size:
        a = np.round(a)
        flat = a.reshape(-1)
        flat[RNG.random(flat.size) < 0.1] = np.nan
        t = E(a.astype(np.float32), dtype)
    return a, t


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", [(), (7,), (3, 4), (2, 3, 5), (4, 1, 3)])
def test_max_min_with_dim(shape, dtype):
    a, t = with_ties_and_nans(shape, dtype)
    for an, tn in layouts(a, t):
        for dim in ([0, -1] + list(range(an.ndim)) if an.ndim else [0, -1]):
            for keepdim in (False, True):
                ax = None if an.ndim == 0 else dim
                for name, npf, npa in (("max", np.max, np.argmax), ("min", np.min, np.argmin)):
                    res = getattr(tn, name)(dim, keepdim=keepdim)
                    values, indices = res  # unpacks like a tuple
                    assert res.values is values and res.indices is indices
                    ref_v = npf(an, axis=ax, keepdims=keepdim)  # propagates NaN
                    ref_i = npa(an, axis=ax, keepdims=keepdim) if an.ndim else np.array(0)
                    check(values, ref_v, dtype, exact_dtype=dtype)
                    assert indices.dtype == ember.int64
                    np.testing.assert_array_equal(N(indices), ref_i)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", SHAPES[:6])
def test_max_min_amax_amin(shape, dtype):
    a, t = with_ties_and_nans(shape, dtype)
    for an, tn in layouts(a, t):
        check(tn.max(), np.max(an), dtype, exact_dtype=dtype)
        check(ember.min(tn), np.min(an), dtype, exact_dtype=dtype)
        lo, hi = tn.aminmax()
        check(lo, np.min(an), dtype, exact_dtype=dtype)
        check(hi, np.max(an), dtype, exact_dtype=dtype)
        for d in range(an.ndim):
            r = ember.aminmax(tn, dim=d, keepdim=d == 0)
            check(r.min, np.min(an, axis=d, keepdims=d == 0), dtype)
            check(r.max, np.max(an, axis=d, keepdims=d == 0), dtype)
        for dim in dim_choices(an.ndim):
            for keepdim in (False, True):
                ax = np_axis(dim, an.ndim)
                check(call(ember.amax, tn, dim, keepdim), np.max(an, axis=ax, keepdims=keepdim), dtype)
                check(call(ember.amin, tn, dim, keepdim), np.min(an, axis=ax, keepdims=keepdim), dtype)


def test_amax_of_empty_dims_that_are_not_reduced():
    check(ember.zeros(0, 3).amax(1), np.zeros(0))
    v, i = ember.zeros(0, 3).max(1)
    assert shape_of(v) == (0,) and shape_of(i) == (0,)
    check(ember.zeros(2, 0).argmax(0), np.zeros(0, dtype=np.int64))


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("shape", [(), (7,), (3, 4), (2, 3, 5)])
def test_argmax_argmin(shape, dtype):
    a, t = with_ties_and_nans(shape, dtype)
    for an, tn in layouts(a, t):
        # dim None: the index into the flattened (row-major) tensor
        assert tn.argmax().item() == np.argmax(an)
        assert ember.argmin(tn).item() == np.argmin(an)
        assert shape_of(tn.argmax(keepdim=True)) == (1,) * an.ndim
        for dim in range(-an.ndim, an.ndim) if an.ndim else [0, -1]:
            for keepdim in (False, True):
                ax = None if an.ndim == 0 else dim
                np.testing.assert_array_equal(N(tn.argmax(dim, keepdim)),
                                              np.argmax(an, axis=ax, keepdims=keepdim) if ax is not None
                                              else np.array(0))
                np.testing.assert_array_equal(N(ember.argmin(tn, dim=dim, keepdim=keepdim)),
                                              np.argmin(an, axis=ax, keepdims=keepdim) if ax is not None
                                              else np.array(0))


def test_argmax_first_occurrence_over_blocks():
    """Ties and NaNs far apart (different blocks and thread slices) keep the first index."""
    a = np.zeros(300001, dtype=np.float32)
    a[[5000, 200000]] = 7
    t = E(a)
    assert t.argmax().item() == 5000
    assert t.max(0).indices.item() == 5000
    a[[100, 250000]] = np.nan
    t = E(a)
    assert t.argmax().item() == 100 and t.argmin().item() == 100
    assert math.isnan(t.max().item()) and math.isnan(t.amin().item())
    b = -np.abs(RNG.standard_normal((7, 90001))).astype(np.float32)
    b[:, [17, 80000]] = 0
    np.testing.assert_array_equal(N(E(b).argmax(1)), np.full(7, 17))
    np.testing.assert_array_equal(N(E(b.T.copy()).argmax(0)), np.full(7, 17))


def test_aminmax():
    a, t = sample((3, 4), ember.float32)
    r = t.aminmax()
    lo, hi = r
    check(r.min, a.min())
    check(hi, a.max())
    r = ember.aminmax(t, dim=1, keepdim=True)
    check(r.min, a.min(1, keepdims=True))
    check(r.max, a.max(1, keepdims=True))
    b = E(np.array([True, False]))
    assert b.aminmax().min.item() is False


def test_return_types():
    r = ember.arange(6.).view(2, 3).max(1)
    assert type(r).__name__ == "max"
    assert r._fields == ("values", "indices") if hasattr(r, "_fields") else True
    assert len(r) == 2 and r[0] is r.values
    assert "values=" in repr(r)
    assert isinstance(r, tuple)
    assert type(ember.zeros(2).min(0)).__name__ == "min"


def test_binary_max_min_forward_to_maximum():
    if not hasattr(ember, "maximum"):
        pytest.skip("the elementwise group's maximum is not in this build")
    a, b = E(np.array([1.0, 5.0], dtype=np.float32)), E(np.array([3.0, 2.0], dtype=np.float32))
    check(a.max(b), np.array([3.0, 5.0]))
    check(ember.min(a, b), np.array([1.0, 2.0]))


# ---- var / std / var_mean / std_mean ------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_var_std(shape, dtype):
    a, t = sample(shape, dtype)
    for an, tn in layouts(a, t):
        for dim in dim_choices(an.ndim):
            for correction in (1, 0, 2):
                for keepdim in (False, True):
                    ax = np_axis(dim, an.ndim)
                    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        n = an.size if ax is None else int(np.prod([an.shape[d] for d in ax]))
                        m2 = np.sum((an - np.mean(an, axis=ax, keepdims=True)) ** 2, axis=ax, keepdims=keepdim)
                        ref = m2 / max(0, n - correction) if n - correction > 0 else m2 / 0.0
                        mean = np.mean(an, axis=ax, keepdims=keepdim)
                    kw = dict(correction=correction, keepdim=keepdim)
                    got = tn.var(dim, **kw) if dim is not None else tn.var(**kw)
                    check(got, ref, dtype, exact_dtype=dtype)
                    check(ember.std(tn, dim, **kw), np.sqrt(ref), dtype)
                    v, mu = ember.var_mean(tn, dim, **kw)
                    check(v, ref, dtype)
                    check(mu, mean, dtype)
                    s, mu = ember.std_mean(tn, dim, **kw)
                    check(s, np.sqrt(ref), dtype)


def test_var_legacy_unbiased_and_precision():
    a, t = sample((4, 5), ember.float64)
    check(t.var(False), a.var())
    check(t.var(1, False), a.var(1))
    check(t.std(0, unbiased=True, keepdim=True), a.std(0, ddof=1, keepdims=True))
    check(t.var(correction=0.5), a.var(ddof=0.5))
    # a large offset: a one-pass sum of squares would lose every digit
    big = (1e4 + RNG.standard_normal(100000)).astype(np.float32)
    ref = big.astype(np.float64).var(ddof=1)
    assert abs(E(big).var().item() - ref) / ref < 1e-4
    assert abs(E(big).view(1000, 100).t().var(1).mean().item() - ref) / ref < 2e-2


# ---- norm ----------------------------------------------------------------------------------

def np_norm(a, p, axis, keepdims):
    x = np.abs(a)
    if p == math.inf:
        return np.max(x, axis=axis, keepdims=keepdims)
    if p == -math.inf:
        return np.min(x, axis=axis, keepdims=keepdims)
    if p == 0:
        return np.sum(x != 0, axis=axis, keepdims=keepdims).astype(np.float64)
    with np.errstate(divide="ignore"):
        return np.sum(x ** p, axis=axis, keepdims=keepdims) ** (1.0 / p)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("p", [2, 1, 0, 3, 0.5, -1, math.inf, -math.inf, "fro"])
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4)])
def test_norm(shape, p, dtype):
    a, t = sample(shape, dtype)
    a = np.where(np.abs(a) < 0.3, 0, a)  # some zeros for p = 0 and negative p
    t = E(a.astype(np.float32), dtype)
    a = N(t).astype(np.float64)
    for an, tn in layouts(a, t):
        for dim in dim_choices(an.ndim):
            if p == "fro" and isinstance(dim, tuple) and len(dim) > 2:
                continue
            for keepdim in (False, True):
                ref = np_norm(an, 2 if p == "fro" else p, np_axis(dim, an.ndim), keepdim)
                got = tn.norm(p, dim, keepdim) if dim is not None else tn.norm(p, keepdim=keepdim)
                check(got, ref, dtype, exact_dtype=dtype)


def test_norm_defaults_and_dtype():
    a, t = sample((3, 4), ember.float32)
    check(t.norm(), np.sqrt((a ** 2).sum()))
    check(ember.norm(t, dim=1), np.sqrt((a ** 2).sum(1)))
    check(t.norm(dtype=ember.float64), np.sqrt((a ** 2).sum()), exact_dtype=ember.float64)
    check(E(a, ember.float16).norm(dtype=ember.float32), np.sqrt((N(E(a, ember.float16)).astype(np.float64) ** 2).sum()),
          exact_dtype=ember.float32, rtol=1e-5)
    assert ember.empty(0).norm().item() == 0
    check(ember.zeros(0, 3).norm(math.inf, dim=1), np.zeros(0))


# ---- logsumexp -----------------------------------------------------------------------------

def np_logsumexp(a, axis, keepdims):
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        m = np.max(a, axis=axis, keepdims=True) if a.size else np.zeros([1] * a.ndim)
        m = np.where(np.isfinite(m), m, 0)
        r = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
        return r if keepdims else (np.squeeze(r, axis=axis) if axis is not None else r.reshape(()))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_logsumexp(shape, dtype):
    a, t = sample(shape, dtype, -20, 20)
    for an, tn in layouts(a, t):
        for dim in dim_choices(an.ndim)[1:] + [()]:
            for keepdim in (False, True):
                ax = np_axis(dim, an.ndim) if dim != () else None
                check(ember.logsumexp(tn, dim, keepdim=keepdim), np_logsumexp(an, ax, keepdim), dtype,
                      exact_dtype=dtype)


def test_logsumexp_special_values():
    inf, nan = math.inf, math.nan
    cases = [[1000.0, 1000.0], [-1000.0, -1000.0], [-inf, -inf], [inf, 1.0], [nan, 1.0], [-inf, 0.0],
             [inf, inf], [inf, -inf]]
    for row in cases:
        t = E(np.array(row, dtype=np.float32))
        with np.errstate(all="ignore"):
            ref = np.logaddexp.reduce(np.array(row))
        got = t.logsumexp(0).item()
        assert (math.isnan(got) and math.isnan(ref)) or got == pytest.approx(ref), (row, got, ref)
        # the same through the vectorized rows path (reduce over dim 0 of [2, 64])
        m = E(np.repeat(np.array(row, dtype=np.float32)[:, None], 64, axis=1))
        col = N(m.logsumexp(0))
        assert np.allclose(col, ref, equal_nan=True), (row, col[:3], ref)
    check(E(np.arange(3)).logsumexp(0), np_logsumexp(np.arange(3.0), 0, False), exact_dtype=ember.float32)
    assert ember.empty(0).logsumexp(0).item() == -inf


# ---- any / all / count_nonzero --------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", SHAPES)
def test_any_all_count_nonzero(shape, dtype):
    a, t = sample(shape, dtype, -1, 1)
    out_dtype = ember.uint8 if dtype == ember.uint8 else ember.bool
    for an, tn in layouts(a, t):
        for dim in dim_choices(an.ndim):
            ax = np_axis(dim, an.ndim)
            for keepdim in (False, True):
                check(call(ember.any, tn, dim, keepdim), np.any(an, axis=ax, keepdims=keepdim).astype(
                    EMBER_TO_NP[out_dtype]), exact_dtype=out_dtype)
                check(call(ember.all, tn, dim, keepdim), np.all(an, axis=ax, keepdims=keepdim).astype(
                    EMBER_TO_NP[out_dtype]), exact_dtype=out_dtype)
            got = ember.count_nonzero(tn, dim) if dim is not None else tn.count_nonzero()
            check(got, np.count_nonzero(an, axis=ax), exact_dtype=ember.int64)


def test_any_all_stop_early_and_see_everything():
    a = np.zeros(100000, dtype=np.float32)
    assert not E(a).any().item()
    a[99999] = 1
    assert E(a).any().item() and not E(a).all().item()
    a[:] = 1
    a[50000] = 0
    assert not E(a).all().item()
    assert E(np.full(10, np.nan, dtype=np.float32)).all().item()  # nan is nonzero


@pytest.mark.parametrize("perm", [(2, 0, 1), (1, 2, 0), (2, 1, 0), (0, 2, 1)])
@pytest.mark.parametrize("dims", [0, 1, 2, (0, 1), (1, 2), (0, 2), None])
def test_permuted_layouts(perm, dims):
    """Kept and reduced dims in every memory order (the geometry sorts them by stride)."""
    base = RNG.standard_normal((5, 6, 7)).astype(np.float32)
    a = base.transpose(perm)
    t = E(base).permute(*perm)
    ax = np_axis(dims, 3)
    a64 = a.astype(np.float64)
    red = lambda f, x: f(x) if dims is None else f(x, dims)
    check(red(ember.sum, t), a64.sum(axis=ax), rtol=1e-5)
    check(red(ember.amax, t), a64.max(axis=ax))
    check(red(ember.var, t), a64.var(axis=ax, ddof=1), rtol=1e-4)
    check(red(ember.logsumexp, t) if dims is not None else ember.logsumexp(t, (0, 1, 2)),
          np_logsumexp(a64, ax, False))
    if isinstance(dims, int):
        np.testing.assert_array_equal(N(t.argmax(dims)), a.argmax(axis=dims))
        np.testing.assert_array_equal(N(t.min(dims).indices), a.argmin(axis=dims))
    assert t.argmax().item() == a.argmax()
    big = RNG.standard_normal((40, 50, 60)).astype(np.float32)  # large enough for threads
    tb = E(big).permute(*perm)
    ab = big.transpose(perm).astype(np.float64)
    check(red(ember.sum, tb), ab.sum(axis=ax), atol=np.abs(ab).sum() * 1e-6)
    check(red(ember.amin, tb), ab.min(axis=ax))
