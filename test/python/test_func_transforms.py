"""ember.func (grad, vjp, jvp, linearize, jacrev, jacfwd, hessian, vmap, functional_call,
stack_module_state) against torch.func on the same random float64 inputs: values, result
structures (pytrees), requires_grad of the results, composition (vmap of grad, grad of
vmap, nested grad, hessian), and the exception types torch raises on bad calls."""
import collections

import numpy as np
import pytest

import ember
import ember.func as EF
from ember.utils import _pytree as epytree

torch = pytest.importorskip("torch")
from func_helpers import (  # noqa: F401
    TF, _arrays, _both, _pair, _same, _same_error, matrix_fn, scalar_fn, two_arg_fn, vector_fn)


# ---------------------------------------------------------------- grad


@pytest.mark.parametrize("shape", [(5,), (3, 4), ()])
def test_grad_values(shape):
    (e,), (t,) = _pair(shape)
    _both("grad", scalar_fn, [e], [t])
    _both("grad_and_value", scalar_fn, [e], [t])


@pytest.mark.parametrize("argnums", [0, 1, -1, (0, 1), (1, 0), (-1,)])
def test_grad_argnums(argnums):
    e, t = _pair((4,), (4,), seed=1)
    _both("grad", two_arg_fn, e, t, argnums=argnums)
    _both("grad_and_value", two_arg_fn, e, t, argnums=argnums)


def test_grad_float32_and_noncontiguous():
    a = np.random.default_rng(2).standard_normal((4, 3)).astype(np.float32)
    e, t = ember.tensor(a).t(), torch.tensor(a).t()
    assert not e.is_contiguous()
    e_out = EF.grad(lambda x: scalar_fn(ember, x))(e)
    t_out = TF.grad(lambda x: scalar_fn(torch, x))(t)
    _same(e_out, t_out, tol=1e-5)


def test_grad_has_aux_and_pytree_inputs():
    def f(L, params, x):
        out = (params["w"] * x).sum() + params["b"][0].sin()
        return out, {"pred": out.detach() * 2, "pair": (x.sum(), params["w"] * 1)}
    e, t = _pair((3,), (2,), (3,), seed=3)
    e_params, t_params = {"w": e[0], "b": e[1]}, {"w": t[0], "b": t[1]}
    e_out = EF.grad(lambda p, x: f(ember, p, x), has_aux=True)(e_params, e[2])
    t_out = TF.grad(lambda p, x: f(torch, p, x), has_aux=True)(t_params, t[2])
    _same(e_out, t_out)
    e_out = EF.grad_and_value(lambda p, x: f(ember, p, x), argnums=(0, 1), has_aux=True)(e_params, e[2])
    t_out = TF.grad_and_value(lambda p, x: f(torch, p, x), argnums=(0, 1), has_aux=True)(t_params, t[2])
    _same(e_out, t_out)


def test_grad_kwargs_unrelated_and_integer_output():
    e, t = _pair((3,), (3,), seed=4)
    _same(EF.grad(lambda x, y, scale=1.0: (y * scale).sum())(*e, scale=2.0),
          TF.grad(lambda x, y, scale=1.0: (y * scale).sum())(*t, scale=2.0))
    _same(EF.grad(lambda x: x.sum().long())(e[0]), TF.grad(lambda x: x.sum().long())(t[0]))


def test_grad_empty_input():
    e, t = _pair((0, 3))
    _both("grad", lambda L, x: x.sum(), [e[0]], [t[0]])


def test_grad_result_requires_grad_like_torch():
    e, t = _pair((3,), (3,), seed=5)
    ew, tw = e[1].requires_grad_(), t[1].requires_grad_()
    # Neither the input nor anything the function closes over requires grad.
    assert not EF.grad(lambda x: (x ** 2).sum())(e[0]).requires_grad
    # A closed-over tensor that requires grad but does not reach the gradient.
    e_g = EF.grad(lambda x: (x ** 2).sum() + ew.sum())(e[0])
    t_g = TF.grad(lambda x: (x ** 2).sum() + tw.sum())(t[0])
    assert e_g.requires_grad == t_g.requires_grad
    # The gradient depends on the closed-over tensor: it stays in the caller's graph.
    e_g = EF.grad(lambda x: (x.sin() * ew).sum())(e[0])
    t_g = TF.grad(lambda x: (x.sin() * tw).sum())(t[0])
    assert e_g.requires_grad and t_g.requires_grad
    (e_g ** 2).sum().backward()
    (t_g ** 2).sum().backward()
    _same(ew.grad, tw.grad)
    # An input that requires grad: backward through the gradient reaches it (second order).
    ex, tx = e[0].clone().requires_grad_(), t[0].clone().requires_grad_()
    e_g = EF.grad(lambda x: (x.sin() * x).sum())(ex)
    t_g = TF.grad(lambda x: (x.sin() * x).sum())(tx)
    assert e_g.requires_grad and t_g.requires_grad
    e_g.sum().backward()
    t_g.sum().backward()
    _same(ex.grad, tx.grad)


def test_grad_under_no_grad_and_inner_no_grad():
    e, t = _pair((4,), seed=6)
    with ember.no_grad():
        e_out = EF.grad(lambda x: scalar_fn(ember, x))(e[0])
    with torch.no_grad():
        t_out = TF.grad(lambda x: scalar_fn(torch, x))(t[0])
    _same(e_out, t_out)
    assert not e_out.requires_grad

    def inner_no_grad(L, x):
        with L.no_grad():
            c = (x ** 2).sum()
        return c * x.sin().sum()
    _both("grad", inner_no_grad, e, t)
    # Under no_grad even an input that requires grad gives a detached result.
    ex = e[0].clone().requires_grad_()
    with ember.no_grad():
        assert not EF.grad(lambda x: (x ** 3).sum())(ex).requires_grad


def test_nested_grad():
    e, t = _pair((), seed=7)
    e_out = EF.grad(EF.grad(lambda x: x.sin() * x ** 3))(e[0])
    t_out = TF.grad(TF.grad(lambda x: x.sin() * x ** 3))(t[0])
    _same(e_out, t_out)
    e_out = EF.grad(EF.grad(EF.grad(lambda x: x.exp() * x.cos())))(e[0])
    t_out = TF.grad(TF.grad(TF.grad(lambda x: x.exp() * x.cos())))(t[0])
    _same(e_out, t_out)
    assert not e_out.requires_grad


def test_grad_of_gradient_dot_vector_is_hvp():
    e, t = _pair((4,), (4,), seed=8)

    def hvp(lib, transforms, x, v):
        return transforms.grad(lambda y: (transforms.grad(lambda z: scalar_fn(lib, z))(y) * v).sum())(x)
    _same(hvp(ember, EF, *e), hvp(torch, TF, *t))


def test_grad_mixed_levels_inner_argument():
    # The inner grad is over y only; the outer over x: d/dx of sum(d/dy f(x, y)).
    e, t = _pair((3,), (3,), seed=9)

    def outer(lib, transforms, x, y):
        return transforms.grad(lambda a: transforms.grad(lambda b: two_arg_fn(lib, a, b))(y).sum())(x)
    e_out, t_out = outer(ember, EF, *e), outer(torch, TF, *t)
    _same(e_out, t_out)
    assert not e_out.requires_grad


def test_grad_errors():
    e, t = _pair((3,), seed=10)
    x, tx = e[0], t[0]
    cases = [
        (lambda G: G.grad(lambda a: a)(x), lambda G: G.grad(lambda a: a)(tx)),  # not scalar
        (lambda G: G.grad(lambda a: a.sum().reshape(1))(x), lambda G: G.grad(lambda a: a.sum().reshape(1))(tx)),
        (lambda G: G.grad(lambda a: 1.0)(x), lambda G: G.grad(lambda a: 1.0)(tx)),
        (lambda G: G.grad(lambda a: (a.sum(),))(x), lambda G: G.grad(lambda a: (a.sum(),))(tx)),
        (lambda G: G.grad(lambda a: a.sum(), argnums=1)(x), lambda G: G.grad(lambda a: a.sum(), argnums=1)(tx)),
        (lambda G: G.grad(lambda a: a.sum(), argnums=-2)(x), lambda G: G.grad(lambda a: a.sum(), argnums=-2)(tx)),
        (lambda G: G.grad(lambda a: a.sum(), argnums=())(x), lambda G: G.grad(lambda a: a.sum(), argnums=())(tx)),
        (lambda G: G.grad(lambda a: a.sum(), argnums=0.5)(x), lambda G: G.grad(lambda a: a.sum(), argnums=0.5)(tx)),
        (lambda G: G.grad(lambda a, b: a.sum(), argnums=(0, 0))(x, x),
         lambda G: G.grad(lambda a, b: a.sum(), argnums=(0, 0))(tx, tx)),
        (lambda G: G.grad(lambda a, b: a.sum(), argnums=(0, "a"))(x, x),
         lambda G: G.grad(lambda a, b: a.sum(), argnums=(0, "a"))(tx, tx)),
        (lambda G: G.grad(lambda a: a.sum(), has_aux=True)(x), lambda G: G.grad(lambda a: a.sum(), has_aux=True)(tx)),
        (lambda G: G.grad(lambda a: (a.sum(), 1, 2), has_aux=True)(x),
         lambda G: G.grad(lambda a: (a.sum(), 1, 2), has_aux=True)(tx)),
        (lambda G: G.grad(lambda a: (a.sum(), {"k": 1}), has_aux=True)(x),
         lambda G: G.grad(lambda a: (a.sum(), {"k": 1}), has_aux=True)(tx)),
        (lambda G: G.grad(lambda: x.sum())(), lambda G: G.grad(lambda: tx.sum())()),
        (lambda G: G.grad(lambda a: a.sum())(3.0), lambda G: G.grad(lambda a: a.sum())(3.0)),
        (lambda G: G.grad(lambda d: d["a"].sum())({"a": x, "b": 1}),
         lambda G: G.grad(lambda d: d["a"].sum())({"a": tx, "b": 1})),
    ]
    for e_call, t_call in cases:
        _same_error(lambda: e_call(EF), lambda: t_call(TF))
    _same_error(lambda: EF.grad(lambda a: a.sum())(ember.arange(3)),
                lambda: TF.grad(lambda a: a.sum())(torch.arange(3)))


def test_grad_error_leaves_input_unchanged():
    (e,), _ = _pair((3,), seed=11)
    before = e.clone()
    with pytest.raises(RuntimeError):
        EF.grad(lambda a: a * 2)(e)
    assert not e.requires_grad and ember.equal(e, before)


# ---------------------------------------------------------------- vjp


def test_vjp_values_and_pytrees():
    e, t = _pair((3,), (3,), (3,), (4,), seed=12)

    def f(L, x, y):
        return {"a": x.sin() * y, "b": (x.exp().sum(), y.tanh())}
    e_out, e_fn = EF.vjp(lambda x, y: f(ember, x, y), e[0], e[1])
    t_out, t_fn = TF.vjp(lambda x, y: f(torch, x, y), t[0], t[1])
    _same(e_out, t_out)
    e_cot = {"a": e[2], "b": (ember.tensor(1.5, dtype=ember.float64), e[2] * 2)}
    t_cot = {"a": t[2], "b": (torch.tensor(1.5, dtype=torch.float64), t[2] * 2)}
    _same(e_fn(e_cot), t_fn(t_cot))
    _same(e_fn(e_cot), t_fn(t_cot))  # callable again
    assert not e_out["a"].requires_grad and not e_fn(e_cot)[0].requires_grad


def test_vjp_has_aux_and_single_input():
    e, t = _pair((2, 3), (2, 3), seed=13)
    e_out, e_fn, e_aux = EF.vjp(lambda x: (x.tanh(), {"n": x.sum()}), e[0], has_aux=True)
    t_out, t_fn, t_aux = TF.vjp(lambda x: (x.tanh(), {"n": x.sum()}), t[0], has_aux=True)
    _same(e_out, t_out)
    _same(e_aux, t_aux)
    _same(e_fn(e[1]), t_fn(t[1]))


def test_vjp_requires_grad_semantics():
    e, t = _pair((3,), seed=14)
    ex, tx = e[0].clone().requires_grad_(), t[0].clone().requires_grad_()
    e_out, e_fn = EF.vjp(lambda a: a ** 2, ex)
    t_out, t_fn = TF.vjp(lambda a: a ** 2, tx)
    assert e_out.requires_grad == t_out.requires_grad
    e_g, t_g = e_fn(ember.ones(3, dtype=ember.float64))[0], t_fn(torch.ones(3, dtype=torch.float64))[0]
    assert e_g.requires_grad == t_g.requires_grad
    (e_g * e_out).sum().backward()
    (t_g * t_out).sum().backward()
    _same(ex.grad, tx.grad)
    with ember.no_grad():
        _, fn = EF.vjp(lambda a: a ** 2, e[0])
        assert not fn(e[0])[0].requires_grad


def test_vjp_errors():
    e, t = _pair((3,), seed=15)
    x, tx = e[0], t[0]
    _same_error(lambda: EF.vjp(lambda a: 1.0, x), lambda: TF.vjp(lambda a: 1.0, tx))
    _same_error(lambda: EF.vjp(lambda a: a, 1.0), lambda: TF.vjp(lambda a: a, 1.0))
    _same_error(lambda: EF.vjp(lambda a: a, x, has_aux=True), lambda: TF.vjp(lambda a: a, tx, has_aux=True))
    _same_error(lambda: EF.vjp(lambda a: (a, 1), x, has_aux=True),
                lambda: TF.vjp(lambda a: (a, 1), tx, has_aux=True))
    _, e_fn = EF.vjp(lambda a: a * 2, x)
    _, t_fn = TF.vjp(lambda a: a * 2, tx)
    _same_error(lambda: e_fn(ember.ones(4, dtype=ember.float64)), lambda: t_fn(torch.ones(4, dtype=torch.float64)))
    _same_error(lambda: e_fn((x,)), lambda: t_fn((tx,)))


# ---------------------------------------------------------------- jvp, linearize


def test_jvp_values():
    e, t = _pair((3, 2), (2, 4), (3, 2), (2, 4), seed=16)
    e_out = EF.jvp(lambda a, b: matrix_fn(ember, a, b), (e[0], e[1]), (e[2], e[3]))
    t_out = TF.jvp(lambda a, b: matrix_fn(torch, a, b), (t[0], t[1]), (t[2], t[3]))
    _same(e_out, t_out)
    assert not e_out[1].requires_grad


def test_jvp_pytrees_has_aux_and_constant_output():
    e, t = _pair((3,), (3,), seed=17)

    def f(L, x):
        return (x.sin(), {"s": x.sum() ** 2}), x.cos()
    _same(EF.jvp(lambda x: f(ember, x), (e[0],), (e[1],), has_aux=True),
          TF.jvp(lambda x: f(torch, x), (t[0],), (t[1],), has_aux=True))
    _same(EF.jvp(lambda x: ember.ones(2, dtype=ember.float64), (e[0],), (e[1],)),
          TF.jvp(lambda x: torch.ones(2, dtype=torch.float64), (t[0],), (t[1],)))


def test_jvp_inside_grad():
    # d/dt of a forward product, through an enclosing grad (the tangent is its input).
    e, t = _pair((3,), (3,), seed=18)

    def f(lib, transforms, x, v):
        return transforms.grad(lambda u: transforms.jvp(lambda y: vector_fn(lib, y), (x,), (u,))[1].sum())(v)
    _same(f(ember, EF, *e), f(torch, TF, *t))


def test_jvp_errors():
    e, t = _pair((3,), seed=19)
    x, tx = e[0], t[0]
    f = lambda a: a * 2  # noqa: E731
    cases = [
        ((f, x, x), (f, tx, tx)),
        ((f, (x,), x), (f, (tx,), tx)),
        ((f, (x,), (x, x)), (f, (tx,), (tx, tx))),
        ((f, (x,), (ember.ones(4),)), (f, (tx,), (torch.ones(4),))),
        ((f, (1.0,), (1.0,)), (f, (1.0,), (1.0,))),
        ((f, (x,), (1.0,)), (f, (tx,), (1.0,))),
        ((f, (ember.arange(3),), (ember.arange(3),)), (f, (torch.arange(3),), (torch.arange(3),))),
        ((lambda a: 1.0, (x,), (x,)), (lambda a: 1.0, (tx,), (tx,))),
    ]
    for e_args, t_args in cases:
        _same_error(lambda: EF.jvp(*e_args), lambda: TF.jvp(*t_args))
    _same_error(lambda: EF.jvp(f, (x,), (x,), has_aux=True), lambda: TF.jvp(f, (tx,), (tx,), has_aux=True))
    _same_error(lambda: EF.jvp(lambda a: (a, 1), (x,), (x,), has_aux=True),
                lambda: TF.jvp(lambda a: (a, 1), (tx,), (tx,), has_aux=True))


def test_linearize():
    e, t = _pair((3, 2), (2, 4), (3, 2), (2, 4), (3, 2), (2, 4), seed=20)
    e_out, e_fn = EF.linearize(lambda a, b: matrix_fn(ember, a, b), e[0], e[1])
    t_out, t_fn = TF.linearize(lambda a, b: matrix_fn(torch, a, b), t[0], t[1])
    _same(e_out, t_out)
    _same(e_fn(e[2], e[3]), t_fn(t[2], t[3]))
    _same(e_fn(e[4], e[5]), t_fn(t[4], t[5]))
    _same_error(lambda: e_fn(e[2]), lambda: t_fn(t[2]))
    _same_error(lambda: e_fn(e[3], e[2]), lambda: t_fn(t[3], t[2]))


# ---------------------------------------------------------------- jacrev, jacfwd, hessian


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
def test_jacobians_vector_functions(transform):
    e, t = _pair((4,), (3, 2), (2, 4), (), seed=21)
    _both(transform, vector_fn, [e[0]], [t[0]])
    _both(transform, matrix_fn, [e[1], e[2]], [t[1], t[2]])
    _both(transform, matrix_fn, [e[1], e[2]], [t[1], t[2]], argnums=1)
    _both(transform, matrix_fn, [e[1], e[2]], [t[1], t[2]], argnums=(1, 0))
    _both(transform, lambda L, x: x.sin() * 2, [e[3]], [t[3]])  # 0-d input and output
    _both(transform, lambda L, x: (x ** 2).sum(), [e[0]], [t[0]])  # 0-d output


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
def test_jacobians_pytrees_and_has_aux(transform):
    e, t = _pair((3,), (2,), seed=22)

    def f(L, params):
        w, b = params["w"], params["b"]
        out = {"s": w.sin() * b.sum(), "pair": ((w * w).sum(), b.exp())}
        return out, w.sum()
    e_out = getattr(EF, transform)(lambda p: f(ember, p), has_aux=True)({"w": e[0], "b": e[1]})
    t_out = getattr(TF, transform)(lambda p: f(torch, p), has_aux=True)({"w": t[0], "b": t[1]})
    _same(e_out, t_out)
    assert not e_out[0]["s"]["w"].requires_grad


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
def test_jacobians_empty_and_float32(transform):
    e, t = _pair((0,), (2, 3), seed=23)
    _both(transform, lambda L, x: x * 2, [e[0]], [t[0]])
    a = np.random.default_rng(24).standard_normal((3,)).astype(np.float32)
    e_out = getattr(EF, transform)(lambda x: vector_fn(ember, x))(ember.tensor(a))
    t_out = getattr(TF, transform)(lambda x: vector_fn(torch, x))(torch.tensor(a))
    _same(e_out, t_out, tol=1e-5)


def test_jacobian_errors_and_randomness():
    e, t = _pair((3,), seed=25)
    x, tx = e[0], t[0]
    _same_error(lambda: EF.jacrev(lambda a: a, chunk_size=0), lambda: TF.jacrev(lambda a: a, chunk_size=0))
    _same_error(lambda: EF.jacrev(lambda a: 1.0)(x), lambda: TF.jacrev(lambda a: 1.0)(tx))
    _same_error(lambda: EF.jacrev(lambda a: a, argnums=2)(x), lambda: TF.jacrev(lambda a: a, argnums=2)(tx))
    _same_error(lambda: EF.jacrev(lambda a: a, has_aux=True)(x), lambda: TF.jacrev(lambda a: a, has_aux=True)(tx))
    _same_error(lambda: EF.jacfwd(lambda a: a, has_aux=True)(x), lambda: TF.jacfwd(lambda a: a, has_aux=True)(tx))
    for name in ("jacrev", "jacfwd"):
        _same_error(lambda: getattr(EF, name)(lambda a: a * 2)(ember.arange(3)),
                    lambda: getattr(TF, name)(lambda a: a * 2)(torch.arange(3)))
    _same_error(lambda: EF.jacfwd(lambda a: a, randomness="foo")(x),
                lambda: TF.jacfwd(lambda a: a, randomness="foo")(tx))
    state = ember.get_rng_state()
    _same_error(lambda: EF.jacfwd(lambda a: a * ember.randn(3, dtype=ember.float64))(x),
                lambda: TF.jacfwd(lambda a: a * torch.randn(3, dtype=torch.float64))(tx))
    assert ember.equal(state, ember.get_rng_state())
    # jacrev runs the function outside any vmap in torch: random draws are allowed.
    assert EF.jacrev(lambda a: a * ember.randn(3, dtype=ember.float64))(x).shape == (3, 3)
    assert EF.jacfwd(lambda a: a * ember.randn(3, dtype=ember.float64), randomness="different")(x).shape == (3, 3)


def test_hessian():
    e, t = _pair((4,), (3,), seed=26)
    _both("hessian", scalar_fn, [e[0]], [t[0]])
    _both("hessian", two_arg_fn, [e[0], e[0]], [t[0], t[0]], argnums=(0, 1))
    _both("hessian", two_arg_fn, [e[0], e[0]], [t[0], t[0]], argnums=1)
    _both("hessian", vector_fn, [e[1]], [t[1]])  # of a vector function: output + input + input


def test_jacrev_of_jacrev_and_jacfwd_of_jacfwd():
    e, t = _pair((3,), seed=27)
    for outer in ("jacrev", "jacfwd"):
        for inner in ("jacrev", "jacfwd"):
            e_out = getattr(EF, outer)(getattr(EF, inner)(lambda x: vector_fn(ember, x)))(e[0])
            t_out = getattr(TF, outer)(getattr(TF, inner)(lambda x: vector_fn(torch, x)))(t[0])
            _same(e_out, t_out)


def test_jacobian_requires_grad_input_stays_connected():
    e, t = _pair((3,), seed=28)
    ex, tx = e[0].clone().requires_grad_(), t[0].clone().requires_grad_()
    for name in ("jacrev", "jacfwd"):
        ex.grad, tx.grad = None, None
        e_j = getattr(EF, name)(lambda x: vector_fn(ember, x))(ex)
        t_j = getattr(TF, name)(lambda x: vector_fn(torch, x))(tx)
        assert e_j.requires_grad and t_j.requires_grad
        (e_j ** 2).sum().backward()
        (t_j ** 2).sum().backward()
        _same(ex.grad, tx.grad)


# ---------------------------------------------------------------- vmap


def test_vmap_basic_and_in_dims():
    e, t = _pair((4, 3), (3, 4), (3,), (2, 3, 4), seed=29)
    _both("vmap", lambda L, x: x.sin() * x.sum(), [e[0]], [t[0]])
    _both("vmap", lambda L, x, y: x * y, [e[0], e[2]], [t[0], t[2]], in_dims=(0, None))
    _both("vmap", lambda L, x, y: x * y, [e[0], e[1]], [t[0], t[1]], in_dims=(0, 1))
    _both("vmap", lambda L, x, y: x * y, [e[0], e[1]], [t[0], t[1]], in_dims=(-2, -1))
    _both("vmap", lambda L, x: x.sum(0), [e[3]], [t[3]], in_dims=1)
    _both("vmap", lambda L, x: x @ x.t(), [e[3]], [t[3]], in_dims=2)


def test_vmap_pytree_inputs_and_outputs():
    e, t = _pair((2, 3), (3,), (2,), seed=30)

    def f(L, d, s):
        return {"sum": d["a"] + d["b"], "parts": (d["a"] * s, s)}
    e_out = EF.vmap(lambda d, s: f(ember, d, s), in_dims=({"a": 0, "b": None}, 0))({"a": e[0], "b": e[1]}, e[2])
    t_out = TF.vmap(lambda d, s: f(torch, d, s), in_dims=({"a": 0, "b": None}, 0))({"a": t[0], "b": t[1]}, t[2])
    _same(e_out, t_out)
    e_out = EF.vmap(lambda d, s: f(ember, d, s), in_dims=({"a": 0, "b": None}, 0),
                    out_dims={"sum": 1, "parts": (-1, 0)})({"a": e[0], "b": e[1]}, e[2])
    t_out = TF.vmap(lambda d, s: f(torch, d, s), in_dims=({"a": 0, "b": None}, 0),
                    out_dims={"sum": 1, "parts": (-1, 0)})({"a": t[0], "b": t[1]}, t[2])
    _same(e_out, t_out)


def test_vmap_out_dims_and_kwargs():
    e, t = _pair((4, 3), (2,), seed=31)
    _both("vmap", lambda L, x: L.outer(x, x), [e[0]], [t[0]], out_dims=2)
    _both("vmap", lambda L, x: L.outer(x, x), [e[0]], [t[0]], out_dims=-2)
    _both("vmap", lambda L, x: L.outer(x, x), [e[0]], [t[0]], out_dims=(1,))
    _both("vmap", lambda L, x: x * 2, [e[0]], [t[0]], in_dims=(1,), out_dims=True)
    _both("vmap", lambda L, x, c: (x * 2, c * 3), [e[0], e[1]], [t[0], t[1]], in_dims=(0, None),
          out_dims=(0, None))
    _same(EF.vmap(lambda x, scale: x * scale)(e[0], scale=e[0][0]),
          TF.vmap(lambda x, scale: x * scale)(t[0], scale=t[0][0]))


def test_vmap_nested_and_empty():
    e, t = _pair((3,), (4,), (0, 3), (2, 0), seed=32)
    e_out = EF.vmap(EF.vmap(lambda a, b: a * b, in_dims=(None, 0)), in_dims=(0, None))(e[0], e[1])
    t_out = TF.vmap(TF.vmap(lambda a, b: a * b, in_dims=(None, 0)), in_dims=(0, None))(t[0], t[1])
    _same(e_out, t_out)
    _both("vmap", lambda L, x: x * 2, [e[2]], [t[2]])
    _both("vmap", lambda L, x: (x.sum(), L.outer(x, x)), [e[2]], [t[2]], out_dims=(0, 1))
    _both("vmap", lambda L, x: x.sum(), [e[3]], [t[3]], in_dims=1)


def test_vmap_randomness():
    x = ember.zeros(4, 3)
    state = ember.get_rng_state()
    with pytest.raises(RuntimeError, match="randomness error mode"):
        EF.vmap(lambda a: a + ember.randn(3))(x)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        EF.vmap(EF.vmap(lambda a: a + ember.randn(()), randomness="different"))(x)
    assert ember.equal(state, ember.get_rng_state())
    different = EF.vmap(lambda a: a + ember.randn(3), randomness="different")(x)
    assert not ember.equal(different[0], different[1])
    same = EF.vmap(lambda a: a + ember.randn(3), randomness="same")(x)
    for row in same[1:]:
        assert ember.equal(row, same[0])
    _same_error(lambda: EF.vmap(lambda a: a, randomness="foo"), lambda: TF.vmap(lambda a: a, randomness="foo"))


def test_vmap_errors():
    e, t = _pair((3,), (4,), seed=33)
    x, y, tx, ty = e[0], e[1], t[0], t[1]
    cases = [
        (dict(in_dims=(0,)), lambda a, b: a + b, (x, x), (tx, tx)),
        (dict(in_dims=[0]), lambda a: a, (x,), (tx,)),
        (dict(in_dims=0.5), lambda a: a, (x,), (tx,)),
        (dict(in_dims=None), lambda a: a, (x,), (tx,)),
        (dict(in_dims=(None,)), lambda a: a, (x,), (tx,)),
        (dict(in_dims=("a",)), lambda a: a, (x,), (tx,)),
        (dict(), lambda a, b: a + b, (x, y), (tx, ty)),
        (dict(in_dims=1), lambda a: a, (x,), (tx,)),
        (dict(in_dims=-2), lambda a: a, (x,), (tx,)),
        (dict(), lambda a: a, (e[0][0],), (t[0][0],)),
        (dict(in_dims=(0, 0)), lambda a, b: a * b, (x, 2), (tx, 2)),
        (dict(), lambda a: 1.0, (x,), (tx,)),
        (dict(), lambda a: None, (x,), (tx,)),
        (dict(out_dims=2), lambda a: a, (x,), (tx,)),
        (dict(out_dims=(0, 0, 0)), lambda a: (a, a), (x,), (tx,)),
        (dict(out_dims=[0, 0]), lambda a: (a, a), (x,), (tx,)),
        (dict(out_dims="a"), lambda a: a, (x,), (tx,)),
        (dict(out_dims=None), lambda a: a, (x,), (tx,)),
        (dict(), lambda: x, (), ()),
    ]
    for kwargs, fn, e_args, t_args in cases:
        _same_error(lambda: EF.vmap(fn, **kwargs)(*e_args), lambda: TF.vmap(fn, **kwargs)(*t_args))
    _same_error(lambda: EF.vmap(lambda a: a, chunk_size=0), lambda: TF.vmap(lambda a: a, chunk_size=0))
    _same_error(lambda: EF.vmap(3)(x), lambda: TF.vmap(3)(tx))


def test_vmap_of_grad_and_grad_of_vmap():
    e, t = _pair((5, 3), (3,), seed=34)
    _same(EF.vmap(EF.grad(lambda a: scalar_fn(ember, a)))(e[0]),
          TF.vmap(TF.grad(lambda a: scalar_fn(torch, a)))(t[0]))
    e_out = EF.vmap(EF.grad(lambda a, w: two_arg_fn(ember, a, w), argnums=1), in_dims=(0, None))(e[0], e[1])
    t_out = TF.vmap(TF.grad(lambda a, w: two_arg_fn(torch, a, w), argnums=1), in_dims=(0, None))(t[0], t[1])
    _same(e_out, t_out)
    e_out = EF.grad(lambda w: EF.vmap(lambda a: two_arg_fn(ember, a, w))(e[0]).sum())(e[1])
    t_out = TF.grad(lambda w: TF.vmap(lambda a: two_arg_fn(torch, a, w))(t[0]).sum())(t[1])
    _same(e_out, t_out)
    _same(EF.vmap(EF.jacrev(lambda a: vector_fn(ember, a)))(e[0]),
          TF.vmap(TF.jacrev(lambda a: vector_fn(torch, a)))(t[0]))
    _same(EF.vmap(EF.hessian(lambda a: scalar_fn(ember, a)))(e[0]),
          TF.vmap(TF.hessian(lambda a: scalar_fn(torch, a)))(t[0]))


def test_vmap_keeps_autograd_through_the_stack():
    e, t = _pair((4, 3), seed=35)
    ex, tx = e[0].clone().requires_grad_(), t[0].clone().requires_grad_()
    EF.vmap(lambda a: (a.sin() * a.sum()))(ex).pow(2).sum().backward()
    TF.vmap(lambda a: (a.sin() * a.sum()))(tx).pow(2).sum().backward()
    _same(ex.grad, tx.grad)


def test_top_level_vmap_and_func():
    assert ember.vmap is EF.vmap and ember.func is EF
