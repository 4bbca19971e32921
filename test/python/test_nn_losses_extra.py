"""The nnextra losses (F.kl_div, F.soft_margin_loss, ... and their modules) against torch:
values and gradients in float64 for every reduction, unbatched inputs, reprs, errors."""
import numpy as np
import pytest

import ember
import ember.nn as nn

from _torch_compare import check_same

torch = pytest.importorskip("torch")

REDUCTIONS = ["none", "mean", "sum"]
rng = np.random.default_rng(7)


def randn(*shape):
    return rng.standard_normal(shape)


def signs(*shape):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    x = np.log(rng.dirichlet(np.ones(5), size=4))
    t = rng.dirichlet(np.ones(5), size=4)
    if log_target:
        t = np.log(t + 0.1)
    fn = lambda F, a, b: F.kl_div(a, b, reduction=reduction, log_target=log_target)  # noqa: E731
    check_same(torch, fn, x, t)
    t[0, 1] = 0.0  # xlogy(0, 0) = 0 (torch's target gradient there is nan, ember's 0)
    check_same(torch, fn, x, t, grad=False)


def test_kl_div_broadcast_and_0d():
    check_same(torch, lambda F, a, b: F.kl_div(a, b, reduction="sum"), randn(3, 4), np.abs(randn(4)))
    check_same(torch, lambda F, a, b: F.kl_div(a, b, reduction="batchmean"), randn(), np.abs(randn()))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_pointwise_losses(reduction):
    x, y = randn(3, 4), signs(3, 4)
    check_same(torch, lambda F, a, b: F.soft_margin_loss(a, b, reduction=reduction), x, y, nograd=(1,))
    check_same(torch, lambda F, a, b: F.hinge_embedding_loss(a, b, margin=0.7, reduction=reduction), x, y)
    check_same(torch, lambda F, a, b: F.huber_loss(a, b, reduction=reduction, delta=0.5), x, randn(3, 4))
    check_same(torch, lambda F, a, b, c: F.margin_ranking_loss(a, b, c, margin=0.3, reduction=reduction),
               randn(5), randn(5), signs(5))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cosine_embedding_loss(reduction):
    check_same(torch, lambda F, a, b, c: F.cosine_embedding_loss(a, b, c, margin=0.2, reduction=reduction),
               randn(6, 3), randn(6, 3), signs(6))
    # unbatched: 1-d inputs, 0-d target
    check_same(torch, lambda F, a, b, c: F.cosine_embedding_loss(a, b, c, reduction=reduction),
               randn(3), randn(3), np.array(-1.0))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input,full", [(True, False), (False, False), (True, True), (False, True)])
def test_poisson_nll_loss(reduction, log_input, full):
    x = randn(4, 3) if log_input else np.abs(randn(4, 3)) + 0.1
    t = rng.poisson(2.0, (4, 3)).astype(np.float64)
    check_same(torch, lambda F, a, b: F.poisson_nll_loss(a, b, log_input=log_input, full=full,
                                                         reduction=reduction), x, t)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("var_shape", [(4, 3), (4,), (4, 1)])
def test_gaussian_nll_loss(reduction, var_shape):
    var = np.abs(randn(*var_shape)) + 0.1
    var.flat[0] = 1e-9  # clamped to eps, gradient passes through
    check_same(torch, lambda F, a, b, v: F.gaussian_nll_loss(a, b, v, full=True, reduction=reduction),
               randn(4, 3), randn(4, 3), var)


def test_gaussian_nll_loss_float_var():
    check_same(torch, lambda F, a, b: F.gaussian_nll_loss(a, b, 0.5), randn(4, 3), randn(4, 3))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,swap", [(2.0, False), (1.0, True), (3.0, False)])
def test_triplet_margin_loss(reduction, p, swap):
    check_same(torch, lambda F, a, b, c: F.triplet_margin_loss(a, b, c, margin=0.5, p=p, swap=swap,
                                                               reduction=reduction),
               randn(5, 4), randn(5, 4), randn(5, 4))
    check_same(torch, lambda F, a, b, c: F.triplet_margin_loss(a, b, c, reduction=reduction),
               randn(4), randn(4), randn(4))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_soft_margin_loss(reduction):
    t = (rng.random((4, 5)) < 0.5).astype(np.float64)
    check_same(torch, lambda F, a, b: F.multilabel_soft_margin_loss(a, b, reduction=reduction), randn(4, 5), t)
    check_same(torch, lambda F, a, b, w: F.multilabel_soft_margin_loss(a, b, weight=w, reduction=reduction),
               randn(4, 5), t, np.abs(randn(5)), grad=True)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin_loss(reduction, p):
    t = rng.integers(0, 5, 6)
    check_same(torch, lambda F, a, b: F.multi_margin_loss(a, b, p=p, margin=0.8, reduction=reduction),
               randn(6, 5), t)
    check_same(torch, lambda F, a, b, w: F.multi_margin_loss(a, b, p=p, weight=w, reduction=reduction),
               randn(6, 5), t, np.abs(randn(5)), nograd=(2,))
    check_same(torch, lambda F, a, b: F.multi_margin_loss(a, b, p=p, reduction=reduction),
               randn(5), np.array(3))


def test_float32_and_noncontiguous():
    x = randn(4, 6).astype(np.float32)
    check_same(torch, lambda F, a, b: F.soft_margin_loss(a, b), x, signs(6, 4).astype(np.float32),
               transpose=(1,), rtol=1e-5, atol=1e-6, nograd=(1,))


def test_legacy_size_average_reduce():
    check_same(torch, lambda F, a, b: F.kl_div(a, b, size_average=False), randn(3, 4), np.abs(randn(3, 4)))
    check_same(torch, lambda F, a, b: F.soft_margin_loss(a, b, reduce=False), randn(3, 4), signs(3, 4),
               nograd=(1,))


MODULES = [
    ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, lambda: (randn(3, 4), randn(3, 4))),
    ("HuberLoss", {"delta": 0.3}, lambda: (randn(3, 4), randn(3, 4))),
    ("SoftMarginLoss", {}, lambda: (randn(3, 4), signs(3, 4))),
    ("CosineEmbeddingLoss", {"margin": 0.1}, lambda: (randn(3, 4), randn(3, 4), signs(3))),
    ("MarginRankingLoss", {"margin": 0.1, "reduction": "sum"}, lambda: (randn(3), randn(3), signs(3))),
    ("HingeEmbeddingLoss", {"margin": 2.0}, lambda: (randn(3, 4), signs(3, 4))),
    ("PoissonNLLLoss", {"full": True}, lambda: (randn(3, 4), rng.poisson(3.0, (3, 4)).astype(float))),
    ("GaussianNLLLoss", {"eps": 1e-3}, lambda: (randn(3, 4), randn(3, 4), np.abs(randn(3, 4)))),
    ("TripletMarginLoss", {"margin": 0.5, "swap": True}, lambda: (randn(3, 4), randn(3, 4), randn(3, 4))),
    ("MultiLabelSoftMarginLoss", {"reduction": "none"},
     lambda: (randn(3, 4), (rng.random((3, 4)) < 0.5).astype(float))),
    ("MultiMarginLoss", {"p": 2, "margin": 0.5}, lambda: (randn(3, 4), rng.integers(0, 4, 3))),
]


@pytest.mark.parametrize("name,kwargs,make", MODULES, ids=[m[0] for m in MODULES])
def test_loss_modules(name, kwargs, make):
    e_mod, t_mod = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(e_mod) == repr(t_mod)
    assert e_mod.reduction == t_mod.reduction
    arrays = make()
    pairs = [(ember.from_numpy(a.copy()), torch.from_numpy(a.copy())) for a in arrays]
    np.testing.assert_allclose(e_mod(*[p[0] for p in pairs]).numpy(),
                               t_mod(*[p[1] for p in pairs]).numpy(), rtol=1e-6, atol=1e-9)


def test_weighted_loss_modules_hold_weight_buffer():
    w = np.abs(randn(4))
    e = nn.MultiMarginLoss(weight=ember.from_numpy(w.copy()))
    t = torch.nn.MultiMarginLoss(weight=torch.from_numpy(w.copy()))
    assert list(e.state_dict()) == list(t.state_dict()) == ["weight"]


def test_module_option_errors():
    with pytest.raises(ValueError, match="margin to be greater than 0"):
        nn.TripletMarginLoss(margin=0.0)
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(TypeError):
        nn.GaussianNLLLoss(True)  # keyword-only, as torch
