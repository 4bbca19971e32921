"""Shared pieces of the nn backward tests: PyTorch as the oracle (the same
inputs through torch's autograd), torch <-> ember conversion, tolerances per
dtype, and a float64 central-difference gradient of ember's own forward ops.
Importing this module skips the test module when torch is missing."""
import numpy as np
import pytest

import ember
from _helpers import noncontiguous

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

C = ember._C
FLOAT_DTYPES = ["float64", "float32", "float16", "bfloat16"]
# (rtol, atol relative to the reference's largest magnitude)
TOL = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6), "float16": (2e-2, 1e-2),
       "bfloat16": (6e-2, 3e-2)}
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def tdtype(name):
    """The torch dtype that computes the reference for an ember dtype: float16 and
    bfloat16 inputs are rounded to their dtype, then computed in float32."""
    return torch.float64


def rounded(t, name):
    """t with its values rounded to dtype `name`, in the reference dtype."""
    return t.detach().to(getattr(torch, name)).to(tdtype(name))


def E(t, dtype=None, noncontig=False):
    """An ember tensor with the values of torch tensor t (cast to dtype `dtype`)."""
    t = t.detach()
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.float()
    e = ember.from_numpy(t.numpy().copy())
    if dtype is not None:
        e = e.to(getattr(ember, dtype))
    return noncontiguous(e) if noncontig else e


def N(e):
    """An ember tensor's values as a float64 (or integer) numpy array."""
    if e.is_floating_point():
        e = e.to(ember.float64)
    return e.contiguous().numpy().copy()


def check(got, expected, dtype="float64", scale=1.0):
    """ember tensor `got` against torch tensor `expected` (shape, then values)."""
    assert got is not None, "a requested gradient is missing"
    g = N(got)
    x = expected.detach().double().numpy()
    assert g.shape == x.shape, f"shape {g.shape} != {x.shape}"
    if x.size == 0:
        return
    rtol, atol = TOL[dtype]
    big = max(1.0, float(np.nanmax(np.abs(x))) if np.isfinite(x).any() else 1.0)
    np.testing.assert_allclose(g, x, rtol=rtol * scale, atol=atol * scale * big, equal_nan=True)


def grads(out, inputs, g):
    """torch.autograd.grad of out (weighted by g) wrt inputs; None where unused."""
    return torch.autograd.grad(out, inputs, g, allow_unused=True)


def finite_difference(f, x, g, h=1e-6, max_points=60, seed=0):
    """Central differences of L(x) = sum(f(x) * g) for float64 numpy x, at up
    to max_points entries (all of them for small x). Returns (indices, values)."""
    rng = np.random.default_rng(seed)
    flat = x.reshape(-1)
    idx = np.arange(flat.size) if flat.size <= max_points else rng.choice(flat.size, max_points, replace=False)
    vals = []
    for i in idx:
        xp, xm = flat.copy(), flat.copy()
        xp[i] += h
        xm[i] -= h
        lp = np.sum(f(xp.reshape(x.shape)) * g)
        lm = np.sum(f(xm.reshape(x.shape)) * g)
        vals.append((lp - lm) / (2 * h))
    return idx, np.array(vals)


def check_fd(f, x, g, analytic, rtol=1e-6, atol=1e-7, **kw):
    """The analytic gradient (numpy, x's shape) against central differences of f."""
    idx, fd = finite_difference(f, x, g, **kw)
    got = analytic.reshape(-1)[idx]
    np.testing.assert_allclose(got, fd, rtol=rtol, atol=atol * max(1.0, np.abs(fd).max()))


def e64(a):
    """An ember float64 tensor from a numpy array."""
    return ember.from_numpy(np.array(a, dtype=np.float64, order="C", copy=True))
