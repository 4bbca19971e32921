"""Shared test helpers: numpy <-> ember conversion, comparison and non-contiguous
layouts."""
import numpy as np

import ember

_NP_TO_EMBER = {
    np.dtype(np.bool_): ember.bool, np.dtype(np.uint8): ember.uint8, np.dtype(np.int8): ember.int8,
    np.dtype(np.int16): ember.int16, np.dtype(np.int32): ember.int32,
    np.dtype(np.int64): ember.int64, np.dtype(np.float16): ember.float16,
    np.dtype(np.float32): ember.float32, np.dtype(np.float64): ember.float64,
}


def to_ember(a, dtype=None):
    """A fresh contiguous ember tensor with the values (and dtype) of numpy array a."""
    # (np.array rather than ascontiguousarray, which makes 0-d arrays 1-d)
    t = ember.from_numpy(np.array(np.asarray(a), order="C", copy=True)).clone()
    return t if dtype is None else t.to(dtype)


def to_numpy(t):
    """The values of an ember tensor as a numpy array (bfloat16 -> float32)."""
    if t.dtype == ember.bfloat16:
        t = t.float()
    return t.detach().contiguous().numpy().copy()


def assert_close(actual, expected, rtol=1e-5, atol=1e-6, check_dtype=None):
    """actual: ember tensor; expected: numpy array. Checks shape, optionally dtype, values."""
    got = to_numpy(actual)
    exp = np.asarray(expected)
    assert got.shape == exp.shape, f"shape {got.shape} != {exp.shape}"
    if check_dtype is not None:
        assert actual.dtype == check_dtype, f"dtype {actual.dtype} != {check_dtype}"
    np.testing.assert_allclose(got.astype(np.float64) if got.dtype != np.bool_ else got,
                               exp.astype(np.float64) if exp.dtype != np.bool_ else exp,
                               rtol=rtol, atol=atol, equal_nan=True)


def noncontiguous(t):
    """The same values as t in a non-contiguous layout (a transposed copy, transposed back)."""
    if t.dim() == 0:
        return t
    if t.dim() == 1:  # every other element of a longer buffer, from an offset
        v = ember.empty([t.numel() * 2 + 1], dtype=t.dtype).as_strided([t.numel()], [2], 1)
        v.copy_(t)
        return v
    out = t.transpose(-1, -2).contiguous().transpose(-1, -2)
    assert not out.is_contiguous() or t.size(-1) <= 1 or t.size(-2) <= 1 or t.numel() == 0
    return out
