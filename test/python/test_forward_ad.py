"""ember.autograd.forward_ad against torch's: tangents of several functions (one and two
duals, a module), outputs that do not depend on a dual, the level's lifetime, errors."""
import numpy as np
import pytest

import ember
import ember.autograd.forward_ad as fwAD

torch = pytest.importorskip("torch")
tfwAD = torch.autograd.forward_ad


def both(fn, *arrays):
    """(ember's, torch's) tangent of fn at arrays, each with a random tangent."""
    rng = np.random.default_rng(len(arrays))
    tangents = [rng.standard_normal(a.shape) for a in arrays]
    results = []
    for lib, ad in ((ember, fwAD), (torch, tfwAD)):
        with ad.dual_level():
            duals = [ad.make_dual(lib.tensor(a), lib.tensor(t)) for a, t in zip(arrays, tangents)]
            out = fn(lib, *duals)
            primal, tangent = ad.unpack_dual(out)
            results.append((primal.detach().numpy(), None if tangent is None else tangent.numpy()))
    return results


CASES = [
    ("chain", lambda m, x: (x.sin() * x.exp() + x ** 3).tanh(), [(3, 4)]),
    ("matmul", lambda m, x, w: x @ w, [(3, 4), (4, 2)]),
    ("softmax", lambda m, x: m.softmax(x, dim=-1), [(2, 5)]),
    ("layer_norm", lambda m, x, w: m.nn.functional.layer_norm(x, (5,), w), [(2, 5), (5,)]),
    ("conv2d", lambda m, x, w: m.nn.functional.conv2d(x, w, padding=1), [(1, 2, 5, 5), (3, 2, 3, 3)]),
    ("reduce", lambda m, x: (x * x).sum(1).sqrt(), [(4, 3)]),
]


@pytest.mark.parametrize("name, fn, shapes", CASES, ids=[c[0] for c in CASES])
def test_tangents_match_torch(name, fn, shapes):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    (ep, et), (tp, tt) = both(fn, *arrays)
    np.testing.assert_allclose(ep, tp, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(et, tt, rtol=1e-9, atol=1e-11)


def test_module_and_independent_outputs():
    lin = ember.nn.Linear(3, 2).double()
    x = ember.randn(4, 3, dtype=ember.float64)
    t = ember.randn(4, 3, dtype=ember.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        out = lin(d)
        _, tangent = fwAD.unpack_dual(out)
        np.testing.assert_allclose(tangent.numpy(), (t @ lin.weight.t()).detach().numpy(), rtol=1e-12)
        assert fwAD.unpack_dual(lin(ember.randn(4, 3, dtype=ember.float64))).tangent is None
        assert fwAD.unpack_dual(x).tangent is None
        assert ember.equal(fwAD.unpack_dual(d).tangent, t)
        # Reverse mode still works through a dual.
        out.sum().backward()
        assert lin.weight.grad is not None
    assert fwAD.unpack_dual(out).tangent is None  # the level is closed


def test_errors_match_torch():
    for lib, ad in ((ember, fwAD), (torch, tfwAD)):
        with pytest.raises(RuntimeError, match="no level exists"):
            ad.make_dual(lib.ones(3), lib.ones(3))
        with ad.dual_level():
            with pytest.raises(RuntimeError, match="different size"):
                ad.make_dual(lib.ones(3), lib.ones(4))
            with pytest.raises(ValueError, match="floating point"):
                ad.make_dual(lib.arange(3), lib.arange(3))
    assert isinstance(fwAD.unpack_dual(ember.ones(2)), fwAD.UnpackedDualTensor)
