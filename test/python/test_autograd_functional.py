"""ember.autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp) against
torch.autograd.functional on the same float64 inputs: values, return structures
(tensor vs tuple vs tuple of tuples), create_graph and the errors torch raises."""
import numpy as np
import pytest

import ember
import ember.autograd.functional as EF

torch = pytest.importorskip("torch")
TF = torch.autograd.functional


def _pair(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal(s) for s in shapes]
    return tuple(ember.tensor(a) for a in arrs), tuple(torch.tensor(a) for a in arrs)


def _same(e, t):
    """Same nesting (tensor / tuple) and values."""
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), f"expected a tensor, got {type(e)}"
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)
    else:
        assert isinstance(e, tuple) and isinstance(t, tuple), (type(e), type(t))
        assert len(e) == len(t)
        for a, b in zip(e, t):
            _same(a, b)


def f_single(L, x):
    return (x.sin() * x).sum(0)


def f_multi(L, x, y):
    return x.exp() * y.sum(), (x * x).sum() + y.tanh().sum()


def f_scalar(L, x, y):
    return (x.sin() * y.sum()).sum() + (x * x * x).sum()


def f_unused(L, x, y):
    return (x * 2).sum()


@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp_single_and_tuple(create_graph):
    (ex,), (tx,) = _pair((3, 2))
    (ev,), (tv,) = _pair((2,), seed=1)
    e = EF.vjp(lambda x: f_single(ember, x), ex, ev, create_graph=create_graph)
    t = TF.vjp(lambda x: f_single(torch, x), tx, tv, create_graph=create_graph)
    _same(e, t)
    (ex, ey), (tx, ty) = _pair((3,), (2,))
    (ev1, ev2), (tv1, tv2) = _pair((3,), (), seed=2)
    e = EF.vjp(lambda x, y: f_multi(ember, x, y), (ex, ey), (ev1, ev2))
    t = TF.vjp(lambda x, y: f_multi(torch, x, y), (tx, ty), (tv1, tv2))
    _same(e, t)
    assert not e[1][0].requires_grad


def test_vjp_create_graph_keeps_graph():
    (ex,), (tx,) = _pair((3,))
    ex.requires_grad_(True)
    tx.requires_grad_(True)
    _, eg = EF.vjp(lambda x: (x ** 3).sum(), ex, create_graph=True)
    _, tg = TF.vjp(lambda x: (x ** 3).sum(), tx, create_graph=True)
    assert eg.requires_grad
    eg.sum().backward()
    tg.sum().backward()
    _same(ex.grad, tx.grad)


def test_vjp_unused_gives_zeros_and_strict_raises():
    (ex, ey), (tx, ty) = _pair((3,), (2,))
    _same(EF.vjp(lambda x, y: f_unused(ember, x, y), (ex, ey)),
          TF.vjp(lambda x, y: f_unused(torch, x, y), (tx, ty)))
    with pytest.raises(RuntimeError):
        TF.vjp(lambda x, y: f_unused(torch, x, y), (tx, ty), strict=True)
    with pytest.raises(RuntimeError, match="independent of input 1"):
        EF.vjp(lambda x, y: f_unused(ember, x, y), (ex, ey), strict=True)


@pytest.mark.parametrize("create_graph", [False, True])
def test_jvp(create_graph):
    (ex,), (tx,) = _pair((3, 2))
    (ev,), (tv,) = _pair((3, 2), seed=1)
    _same(EF.jvp(lambda x: f_single(ember, x), ex, ev, create_graph=create_graph),
          TF.jvp(lambda x: f_single(torch, x), tx, tv, create_graph=create_graph))
    (ex, ey), (tx, ty) = _pair((3,), (2,))
    (ev1, ev2), (tv1, tv2) = _pair((3,), (2,), seed=3)
    _same(EF.jvp(lambda x, y: f_multi(ember, x, y), (ex, ey), (ev1, ev2)),
          TF.jvp(lambda x, y: f_multi(torch, x, y), (tx, ty), (tv1, tv2)))


@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian_structures(create_graph):
    (ex, ey), (tx, ty) = _pair((3,), (2, 2))
    # single in, single out
    _same(EF.jacobian(lambda x: f_single(ember, x.view(3, 1)), ex, create_graph=create_graph),
          TF.jacobian(lambda x: f_single(torch, x.view(3, 1)), tx, create_graph=create_graph))
    # tuple in, tuple out
    _same(EF.jacobian(lambda x, y: f_multi(ember, x, y), (ex, ey)),
          TF.jacobian(lambda x, y: f_multi(torch, x, y), (tx, ty)))
    # tuple in, single out; single in, tuple out
    _same(EF.jacobian(lambda x, y: f_multi(ember, x, y)[0], (ex, ey)),
          TF.jacobian(lambda x, y: f_multi(torch, x, y)[0], (tx, ty)))
    _same(EF.jacobian(lambda x: f_multi(ember, x, ey), ex),
          TF.jacobian(lambda x: f_multi(torch, x, ty), tx))
    # vectorize=True gives the same values; an unused input gives zeros
    _same(EF.jacobian(lambda x: x.exp() * 3, ex, vectorize=True, strategy="forward-mode"),
          TF.jacobian(lambda x: x.exp() * 3, tx, vectorize=True, strategy="forward-mode"))
    _same(EF.jacobian(lambda x, y: f_unused(ember, x, y), (ex, ey), vectorize=True),
          TF.jacobian(lambda x, y: f_unused(torch, x, y), (tx, ty), vectorize=True))


def test_jacobian_errors():
    (ex, ey), (tx, ty) = _pair((3,), (2,))
    for F, x, y in ((TF, tx, ty), (EF, ex, ey)):
        with pytest.raises(RuntimeError):
            F.jacobian(lambda a, b: (a * 2).sum(), (x, y), strict=True)
        with pytest.raises(AssertionError):  # torch's type for a bad strategy
            F.jacobian(lambda a: a * 2, x, strategy="sideways")
        with pytest.raises(NotImplementedError):
            F.jacobian(lambda a: a * 2, x, strategy="forward-mode")
        with pytest.raises(NotImplementedError):
            F.jacobian(lambda a: a * 2, x, strategy="forward-mode", vectorize=True, create_graph=True)
        with pytest.raises(RuntimeError):
            F.jacobian(lambda a: a * 2, x, strategy="forward-mode", vectorize=True, strict=True)
        with pytest.raises(TypeError):
            F.jacobian(lambda a: a * 2, [x, 3.0])
        with pytest.raises(TypeError):
            F.jacobian(lambda a: 3.0, x)
        with pytest.raises(RuntimeError):
            F.jacobian(lambda a: a * 2, x, strict=True, vectorize=True)


@pytest.mark.parametrize("create_graph", [False, True])
def test_hessian(create_graph):
    (ex, ey), (tx, ty) = _pair((3,), (2,))
    _same(EF.hessian(lambda x, y: f_scalar(ember, x, y), (ex, ey), create_graph=create_graph),
          TF.hessian(lambda x, y: f_scalar(torch, x, y), (tx, ty), create_graph=create_graph))
    (ex,), (tx,) = _pair((2, 2))
    _same(EF.hessian(lambda x: (x.sin() * x).sum(), ex),
          TF.hessian(lambda x: (x.sin() * x).sum(), tx))
    for F, x in ((TF, tx), (EF, ex)):
        with pytest.raises(RuntimeError):
            F.hessian(lambda a: a * 2, x)


@pytest.mark.parametrize("name", ["vhp", "hvp"])
def test_vhp_hvp(name):
    (ex, ey), (tx, ty) = _pair((3,), (2,))
    (ev1, ev2), (tv1, tv2) = _pair((3,), (2,), seed=5)
    _same(getattr(EF, name)(lambda x, y: f_scalar(ember, x, y), (ex, ey), (ev1, ev2)),
          getattr(TF, name)(lambda x, y: f_scalar(torch, x, y), (tx, ty), (tv1, tv2)))
    (ex,), (tx,) = _pair((4,))
    (ev,), (tv,) = _pair((4,), seed=6)
    _same(getattr(EF, name)(lambda x: (x.exp() * x).sum(), ex, ev),
          getattr(TF, name)(lambda x: (x.exp() * x).sum(), tx, tv))
    for F, x, v in ((TF, tx, tv), (EF, ex, ev)):
        with pytest.raises(RuntimeError):
            getattr(F, name)(lambda a: a * 2, x, v)  # not a scalar function
        with pytest.raises(RuntimeError):
            getattr(F, name)(lambda a: (a * a).sum(), x, v[:2])  # v of the wrong size
        with pytest.raises(RuntimeError):
            getattr(F, name)(lambda a: (a * a).sum(), x)  # v needed for a 4-element input


def test_v_errors():
    (ex,), (tx,) = _pair((3,))
    for F, x in ((TF, tx), (EF, ex)):
        with pytest.raises(RuntimeError):
            F.vjp(lambda a: a * 2, x)  # v needed for a non-scalar output
        with pytest.raises(RuntimeError):
            F.vjp(lambda a: a * 2, x, x[:2])
        with pytest.raises(RuntimeError):
            F.jvp(lambda a: a * 2, x)
        with pytest.raises(RuntimeError):
            F.vjp(lambda a: (a * 2, a), x, (x,))  # v tuple of the wrong length
