"""Shared by test_func_transforms.py and test_func_models_pytree.py: inputs built the
same way in ember and torch, result comparison, and the functions the transforms are
applied to."""
import collections

import numpy as np
import pytest

import ember
import ember.func as EF
from ember.utils import _pytree as epytree

torch = pytest.importorskip("torch")
TF = torch.func


def _arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def _pair(*shapes, seed=0):
    arrs = _arrays(*shapes, seed=seed)
    return [ember.tensor(a) for a in arrs], [torch.tensor(a) for a in arrs]


def _same(e, t, tol=1e-9):
    """Same pytree structure (tensor / tuple / list / dict) and values."""
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), f"expected a tensor, got {type(e)}"
        assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)
    elif isinstance(t, dict):
        assert isinstance(e, dict) and list(e) == list(t), (type(e), e.keys() if isinstance(e, dict) else e)
        for k in t:
            _same(e[k], t[k], tol)
    elif isinstance(t, (tuple, list)):
        assert type(e) is type(t), (type(e), type(t))
        assert len(e) == len(t)
        for a, b in zip(e, t):
            _same(a, b, tol)
    else:
        assert e == t


def _same_error(e_call, t_call):
    """Both calls raise, with the same exception type."""
    with pytest.raises(Exception) as t_info:
        t_call()
    with pytest.raises(Exception) as e_info:
        e_call()
    assert type(e_info.value) is type(t_info.value), (e_info.value, t_info.value)
    return e_info.value, t_info.value


def _both(transform, fn, e_args, t_args, *targs, **tkwargs):
    """transform(fn)(*args) in each library; fn(L, *args) with L the library module."""
    e_out = getattr(EF, transform)(lambda *a, **k: fn(ember, *a, **k), *targs, **tkwargs)(*e_args)
    t_out = getattr(TF, transform)(lambda *a, **k: fn(torch, *a, **k), *targs, **tkwargs)(*t_args)
    _same(e_out, t_out)
    return e_out, t_out


# ---------------------------------------------------------------- functions used below


def scalar_fn(L, x):
    return (x.sin() * x.exp()).sum() + (x ** 3).mean()


def two_arg_fn(L, x, y):
    return (x.tanh() * y.cos()).sum() + (x * x).sum() * y.sum()


def vector_fn(L, x):
    return x.sin() * x.sum() + x.exp()


def matrix_fn(L, x, y):
    return (x @ y).tanh()
