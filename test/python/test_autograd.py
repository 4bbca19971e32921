"""The tape and the engine: gradients against float64 finite differences,
accumulation, retain_graph, create_graph, hooks, grad modes, custom Functions
and the errors PyTorch gives. Ops whose derivative row is not written yet raise
NotImplementedError in backward (tested too)."""
import gc

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

rng = np.random.default_rng(0)


def leaf(*shape):
    return ember.from_numpy(rng.standard_normal(shape)).requires_grad_()


@pytest.mark.parametrize("fn, shapes", [
    (lambda a, b: (a * b + a).sum(), [(3, 4), (3, 4)]),
    (lambda a, b: (a * b).sum(), [(3, 4), (4,)]),           # broadcast: gradient reduced
    (lambda a, b: (a / (b * b + 1)).mean(), [(2, 3), (2, 3)]),
    (lambda a, b: (a - 2.5 * b).exp().sum(), [(5,), (5,)]),
    (lambda a: a.tanh().sigmoid().sum(), [(4, 2)]),
    (lambda a: (a.sin() * a.cos()).sum(1).mean(), [(3, 3)]),
    (lambda a: a.relu().sum(), [(6,)]),
    (lambda a, b: (a @ b).sum(), [(3, 4), (4, 2)]),
    (lambda a, b: (a @ b).sum(), [(2, 3, 4), (2, 4, 5)]),
    (lambda a, b: (a @ b), [(3, 4), (4,)]),
    (lambda a, b: ember.dot(a, b), [(5,), (5,)]),
    (lambda a, b, c: ember.addmm(a, b, c, beta=0.5, alpha=2.0).sum(), [(3,), (3, 4), (4, 3)]),
    (lambda a: a.t().reshape(-1)[1:5:2].sum(), [(3, 4)]),
    (lambda a: a[1].unsqueeze(0).expand(3, 4).permute(1, 0).sum(), [(2, 4)]),
    (lambda a: a.abs().sum(), [(4,)]),
    (lambda a: (a.expm1() + (a * a).log1p() + (a * a + 1).log2()).sum(), [(4,)]),
    (lambda a: ((a * a + 1).reciprocal() + (a * a + 1).rsqrt() + (a * 0.3).tan()).sum(), [(4,)]),
    (lambda a: (a.erf() + ember.nn.functional.silu(a)).sum(), [(5,)]),
    (lambda a, b: ((a * a + 1) ** b).sum(), [(3,), (3,)]),
    (lambda a: (a ** 3).sum(), [(3,)]),
    (lambda a, b: (ember.maximum(a, b) - ember.minimum(a, b)).sum(), [(4,), (4,)]),
    (lambda a, b: ember.where(a > 0, a, b).sum(), [(5,), (5,)]),
    (lambda a: (a.softmax(1) * ember.arange(4.0, dtype=ember.float64)).sum(), [(3, 4)]),
    (lambda a: (a.log_softmax(0) * a).sum(), [(3, 4)]),
    (lambda a: a.logsumexp(1).sum(), [(3, 4)]),
    (lambda a: a.var(1).sum() + a.var(), [(3, 4)]),
    (lambda a: a.std(0, correction=0, keepdim=True).sum() + a.std(), [(3, 4)]),
    (lambda a: a.amax(1).sum() + a.amin() + a.amax((0, 1)), [(3, 4)]),
    (lambda a: ember.nn.functional.cross_entropy(a, ember.tensor([0, 3, 1]), label_smoothing=0.1), [(3, 4)]),
    (lambda a: ember.nn.functional.cross_entropy(
        a, ember.tensor([0, 3, 1]), weight=ember.tensor([0.5, 1.0, 2.0, 1.5], dtype=ember.float64),
        reduction="sum"), [(3, 4)]),
    (lambda a: ember.nn.functional.nll_loss(a.log_softmax(1), ember.tensor([2, 0, 1])), [(3, 4)]),
    (lambda a, b: ember.nn.functional.mse_loss(a, b), [(3, 4), (3, 4)]),
    (lambda a, b: ember.nn.functional.l1_loss(a, b, reduction="sum"), [(5,), (5,)]),
    (lambda a, b: ember.nn.functional.smooth_l1_loss(a, b * 3, beta=0.5), [(6,), (6,)]),
    (lambda a, w, b: (ember.nn.functional.layer_norm(a, (4,), w, b) * a).sum(), [(3, 4), (4,), (4,)]),
    (lambda w: (ember.nn.functional.embedding(ember.tensor([[0, 2], [2, 1]]), w, padding_idx=3) ** 2).sum(),
     [(4, 3)]),
])

def test_gradcheck(fn, shapes):
    assert gradcheck(fn, tuple(leaf(*s) for s in shapes))


@pytest.mark.parametrize("fn, shapes", [
    (lambda a, b: (a * b * a).sum(), [(3,), (3,)]),
    (lambda a: a.tanh().sum(), [(4,)]),
    (lambda a, b: (a @ b).sigmoid().sum(), [(2, 3), (3, 2)]),
    (lambda a: (a.exp() / (a * a + 1)).sum(), [(3,)]),
    (lambda a: (a.softmax(1) * a).sum(), [(2, 3)]),
    (lambda a: a.logsumexp(0).sum(), [(3, 2)]),
])
def test_gradgradcheck(fn, shapes):
    assert gradgradcheck(fn, tuple(leaf(*s) for s in shapes))


def test_hessian_vector_product_of_a_small_mlp_matches_finite_differences():
    w1, w2 = leaf(4, 3), leaf(3, 1)
    x = ember.from_numpy(rng.standard_normal((5, 4)))
    v = ember.from_numpy(rng.standard_normal((4, 3)))

    def loss(w):
        return ((x @ w).tanh() @ w2).sum()

    (g,) = ember.autograd.grad(loss(w1), w1, create_graph=True)
    (hv,) = ember.autograd.grad((g * v).sum(), w1)
    eps = 1e-6
    with ember.no_grad():
        wp = (w1 + eps * v).requires_grad_()
        wm = (w1 - eps * v).requires_grad_()
    (gp,) = ember.autograd.grad(loss(wp), wp)
    (gm,) = ember.autograd.grad(loss(wm), wm)
    np.testing.assert_allclose(hv.numpy(), ((gp - gm) / (2 * eps)).numpy(), rtol=1e-5, atol=1e-7)


def test_gradients_accumulate_and_zero():
    x = leaf(3)
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 5.0))
    assert x.is_leaf and x.grad_fn is None


def test_grad_fn_names_and_leafness():
    x = leaf(2)
    y = x * 2
    assert y.grad_fn.name() == "MulBackward0"
    assert not y.is_leaf and y.requires_grad
    assert "AccumulateGrad" in repr(y.grad_fn.next_functions[0][0])


def test_backward_twice_needs_retain_graph():
    x = leaf(3)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_backward_on_non_scalar_needs_a_gradient():
    x = leaf(3)
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        (x * 2).backward()
    (x * 2).backward(ember.ones(3, dtype=ember.float64))
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 2.0))


def test_tensor_without_grad_cannot_backward():
    with pytest.raises(RuntimeError, match="does not require grad"):
        ember.ones(2).sum().backward()


def test_saved_tensor_modified_in_place_is_caught():
    x = leaf(3)
    y = x * 1.0
    z = (y * y).sum()
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_in_place_on_a_leaf_that_requires_grad_is_refused():
    x = leaf(3)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.add_(1)
    with ember.no_grad():
        x.add_(1)  # allowed without recording


def test_in_place_op_on_a_non_leaf_rebases_its_history():
    x = leaf(3)
    y = x * 2
    y.mul_(3)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 6.0))


def test_no_grad_enable_grad_set_grad_enabled():
    x = leaf(2)
    with ember.no_grad():
        y = x * 2
        with ember.enable_grad():
            z = x * 2
    assert not y.requires_grad and z.requires_grad
    with ember.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert ember.is_grad_enabled()

    @ember.no_grad()
    def f(t):
        return t * 2
    assert not f(x).requires_grad


def test_hooks_and_retain_grad():
    x = leaf(3)
    y = x * 2
    y.retain_grad()
    seen = []
    h = y.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 10)
    x.register_hook(lambda g: g + 1)
    (y * 1.0).sum().backward()
    np.testing.assert_allclose(seen[0], np.ones(3))
    np.testing.assert_allclose(y.grad.numpy(), np.ones(3))
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 21.0))
    h.remove()


def test_grad_with_allow_unused_and_inputs():
    x, z = leaf(2), leaf(2)
    y = (x * x).sum()
    with pytest.raises(RuntimeError, match="not have been used in the graph"):
        ember.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = ember.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)
    assert gz is None
    np.testing.assert_allclose(gx.numpy(), 2 * x.detach().numpy())
    y.backward(inputs=[x])
    assert z.grad is None and x.grad is not None


def test_detach_and_requires_grad_rules():
    x = leaf(2)
    y = x * 2
    assert not y.detach().requires_grad
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad_(False)
    with pytest.raises(RuntimeError, match="floating point"):
        ember.arange(3).requires_grad_()


class Cube(ember.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x * x * x * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x * x * ctx.k, None


def test_custom_function():
    x = leaf(4)
    y = Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "CubeBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.detach().numpy() ** 2)
    assert gradcheck(lambda t: Cube.apply(t, 0.5), (leaf(3),))


def test_missing_derivative_is_a_clear_error():
    # unique has no derivative row (nor has it in PyTorch): its values require grad
    # and backward through them raises.
    x = leaf(3)
    y = ember.unique(x).sum()
    with pytest.raises(NotImplementedError, match="the derivative for 'unique' is not implemented"):
        y.backward()


def test_graph_is_freed_and_memory_is_flat():
    w = leaf(64, 64)
    x = ember.randn(32, 64, dtype=ember.float64)

    def step():
        loss = ((x @ w).tanh() * 0.5).sum()
        loss.backward()
        w.grad = None

    for _ in range(5):
        step()
    gc.collect()
    before = ember.memory_stats()
    for _ in range(300):
        step()
    gc.collect()
    after = ember.memory_stats()
    assert after["allocated_bytes"] == before["allocated_bytes"]
    assert after["num_raw_allocs"] == before["num_raw_allocs"]


def test_dropout_gradient_follows_its_mask():
    x = leaf(1000)
    y = ember.nn.functional.dropout(x, p=0.25, training=True)
    y.sum().backward()
    kept = (y != 0).numpy()
    np.testing.assert_allclose(x.grad.numpy()[kept], 1 / 0.75)
    assert (x.grad.numpy()[~kept] == 0).all()


def test_a_tensor_that_requires_grad_is_not_taken_as_a_number():
    """PyTorch's rule: a 0-dim tensor passes for a number only when it does not require
    grad, since its gradient would be lost; ops taking numbers raise TypeError."""
    x = leaf(3)
    t = ember.tensor(0.5, dtype=ember.float64, requires_grad=True)
    with pytest.raises(TypeError):
        x.add(x, alpha=t)
    with pytest.raises(TypeError):
        ember.nn.functional.leaky_relu(x, t)
    with pytest.raises(TypeError):
        ember.full((2,), t)
    assert ember.full((2,), t.detach()).tolist() == [0.5, 0.5]  # without grad it is a number
    # fill_ with a tensor value is differentiable, as in PyTorch
    y = (x * 1).fill_(t)
    y.sum().backward()
    assert float(t.grad) == 3.0
    with pytest.raises(RuntimeError, match="0-dimension value tensor"):
        (x * 1).fill_(ember.ones(2, dtype=ember.float64))


def test_grad_of_roots_where_one_is_made_from_another():
    # v is made from u: u's node waits for v's gradient before it runs (it gave none before).
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    u = a * 3
    v = u * 2
    (g,) = ember.autograd.grad((u, v), (a,), (ember.ones(2), ember.ones(2)))
    np.testing.assert_allclose(g.numpy(), [9.0, 9.0])
    u = a * 3
    v = u * 2
    ember.autograd.backward((v, u), (ember.ones(2), ember.full((2,), 2.0)))
    np.testing.assert_allclose(a.grad.numpy(), [12.0, 12.0])


def test_grad_of_several_outputs_of_one_node():
    # The four outputs of unbind share one node: its edges count once.
    x = ember.ones(3, 4, dtype=ember.float64, requires_grad=True)
    outs = x.unbind(1)
    (g,) = ember.autograd.grad(list(outs), [x], [ember.full((3,), float(i), dtype=ember.float64)
                                                  for i in range(4)])
    np.testing.assert_allclose(g.numpy(), np.tile(np.arange(4.0), (3, 1)))
