"""Derivative rows of the nn ops (lib/autograd/derivatives/nn*.cpp): gradcheck of
every row, gradgradcheck through the losses, norms, pad, interpolate, embedding
and dropout (the rows of the fused backward primitives, and the composite norm
rows under create_graph), each primitive's row wrt all its inputs, and first and
second derivatives against PyTorch where it is importable."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

F = ember.nn.functional
_C = ember._C
rng = np.random.default_rng(0)
REDUCTIONS = ["none", "mean", "sum"]
RED_INT = {"none": 0, "mean": 1, "sum": 2}


def leaf(*shape, low=None, high=None):
    a = rng.standard_normal(shape) if low is None else rng.uniform(low, high, shape)
    return ember.from_numpy(a).requires_grad_()


def const(a, dtype=np.float64):
    return ember.from_numpy(np.asarray(a, dtype=dtype))


def transposed_leaf(rows, cols):
    """A non-contiguous leaf of shape (rows, cols)."""
    return leaf(cols, rows).detach().t().requires_grad_()


def check_both(fn, inputs, second=True):
    assert gradcheck(fn, inputs)
    if second:
        assert gradgradcheck(fn, inputs)


# ---- normalization ----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, affine", [((3, 2, 4), True), ((4, 3), True), ((2, 3, 2, 2), False)])
def test_batch_norm_training(shape, affine):
    C = shape[1]
    params = (leaf(C), leaf(C)) if affine else ()
    check_both(lambda x, *p: F.batch_norm(x, None, None, *p, training=True, eps=1e-3), (leaf(*shape),) + params)


def test_batch_norm_training_updates_running_stats_and_does_not_differentiate_them():
    rm, rv = ember.zeros(3, dtype=ember.float64), ember.ones(3, dtype=ember.float64)
    x, w, b = transposed_leaf(5, 3), leaf(3), leaf(3)
    y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.5)
    (y * y * y).sum().backward()
    assert x.grad is not None and w.grad is not None and b.grad is not None
    assert rm.grad is None and rv.grad is None
    np.testing.assert_allclose(rm.numpy(), 0.5 * x.detach().numpy().mean(0))
    check_both(lambda x, w, b: F.batch_norm(x, rm.clone(), rv.clone(), w, b, training=True), (x, w, b))


@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_eval(affine):
    rm, rv = const(rng.standard_normal(3)), const(rng.uniform(0.5, 2, 3))
    params = (leaf(3), leaf(3)) if affine else ()
    check_both(lambda x, *p: F.batch_norm(x, rm, rv, *p, training=False), (leaf(2, 3, 2),) + params)


@pytest.mark.parametrize("shape, groups, affine", [((2, 4, 3), 2, True), ((1, 6, 2, 2), 3, False), ((3, 2), 1, True)])
def test_group_norm(shape, groups, affine):
    C = shape[1]
    params = (leaf(C), leaf(C)) if affine else ()
    check_both(lambda x, *p: F.group_norm(x, groups, *p, eps=1e-3), (leaf(*shape),) + params)


@pytest.mark.parametrize("shape, normalized", [((3, 4), (4,)), ((2, 3, 2), (3, 2)), ((5,), (5,))])
def test_layer_norm(shape, normalized):
    check_both(lambda x, w, b: F.layer_norm(x, normalized, w, b), (leaf(*shape), leaf(*normalized), leaf(*normalized)))


def test_layer_norm_without_affine_on_a_non_contiguous_input():
    check_both(lambda x: F.layer_norm(x, (4,)) * x, (transposed_leaf(3, 4),))


def test_norm_weight_only_gets_its_gradient():
    x, w = leaf(2, 4, 3), leaf(4)
    (g,) = ember.autograd.grad(F.group_norm(x.detach(), 2, w).pow(2).sum(), (w,))
    assert g.shape == (4,)
    check_both(lambda w: F.group_norm(x.detach(), 2, w), (w,))


# ---- pad and interpolate -------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, pad, mode", [
    ((2, 3, 4), (1, 2), "constant"),
    ((2, 3, 4), (-1, 2, 1, -1), "constant"),          # negative pads crop
    ((2, 5), (2, 1), "reflect"),
    ((1, 2, 3, 4), (1, 2, 2, 0), "reflect"),
    ((1, 2, 3, 3), (1, 2, 0, 1), "replicate"),
    ((1, 1, 2, 3, 2), (1, 0, 0, 2, 1, 1), "replicate"),
    ((2, 3, 4), (2, 3), "circular"),
    ((1, 1, 3, 4), (1, -1, 2, 1), "circular"),
])
def test_pad(shape, pad, mode):
    check_both(lambda x: F.pad(x, pad, mode=mode) ** 2 if mode == "constant" else F.pad(x, pad, mode=mode),
               (leaf(*shape),))


def test_pad_with_a_value():
    check_both(lambda x: F.pad(x, (1, 1), value=2.5) * F.pad(x, (1, 1)), (leaf(2, 3),))


@pytest.mark.parametrize("shape, kwargs", [
    ((1, 2, 3), dict(size=5)),
    ((2, 1, 4), dict(size=3)),
    ((1, 1, 2, 3), dict(scale_factor=2)),
    ((1, 2, 3), dict(size=5, mode="linear")),
    ((1, 2, 3), dict(size=5, mode="linear", align_corners=True)),
    ((1, 1, 4), dict(scale_factor=1.7, mode="linear")),
    ((1, 1, 4), dict(scale_factor=1.7, mode="linear", recompute_scale_factor=True)),
    ((1, 2, 2, 3), dict(size=(3, 2), mode="bilinear")),
    ((1, 1, 3, 2), dict(scale_factor=(1.5, 2.0), mode="bilinear", align_corners=True)),
    ((1, 1, 2, 2, 2), dict(size=(3, 2, 3), mode="trilinear")),
])
def test_interpolate(shape, kwargs):
    check_both(lambda x: F.interpolate(x, **kwargs), (leaf(*shape),))


# ---- losses -----------------------------------------------------------------------------------------------

CLASS_WEIGHT = const([0.5, 1.0, 2.0, 1.5])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kwargs", [
    {},
    dict(label_smoothing=0.2),
    dict(weight=CLASS_WEIGHT, ignore_index=3, label_smoothing=0.1),
])
def test_cross_entropy_with_class_indices(reduction, kwargs):
    target = ember.tensor([0, 3, 1])
    check_both(lambda x: F.cross_entropy(x, target, reduction=reduction, **kwargs), (leaf(3, 4),))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_with_spatial_dims_and_one_sample(reduction):
    target = ember.tensor([[0, 3], [2, 2]])
    check_both(lambda x: F.cross_entropy(x, target, weight=CLASS_WEIGHT, label_smoothing=0.3, reduction=reduction),
               (leaf(2, 4, 2),))
    check_both(lambda x: F.cross_entropy(x, ember.tensor(2), reduction=reduction), (leaf(4),))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kwargs", [{}, dict(weight=CLASS_WEIGHT, label_smoothing=0.25)])
def test_cross_entropy_with_probabilities_differentiates_the_target_too(reduction, kwargs):
    q = leaf(3, 4, 2).softmax(1).detach().requires_grad_()
    check_both(lambda x, q: F.cross_entropy(x, q, reduction=reduction, **kwargs), (leaf(3, 4, 2), q))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(reduction):
    target = ember.tensor([0, 3, 1, 3])
    check_both(lambda x: F.nll_loss(x, target, weight=CLASS_WEIGHT, ignore_index=1, reduction=reduction),
               (leaf(4, 4),))
    check_both(lambda x: F.nll_loss(x.log_softmax(1), target, reduction=reduction), (leaf(4, 4),))


PAIR_LOSSES = [
    ("mse", lambda x, t, r: F.mse_loss(x, t, reduction=r)),
    ("l1", lambda x, t, r: F.l1_loss(x, t, reduction=r)),
    ("smooth_l1", lambda x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.8)),
    ("smooth_l1_beta0", lambda x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.0)),
    ("huber", lambda x, t, r: F.huber_loss(x, t, reduction=r, delta=0.6)),
]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name, loss", PAIR_LOSSES, ids=[n for n, _ in PAIR_LOSSES])
def test_pointwise_losses(name, loss, reduction):
    check_both(lambda x, t: loss(x, t, reduction), (leaf(3, 4), leaf(3, 4)))


def test_pointwise_losses_broadcast_non_contiguous_0d_and_empty():
    check_both(lambda x, t: F.mse_loss(x, t), (transposed_leaf(3, 4), leaf(4)))
    check_both(lambda x, t: F.huber_loss(x, t, reduction="sum"), (leaf(), leaf()))
    check_both(lambda x, t: F.mse_loss(x, t, reduction="sum"), (leaf(0, 3), leaf(0, 3)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(reduction):
    p, t = leaf(3, 4, low=0.1, high=0.9), leaf(3, 4, low=0, high=1)
    check_both(lambda p, t: F.binary_cross_entropy(p, t, reduction=reduction), (p, t))
    check_both(lambda p, t, w: F.binary_cross_entropy(p, t, w, reduction=reduction), (p, t, leaf(4, low=0.5, high=2)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_with_logits(reduction):
    x, t = leaf(3, 4), leaf(3, 4, low=0, high=1)
    check_both(lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction=reduction), (x, t))
    check_both(lambda x, t, w, pw: F.binary_cross_entropy_with_logits(x, t, w, reduction=reduction, pos_weight=pw),
               (x, t, leaf(3, 1, low=0.5, high=2), leaf(4, low=0.5, high=3)))


# ---- embedding, dropout --------------------------------------------------------------------------------------

def test_embedding_second_derivative():
    idx = ember.tensor([[0, 2], [2, 1]])
    check_both(lambda w: F.embedding(idx, w, padding_idx=3) ** 2, (leaf(4, 3),))


def test_dropout_second_derivative():
    def fn(x):
        ember.manual_seed(7)  # one mask for every evaluation
        return F.dropout(x, p=0.4) ** 2
    check_both(fn, (leaf(3, 4),))


# ---- the backward primitives' own rows, wrt each input ---------------------------------------------------

@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("name, extra", [("mse_loss", ()), ("l1_loss", ()), ("smooth_l1_loss", (0.7,)),
                                         ("huber_loss", (0.7,))])
def test_pointwise_backward_primitives(name, extra, reduction):
    prim = getattr(_C, "_%s_backward" % name)
    g = leaf(2, 3) if reduction == 0 else leaf()
    assert gradcheck(lambda g, x, t: prim(g, x, t, reduction, *extra), (g, leaf(2, 3), leaf(3)))


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_binary_backward_primitives(reduction):
    g = leaf(2, 3) if reduction == 0 else leaf()
    p, t, w = leaf(2, 3, low=0.1, high=0.9), leaf(2, 3, low=0, high=1), leaf(3, low=0.5, high=2)
    assert gradcheck(lambda g, p, t, w: _C._binary_cross_entropy_backward(g, p, t, w, reduction), (g, p, t, w))
    assert gradcheck(lambda g, x, t, w, pw: _C._binary_cross_entropy_with_logits_backward(g, x, t, w, pw, reduction),
                     (g, leaf(2, 3), t, w, leaf(2, 1, low=0.5, high=2)))


def test_binary_cross_entropy_backward_where_its_denominator_is_clamped():
    # x (1 - x) < 1e-12: the kernel divides by 1e-12 (as PyTorch); its derivative is then constant.
    p = const([1e-14, 0.5]).requires_grad_()
    (d,) = ember.autograd.grad(_C._binary_cross_entropy_backward(const(1.0), p, const([0.0, 0.0]), None, 2),
                               (p,), (const([1.0, 0.0]),))
    np.testing.assert_allclose(d.numpy(), [1 / np.float64(np.float32(1e-12)), 0.0], rtol=1e-6)


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_class_backward_primitives(reduction):
    target = ember.tensor([0, 3, 1])
    g = leaf(3) if reduction == 0 else leaf()
    total = leaf(low=2, high=3)
    assert gradcheck(lambda g, x, tw: _C._nll_loss_backward(g, x, target, CLASS_WEIGHT, reduction, 3, tw),
                     (g, leaf(3, 4), total))
    assert gradcheck(lambda g, x: _C._cross_entropy_backward(g, x, target, CLASS_WEIGHT, reduction, 1, 0.2),
                     (g, leaf(3, 4)))
    q = leaf(3, 4).softmax(1).detach().requires_grad_()
    assert gradcheck(lambda g, x, q: _C._cross_entropy_backward(g, x, q, CLASS_WEIGHT, reduction, -100, 0.3),
                     (g, leaf(3, 4), q))


def test_misc_backward_primitives():
    mask = ember.tensor([[True, False, True], [False, True, True]])
    assert gradcheck(lambda g: _C._native_dropout_backward(g, mask, 2.5), (leaf(2, 3),))
    assert gradcheck(lambda g: _C._pad_backward(g, [2, 3], [2, 1], "reflect"), (leaf(2, 6),))
    assert gradcheck(lambda g: _C._pad_backward(g, [1, 2, 3], [1, -1], "constant"), (leaf(1, 2, 3),))
    assert gradcheck(lambda g: _C._interpolate_backward(g, [1, 1, 3], "linear", True), (leaf(1, 1, 5),))
    assert gradcheck(lambda g: _C._interpolate_backward(g, [1, 1, 2, 3], "nearest", False, [2.0, 1.5]),
                     (leaf(1, 1, 4, 4),))
    idx = ember.tensor([1, 1, 0, 3])
    assert gradcheck(lambda g: _C._embedding_dense_backward(g, idx, 5, 0, True), (leaf(4, 2),))


def test_interpolate_backward_with_scales_for_some_dims_only_has_no_derivative():
    g = leaf(1, 1, 2, 3)
    d = _C._interpolate_backward(g, [1, 1, 1, 2], "nearest", False, [2.0, None])
    with pytest.raises(NotImplementedError, match="interpolate_backward"):
        d.sum().backward()


def test_class_weight_that_requires_grad_is_not_differentiated():
    x, target = leaf(3, 4), ember.tensor([0, 1, 2])

    def second_derivatives(weight):
        (gx,) = ember.autograd.grad(F.cross_entropy(x, target, weight=weight), (x,), create_graph=True)
        wrt = (x, weight) if weight.requires_grad else (x,)
        return ember.autograd.grad((gx * gx).sum(), wrt, allow_unused=True)

    hx, hw = second_derivatives(CLASS_WEIGHT.clone().requires_grad_())
    assert hw is None
    np.testing.assert_allclose(hx.numpy(), second_derivatives(CLASS_WEIGHT)[0].numpy())


# ---- against PyTorch: first and second derivatives on the same inputs ---------------------------------------

def _first_and_second(lib, fn, arrays, n_diff, seeds):
    """Gradients of sum(fn(...) * seeds[0]) wrt the first n_diff inputs, and the gradients
    of sum(grad * seed) over them (a Hessian-vector product), as numpy arrays."""
    tensors = [lib.from_numpy(a.copy()) for a in arrays]
    wrt = tuple(t.requires_grad_() for t in tensors[:n_diff])
    out = fn(lib, *tensors)
    firsts = lib.autograd.grad((out * lib.from_numpy(seeds[0])).sum(), wrt, create_graph=True)
    total = sum((g * lib.from_numpy(s)).sum() for g, s in zip(firsts, seeds[1:]))
    seconds = lib.autograd.grad(total, wrt, allow_unused=True)
    return [None if t is None else t.detach().numpy() for t in firsts + seconds]


TORCH_CASES = {
    "batch_norm": (lambda L, x, w, b: L.nn.functional.batch_norm(x, None, None, w, b, training=True),
                   [(3, 2, 4), (2,), (2,)], None),
    "batch_norm_eval": (lambda L, x, w, b: L.nn.functional.batch_norm(
        x, L.ones(2, dtype=L.float64) * 0.3, L.ones(2, dtype=L.float64) * 1.7, w, b), [(3, 2, 4), (2,), (2,)], None),
    "nll_loss": (lambda L, x: L.nn.functional.nll_loss(x.log_softmax(1) * x, L.tensor([2, 0, 1]), ignore_index=0),
                 [(3, 4)], None),
    "group_norm": (lambda L, x, w, b: L.nn.functional.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)], None),
    "layer_norm": (lambda L, x, w, b: L.nn.functional.layer_norm(x, (2, 3), w, b), [(2, 2, 3), (2, 3), (2, 3)], None),
    "cross_entropy": (lambda L, x: L.nn.functional.cross_entropy(
        x, L.tensor([[0, 3], [1, 3], [2, 2]]), weight=L.tensor([0.5, 1.0, 2.0, 1.5], dtype=L.float64),
        ignore_index=1, label_smoothing=0.2, reduction="none"), [(3, 4, 2)], None),
    "cross_entropy_probs": (lambda L, x, q: L.nn.functional.cross_entropy(x, q.softmax(1), label_smoothing=0.1),
                            [(3, 4), (3, 4)], None),
    "bce": (lambda L, p, t, w: L.nn.functional.binary_cross_entropy(p.sigmoid(), t, w, reduction="sum"),
            [(3, 4), (3, 4), (4,)], "unit"),
    "bce_with_logits": (lambda L, x, t, pw: L.nn.functional.binary_cross_entropy_with_logits(
        x, t, pos_weight=pw, reduction="none"), [(3, 4), (3, 4), (4,)], "unit"),
    "huber_at_ties": (lambda L, x: L.nn.functional.huber_loss(x, L.tensor([0.25, 0.25, 0.0], dtype=L.float64),
                                                               delta=0.5), [[0.75, -0.25, 0.1]], None),
    "smooth_l1_at_ties": (lambda L, x: L.nn.functional.smooth_l1_loss(
        x, L.tensor([0.25, 0.25, 0.0], dtype=L.float64), beta=0.5, reduction="sum"), [[0.75, -0.25, 0.1]], None),
    "pad_reflect": (lambda L, x: L.nn.functional.pad(x, (2, 1, 1, 1), mode="reflect") ** 2, [(1, 2, 3, 3)], None),
    "interpolate": (lambda L, x: L.nn.functional.interpolate(x, scale_factor=1.5, mode="bilinear",
                                                             align_corners=False) ** 2, [(1, 2, 2, 3)], None),
    "mse": (lambda L, x, t: L.nn.functional.mse_loss(x, t, reduction="none") ** 2, [(3, 4), (3, 4)], None),
}


@pytest.mark.parametrize("case", sorted(TORCH_CASES))
def test_first_and_second_derivatives_match_torch(case):
    torch = pytest.importorskip("torch")
    fn, specs, kind = TORCH_CASES[case]
    arrays = [np.asarray(s, dtype=np.float64) if isinstance(s, list)
              else (rng.uniform(0, 1, s) if kind == "unit" else rng.standard_normal(s)) for s in specs]
    # PyTorch refuses gradients wrt the binary losses' weight and pos_weight (ember gives them).
    n_diff = 2 if case.startswith("bce") else len(arrays)
    with torch.no_grad():
        out_shape = tuple(fn(torch, *[torch.from_numpy(a) for a in arrays]).shape)
    seeds = [rng.standard_normal(out_shape)] + [rng.standard_normal(a.shape) for a in arrays[:n_diff]]
    got = _first_and_second(ember, fn, arrays, n_diff, seeds)
    want = _first_and_second(torch, fn, arrays, n_diff, seeds)
    for g, w in zip(got, want):  # None: no dependence, a zero gradient
        if g is None or w is None:
            assert all(t is None or np.allclose(t, 0) for t in (g, w))
        else:
            np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9)
