"""ember.autograd.graph's saved-tensor hooks against torch.autograd.graph's: gradients
through packed and unpacked tensors (first and second order), what the hooks see,
nesting, save_on_cpu, disable_saved_tensors_hooks and the errors."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _f(lib, x, w):
    return (lib.tanh(x @ w) * x.sum(1, keepdim=True)).exp().sum()


def _inputs(lib):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    w = lib.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    return x, w


@pytest.mark.parametrize("create_graph", [False, True])
def test_gradients_through_hooks_match_torch(create_graph):
    results = []
    for lib in (ember, torch):
        x, w = _inputs(lib)
        seen = []

        def pack(t):
            seen.append(tuple(t.shape))
            return t.detach().clone() * 1  # a copy: backward must use what unpack gives

        def unpack(t):
            return t

        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = _f(lib, x, w)
        gx, gw = lib.autograd.grad(y, (x, w), create_graph=create_graph)
        out = [gx.detach().numpy(), gw.detach().numpy()]
        if create_graph:
            (ggx,) = lib.autograd.grad((gx * gx).sum() + gw.sum(), x)
            out.append(ggx.detach().numpy())
        results.append((out, len(seen) > 0))
    for e, t in zip(results[0][0], results[1][0]):
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)
    assert results[0][1] and results[1][1]


def test_unpacked_values_are_used():
    """What unpack returns is what backward computes with (here: doubled)."""
    for lib in (ember, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 2):
            y = (x * x).sum()
        y.backward()
        assert x.grad.tolist() == [4.0, 8.0]  # d(x*x) = x*g + g*x with x doubled


def test_innermost_hook_packs():
    for lib in (ember, torch):
        calls = []
        x = lib.ones(2, requires_grad=True)
        outer = lib.autograd.graph.saved_tensors_hooks(lambda t: calls.append("outer") or t, lambda t: t)
        inner = lib.autograd.graph.saved_tensors_hooks(lambda t: calls.append("inner") or t, lambda t: t)
        with outer:
            with inner:
                y = (x * x).sum()
            z = (x * x).sum()
        (y + z).backward()
        assert calls.count("inner") == 2 and calls.count("outer") == 2


def test_save_on_cpu_gives_the_same_gradients():
    grads = []
    for hooks in (False, True):
        x, w = _inputs(ember)
        if hooks:
            with ember.autograd.graph.save_on_cpu():
                y = _f(ember, x, w)
        else:
            y = _f(ember, x, w)
        y.backward()
        grads.append((x.grad.numpy(), w.grad.numpy()))
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a, b)


def test_custom_function_saved_tensors_go_through_hooks():
    seen = []

    class Square(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = ember.tensor([3.0], requires_grad=True)
    with ember.autograd.graph.saved_tensors_hooks(lambda t: seen.append(1) or t, lambda t: t):
        y = Square.apply(x)
    y.backward()
    assert x.grad.tolist() == [6.0] and len(seen) >= 1


def test_errors_as_torch():
    for lib in (ember, torch):
        x = lib.ones(2, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
            y = (x * x).sum()
        with pytest.raises(TypeError):
            y.backward()

        def modifying_pack(t):
            t.add_(1)
            return t

        z = lib.ones(2, requires_grad=True) * 1
        with pytest.raises(RuntimeError):
            with lib.autograd.graph.saved_tensors_hooks(modifying_pack, lambda t: t):
                (z * z).sum()

        with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            with pytest.raises(RuntimeError, match="no hooks here"):
                with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
        # a second backward through released saved tensors
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = (x * x).sum()
        y.backward()
        with pytest.raises(RuntimeError):
            y.backward()
