"""In-place ops on views of tensors that require grad (CopySlices and view rebasing,
Note [View + in-place] in lib/autograd/view_tracking.cpp), the as_strided derivative,
and the cases PyTorch refuses. Gradients are checked against finite differences;
where torch is importable, gradients and which cases raise are compared with it."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

rng = np.random.default_rng(0)


def leaf(*shape):
    return ember.from_numpy(rng.standard_normal(shape)).requires_grad_()


def noncontiguous_leaf(rows, cols):
    """A (rows, cols) leaf whose memory is transposed."""
    return leaf(cols, rows).detach().t().requires_grad_()


# ---- chains of in-place ops on views, written once for ember and torch --------------------
# Each takes the library and float64 inputs (x: 3x3 or 3x4, z: 3) and returns a tensor.

def select_mul(lib, x, z):
    y = x * 1
    y[0].mul_(2)
    return y


def the_issue_example(lib, x, z):
    y = x * 1
    y[0].mul_(2)
    y[:, 1] = z
    y.t().add_(1)
    return y * y


def strided_slice_times_view(lib, x, z):
    y = x * 1
    y[1:, ::2].mul_(y[:2, 1:].clone())
    return y


def transpose_row_add(lib, x, z):
    y = x.sin()
    y.t()[1].add_(z)
    return y.sin()


def view_of_view(lib, x, z):
    y = x * 1
    y.reshape(-1)[::2].mul_(3)
    y[1:].t()[0].sub_(z[:2])
    return y


def as_strided_view(lib, x, z):
    y = x * 1
    y.as_strided((2,), (3,), 1).mul_(z[:1])
    return y


def base_changed_then_view_used(lib, x, z):
    y = x * 1
    row = y[1]
    y.mul_(y.sum())  # every view of y now sees the new history
    return row * z


def sibling_views(lib, x, z):
    y = x * 1
    first, second = y[0], y[:, 0]  # they share element (0, 0)
    first.copy_(z)
    return second * 2


def saved_self_overwritten(lib, x, z):
    y = x * 1
    y[0].mul_(z)  # mul saves self for z's gradient: the value before the op
    y[2].exp_()  # exp saves its output: the view after the op
    return y


def zero_dim_and_empty_views(lib, x, z):
    y = x * 1
    y[1, 2].mul_(z[0])
    y[0:0].mul_(5)
    return y


def buffer_filled_by_rows(lib, x, z):
    buffer = lib.zeros(3, 3, dtype=lib.float64)
    for i in range(3):
        buffer[i] = x[i] * z[i]
    buffer[:, 0].copy_(z[1:2])  # broadcast copy into a column
    return buffer.tanh()


def fill_and_zero_through_views(lib, x, z):
    y = x * z
    y[0].fill_(2.0)
    y[:, 2].zero_()
    return y


CHAINS = [select_mul, the_issue_example, strided_slice_times_view, transpose_row_add, view_of_view,
          as_strided_view, base_changed_then_view_used, sibling_views, saved_self_overwritten,
          zero_dim_and_empty_views, buffer_filled_by_rows, fill_and_zero_through_views]


@pytest.mark.parametrize("chain", CHAINS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("contiguous", [True, False], ids=["contiguous", "transposed"])
def test_gradcheck_through_in_place_ops_on_views(chain, contiguous):
    x = leaf(3, 3) if contiguous else noncontiguous_leaf(3, 3)
    assert gradcheck(lambda a, b: chain(ember, a, b), (x, leaf(3)))


@pytest.mark.parametrize("chain", [the_issue_example, strided_slice_times_view, transpose_row_add,
                                   saved_self_overwritten, buffer_filled_by_rows],
                         ids=lambda f: f.__name__)
def test_gradgradcheck_through_in_place_ops_on_views(chain):
    assert gradgradcheck(lambda a, b: chain(ember, a, b), (leaf(3, 3), leaf(3)))


def test_the_base_and_its_views_get_the_new_history():
    x = leaf(3, 3)
    y = x * 1
    row = y[0]
    row.mul_(2)
    assert y.grad_fn.name() == "CopySlices"
    assert row.grad_fn.name() == "AsStridedBackward0"
    assert row._is_view() and not y._is_view() and y._base is None
    assert row._base.data_ptr() == y.data_ptr() and row._base.shape == y.shape
    assert y.t().grad_fn.name() == "TransposeBackward0"
    y.t().add_(1)
    assert row.grad_fn.next_functions[0][0] is y.grad_fn  # regenerated from y's newest history


def test_a_buffer_that_needs_no_grad_gains_history_from_its_views():
    z = leaf(3)
    buffer = ember.zeros(2, 3, dtype=ember.float64)
    rows = buffer[0]  # made before the base changes: it must follow
    assert not buffer.requires_grad and not rows.requires_grad
    buffer[1] = z * 2
    assert buffer.requires_grad and buffer.grad_fn.name() == "CopySlices"
    assert rows.requires_grad and rows.grad_fn.name() == "AsStridedBackward0"
    (buffer.sum() + rows.sum()).backward()
    np.testing.assert_allclose(z.grad.numpy(), np.full(3, 2.0))


def test_backward_twice_through_copy_slices_needs_retain_graph():
    x = leaf(3)
    y = x * 1
    y[1:].mul_(y[:2].detach())
    loss = (y * y).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_the_factor_may_be_a_view_of_the_tensor_being_changed():
    # PyTorch refuses to backward here (mul saved its factor, then the op changed it);
    # ember saves a copy of every input that shares memory with the output.
    def fn(x):
        y = x * 1
        y[1:, ::2].mul_(y[:2, 1:])
        y[0].mul_(y[0])
        return y

    assert gradcheck(fn, (leaf(3, 3),))


def test_in_place_view_ops_under_no_grad_are_not_recorded():
    x = leaf(3)
    y = x * 1
    v = y[:2]
    with ember.no_grad():
        v.mul_(10)
    (v * 1).sum().backward()  # v's history is as_strided of y's, which the no_grad op left alone
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0, 0.0])


def test_a_view_made_under_no_grad_of_a_tensor_that_requires_grad_is_a_leaf():
    # As in PyTorch, the view requires grad (from its base) but has no history. Its
    # gradient accumulates into its own .grad (PyTorch lets it go nowhere).
    w = leaf(3)
    with ember.no_grad():
        v = w[:2]
    assert v.requires_grad and v.is_leaf and v.grad_fn is None
    (v * 2).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [2.0, 2.0])
    assert w.grad is None


# ---- as_strided --------------------------------------------------------------------------

@pytest.mark.parametrize("make_input, sizes, strides, offset", [
    (lambda: leaf(6), (2, 2), (1, 2), 1),                 # a plain strided view
    (lambda: leaf(5), (3, 2), (1, 1), 0),                 # output elements overlap (windows)
    (lambda: leaf(4), (2, 3), (0, 1), 0),                 # an expanded output dim
    (lambda: leaf(3, 3), (2, 2), (1, 3), 1),              # reads across rows
    (lambda: noncontiguous_leaf(3, 3), (2, 2), (1, 3), 1),  # non-contiguous input
    (lambda: leaf(4), (), (), 2),                         # 0-dim output
    (lambda: leaf(4), (0, 2), (1, 1), 0),                 # empty output
    (lambda: leaf(1, 4), (4,), (1,), 0),                  # size-1 dims of the input
])
def test_gradcheck_as_strided(make_input, sizes, strides, offset):
    assert gradcheck(lambda t: t.as_strided(sizes, strides, offset), (make_input(),))


def test_gradcheck_as_strided_of_a_view_with_an_offset():
    assert gradcheck(lambda t: t[1:].as_strided((2, 2), (2, 1), 2), (leaf(7),))


def test_gradcheck_as_strided_of_an_expanded_input():
    # The input reads each element three times; the gradient is shared among them.
    assert gradcheck(lambda t: t.expand(3, 2).as_strided((2,), (1,), 0), (leaf(2),))


def test_gradgradcheck_as_strided():
    assert gradgradcheck(lambda t: t.as_strided((2, 2), (1, 2), 1) ** 2, (leaf(6),))


# ---- refusals ----------------------------------------------------------------------------
# Each takes the library and does something PyTorch refuses or allows.

def ones(lib, *shape):
    return lib.ones(*shape, dtype=lib.float64, requires_grad=True)


def view_of_a_leaf(lib):
    ones(lib, 3)[:2].mul_(2)


def view_of_a_leaf_made_before_requires_grad(lib):
    x = lib.zeros(3, dtype=lib.float64)
    v = x[:2].requires_grad_()
    v.mul_(2)


def no_grad_view_of_a_base_without_grad(lib):
    x = lib.zeros(3, dtype=lib.float64)
    with lib.no_grad():
        v = x[:2]
    v.copy_(ones(lib, 2))


def no_grad_view_of_a_base_with_grad(lib):
    y = ones(lib, 3) * 1
    with lib.no_grad():
        v = y[:2]
    v.mul_(2)


def no_grad_view_used_after_its_base_changed(lib):
    y = ones(lib, 3) * 1
    with lib.no_grad():
        v = y[:2]
    y.mul_(2)
    return v * 2


def no_grad_view_of_a_leaf_after_an_optimizer_step(lib):
    w = ones(lib, 3)
    with lib.no_grad():
        v = w[:2]
        w.mul_(2)
    return v * 2


def unbind_output(lib):
    ones(lib, 3, 2).clone().unbind(0)[1].mul_(2)


def split_output(lib):
    ones(lib, 4, 2).clone().split(2)[1].mul_(2)


def chunk_output(lib):
    ones(lib, 4, 2).clone().chunk(2)[0].add_(1)


def split_with_sizes_output(lib):
    ones(lib, 4, 2).clone().split([1, 3])[1].mul_(2)


def unbind_output_used_after_its_base_changed(lib):
    y = ones(lib, 3, 2).clone()
    first = y.unbind(0)[0]
    y.mul_(2)
    return first * 2


def unbind_output_changed_under_no_grad(lib):
    first = ones(lib, 3, 2).clone().unbind(0)[0]
    with lib.no_grad():
        first.mul_(2)


def tensor_split_output(lib):
    return ones(lib, 4, 2).clone().tensor_split(2)[1].mul_(2)


def expanded_view_written(lib):
    (ones(lib, 3) * 1).expand(2, 3).add_(1)


def row_of_an_expanded_view_written(lib):
    y = ones(lib, 3) * 1
    y.expand(2, 3)[0].mul_(3)
    return y


def detached_copy_written(lib):
    y = ones(lib, 3) * 1
    y.detach()[0].mul_(2)
    return y


def view_detached_in_place(lib):
    (ones(lib, 3) * 1)[:2].detach_()


def custom_function_view_output_written(lib):
    class Head(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t[:2]

        @staticmethod
        def backward(ctx, g):
            return lib.cat([g, g.new_zeros(1)])

    Head.apply(ones(lib, 3) * 1).mul_(2)


def custom_function_returned_input_written(lib):
    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t

        @staticmethod
        def backward(ctx, g):
            return g

    Identity.apply(ones(lib, 3) * 1).mul_(2)


CASES = {
    view_of_a_leaf: "a view of a leaf Variable that requires grad",
    view_of_a_leaf_made_before_requires_grad: "a view of a leaf Variable that requires grad",
    no_grad_view_of_a_base_without_grad: "created in no_grad mode and is being modified",
    no_grad_view_of_a_base_with_grad: "created in no_grad mode and is being modified",
    no_grad_view_used_after_its_base_changed: "created in no_grad mode and its base",
    no_grad_view_of_a_leaf_after_an_optimizer_step: "created in no_grad mode and its base",
    unbind_output: "Output 1 of unbind is a view and is being modified inplace",
    split_output: "Output 1 of split is a view",
    chunk_output: "Output 0 of split is a view",
    split_with_sizes_output: "Output 1 of split_with_sizes is a view",
    unbind_output_used_after_its_base_changed: "Output 0 of unbind is a view and its base",
    unbind_output_changed_under_no_grad: None,
    tensor_split_output: None,  # slices of their own in PyTorch too
    expanded_view_written: "more than one element of the written-to tensor",
    row_of_an_expanded_view_written: None,
    detached_copy_written: None,
    view_detached_in_place: "Can't detach views in-place",
    custom_function_view_output_written: "created inside a custom Function",
    custom_function_returned_input_written: "created inside a custom Function",
}


@pytest.mark.parametrize("case", list(CASES), ids=lambda f: f.__name__)
def test_refused_exactly_where_pytorch_refuses(case):
    message = CASES[case]
    if message is None:
        case(ember)
    else:
        with pytest.raises(RuntimeError, match=message):
            case(ember)


def test_custom_function_marking_a_view_dirty_rebases_its_base():
    class Triple(ember.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            t.mul_(3)
            ctx.mark_dirty(t)
            return t

        @staticmethod
        def backward(ctx, g):
            return g * 3

    def fn(x):
        y = x * 1
        v = y[1:]
        assert Triple.apply(v) is v
        return y * y

    assert gradcheck(fn, (leaf(3),))


# ---- against torch -----------------------------------------------------------------------

@pytest.mark.parametrize("chain", CHAINS, ids=lambda f: f.__name__)
def test_gradients_match_torch(chain):
    torch = pytest.importorskip("torch")
    xs, zs = rng.standard_normal((3, 3)), rng.standard_normal(3)
    seed = None
    grads = []
    for lib in (ember, torch):
        x = lib.from_numpy(xs.copy()).requires_grad_()
        z = lib.from_numpy(zs.copy()).requires_grad_()
        out = chain(lib, x, z)
        seed = rng.standard_normal(tuple(out.shape)) if seed is None else seed
        out.backward(lib.from_numpy(seed.copy()))
        grads.append((x.grad.numpy(), z.grad.numpy() if z.grad is not None else np.zeros(3)))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", list(CASES), ids=lambda f: f.__name__)
def test_the_same_cases_raise_in_torch(case):
    torch = pytest.importorskip("torch")
    try:
        case(torch)
        torch_raises = False
    except RuntimeError:
        torch_raises = True
    assert torch_raises == (CASES[case] is not None)


@pytest.mark.parametrize("sizes, strides, offset, length", [
    ((3, 2), (1, 1), 0, 5), ((2, 3), (0, 1), 1, 4), ((2, 2), (1, 3), 1, 9), ((2, 2), (2, 2), 0, 7),
])
def test_as_strided_gradient_matches_torch(sizes, strides, offset, length):
    torch = pytest.importorskip("torch")
    data, seed = rng.standard_normal(length), rng.standard_normal(sizes)
    grads = []
    for lib in (ember, torch):
        x = lib.from_numpy(data.copy()).requires_grad_()
        x.as_strided(sizes, strides, offset).backward(lib.from_numpy(seed.copy()))
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_retain_grad_follows_in_place_changes():
    # .grad of a tensor that retains its grad is the gradient of its newest value,
    # after an in-place op on it, on one of its views, or on its base (as in PyTorch).
    x = leaf(3)
    y = x * 1
    y.retain_grad()
    y.mul_(2)
    y[0].mul_(5)
    y.sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), np.ones(3))

    y = x * 1
    v = y[:2]
    v.retain_grad()
    y.mul_(2)
    (v * 3).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), np.full(2, 3.0))
