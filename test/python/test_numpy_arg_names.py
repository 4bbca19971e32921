"""numpy's keyword names (axis, keepdims, x, a, x1, x2) on ember's functions and Tensor
methods, as PyTorch's argument parser takes them (python/ember/_numpy_arg_names.py)."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def pair(shape=(3, 4), seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def same(e, t):
    if isinstance(t, tuple):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            same(a, b)
        return
    if isinstance(t, torch.Tensor):
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)
        assert tuple(e.shape) == tuple(t.shape)
    else:
        assert e == t


REDUCTIONS = "sum mean amax amin prod std var any all argmax argmin logsumexp nansum nanmean".split()


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("kwargs", [dict(axis=1), dict(dim=1, keepdims=True), dict(axis=0, keepdims=True)])
def test_reduction_functions_and_methods(name, kwargs):
    e, t = pair()
    if name in ("any", "all"):
        e, t = e > 0, t > 0
    same(getattr(ember, name)(e, **kwargs), getattr(torch, name)(t, **kwargs))
    same(getattr(e, name)(**kwargs), getattr(t, name)(**kwargs))


@pytest.mark.parametrize("name", "max min median nanmedian mode var_mean std_mean".split())
def test_tuple_results(name):
    e, t = pair()
    same(tuple(getattr(ember, name)(e, axis=1, keepdims=True)), tuple(getattr(torch, name)(t, axis=1, keepdims=True)))


def test_dim_only_functions():
    e, t = pair()
    same(ember.cat((e, e), axis=1), torch.cat((t, t), axis=1))
    same(ember.stack((e, e), axis=0), torch.stack((t, t), axis=0))
    same(ember.cumsum(e, axis=1), torch.cumsum(t, axis=1))
    same(ember.softmax(e, axis=0), torch.softmax(t, axis=0))
    same(e.softmax(axis=1), t.softmax(axis=1))
    same(e.unsqueeze(axis=0), t.unsqueeze(axis=0))
    same(ember.sort(e, axis=0).values, torch.sort(t, axis=0).values)
    same(ember.argsort(e, axis=1), torch.argsort(t, axis=1))
    same(ember.topk(e, 2, axis=1).values, torch.topk(t, 2, axis=1).values)
    same(ember.count_nonzero(e > 0, axis=1), torch.count_nonzero(t > 0, axis=1))
    same(ember.quantile(e, 0.5, axis=1, keepdims=True), torch.quantile(t, 0.5, axis=1, keepdims=True))
    assert e.size(axis=1) == t.size(axis=1) == 4
    same(ember.linalg.vector_norm(e, axis=1, keepdims=True), torch.linalg.vector_norm(t, axis=1, keepdims=True))


def test_input_and_other_names():
    e, t = pair()
    e2, t2 = pair(seed=1)
    for kw in ("x", "a", "x1"):
        same(ember.sum(**{kw: e}), torch.sum(**{kw: t}))
    same(ember.add(x1=e, x2=e2), torch.add(x1=t, x2=t2))
    same(ember.maximum(e, x2=e2), torch.maximum(t, x2=t2))
    same(e.add(x2=e2), t.add(x2=t2))
    same(ember.sum(input=e, axis=0), torch.sum(input=t, axis=0))


def test_bad_calls_raise_type_error_like_torch():
    e, t = pair()
    for lib, x in ((ember, e), (torch, t)):
        with pytest.raises(TypeError):
            lib.relu(x, axis=1)  # no dim to alias
        with pytest.raises(TypeError):
            lib.sum(x, dim=0, axis=0)  # the same argument twice
        with pytest.raises(TypeError):
            x.sum(axiss=0)
    assert e.sum().item() == pytest.approx(t.sum().item(), rel=1e-5)  # nothing changed


def test_wrappers_look_like_the_functions():
    assert ember.sum.__name__ == "sum"
    assert "dim" in ember.sum.__doc__
    assert ember.Tensor.sum.__name__ == "sum"
    e, _ = pair()
    bound = e.sum  # read without calling: a bound method
    np.testing.assert_array_equal(bound(axis=0).numpy(), e.sum(0).numpy())

    class Holder:
        act = ember.tanh  # a function stored on a class stays a plain function
    np.testing.assert_array_equal(Holder().act(e).numpy(), ember.tanh(e).numpy())


def test_positional_calls_are_unchanged():
    e, t = pair()
    same(e.sum(1, True), t.sum(1, True))
    same(ember.sum(e, 1), torch.sum(t, 1))
    same(e.mean(), t.mean())
