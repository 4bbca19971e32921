"""ember.autograd.Function: the context (saved tensors, mark_dirty,
mark_non_differentiable, materialize_grads, needs_input_grad) and the checks on
what backward returns. It shares its node with the C++ API (test/cpp/autograd/test_function.cpp)."""
import numpy as np
import pytest

import ember
from ember.autograd import Function, gradcheck, gradgradcheck

rng = np.random.default_rng(0)


def leaf(*shape):
    return ember.from_numpy(rng.standard_normal(shape)).requires_grad_()


class Expm1(Function):
    """exp(x) - 1, whose derivative is its output + 1: backward reads a saved output."""

    @staticmethod
    def forward(ctx, x):
        out = x.expm1()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad * (ctx.saved_tensors[0] + 1)


class SortedWithOrder(Function):
    """(values, order) of a 1-d tensor sorted by a fixed permutation; order gets no gradient."""

    @staticmethod
    def forward(ctx, x, order):
        ctx.mark_non_differentiable(order)
        ctx.set_materialize_grads(False)
        ctx.order = order
        return x[order], order

    @staticmethod
    def backward(ctx, g_values, g_order):
        assert g_order is None
        out = ember.zeros_like(g_values)
        out[ctx.order] = g_values
        return out, None


def test_first_and_second_derivatives_through_a_saved_output():
    assert gradcheck(Expm1.apply, (leaf(4),))
    assert gradgradcheck(Expm1.apply, (leaf(4),))


def test_non_differentiable_outputs_and_unmaterialized_grads():
    x = leaf(4)
    order = ember.tensor([2, 0, 3, 1])
    values, same_order = SortedWithOrder.apply(x, order)
    assert values.requires_grad and not same_order.requires_grad
    (values * ember.arange(4.0, dtype=ember.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 3.0, 0.0, 2.0])


def test_needs_input_grad_and_gradients_of_non_tensor_arguments():
    seen = []

    class Scale(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen.append(ctx.needs_input_grad)
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            return g, None, 1.0

    out = Scale.apply(leaf(2), ember.ones(2, dtype=ember.float64), 3.0)
    assert seen == [(True, False, False)]
    with pytest.raises(TypeError, match="returned a float as gradient 2"):
        out.sum().backward()


def test_backward_must_return_one_gradient_per_argument():
    class TooFew(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return (g,)

    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 2, got 1\)"):
        TooFew.apply(leaf(2), leaf(2)).sum().backward()

    class ForANumber(Function):
        @staticmethod
        def forward(ctx, a, k):
            return a * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match="position 2, but the corresponding forward input was not a Tensor"):
        ForANumber.apply(leaf(2), 2.0).sum().backward()


def test_saved_tensors_are_version_checked_and_freed():
    x = leaf(3)
    a = x * 1
    y = Expm1.apply(a)
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    z = Expm1.apply(x)
    z.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.sum().backward()
    with pytest.raises(TypeError, match="save_for_backward can only take tensors"):
        class SavesANumber(Function):
            @staticmethod
            def forward(ctx, t):
                ctx.save_for_backward(t, 3)
                return t

        SavesANumber.apply(x)


def test_mark_dirty_gives_the_input_the_node_as_history():
    class Double(Function):
        @staticmethod
        def forward(ctx, t):
            t.mul_(2)
            ctx.mark_dirty(t)
            return t

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = leaf(3)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        Double.apply(leaf(3))
    a = x * 1
    assert Double.apply(a) is a
    assert a.grad_fn.name() == "DoubleBackward"
    (a * a).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 8 * x.detach().numpy())


def test_returned_inputs_are_new_tensors_with_the_node_as_history():
    class Identity(Function):
        @staticmethod
        def forward(ctx, t):
            return t

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = leaf(2)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and y.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    with ember.no_grad():
        assert Identity.apply(x).grad_fn is None


def test_unbind_node_has_torchs_name():
    x = ember.randn(3, 2, requires_grad=True)
    assert type(x.unbind(0)[0].grad_fn).__name__ == "UnbindBackward0"
