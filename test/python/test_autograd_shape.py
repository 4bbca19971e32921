"""Gradients of the shape and indexing ops (lib/autograd/derivatives/shape_index.cpp
and indexing.cpp): cat, flip, tril/triu, gather, scatter, index_select/add/copy/fill,
take, masked_fill, advanced indexing and index_put_, against float64 finite
differences, second derivatives where they are commonly taken, and against torch
for Python indexing with repeated and boolean indices."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

rng = np.random.default_rng(0)


def leaf(*shape):
    return ember.from_numpy(rng.standard_normal(shape)).requires_grad_()


def leaf_t(rows, cols):
    """A non-contiguous [cols, rows] leaf (a transposed view)."""
    return leaf(rows, cols).detach().t().requires_grad_()


I = ember.tensor  # index tensors (int64)
MASK = ember.tensor([[True, False, True, False], [False, False, True, True], [True, True, False, False]])

# (fn, leaves): every leaf is checked against finite differences.
CASES = {
    # cat: each input gets its slice, empty inputs included; negative dims.
    "cat_dim0": (lambda a, b: ember.cat([a, b]), lambda: [leaf(2, 3), leaf(4, 3)]),
    "cat_neg_dim_empty": (lambda a, b, c: ember.cat([a, b, c], -1), lambda: [leaf(3, 2), leaf(3, 0), leaf(3, 4)]),
    "cat_noncontig": (lambda a, b: ember.cat([a, b], 1), lambda: [leaf_t(3, 2), leaf(2, 2)]),
    "cat_repeated_input": (lambda a: ember.cat([a, a * 2, a], 0), lambda: [leaf(2, 3)]),
    "cat_legacy_empty": (lambda a, b: ember.cat([a, b]), lambda: [leaf(0), leaf(2, 3)]),
    "stack": (lambda a, b: ember.stack([a, b], 1), lambda: [leaf(2, 3), leaf(2, 3)]),
    # flip, tril, triu
    "flip": (lambda a: a.flip(0), lambda: [leaf(3, 4)]),
    "flip_neg_dims_3d": (lambda a: ember.flip(a, (0, -1)), lambda: [leaf(2, 3, 4)]),
    "flip_noncontig": (lambda a: a.flip(1), lambda: [leaf_t(3, 4)]),
    "tril": (lambda a: a.tril(), lambda: [leaf(4, 3)]),
    "tril_diag": (lambda a: ember.tril(a, -1) + ember.tril(a, 2), lambda: [leaf(2, 3, 4)]),
    "triu": (lambda a: a.triu(1), lambda: [leaf_t(3, 4)]),
    "triu_neg": (lambda a: ember.triu(a, -1), lambda: [leaf(4, 4)]),
    # gather: repeated indices add up; index smaller than self; 0-dim and empty.
    "gather": (lambda a: a.gather(0, I([[0, 1, 2, 0], [2, 2, 1, 0]])), lambda: [leaf(3, 4)]),
    "gather_neg_dim_small_index": (lambda a: ember.gather(a, -1, I([[3, 3], [0, 1]])), lambda: [leaf(3, 4)]),
    "gather_noncontig": (lambda a: a.gather(1, I([[0, 0, 2], [1, 2, 0], [2, 1, 1], [0, 0, 0]])),
                         lambda: [leaf_t(3, 4)]),
    "gather_0dim": (lambda a: a.gather(0, I(0)), lambda: [leaf()]),
    "gather_empty": (lambda a: a.gather(1, ember.zeros(3, 0, dtype=ember.int64)), lambda: [leaf(3, 4)]),
    # scatter: overwritten positions of self get zero, src gets what it wrote.
    "scatter": (lambda a, s: a.scatter(0, I([[1, 0, 2, 2], [0, 2, 1, 0]]), s), lambda: [leaf(3, 4), leaf(2, 4)]),
    "scatter_src_larger": (lambda a, s: ember.scatter(a, -1, I([[2, 0], [1, 3]]), s), lambda: [leaf(3, 4), leaf(3, 5)]),
    "scatter_inplace": (lambda a, s: (a * 1).scatter_(1, I([[0], [3], [1]]), s), lambda: [leaf(3, 4), leaf_t(2, 3)]),
    "scatter_value": (lambda a: a.scatter(1, I([[0, 0], [3, 1]]), 2.5), lambda: [leaf(3, 4)]),
    "scatter_add_reduce": (lambda a, s: a.scatter(0, I([[1, 1, 0, 1]]), s, reduce="add"),
                           lambda: [leaf(2, 4), leaf(1, 4)]),
    "scatter_value_add": (lambda a: a.scatter(0, I([[1, 1]]), 2.0, reduce="add"), lambda: [leaf(2, 2)]),
    "scatter_value_multiply": (lambda a: (a * 1).scatter_(0, I([[1, 1], [1, 0]]), 1.5, reduce="multiply"),
                               lambda: [leaf(2, 2)]),
    "scatter_empty_index": (lambda a, s: a.scatter(0, ember.zeros(0, 5, dtype=ember.int64), s),
                            lambda: [leaf(3, 4), leaf(2, 3)]),
    "scatter_0dim": (lambda a, s: a.scatter(0, I(0), s), lambda: [leaf(), leaf()]),
    "scatter_add_0dim": (lambda a, s: (a * 1).scatter_add_(0, I(0), s), lambda: [leaf(), leaf()]),
    # scatter_add: repeated indices, src larger than index, negative dim.
    "scatter_add": (lambda a, s: a.scatter_add(0, I([[0, 1, 0, 0], [0, 2, 0, 1]]), s), lambda: [leaf(3, 4), leaf(2, 4)]),
    "scatter_add_src_larger": (lambda a, s: ember.scatter_add(a, -1, I([[1, 1], [0, 0]]), s),
                               lambda: [leaf(2, 3), leaf_t(3, 2)]),
    "scatter_add_inplace": (lambda a, s: (a + 0).scatter_add_(1, I([[2, 2, 2]]), s), lambda: [leaf(2, 3), leaf(1, 3)]),
    # index_select: repeated indices add up; 0-dim self; empty index.
    "index_select": (lambda a: a.index_select(0, I([2, 0, 2, 2])), lambda: [leaf(3, 4)]),
    "index_select_neg_dim": (lambda a: ember.index_select(a, -1, I([1, 1, 3])), lambda: [leaf_t(4, 3)]),
    "index_select_0dim": (lambda a: a.index_select(0, I([0])), lambda: [leaf()]),
    "index_select_empty": (lambda a: a.index_select(1, I([], dtype=ember.int64)), lambda: [leaf(3, 4)]),
    # index_add / index_copy / index_fill
    "index_add": (lambda a, s: a.index_add(0, I([1, 0, 1]), s), lambda: [leaf(2, 3), leaf(3, 3)]),
    "index_add_alpha": (lambda a, s: (a * 1).index_add_(-1, I([2, 2]), s, alpha=-2.5), lambda: [leaf_t(3, 2), leaf(2, 2)]),
    "index_add_0dim": (lambda a, s: a.index_add(0, I(0), s, alpha=3), lambda: [leaf(), leaf()]),
    "index_copy": (lambda a, s: a.index_copy(1, I([3, 0]), s), lambda: [leaf(2, 4), leaf(2, 2)]),
    "index_copy_inplace": (lambda a, s: (a * 1).index_copy_(0, I([2]), s), lambda: [leaf(3, 2), leaf(1, 2)]),
    "index_fill": (lambda a: a.index_fill(-1, I([0, 2, 0]), -1.0), lambda: [leaf_t(3, 3)]),
    "index_fill_tensor_value": (lambda a, v: a.index_fill(1, I([0, 2, 0]), v), lambda: [leaf(2, 3), leaf()]),
    "index_fill_inplace_tensor_value": (lambda a, v: (a * 1).index_fill_(0, I([1]), v), lambda: [leaf_t(2, 3), leaf()]),
    "index_fill_0dim": (lambda a: (a * 1).index_fill_(0, I([0]), 7.0), lambda: [leaf()]),
    "index_copy_0dim": (lambda a, s: a.index_copy(0, I(0), s), lambda: [leaf(), leaf()]),
    "index_fill_inplace": (lambda a: (a * 1).index_fill_(0, I([1]), 7.0), lambda: [leaf(3, 2)]),
    # take: repeated and negative indices, a 2-d index, a 0-dim self.
    "take": (lambda a: a.take(I([[0, 5, -1], [5, 5, 2]])), lambda: [leaf(2, 3)]),
    "take_noncontig": (lambda a: ember.take(a, I([1, 4, 1])), lambda: [leaf_t(2, 3)]),
    "take_0dim": (lambda a: a.take(I([0, 0])), lambda: [leaf()]),
    # masked_fill: a broadcast mask, a scalar or a 0-dim tensor value.
    "masked_fill": (lambda a: a.masked_fill(MASK, 3.0), lambda: [leaf(3, 4)]),
    "masked_fill_broadcast_mask": (lambda a: a.masked_fill(I([True, False, False, True]), -1.0), lambda: [leaf(3, 4)]),
    "masked_fill_broadcast_self": (lambda a: a.masked_fill(MASK, 0.5), lambda: [leaf(4)]),
    "masked_fill_tensor_value": (lambda a, v: a.masked_fill(MASK, v), lambda: [leaf(3, 4), leaf()]),
    "masked_fill_inplace_tensor_value": (lambda a, v: (a * 1).masked_fill_(MASK, v), lambda: [leaf_t(4, 3), leaf()]),
    "masked_fill_inplace": (lambda a: (a * 1).masked_fill_(MASK, 2.0), lambda: [leaf(3, 4)]),
    "masked_select": (lambda a: a.masked_select(MASK), lambda: [leaf(3, 4)]),
    # advanced indexing: repeated indices add up; masks; mixed with slices and None.
    "index_repeated": (lambda a: a[I([2, 0, 2, 2])], lambda: [leaf(3, 4)]),
    "index_two_dims": (lambda a: a[I([0, 2, 0]), I([[1], [1]])], lambda: [leaf(3, 4)]),
    "index_slice_then_tensor": (lambda a: a[1:, I([3, 3, 0])], lambda: [leaf_t(4, 3)]),
    "index_split_advanced": (lambda a: a[I([1, 0]), :, I([2, 2])], lambda: [leaf(2, 3, 4)]),
    "index_none_ellipsis": (lambda a: a[None, ..., I([-1, 0, -1])], lambda: [leaf(2, 3)]),
    "index_mask": (lambda a: a[MASK], lambda: [leaf(3, 4)]),
    "index_row_mask": (lambda a: a[I([True, False, True])], lambda: [leaf(3, 4)]),
    "index_mask_and_int": (lambda a: a[I([True, True, False]), I([0, 3])], lambda: [leaf(3, 4)]),
    "index_empty": (lambda a: a[I([], dtype=ember.int64)], lambda: [leaf(3, 4)]),
    "index_bool_scalar": (lambda a: a[True], lambda: [leaf(2)]),
    # index_put_: x[idx] = v (written positions get zero), with accumulate (+=).
    "setitem": (lambda a, v: _setitem(a, I([2, 0]), v), lambda: [leaf(3, 4), leaf(2, 4)]),
    "setitem_broadcast_value": (lambda a, v: _setitem(a, I([1, 2]), v), lambda: [leaf(3, 4), leaf(4)]),
    "setitem_scalar": (lambda a: _setitem(a, MASK, 0.0), lambda: [leaf(3, 4)]),
    "setitem_mask_value": (lambda a, v: _setitem(a, MASK, v), lambda: [leaf(3, 4), leaf(6)]),
    "setitem_two_dims": (lambda a, v: _setitem(a, (I([0, 2]), I([3, 1])), v), lambda: [leaf_t(4, 3), leaf(2)]),
    "index_put": (lambda a, v: a.index_put((I([1, 0]),), v), lambda: [leaf(2, 3), leaf(2, 3)]),
    "index_put_accumulate": (lambda a, v: a.index_put((I([1, 1, 0, 1]),), v, accumulate=True),
                             lambda: [leaf(2, 3), leaf(4, 3)]),
    # every row, column 2 twice: rows [[0], [1]] broadcast against columns [2, 2]
    "index_put_accumulate_inplace": (lambda a, v: (a * 1).index_put_((I([[0], [1]]), I([2, 2])), v,
                                                                     accumulate=True),
                                     lambda: [leaf(2, 3), leaf(2)]),
}


def _setitem(a, index, value):
    y = a.clone()
    y[index] = value
    return y


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, make = CASES[name]
    assert gradcheck(fn, tuple(make()))


@pytest.mark.parametrize("name", [
    "cat_dim0", "cat_neg_dim_empty", "gather", "gather_neg_dim_small_index", "index_select",
    "index_select_neg_dim", "index_repeated", "index_two_dims", "index_mask", "scatter_add",
    "scatter_add_src_larger", "scatter", "index_add_alpha", "index_copy", "take",
    "masked_fill_tensor_value", "setitem", "index_put_accumulate", "flip_neg_dims_3d", "tril_diag",
    "scatter_value_multiply", "index_fill", "masked_fill", "index_put_accumulate_inplace",
    "index_slice_then_tensor"])
def test_gradgradcheck(name):
    fn, make = CASES[name]
    assert gradgradcheck(fn, tuple(make()))


def test_cat_gradient_takes_each_inputs_dtype():
    a = ember.ones(2, dtype=ember.float32).requires_grad_()
    b = ember.ones(3, dtype=ember.float64).requires_grad_()
    out = ember.cat([a, b])
    assert out.dtype == ember.float64
    (out * ember.arange(5.0, dtype=ember.float64)).sum().backward()
    assert a.grad.dtype == ember.float32 and b.grad.dtype == ember.float64
    np.testing.assert_array_equal(a.grad.numpy(), [0, 1])
    np.testing.assert_array_equal(b.grad.numpy(), [2, 3, 4])


def test_repeated_indices_accumulate():
    x = leaf(3)
    x[I([0, 0, 2, 0])].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3, 0, 1])
    y = leaf(3, 2)
    y.gather(0, I([[1, 1], [1, 0]])).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [[0, 1], [2, 1], [0, 0]])


def test_scatter_multiply_with_a_tensor_raises_not_implemented():
    x, s = leaf(2, 2), leaf(1, 2)
    y = x.scatter(0, I([[1, 0]]), s, reduce="multiply")
    with pytest.raises(NotImplementedError, match="multiply"):
        y.sum().backward()


def test_setitem_on_a_non_leaf_reaches_both_sides():
    x, v = leaf(3, 2), leaf(2)
    y = x * 2
    y[I([True, False, True])] = v
    (y * ember.from_numpy(np.arange(6.0).reshape(3, 2))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0], [4, 6], [0, 0]])
    np.testing.assert_array_equal(v.grad.numpy(), [4, 6])


# ---- against torch -------------------------------------------------------------------------

def _grads_both(fn_ember, fn_torch, *arrays):
    torch = pytest.importorskip("torch")
    e_in = [ember.from_numpy(a.copy()).requires_grad_() for a in arrays]
    t_in = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays]
    w = rng.standard_normal(np.shape(fn_torch(torch, *t_in).detach().numpy()))
    (fn_ember(*e_in) * ember.from_numpy(w)).sum().backward()
    (fn_torch(torch, *t_in) * torch.from_numpy(w)).sum().backward()
    for e, t in zip(e_in, t_in):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("key", [
    [2, 0, 2, 2],
    (slice(None), [1, 1, 3]),
    ([[0, 2], [2, 2]], [[1, 1], [3, 3]]),
    ([0, 0], slice(1, None), [2, 2]),
    (Ellipsis, [-1, -1]),
    "mask",
    "row_mask",
    ("row_mask", [1, 1]),
])
def test_python_indexing_gradients_match_torch(key):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((3, 4, 3)) if isinstance(key, tuple) and len(key) == 3 else rng.standard_normal((3, 4))
    mask = a > 0
    row_mask = np.array([True, False, True])

    def convert(k, lib):
        if isinstance(k, tuple):
            return tuple(convert(i, lib) for i in k)
        if k == "mask":
            return lib.tensor(mask.tolist()) if lib is ember else torch.from_numpy(mask)
        if k == "row_mask":
            return lib.tensor(row_mask.tolist()) if lib is ember else torch.from_numpy(row_mask)
        return lib.tensor(k) if isinstance(k, list) else k

    ek, tk = convert(key, ember), convert(key, torch)
    _grads_both(lambda x: x[ek], lambda _, x: x[tk], a)


@pytest.mark.parametrize("key, value_shape", [
    ([2, 0, 2], (3, 4)),      # a repeated row: one write wins, both get gradient as in torch
    ([1, 1], (4,)),           # broadcast value
    ("mask", (None,)),        # boolean index, value per selected element
    (([0, 2, 0], [1, 1, 1]), (3,)),
])
def test_setitem_gradients_match_torch(key, value_shape):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((3, 4))
    mask = a > 0
    if value_shape == (None,):
        value_shape = (int(mask.sum()),)
    v = rng.standard_normal(value_shape)

    def convert(k, lib):
        if isinstance(k, tuple):
            return tuple(convert(i, lib) for i in k)
        if k == "mask":
            return ember.tensor(mask.tolist()) if lib is ember else torch.from_numpy(mask)
        return lib.tensor(k)

    ek, tk = convert(key, ember), convert(key, torch)

    def put(x, val, k):
        y = x * 1
        y[k] = val
        return y

    _grads_both(lambda x, val: put(x, val, ek), lambda _, x, val: put(x, val, tk), a, v)


@pytest.mark.parametrize("accumulate", [True, False])
def test_index_put_gradients_match_torch(accumulate):
    a, v = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    rows = [3, 1, 3, 3, 0]
    _grads_both(lambda x, val: x.index_put((ember.tensor(rows),), val, accumulate=accumulate),
                lambda torch, x, val: x.index_put((torch.tensor(rows),), val, accumulate=accumulate),
                a, v)


def test_index_put_2d_accumulate_gradients_match_torch():
    a, v = rng.standard_normal((3, 4)), rng.standard_normal((4,))
    rows, cols = [0, 2, 0, 0], [1, 3, 1, 1]
    _grads_both(lambda x, val: (x * 1).index_put_((ember.tensor(rows), ember.tensor(cols)), val, accumulate=True),
                lambda torch, x, val: (x * 1).index_put_((torch.tensor(rows), torch.tensor(cols)), val,
                                                         accumulate=True),
                a, v)


def test_masked_fill_tensor_value_gradient_matches_torch():
    a = rng.standard_normal((3, 4))
    m = a > 0.3
    _grads_both(lambda x, v: x.masked_fill(ember.tensor(m.tolist()), v),
                lambda torch, x, v: x.masked_fill(torch.from_numpy(m), v),
                a, np.array(1.5))


def test_index_fill_tensor_value_gradient_matches_torch():
    _grads_both(lambda x, v: x.index_fill(1, ember.tensor([3, 0, 3]), v),
                lambda torch, x, v: x.index_fill(1, torch.tensor([3, 0, 3]), v),
                rng.standard_normal((2, 4)), np.array(-0.5))
