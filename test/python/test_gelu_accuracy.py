"""gelu's float32 erf form (lib/cpu/vec_math.h: one erfc formula for the whole range) and
its one-pass backward (gelu_backward) against float64 references computed with
math.erfc, over a wide range that includes the negative tail where gelu -> 0 (values
down to subnormals): max ulp error, and no worse than PyTorch's own float32 gelu."""
import math

import numpy as np
import pytest

import ember
import ember.nn.functional as F

torch = pytest.importorskip("torch")

_erfc = np.vectorize(math.erfc)


def gelu_ref(x):
    x = x.astype(np.float64)
    return 0.5 * x * _erfc(-x / math.sqrt(2.0))


def gelu_grad_ref(x):
    x = x.astype(np.float64)
    return 0.5 * _erfc(-x / math.sqrt(2.0)) + x * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def ulp_error(got, expected):
    """|got - expected| in units of the float32 spacing at expected (subnormal spacing
    at least)."""
    spacing = np.maximum(np.spacing(np.abs(expected.astype(np.float32))).astype(np.float64),
                         float(np.spacing(np.float32(0))))
    return np.abs(got.astype(np.float64) - expected) / spacing


def grid(lo, hi, n=40001):
    return np.linspace(lo, hi, n).astype(np.float32)


@pytest.mark.parametrize("lo, hi, max_ulp", [
    (-1.0, 1.0, 4), (-5.0, -1.0, 5), (1.0, 10.0, 2),
    (-14.5, -5.0, 6),  # the tail, down to subnormal results
])
def test_gelu_float32_ulp(lo, hi, max_ulp):
    x = grid(lo, hi)
    expected = gelu_ref(x)
    got = F.gelu(ember.from_numpy(x)).numpy()
    err = ulp_error(got, expected)
    assert err.max() <= max_ulp, f"{err.max():.1f} ulp at x={x[err.argmax()]}"
    # PyTorch's float32 gelu (1 + erf cancels in the tail) is the bound the issue sets
    theirs = ulp_error(torch.nn.functional.gelu(torch.from_numpy(x)).numpy(), expected)
    assert err.max() <= max(theirs.max(), max_ulp)


def test_gelu_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, -20.0, 20.0, -14.0], np.float32)
    got = F.gelu(ember.from_numpy(x)).numpy()
    ref = F.gelu(ember.from_numpy(x.astype(np.float64))).numpy()  # the float64 kernel's std::erfc form
    np.testing.assert_array_equal(np.signbit(got[:2]), [False, True])
    np.testing.assert_allclose(got, ref.astype(np.float32), rtol=1e-6, atol=0, equal_nan=True)
    # -14: a subnormal result (-1.09e-43), within 2 of its steps, not flushed to 0
    assert got[9] < 0 and abs(got[9] - ref[9]) <= 2 * float(np.spacing(np.float32(0)))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gelu_backward_matches_torch_and_float64(approximate, dtype):
    rng = np.random.default_rng(0)
    x = np.concatenate([grid(-14.0, 10.0, 20001), rng.standard_normal(1000).astype(np.float32)]).astype(dtype)
    g = rng.standard_normal(x.shape).astype(dtype)
    xe = ember.from_numpy(x.copy()).requires_grad_()
    F.gelu(xe, approximate=approximate).backward(ember.from_numpy(g.copy()))
    # torch's float64 gradient (its float32 one rounds the tanh form's tail to 0)
    xt = torch.from_numpy(x.astype(np.float64)).requires_grad_()
    torch.nn.functional.gelu(xt, approximate=approximate).backward(torch.from_numpy(g.astype(np.float64)))
    tol = dict(rtol=1e-12, atol=1e-14) if dtype == "float64" else dict(rtol=2e-6, atol=3e-7)
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), **tol)
    if approximate == "none":
        # against the float64 derivative: near its zero (x = -0.75) compare absolutely
        want = g.astype(np.float64) * gelu_grad_ref(x)
        np.testing.assert_allclose(xe.grad.numpy(), want, rtol=4e-7 if dtype == "float32" else 1e-13,
                                   atol=np.abs(g).max() * (2e-8 if dtype == "float32" else 1e-16))


def test_gelu_backward_one_op_and_second_derivative():
    from ember.profiler import profile
    x = ember.randn(64, dtype=ember.float64, requires_grad=True)
    y = F.gelu(x)
    with profile() as prof:
        (gx,) = ember.autograd.grad(y.sum(), x, create_graph=True)
    names = {a.key for a in prof.key_averages()}
    assert "gelu_backward" in names and "erf" not in names
    (gxx,) = ember.autograd.grad(gx.sum(), x)
    xv = x.detach().numpy()
    want = np.exp(-0.5 * xv * xv) / math.sqrt(2 * math.pi) * (2 - xv * xv)
    np.testing.assert_allclose(gxx.numpy(), want, rtol=1e-12, atol=1e-14)
