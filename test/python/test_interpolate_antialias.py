"""F.interpolate(..., antialias=True) against torch: bilinear, bicubic and lanczos, by size
and by scale_factor (recomputed or not), align_corners, float32 and float64, gradients,
and torch's errors for the modes and ranks it refuses."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F

torch = pytest.importorskip("torch")

CASES = [
    ("bilinear", dict(size=(5, 7))), ("bilinear", dict(scale_factor=0.4)),
    ("bilinear", dict(size=(20, 6), align_corners=True)),
    ("bicubic", dict(size=(5, 7))), ("bicubic", dict(scale_factor=(0.5, 1.5), recompute_scale_factor=True)),
    ("bicubic", dict(size=(9, 30), align_corners=True)),
    ("lanczos", dict(size=(5, 7))), ("lanczos", dict(scale_factor=0.3)),
]


@pytest.mark.parametrize("mode, kw", CASES, ids=[f"{m}-{sorted(k)}" for m, k in CASES])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients_match_torch(mode, kw, dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 16, 12)).astype(dtype)
    ex = ember.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    e = F.interpolate(ex, mode=mode, antialias=True, **kw)
    t = torch.nn.functional.interpolate(tx, mode=mode, antialias=True, **kw)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)
    g = rng.standard_normal(tuple(t.shape)).astype(dtype)
    e.backward(ember.tensor(g))
    t.backward(torch.tensor(g))
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=tol, atol=tol)


def test_refusals_match_torch():
    x3 = np.random.randn(1, 2, 8).astype(np.float32)
    x4 = np.random.randn(1, 1, 8, 8).astype(np.float32)
    for lib, fn in ((ember, F.interpolate), (torch, torch.nn.functional.interpolate)):
        with pytest.raises(ValueError, match="Anti-alias option is restricted"):
            fn(lib.tensor(x4), scale_factor=0.5, mode="nearest", antialias=True)
        with pytest.raises(ValueError, match="Anti-alias option is restricted"):
            fn(lib.tensor(x3), scale_factor=0.5, mode="linear", antialias=True)
        with pytest.raises(ValueError, match="Lanczos mode requires antialias=True"):
            fn(lib.tensor(x4), size=(4, 4), mode="lanczos")
    # Without antialias, interpolate is the C++ op as before.
    e = F.interpolate(ember.tensor(x4), size=(4, 4), mode="bilinear")
    t = torch.nn.functional.interpolate(torch.tensor(x4), size=(4, 4), mode="bilinear")
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)
