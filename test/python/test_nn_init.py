"""ember.nn.init: bounds and statistics of each initializer, generator= reproducibility,
no_grad, and errors; ember.nn.utils: clipping and parameter/vector conversion."""
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn import init
from ember.nn.utils import (clip_grad_norm_, clip_grad_value_, parameters_to_vector,
                            vector_to_parameters)


def values(t):
    return t.detach().numpy().astype(np.float64).ravel()


def test_calculate_gain():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swish")
    with pytest.raises(ValueError, match="not a valid number"):
        init.calculate_gain("leaky_relu", True)


def test_uniform_normal_constant():
    w = nn.Parameter(ember.empty(200, 100))
    assert init.uniform_(w, -0.5, 2.0) is w
    v = values(w)
    assert v.min() >= -0.5 and v.max() < 2.0 and abs(v.mean() - 0.75) < 0.03
    assert w.grad_fn is None and w.requires_grad  # filled under no_grad
    init.normal_(w, 1.0, 0.5)
    v = values(w)
    assert abs(v.mean() - 1.0) < 0.01 and abs(v.std() - 0.5) < 0.01
    init.constant_(w, 0.3)
    assert np.allclose(values(w), 0.3)
    assert np.all(values(init.ones_(ember.empty(3))) == 1)
    assert np.all(values(init.zeros_(ember.empty(3))) == 0)


def test_eye():
    np.testing.assert_array_equal(init.eye_(ember.empty(2, 3)).numpy(), np.eye(2, 3))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
        init.eye_(ember.empty(3))


def test_fans_and_errors():
    assert init._calculate_fan_in_and_fan_out(ember.empty(8, 4, 3, 3)) == (36, 72)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(ember.empty(5))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(ember.empty(3, 3), mode="fan_avg")


def test_xavier_bounds_and_std():
    w = ember.empty(300, 200)
    bound = math.sqrt(6 / 500)
    v = values(init.xavier_uniform_(w, gain=2.0))
    assert np.abs(v).max() <= 2 * bound and np.abs(v).max() > 1.9 * bound
    v = values(init.xavier_normal_(w))
    assert abs(v.std() - math.sqrt(2 / 500)) < 0.002


def test_kaiming():
    w = ember.empty(256, 64, 3, 3)  # fan_in = 576, fan_out = 2304
    v = values(init.kaiming_uniform_(w, nonlinearity="relu"))
    bound = math.sqrt(2) * math.sqrt(3 / 576)
    assert np.abs(v).max() <= bound and np.abs(v).max() > 0.99 * bound
    v = values(init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"))
    assert abs(v.std() - math.sqrt(2 / 2304)) < 0.001 and abs(v.mean()) < 0.001
    v = values(init.kaiming_uniform_(ember.empty(10, 100), a=math.sqrt(5)))
    assert np.abs(v).max() <= 0.1  # Linear's default: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    with pytest.warns(UserWarning, match="zero-element"):
        init.kaiming_uniform_(ember.empty(0, 3))


def test_trunc_normal():
    w = ember.empty(100000)
    v = values(init.trunc_normal_(w, mean=1.0, std=2.0, a=-1.0, b=2.0))
    assert v.min() >= -1.0 and v.max() <= 2.0
    # the mean of N(1, 4) truncated to [-1, 2]: mu + sigma (phi(al) - phi(be)) / Z
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    al, be = -1.0, 0.5
    expected = 1.0 + 2.0 * (phi(al) - phi(be)) / (cdf(be) - cdf(al))
    assert abs(v.mean() - expected) < 0.02
    # far in the tail (uniform proposals): still inside the bounds, mean near the edge
    v = values(init.trunc_normal_(ember.empty(1000), a=4.0, b=4.5))
    assert v.min() >= 4.0 and v.max() <= 4.5 and v.mean() < 4.25
    v = values(init.trunc_normal_(ember.empty(20000)))
    assert np.abs(v).max() <= 2.0 and abs(v.std() - 0.8796) < 0.02  # std of N(0,1) on [-2, 2]


def test_orthogonal():
    for shape in [(6, 4), (4, 6), (3, 2, 2)]:
        w = init.orthogonal_(ember.empty(shape), gain=2.0)
        m = values(w).reshape(shape[0], -1) / 2.0
        small = min(m.shape)
        gram = m @ m.T if m.shape[0] == small else m.T @ m
        np.testing.assert_allclose(gram, np.eye(small), atol=1e-5)
    with pytest.raises(ValueError, match="2 or more dimensions"):
        init.orthogonal_(ember.empty(3))


def test_generator_reproducibility():
    fns = [lambda t, g: init.uniform_(t, generator=g), lambda t, g: init.normal_(t, generator=g),
           lambda t, g: init.xavier_uniform_(t, generator=g),
           lambda t, g: init.kaiming_normal_(t, generator=g),
           lambda t, g: init.trunc_normal_(t, generator=g),
           lambda t, g: init.orthogonal_(t, generator=g)]
    for fn in fns:
        a = fn(ember.empty(5, 4), ember.Generator().manual_seed(7))
        b = fn(ember.empty(5, 4), ember.Generator().manual_seed(7))
        c = fn(ember.empty(5, 4), ember.Generator().manual_seed(8))
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert not np.array_equal(a.numpy(), c.numpy())


# ---- nn.utils ------------------------------------------------------------------------

def _params_with_grads(*grads):
    params = []
    for g in grads:
        p = nn.Parameter(ember.zeros(len(g)))
        p.grad = ember.tensor(g)
        params.append(p)
    return params


def test_clip_grad_norm():
    params = _params_with_grads([3.0, 0.0], [4.0])
    total = clip_grad_norm_(params, max_norm=1.0)
    assert total.item() == pytest.approx(5.0)
    np.testing.assert_allclose(params[0].grad.numpy(), [0.6, 0.0], rtol=1e-5)
    np.testing.assert_allclose(params[1].grad.numpy(), [0.8], rtol=1e-5)
    params = _params_with_grads([3.0, -7.0], [4.0])
    total = clip_grad_norm_(params, max_norm=14.0, norm_type=float("inf"))
    assert total.item() == 7.0 and params[0].grad.tolist() == [3.0, -7.0]  # not scaled up
    clip_grad_norm_(params, max_norm=3.5, norm_type="inf")
    np.testing.assert_allclose(params[0].grad.numpy(), [1.5, -3.5], rtol=1e-5)
    params = _params_with_grads([1.0, -2.0])
    assert clip_grad_norm_(params, 10.0, norm_type=1).item() == pytest.approx(3.0)
    assert clip_grad_norm_(nn.Parameter(ember.zeros(2)), 1.0).item() == 0.0  # no grads
    params = _params_with_grads([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(params, 1.0, error_if_nonfinite=True)


def test_clip_grad_norm_matches_torch():
    torch = pytest.importorskip("torch")
    grads = [np.random.default_rng(i).standard_normal(5).astype(np.float32) for i in range(3)]
    for norm_type in (2.0, 1.0, 3.0, float("inf")):
        ep = _params_with_grads(*grads)
        tp = [torch.nn.Parameter(torch.zeros(5)) for _ in grads]
        for p, g in zip(tp, grads):
            p.grad = torch.tensor(g)
        et = clip_grad_norm_(ep, 0.5, norm_type)
        tt = torch.nn.utils.clip_grad_norm_(tp, 0.5, norm_type)
        assert et.item() == pytest.approx(tt.item(), rel=1e-5)
        for e, t in zip(ep, tp):
            np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_clip_grad_value():
    params = _params_with_grads([3.0, -0.2, -5.0])
    clip_grad_value_(params, 1.0)
    np.testing.assert_allclose(params[0].grad.numpy(), [1.0, -0.2, -1.0], rtol=1e-6)


def test_parameters_vector_round_trip():
    m = nn.Linear(3, 2)
    vec = parameters_to_vector(m.parameters())
    assert vec.shape == (8,)
    np.testing.assert_array_equal(vec[:6].detach().numpy(), values(m.weight))
    new = ember.arange(8, dtype=ember.float32)
    vector_to_parameters(new, m.parameters())
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(m.bias.detach().numpy(), [6, 7])
    assert type(m.weight) is nn.Parameter and m.weight.requires_grad
    with pytest.raises(TypeError, match="expected ember.Tensor"):
        vector_to_parameters([1.0], m.parameters())


def test_signatures_match_torch():
    torch = pytest.importorskip("torch")
    import inspect

    import ember.nn.utils as eutils

    def signature(fn):
        return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]

    for name in init.__all__:
        assert signature(getattr(init, name)) == signature(getattr(torch.nn.init, name)), name
    for name in eutils.__all__:
        assert signature(getattr(eutils, name)) == signature(getattr(torch.nn.utils, name)), name
