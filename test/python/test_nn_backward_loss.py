"""Backward primitives of the losses (gradient wrt input) against torch's
autograd on the same inputs, and against float64 finite differences of
ember's forward losses."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from nn_backward_refs import (C, E, FLOAT_DTYPES, N, REDUCTIONS, TF, check, check_fd, e64, grads, rounded,
                              torch)

torch.manual_seed(3)


def leaf(t):
    return t.detach().clone().requires_grad_(True)


def class_dim(shape):
    return 0 if len(shape) == 1 else 1


def index_targets(shape, c, ignore_index=None):
    tshape = () if len(shape) == 1 else (shape[0],) + tuple(shape[2:])
    t = torch.randint(0, c, tshape)
    if ignore_index is not None and t.dim() > 0:
        t[torch.rand(tshape) < 0.3] = ignore_index
    return t


def loss_grad(y, dtype, noncontig=False):
    """A random grad_output for loss y: (torch, ember)."""
    g = torch.randn(y.shape, dtype=torch.float64)
    return rounded(g, dtype), E(g, dtype, noncontig and g.dim() >= 1)


# ---- cross_entropy and nll_loss with class indices ----------------------------------------

CLASS_SHAPES = [(6, 5), (3, 4, 2), (2, 3, 2, 3), (5,), (4, 3, 70), (0, 4)]


@pytest.mark.parametrize("reduction", list(REDUCTIONS))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 1])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.3])
@pytest.mark.parametrize("shape", CLASS_SHAPES)
def test_cross_entropy_backward_indices(reduction, weighted, ignore_index, label_smoothing, shape):
    c = shape[class_dim(shape)]
    x = torch.randn(*shape, dtype=torch.float64) * 3
    t = index_targets(shape, c, ignore_index if ignore_index != -100 else None)
    w = torch.rand(c, dtype=torch.float64) + 0.2 if weighted else None
    xr = leaf(x)
    y = TF.cross_entropy(xr, t, w, ignore_index=ignore_index, reduction=reduction, label_smoothing=label_smoothing)
    g, eg = loss_grad(y, "float64", noncontig=True)
    (exp,) = grads(y, [xr], g)
    got = C._cross_entropy_backward(eg, E(x), E(t), None if w is None else E(w), REDUCTIONS[reduction],
                                    ignore_index, label_smoothing)
    check(got, exp)


@pytest.mark.parametrize("reduction", list(REDUCTIONS))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 2])
@pytest.mark.parametrize("shape", CLASS_SHAPES)
def test_nll_loss_backward(reduction, weighted, ignore_index, shape):
    c = shape[class_dim(shape)]
    x = torch.log_softmax(torch.randn(*shape, dtype=torch.float64), class_dim(shape))
    t = index_targets(shape, c, ignore_index if ignore_index != -100 else None)
    w = torch.rand(c, dtype=torch.float64) + 0.2 if weighted else None
    xr = leaf(x)
    y = TF.nll_loss(xr, t, w, ignore_index=ignore_index, reduction=reduction)
    g, eg = loss_grad(y, "float64")
    (exp,) = grads(y, [xr], g)
    got = C._nll_loss_backward(eg, E(x), E(t), None if w is None else E(w), REDUCTIONS[reduction], ignore_index)
    check(got, exp)


def test_nll_loss_backward_given_total_weight():
    x = torch.log_softmax(torch.randn(5, 4, dtype=torch.float64), 1)
    t = torch.tensor([0, 1, 2, 3, 1])
    got = C._nll_loss_backward(E(torch.tensor(2.0, dtype=torch.float64)), E(x), E(t), None, 1, -100,
                               E(torch.tensor(4.0, dtype=torch.float64)))
    exp = torch.zeros(5, 4, dtype=torch.float64)
    exp[torch.arange(5), t] = -0.5  # -g / total_weight
    check(got, exp)


def test_nll_loss_backward_uint8_targets():
    x = torch.randn(4, 3, dtype=torch.float64)
    t = torch.tensor([0, 2, 1, 2])
    a = C._nll_loss_backward(E(torch.tensor(1.0, dtype=torch.float64)), E(x), E(t), None, 2, -100)
    b = C._nll_loss_backward(E(torch.tensor(1.0, dtype=torch.float64)), E(x), E(t.to(torch.uint8)), None, 2, -100)
    np.testing.assert_array_equal(N(a), N(b))


def test_class_losses_all_ignored_mean_is_zero_gradient():
    x = torch.randn(3, 4, dtype=torch.float64)
    t = torch.full((3,), -100)
    for fn in (C._cross_entropy_backward, C._nll_loss_backward):
        got = fn(E(torch.tensor(1.0, dtype=torch.float64)), E(x), E(t), None, 1, -100)
        np.testing.assert_array_equal(N(got), np.zeros((3, 4)))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", [(8, 7), (2, 7, 3, 5)])
@pytest.mark.parametrize("reduction", list(REDUCTIONS))
def test_class_losses_backward_dtypes(dtype, shape, reduction):
    c = shape[1]
    x = torch.randn(*shape, dtype=torch.float64) * 4
    t = index_targets(shape, c)
    w = torch.rand(c, dtype=torch.float64) + 0.2
    xr, wr = leaf(rounded(x, dtype)), rounded(w, dtype)
    y = TF.cross_entropy(xr, t, wr, reduction=reduction, label_smoothing=0.1)
    g, eg = loss_grad(y, dtype)
    (exp,) = grads(y, [xr], g)
    got = C._cross_entropy_backward(eg, E(x, dtype), E(t), E(w, dtype), REDUCTIONS[reduction], -100, 0.1)
    assert got.dtype == getattr(ember, dtype)
    check(got, exp, dtype, 2)
    lp = leaf(torch.log_softmax(xr.detach(), 1).to(getattr(torch, dtype)).double())
    y = TF.nll_loss(lp, t, wr, reduction=reduction)
    (exp,) = grads(y, [lp], g)
    got = C._nll_loss_backward(eg, E(lp, dtype), E(t), E(w, dtype), REDUCTIONS[reduction], -100)
    check(got, exp, dtype, 2)


def test_cross_entropy_backward_extreme_logits():
    x = torch.tensor([[1000.0, -1000.0, 0.0], [-1e4, -1e4, -1e4]], dtype=torch.float64)
    t = torch.tensor([1, 2])
    for dtype in ("float64", "float32"):
        xr = leaf(x)
        y = TF.cross_entropy(xr, t, reduction="sum")
        (exp,) = grads(y, [xr], torch.tensor(1.0, dtype=torch.float64))
        got = C._cross_entropy_backward(E(torch.tensor(1.0)), E(x, dtype), E(t), None, 2)
        check(got, exp, dtype)


def test_cross_entropy_backward_out_of_range_target():
    x = E(torch.randn(2, 3))
    with pytest.raises(IndexError, match="cross_entropy_backward: Target 3 is out of bounds"):
        C._cross_entropy_backward(E(torch.tensor(1.0)), x, E(torch.tensor([0, 3])), None, 1)


# ---- cross_entropy with class probabilities --------------------------------------------------

@pytest.mark.parametrize("reduction", list(REDUCTIONS))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.25])
@pytest.mark.parametrize("shape", [(6, 5), (3, 4, 2), (2, 3, 2, 3), (5,), (2, 3, 70)])
def test_cross_entropy_backward_probabilities(reduction, weighted, label_smoothing, shape):
    cd = class_dim(shape)
    c = shape[cd]
    x = torch.randn(*shape, dtype=torch.float64) * 2
    q = torch.softmax(torch.randn(*shape, dtype=torch.float64), cd)
    w = torch.rand(c, dtype=torch.float64) + 0.2 if weighted else None
    xr = leaf(x)
    y = TF.cross_entropy(xr, q, w, reduction=reduction, label_smoothing=label_smoothing)
    g, eg = loss_grad(y, "float64", noncontig=True)
    (exp,) = grads(y, [xr], g)
    got = C._cross_entropy_backward(eg, E(x, noncontig=True), E(q), None if w is None else E(w),
                                    REDUCTIONS[reduction], -100, label_smoothing)
    check(got, exp)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_cross_entropy_backward_probabilities_dtypes(dtype):
    x = torch.randn(5, 6, dtype=torch.float64)
    q = torch.softmax(torch.randn(5, 6, dtype=torch.float64), 1)
    xr = leaf(rounded(x, dtype))
    y = TF.cross_entropy(xr, rounded(q, dtype))
    (exp,) = grads(y, [xr], torch.tensor(1.0, dtype=torch.float64))
    got = C._cross_entropy_backward(E(torch.tensor(1.0), dtype), E(x, dtype), E(q, dtype), None, 1)
    assert got.dtype == getattr(ember, dtype)
    check(got, exp, dtype, 2)


def test_cross_entropy_backward_finite_differences():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 5, 3))
    t = ember.from_numpy(rng.integers(0, 5, (4, 3)))
    w = rng.random(5) + 0.5
    g = np.array(1.3)
    fwd = lambda v: N(F.cross_entropy(e64(v), t, e64(w), label_smoothing=0.2))
    got = C._cross_entropy_backward(e64(g), e64(x), t, e64(w), 1, -100, 0.2)
    check_fd(fwd, x, g, N(got))
    q = rng.random((4, 5, 3))
    fwd = lambda v: N(F.cross_entropy(e64(v), e64(q), e64(w), reduction="sum", label_smoothing=0.1))
    got = C._cross_entropy_backward(e64(g), e64(x), e64(q), e64(w), 2, -100, 0.1)
    check_fd(fwd, x, g, N(got))


def test_nll_loss_backward_finite_differences():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 4))
    t = ember.from_numpy(np.array([0, 3, 2, 2, 1, 0]))
    w = rng.random(4) + 0.5
    g = rng.standard_normal(6)
    fwd = lambda v: N(F.nll_loss(e64(v), t, e64(w), ignore_index=2, reduction="none"))
    got = C._nll_loss_backward(e64(g), e64(x), t, e64(w), 0, 2)
    check_fd(fwd, x, g, N(got))


# ---- element-wise losses ---------------------------------------------------------------------

POINTWISE = {
    "mse": (lambda x, t, r: TF.mse_loss(x, t, reduction=r), lambda g, x, t, r: C._mse_loss_backward(g, x, t, r)),
    "l1": (lambda x, t, r: TF.l1_loss(x, t, reduction=r), lambda g, x, t, r: C._l1_loss_backward(g, x, t, r)),
    "smooth_l1": (lambda x, t, r: TF.smooth_l1_loss(x, t, reduction=r, beta=0.5),
                  lambda g, x, t, r: C._smooth_l1_loss_backward(g, x, t, r, 0.5)),
    "smooth_l1_beta0": (lambda x, t, r: TF.smooth_l1_loss(x, t, reduction=r, beta=0.0),
                        lambda g, x, t, r: C._smooth_l1_loss_backward(g, x, t, r, 0.0)),
    "huber": (lambda x, t, r: TF.huber_loss(x, t, reduction=r, delta=0.7),
              lambda g, x, t, r: C._huber_loss_backward(g, x, t, r, 0.7)),
    "bce": (lambda x, t, r: TF.binary_cross_entropy(x, t, reduction=r),
            lambda g, x, t, r: C._binary_cross_entropy_backward(g, x, t, None, r)),
    "bce_logits": (lambda x, t, r: TF.binary_cross_entropy_with_logits(x, t, reduction=r),
                   lambda g, x, t, r: C._binary_cross_entropy_with_logits_backward(g, x, t, None, None, r)),
}


def pointwise_inputs(name, shape):
    if name == "bce":
        return torch.rand(shape, dtype=torch.float64) * 0.98 + 0.01, torch.rand(shape, dtype=torch.float64)
    if name == "bce_logits":
        return torch.randn(shape, dtype=torch.float64) * 4, torch.rand(shape, dtype=torch.float64)
    return torch.randn(shape, dtype=torch.float64), torch.randn(shape, dtype=torch.float64)


@pytest.mark.parametrize("name", list(POINTWISE))
@pytest.mark.parametrize("reduction", list(REDUCTIONS))
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", [(4, 5), (3, 1, 7), (), (0, 3), (70, 300)])
def test_pointwise_loss_backward(name, reduction, dtype, shape):
    tf, ef = POINTWISE[name]
    x, t = pointwise_inputs(name, shape)
    xr, tr = leaf(rounded(x, dtype)), rounded(t, dtype)
    y = tf(xr, tr, reduction)
    g, eg = loss_grad(y, dtype, noncontig=True)
    (exp,) = grads(y, [xr], g)
    got = ef(eg, E(x, dtype, noncontig=len(shape) >= 1), E(t, dtype), REDUCTIONS[reduction])
    assert got.dtype == getattr(ember, dtype)
    check(got, exp, dtype, 2 if name == "bce" else 1)


@pytest.mark.parametrize("name", ["mse", "l1", "smooth_l1", "huber"])
def test_pointwise_loss_backward_broadcast_and_promotion(name):
    tf, ef = POINTWISE[name]
    x, t = torch.randn(4, 1, 3, dtype=torch.float64), torch.randn(5, 1, dtype=torch.float32)
    xr = leaf(x)
    with pytest.warns(UserWarning):
        y = tf(xr, t.double(), "none")
    g = torch.randn(y.shape, dtype=torch.float64)
    # the gradient has the broadcast shape; the autograd layer sums it to the input's
    got = ef(E(g), E(x), E(t), 0)
    assert got.dtype == ember.float64 and tuple(got.shape) == (4, 5, 3)
    (exp,) = grads(y, [xr], g)
    np.testing.assert_allclose(N(got).sum(axis=1, keepdims=True), exp.numpy(), rtol=1e-12, atol=1e-12)


def test_pointwise_ties_follow_torch():
    # x == t: l1, smooth_l1 with beta 0 (which F.smooth_l1_loss runs as l1_loss), huber, mse give 0
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    for name in ("l1", "smooth_l1_beta0", "huber", "mse"):
        tf, ef = POINTWISE[name]
        xr = leaf(x)
        (exp,) = grads(tf(xr, x, "sum"), [xr], torch.tensor(1.0, dtype=torch.float64))
        check(ef(E(torch.tensor(1.0, dtype=torch.float64)), E(x), E(x), 2), exp)


@pytest.mark.parametrize("reduction", list(REDUCTIONS))
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("wshape", [None, (5,), (3, 1), (3, 5)])
def test_binary_cross_entropy_backward_weight(reduction, dtype, wshape):
    x, t = torch.rand(3, 5, dtype=torch.float64) * 0.9 + 0.05, torch.rand(3, 5, dtype=torch.float64)
    w = None if wshape is None else torch.rand(*wshape, dtype=torch.float64) + 0.1
    xr = leaf(rounded(x, dtype))
    y = TF.binary_cross_entropy(xr, rounded(t, dtype), None if w is None else rounded(w, dtype), reduction=reduction)
    g, eg = loss_grad(y, dtype)
    (exp,) = grads(y, [xr], g)
    got = C._binary_cross_entropy_backward(eg, E(x, dtype), E(t, dtype), None if w is None else E(w, dtype),
                                           REDUCTIONS[reduction])
    check(got, exp, dtype, 2)


def test_binary_cross_entropy_backward_at_the_clamp():
    # x = 0 or 1: PyTorch's denominator max(x (1 - x), 1e-12)
    x = torch.tensor([0.0, 1.0, 1e-14, 0.5], dtype=torch.float64)
    t = torch.tensor([0.3, 0.6, 1.0, 0.5], dtype=torch.float64)
    xr = leaf(x)
    (exp,) = grads(TF.binary_cross_entropy(xr, t, reduction="sum"), [xr], torch.tensor(1.0, dtype=torch.float64))
    check(C._binary_cross_entropy_backward(E(torch.tensor(1.0, dtype=torch.float64)), E(x), E(t), None, 2), exp)


@pytest.mark.parametrize("reduction", list(REDUCTIONS))
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("wshape, pwshape", [(None, (5,)), ((3, 5), None), ((5,), (3, 5)), ((1,), (1, 5))])
def test_binary_cross_entropy_with_logits_backward_weights(reduction, dtype, wshape, pwshape):
    x, t = torch.randn(3, 5, dtype=torch.float64) * 5, torch.rand(3, 5, dtype=torch.float64)
    w = None if wshape is None else torch.rand(*wshape, dtype=torch.float64) + 0.1
    pw = None if pwshape is None else torch.rand(*pwshape, dtype=torch.float64) * 3
    xr = leaf(rounded(x, dtype))
    rw = None if w is None else rounded(w, dtype)
    rpw = None if pw is None else rounded(pw, dtype)
    y = TF.binary_cross_entropy_with_logits(xr, rounded(t, dtype), rw, reduction=reduction, pos_weight=rpw)
    g, eg = loss_grad(y, dtype)
    (exp,) = grads(y, [xr], g)
    got = C._binary_cross_entropy_with_logits_backward(eg, E(x, dtype), E(t, dtype),
                                                       None if w is None else E(w, dtype),
                                                       None if pw is None else E(pw, dtype), REDUCTIONS[reduction])
    check(got, exp, dtype, 2)


def test_binary_cross_entropy_with_logits_extreme_logits():
    x = torch.tensor([-200.0, -30.0, 0.0, 30.0, 200.0], dtype=torch.float64)
    t = torch.tensor([1.0, 0.0, 0.5, 1.0, 0.0], dtype=torch.float64)
    for dtype in ("float64", "float32"):
        xr = leaf(x)
        y = TF.binary_cross_entropy_with_logits(xr, t, reduction="sum")
        (exp,) = grads(y, [xr], torch.tensor(1.0, dtype=torch.float64))
        got = C._binary_cross_entropy_with_logits_backward(E(torch.tensor(1.0)), E(x, dtype), E(t, dtype), None, None, 2)
        check(got, exp, dtype)


@pytest.mark.parametrize("name", list(POINTWISE))
def test_pointwise_loss_backward_finite_differences(name):
    rng = np.random.default_rng(8)
    x, t = (v.numpy() for v in pointwise_inputs(name, (3, 4)))
    if name not in ("bce", "bce_logits"):  # keep away from the kinks
        x = x + np.sign(x - t) * 0.05
    g = rng.standard_normal((3, 4))
    fwd_name = {"mse": "mse_loss", "l1": "l1_loss", "smooth_l1": "smooth_l1_loss", "smooth_l1_beta0": "smooth_l1_loss",
                "huber": "huber_loss", "bce": "binary_cross_entropy", "bce_logits": "binary_cross_entropy_with_logits"}[name]
    kw = {"smooth_l1": {"beta": 0.5}, "smooth_l1_beta0": {"beta": 0.0}, "huber": {"delta": 0.7}}.get(name, {})
    fwd = lambda v: N(getattr(F, fwd_name)(e64(v), e64(t), reduction="none", **kw))
    got = POINTWISE[name][1](e64(g), e64(x), e64(t), 0)
    check_fd(fwd, x, g, N(got))


def test_binary_cross_entropy_with_logits_backward_finite_differences():
    rng = np.random.default_rng(9)
    x, t = rng.standard_normal((3, 4)) * 3, rng.random((3, 4))
    w, pw = rng.random((3, 4)) + 0.5, rng.random(4) * 2
    g = np.array(0.7)
    fwd = lambda v: N(F.binary_cross_entropy_with_logits(e64(v), e64(t), e64(w), reduction="mean", pos_weight=e64(pw)))
    got = C._binary_cross_entropy_with_logits_backward(e64(g), e64(x), e64(t), e64(w), e64(pw), 1)
    check_fd(fwd, x, g, N(got))
