"""ember.nn.utils: get_total_norm, clip_grads_with_norm_, clip_grad_norm_ / clip_grad_value_,
parameters_to_vector / vector_to_parameters and the legacy weight_norm, against torch.nn.utils
on the same values."""
import warnings

import numpy as np
import pytest

import ember
import ember.nn.utils as EU

torch = pytest.importorskip("torch")
TU = torch.nn.utils


def _params(seed=0):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal(s) for s in ((3, 2), (4,), ())]
    grads = [rng.standard_normal(a.shape) * 3 for a in arrs]
    ep = [ember.tensor(a, requires_grad=True) for a in arrs]
    tp = [torch.tensor(a, requires_grad=True) for a in arrs]
    for e, t, g in zip(ep, tp, grads):
        e.grad = ember.tensor(g)
        t.grad = torch.tensor(g)
    return ep, tp


def _close(e, t, tol=1e-10):
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.5, float("inf")])
def test_get_total_norm_and_clip_grads_with_norm(norm_type):
    ep, tp = _params()
    en = EU.get_total_norm([p.grad for p in ep], norm_type)
    tn = TU.get_total_norm([p.grad for p in tp], norm_type)
    _close(en, tn)
    EU.clip_grads_with_norm_(ep, 1.5, en)
    TU.clip_grads_with_norm_(tp, 1.5, tn)
    for e, t in zip(ep, tp):
        _close(e.grad, t.grad)
    _close(EU.get_total_norm(ep[0]), TU.get_total_norm(tp[0]))
    assert float(EU.get_total_norm([])) == float(TU.get_total_norm([])) == 0.0


def test_clip_grad_norm_and_value_match_torch():
    ep, tp = _params(1)
    _close(EU.clip_grad_norm_(ep, 2.0), TU.clip_grad_norm_(tp, 2.0))
    for e, t in zip(ep, tp):
        _close(e.grad, t.grad)
    EU.clip_grad_value_(ep, 0.3)
    TU.clip_grad_value_(tp, 0.3)
    for e, t in zip(ep, tp):
        _close(e.grad, t.grad)
    for U in (EU, TU):
        with pytest.warns(UserWarning, match="empty generator"):
            U.clip_grad_norm_((p for p in []), 1.0)
    ep, tp = _params(2)
    ep[0].grad[0, 0] = float("nan")
    tp[0].grad[0, 0] = float("nan")
    for U, p in ((EU, ep), (TU, tp)):
        with pytest.raises(RuntimeError, match="non-finite"):
            U.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)


def test_parameters_vector_roundtrip():
    ep, tp = _params(3)
    ev, tv = EU.parameters_to_vector(ep), TU.parameters_to_vector(tp)
    _close(ev, tv)
    EU.vector_to_parameters(ev * 2, ep)
    TU.vector_to_parameters(tv * 2, tp)
    for e, t in zip(ep, tp):
        _close(e, t)
    for U in (EU, TU):
        with pytest.raises(TypeError):
            U.vector_to_parameters([1.0], [])


@pytest.mark.parametrize("dim", [0, 1, -1, None])
def test_weight_norm_matches_torch(dim):
    torch.manual_seed(0)
    t = torch.nn.Conv1d(2, 3, 2).double()
    e = ember.nn.Conv1d(2, 3, 2).double()
    e.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t.state_dict().items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        TU.weight_norm(t, dim=dim)
    with pytest.warns(FutureWarning):
        EU.weight_norm(e, dim=dim)
    assert list(e.state_dict()) == list(t.state_dict())
    _close(e.weight_g, t.weight_g)
    _close(e.weight_v, t.weight_v)
    x = np.random.default_rng(4).standard_normal((2, 2, 5))
    # change g and v: the pre-hook recomputes the weight before every forward
    with torch.no_grad():
        t.weight_g.mul_(1.5)
        t.weight_v.add_(0.1)
    with ember.no_grad():
        e.weight_g.mul_(1.5)
        e.weight_v.add_(0.1)
    eo, to = e(ember.tensor(x)), t(torch.tensor(x))
    _close(eo, to)
    eo.sum().backward()
    to.sum().backward()
    _close(e.weight_g.grad, t.weight_g.grad)
    _close(e.weight_v.grad, t.weight_v.grad)
    for U, m in ((EU, e), (TU, t)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
                U.weight_norm(m, dim=dim)
        U.remove_weight_norm(m)
        with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
            U.remove_weight_norm(m)
    assert list(e.state_dict()) == list(t.state_dict())
    _close(e.weight, t.weight)
