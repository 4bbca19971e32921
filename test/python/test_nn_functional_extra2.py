"""The second batch of nn extras against torch: F.multilabel_margin_loss,
F.triplet_margin_with_distance_loss, F.gumbel_softmax, nn.CrossMapLRN2d,
nn.AdaptiveLogSoftmaxWithLoss, and the torch-level spellings (ember.conv_tbc,
ember.convolution, ember.kl_div, ...): values and gradients in float64, modules, errors."""
import inspect

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as EF

from _torch_compare import assert_same, check_same, module_pair

torch = pytest.importorskip("torch")

REDUCTIONS = ["none", "mean", "sum"]
rng = np.random.default_rng(17)


def randn(*shape):
    return rng.standard_normal(shape)


def signs(*shape):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


def _raises_like_torch(case, exc, compare_message=True):
    msgs = []
    for F, L in ((torch.nn.functional, torch), (EF, ember)):
        with pytest.raises(exc) as info:
            case(F, L)
        msgs.append(str(info.value))
    if compare_message and "torch" not in msgs[0]:
        assert msgs[1] == msgs[0]


# multilabel_margin_loss ------------------------------------------------------------------

MLM_TARGET = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [-1, 0, 0, 0], [2, 2, -1, 5],
                       [1, -1, 7, 9]])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(reduction):
    x = randn(5, 4)
    t = np.minimum(MLM_TARGET, 3)  # values after the first -1 are never read
    check_same(torch, lambda F, a, b: F.multilabel_margin_loss(a, b, reduction=reduction), x, t)
    # unbatched, batch of one, non-contiguous input
    check_same(torch, lambda F, a, b: F.multilabel_margin_loss(a, b, reduction=reduction),
               x[0], t[0])
    check_same(torch, lambda F, a, b: F.multilabel_margin_loss(a, b, reduction=reduction),
               x[:1], t[:1])
    check_same(torch, lambda F, a, b: F.multilabel_margin_loss(a, b, reduction=reduction),
               randn(4, 5), t, transpose=(0,))


@pytest.mark.release_numerics
def test_multilabel_margin_loss_ties_and_legacy_flags():
    x = np.array([[0.5, 0.5, -0.5, 1.5], [0.0, 1.0, 0.0, 1.0]])  # hinge exactly 0 / 1
    t = np.array([[0, -1, 0, 0], [1, 3, -1, 0]])
    check_same(torch, lambda F, a, b: F.multilabel_margin_loss(a, b, reduction="none"), x, t)
    with pytest.warns(UserWarning):
        e = EF.multilabel_margin_loss(ember.from_numpy(x), ember.from_numpy(t),
                                      size_average=False)
    with pytest.warns(UserWarning):
        r = torch.nn.functional.multilabel_margin_loss(torch.from_numpy(x), torch.from_numpy(t),
                                                       size_average=False)
    assert_same(e, r)
    for reduction in REDUCTIONS:  # empty batch
        check_same(torch, lambda F, a, b: F.multilabel_margin_loss(a, b, reduction=reduction),
                   np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64))


def test_multilabel_margin_loss_module():
    m = nn.MultiLabelMarginLoss(reduction="sum")
    assert repr(m) == repr(torch.nn.MultiLabelMarginLoss(reduction="sum"))
    x, t = randn(3, 4), np.array([[1, 2, -1, 0], [0, -1, 1, 1], [3, 2, 1, 0]])
    assert_same(m(ember.from_numpy(x), ember.from_numpy(t)),
                torch.nn.MultiLabelMarginLoss(reduction="sum")(torch.from_numpy(x),
                                                               torch.from_numpy(t)))
    from ember.nn.modules.loss import MultiLabelMarginLoss
    assert MultiLabelMarginLoss is nn.MultiLabelMarginLoss


@pytest.mark.parametrize("case,exc", [
    (lambda F, L, x, t: F.multilabel_margin_loss(x[0, 0], t[0, 0]), RuntimeError),
    (lambda F, L, x, t: F.multilabel_margin_loss(x, t[:2]), RuntimeError),
    (lambda F, L, x, t: F.multilabel_margin_loss(x, t.float()), RuntimeError),
    (lambda F, L, x, t: F.multilabel_margin_loss(x, t.int()), RuntimeError),
    (lambda F, L, x, t: F.multilabel_margin_loss(x, t + 1), RuntimeError),
    (lambda F, L, x, t: F.multilabel_margin_loss(x, t - 1), RuntimeError),
    (lambda F, L, x, t: F.multilabel_margin_loss(x[:, :0], t[:, :0]), RuntimeError),
    (lambda F, L, x, t: F.multilabel_margin_loss(x, t, reduction="foo"), ValueError),
    (lambda F, L, x, t: F.multilabel_margin_loss(x[None], t[None]), RuntimeError),
    (lambda F, L, x, t: F.multilabel_margin_loss(x.long(), t), NotImplementedError),
])
def test_multilabel_margin_loss_errors(case, exc):
    x, t = randn(3, 4), np.array([[3, 0, -1, 1], [0, 1, 2, 3], [-1, 0, 0, 0]])
    _raises_like_torch(lambda F, L: case(F, L, L.from_numpy(x), L.from_numpy(t)), exc)


# triplet_margin_with_distance_loss -------------------------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss(reduction, swap):
    a, p, n = randn(5, 3), randn(5, 3), randn(5, 3)
    check_same(torch, lambda F, x, y, z: F.triplet_margin_with_distance_loss(
        x, y, z, swap=swap, reduction=reduction, margin=0.7), a, p, n)

    def cosine_distance(F):
        return lambda u, v: 1.0 - F.cosine_similarity(u, v)

    check_same(torch, lambda F, x, y, z: F.triplet_margin_with_distance_loss(
        x, y, z, distance_function=cosine_distance(F), swap=swap, reduction=reduction), a, p, n)
    # unbatched and non-contiguous
    check_same(torch, lambda F, x, y, z: F.triplet_margin_with_distance_loss(
        x, y, z, swap=swap, reduction=reduction), a[0], p[0], n[0])
    check_same(torch, lambda F, x, y, z: F.triplet_margin_with_distance_loss(
        x, y, z, swap=swap, reduction=reduction), randn(3, 5), randn(3, 5), randn(3, 5),
        transpose=(0, 1, 2))


def test_triplet_margin_with_distance_loss_module():
    e = nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True, reduction="sum")
    t = torch.nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True, reduction="sum")
    assert repr(e) == repr(t)
    assert isinstance(e.distance_function, nn.PairwiseDistance)
    a, p, n = randn(4, 3), randn(4, 3), randn(4, 3)
    assert_same(e(*map(ember.from_numpy, (a, p, n))), t(*map(torch.from_numpy, (a, p, n))))
    e = nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: (u - v).abs().sum(-1))
    t = torch.nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: (u - v).abs().sum(-1))
    assert_same(e(*map(ember.from_numpy, (a, p, n))), t(*map(torch.from_numpy, (a, p, n))))
    with pytest.raises(ValueError, match="expected margin to be greater than 0"):
        nn.TripletMarginWithDistanceLoss(margin=-1)
    from ember.nn.modules.loss import TripletMarginWithDistanceLoss
    assert TripletMarginWithDistanceLoss is nn.TripletMarginWithDistanceLoss


@pytest.mark.parametrize("case,exc", [
    (lambda F, x: F.triplet_margin_with_distance_loss(x, x, x, margin=0), ValueError),
    (lambda F, x: F.triplet_margin_with_distance_loss(x, x, x[0]), RuntimeError),
    (lambda F, x: F.triplet_margin_with_distance_loss(x, x, x, reduction="foo"), ValueError),
])
def test_triplet_margin_with_distance_loss_errors(case, exc):
    x = randn(3, 4)
    _raises_like_torch(lambda F, L: case(F, L.from_numpy(x)), exc)


# gumbel_softmax --------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [-1, 0, 1])
@pytest.mark.parametrize("tau", [1.0, 0.3])
def test_gumbel_softmax_soft(dim, tau):
    ember.manual_seed(0)
    logits = ember.from_numpy(randn(4, 5, 3)).requires_grad_()
    y = EF.gumbel_softmax(logits, tau=tau, dim=dim)
    assert tuple(y.shape) == (4, 5, 3) and y.dtype == ember.float64
    np.testing.assert_allclose(y.detach().sum(dim).numpy(), 1.0, rtol=1e-12)
    assert float(y.detach().min()) >= 0
    (y * ember.from_numpy(randn(4, 5, 3))).sum().backward()
    assert logits.grad is not None and tuple(logits.grad.shape) == (4, 5, 3)
    # softmax rows: the gradient of each row sums to zero
    np.testing.assert_allclose(logits.grad.sum(dim).numpy(), 0.0, atol=1e-10)


@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_hard_straight_through(dim):
    ember.manual_seed(1)
    logits = ember.from_numpy(randn(6, 4)).requires_grad_()
    y = EF.gumbel_softmax(logits, tau=0.5, hard=True, dim=dim)
    values = y.detach().numpy()
    assert set(np.unique(values)) <= {0.0, 1.0}
    np.testing.assert_array_equal(values.sum(dim), 1.0)
    w = ember.from_numpy(randn(6, 4))
    (y * w).sum().backward()
    # straight-through: the gradient is the soft sample's, which the same noise reproduces
    assert logits.grad is not None and float(logits.grad.abs().sum()) > 0
    np.testing.assert_allclose(logits.grad.sum(dim).numpy(), 0.0, atol=1e-10)


def test_gumbel_softmax_seeded_and_distribution():
    ember.manual_seed(3)
    a = EF.gumbel_softmax(ember.zeros(3, 4), hard=True)
    ember.manual_seed(3)
    b = EF.gumbel_softmax(ember.zeros(3, 4), hard=True)
    assert a.numpy().tolist() == b.numpy().tolist()
    # argmax frequencies follow softmax(logits)
    logits = ember.tensor([[2.0, 0.0, -1.0]]).expand(20000, 3)
    counts = EF.gumbel_softmax(logits, hard=True).sum(0).numpy() / 20000
    expected = np.exp([2.0, 0.0, -1.0]) / np.exp([2.0, 0.0, -1.0]).sum()
    np.testing.assert_allclose(counts, expected, atol=0.02)
    with pytest.warns(UserWarning, match="deprecated"):
        EF.gumbel_softmax(ember.zeros(2, 2), eps=1e-5)
    _raises_like_torch(lambda F, L: F.gumbel_softmax(L.zeros(3, 4, dtype=L.int64)),
                       RuntimeError)


# CrossMapLRN2d -----------------------------------------------------------------------


@pytest.mark.parametrize("size,channels", [(5, 6), (3, 6), (4, 7), (2, 3), (7, 4), (5, 1)])
def test_cross_map_lrn2d(size, channels):
    # torch's forward and (not-quite-exact) backward are both reproduced
    x = randn(2, channels, 3, 4)
    e = nn.CrossMapLRN2d(size, alpha=0.3, beta=0.6, k=1.5)
    t = torch.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.6, k=1.5)
    assert repr(e) == repr(t)
    xe = ember.from_numpy(x.copy()).requires_grad_()
    xt = torch.from_numpy(x.copy()).requires_grad_()
    ye, yt = e(xe), t(xt)
    assert_same(ye, yt)
    seed = randn(*x.shape)
    ye.backward(ember.from_numpy(seed.copy()))
    yt.backward(torch.from_numpy(seed.copy()))
    assert_same(xe.grad, xt.grad)


def test_cross_map_lrn2d_defaults_and_errors():
    x = randn(1, 4, 2, 2)
    assert_same(nn.CrossMapLRN2d(3)(ember.from_numpy(x)),
                torch.nn.CrossMapLRN2d(3)(torch.from_numpy(x)))
    with pytest.raises(ValueError, match="Expected input to be 4D, got 3D instead"):
        nn.CrossMapLRN2d(3)(ember.zeros(4, 2, 2))
    from ember.nn.modules.normalization import CrossMapLRN2d
    assert CrossMapLRN2d is nn.CrossMapLRN2d


# AdaptiveLogSoftmaxWithLoss ---------------------------------------------------------------


def _asm_pair(**kw):
    args = (64, 20, [4, 9, 15])
    return module_pair(torch, lambda: nn.AdaptiveLogSoftmaxWithLoss(*args, **kw),
                       lambda: torch.nn.AdaptiveLogSoftmaxWithLoss(*args, **kw))


@pytest.mark.parametrize("kw", [{}, {"div_value": 2.0, "head_bias": True}])
def test_adaptive_log_softmax_forward(kw):
    e, t = _asm_pair(**kw)
    assert repr(e) == repr(t)
    assert list(dict(e.named_parameters())) == list(dict(t.named_parameters()))
    x = randn(7, 64)
    target = np.array([0, 5, 19, 3, 12, 9, 15])
    xe, xt = ember.from_numpy(x).requires_grad_(), torch.from_numpy(x).requires_grad_()
    oe, ot = e(xe, ember.from_numpy(target)), t(xt, torch.from_numpy(target))
    assert type(oe).__name__ == type(ot).__name__ == "_ASMoutput"
    assert oe._fields == ("output", "loss")
    assert_same(oe.output, ot.output)
    assert_same(oe.loss, ot.loss)
    oe.loss.backward()
    ot.loss.backward()
    assert_same(xe.grad, xt.grad)
    pe, pt = dict(e.named_parameters()), dict(t.named_parameters())
    for name in pe:
        assert_same(pe[name].grad, pt[name].grad)


def test_adaptive_log_softmax_unbatched_log_prob_predict():
    e, t = _asm_pair(head_bias=True)
    x = randn(64)
    oe, ot = e(ember.from_numpy(x), ember.tensor(13)), t(torch.from_numpy(x), torch.tensor(13))
    assert tuple(oe.output.shape) == tuple(ot.output.shape) == ()
    assert_same(oe.output, ot.output)
    assert_same(oe.loss, ot.loss)
    xs = randn(9, 64) * 3
    lp_e, lp_t = e.log_prob(ember.from_numpy(xs)), t.log_prob(torch.from_numpy(xs))
    assert_same(lp_e, lp_t)
    np.testing.assert_allclose(np.exp(lp_e.detach().numpy()).sum(1), 1.0, rtol=1e-12)
    assert e.predict(ember.from_numpy(xs)).numpy().tolist() == \
        t.predict(torch.from_numpy(xs)).numpy().tolist()
    # a head that always prefers the shortlist / always a cluster
    with ember.no_grad(), torch.no_grad():
        for bias in (10.0, -10.0):
            e.head.bias.fill_(0)
            t.head.bias.fill_(0)
            e.head.bias[:4].fill_(bias)
            t.head.bias[:4].fill_(bias)
            assert e.predict(ember.from_numpy(xs)).numpy().tolist() == \
                t.predict(torch.from_numpy(xs)).numpy().tolist()
    from ember.nn.modules.adaptive import AdaptiveLogSoftmaxWithLoss
    assert AdaptiveLogSoftmaxWithLoss is nn.AdaptiveLogSoftmaxWithLoss


@pytest.mark.parametrize("cutoffs", [[], [5, 3], [0, 4], [4, 20], [4, 4], [4.5]])
def test_adaptive_log_softmax_bad_cutoffs(cutoffs):
    with pytest.raises(ValueError) as te:
        torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs)
    with pytest.raises(ValueError) as ee:
        nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs)
    assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("case", [
    lambda L, m, x: m(x, L.tensor([0, 1])),
    lambda L, m, x: m(x[0], L.tensor([0, 1, 2])),
    lambda L, m, x: m(x, L.tensor([[0, 1, 2]])),
    lambda L, m, x: m(x, L.tensor(1)),
    lambda L, m, x: m(x, L.tensor([0, 20, 3])),
    lambda L, m, x: m(x, L.tensor([0, -1, 3])),
])
def test_adaptive_log_softmax_errors(case):
    e, t = _asm_pair()
    x = randn(3, 64)
    with pytest.raises(RuntimeError) as te:
        case(torch, t, torch.from_numpy(x))
    with pytest.raises(RuntimeError) as ee:
        case(ember, e, ember.from_numpy(x))
    if "torch" not in str(te.value):
        assert str(ee.value) == str(te.value)


# torch-level spellings -------------------------------------------------------------------


def test_torch_level_pooling():
    x = randn(2, 3, 9)
    both = [(ember, ember.from_numpy(x)), (torch, torch.from_numpy(x))]
    (e_lib, xe), (t_lib, xt) = both
    assert_same(ember.avg_pool1d(xe, 3), torch.avg_pool1d(xt, 3))
    assert_same(ember.avg_pool1d(xe, [3], [], 1, True, False),
                torch.avg_pool1d(xt, [3], [], 1, True, False))
    assert_same(ember.max_pool1d(xe, 3, [], 1, 2, True), torch.max_pool1d(xt, 3, [], 1, 2, True))
    ve, ie = ember.max_pool1d_with_indices(xe, 2, 1)
    vt, it = torch.max_pool1d_with_indices(xt, 2, 1)
    assert_same(ve, vt)
    assert ie.numpy().tolist() == it.numpy().tolist()
    assert_same(ember.adaptive_avg_pool1d(xe, 4), torch.adaptive_avg_pool1d(xt, 4))
    ve, ie = ember.adaptive_max_pool1d(xe, 4)
    vt, it = torch.adaptive_max_pool1d(xt, 4)
    assert_same(ve, vt)
    assert ie.numpy().tolist() == it.numpy().tolist()


def test_torch_level_bilinear_and_pad():
    check_same(torch, lambda F, a, b, w, c: (ember if F is EF else torch).bilinear(a, b, w, c),
               randn(4, 3), randn(4, 2), randn(5, 3, 2), randn(5))
    for pad, value in (([1, 2], 0), ([1, 2, -1, 1], 3.5), ([0, 0, 2, 0, 1, 1], -1.0),
                       ([-2, -1], 0), ([], 0)):
        check_same(torch, lambda F, a: (ember if F is EF else torch).constant_pad_nd(a, pad,
                                                                                     value),
                   randn(2, 3, 4))
    _raises_like_torch(lambda F, L: L.constant_pad_nd(L.zeros(2, 3), [1, 2, -1]), RuntimeError)
    _raises_like_torch(lambda F, L: L.constant_pad_nd(L.zeros(2, 3), [1] * 6), RuntimeError)
    _raises_like_torch(lambda F, L: L.constant_pad_nd(L.zeros(2, 3), [-3, -2]), RuntimeError)


@pytest.mark.parametrize("args", [
    # (input shape, weight shape, bias, stride, padding, dilation, transposed, output_padding,
    #  groups)
    ((2, 4, 9), (6, 2, 3), True, [2], [1], [1], False, [0], 2),
    ((2, 3, 8, 7), (4, 3, 3, 2), True, [1, 2], [1, 0], [2, 1], False, [0, 0], 1),
    ((1, 3, 8, 7), (4, 3, 3, 3), False, [1], [1], [1], False, [0], 1),
    ((2, 3, 5, 4), (3, 2, 3, 3), True, [2, 1], [1, 1], [1, 1], True, [1, 0], 1),
    ((2, 4, 7), (4, 3, 3), True, [2], [1], [1], True, [1], 2),
    ((1, 2, 4, 5, 4), (3, 2, 2, 3, 2), True, [1, 2, 1], [1, 0, 1], [1, 1, 1], False, [0, 0, 0],
     1),
    ((1, 2, 3, 4, 3), (2, 3, 2, 2, 2), False, [2, 1, 1], [0, 1, 0], [1, 1, 1], True, [1, 0, 0],
     1),
])
def test_torch_level_convolution(args):
    in_shape, w_shape, has_bias, stride, padding, dilation, transposed, out_pad, groups = args
    out_channels = w_shape[1] * groups if transposed else w_shape[0]
    arrays = [randn(*in_shape), randn(*w_shape)] + ([randn(out_channels)] if has_bias else [])

    def fn(F, x, w, b=None):
        return (ember if F is EF else torch).convolution(x, w, b, stride, padding, dilation,
                                                         transposed, out_pad, groups)
    check_same(torch, fn, *arrays, rtol=1e-9, atol=1e-10)


def test_torch_level_convolution_errors():
    _raises_like_torch(lambda F, L: L.convolution(L.zeros(3, 8), L.zeros(4, 3, 3), None, [1],
                                                  [1], [1], False, [0], 1), RuntimeError)
    _raises_like_torch(lambda F, L: L.convolution(L.zeros(2, 3, 8, 8), L.zeros(4, 3, 3, 3),
                                                  None, [1, 2, 3], [1], [1], False, [0], 1),
                       RuntimeError)


@pytest.mark.parametrize("pad", [0, 1, 2, -1])
def test_conv_tbc(pad):
    check_same(torch, lambda F, x, w, b: (ember if F is EF else torch).conv_tbc(x, w, b, pad),
               randn(7, 2, 3), randn(3, 3, 5), randn(5), rtol=1e-9, atol=1e-10)
    check_same(torch, lambda F, x, w, b: F.conv_tbc(x, w, b, pad=pad),  # F.conv_tbc too
               randn(5, 1, 2), randn(2, 2, 3), randn(3), rtol=1e-9, atol=1e-10)
    # a non-contiguous (batch-major, transposed) input; torch's conv_tbc needs it contiguous
    check_same(torch, lambda F, x, w, b: ember.conv_tbc(x.transpose(0, 1), w, b, pad)
               if F is EF else torch.conv_tbc(x.transpose(0, 1).contiguous(), w, b, pad),
               randn(2, 7, 3), randn(2, 3, 4), randn(4), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("case,exc", [
    (lambda L, i, w, b: L.conv_tbc(i[0], w, b), RuntimeError),
    (lambda L, i, w, b: L.conv_tbc(i, w[0], b), RuntimeError),
    (lambda L, i, w, b: L.conv_tbc(i, w, b[None]), RuntimeError),
    (lambda L, i, w, b: L.conv_tbc(i, w[:, :2], b), RuntimeError),
    (lambda L, i, w, b: L.conv_tbc(i, w, b[:4]), RuntimeError),
    (lambda L, i, w, b: L.conv_tbc(i, w, None), TypeError),
])
def test_conv_tbc_errors(case, exc):
    i, w, b = randn(7, 2, 3), randn(3, 3, 5), randn(5)
    _raises_like_torch(lambda F, L: case(L, L.from_numpy(i), L.from_numpy(w), L.from_numpy(b)),
                       exc, compare_message=exc is not TypeError)
    check_same(torch, lambda F, x, y, z: F.conv_tbc(x, y, z), i[:2], w, b)  # empty output
    _raises_like_torch(lambda F, L: L.conv_tbc(L.from_numpy(i[:1]), L.from_numpy(w),
                                               L.from_numpy(b)), RuntimeError)


@pytest.mark.parametrize("reduction", [0, 1, 2, 5])
def test_torch_level_losses(reduction):
    def L(F):
        return ember if F is EF else torch

    x, y = randn(4, 3), randn(4, 3)
    check_same(torch, lambda F, a, b, c: L(F).cosine_embedding_loss(a, b, c, 0.2, reduction),
               x, y, signs(4), nograd=(2,))
    check_same(torch, lambda F, a, b: L(F).hinge_embedding_loss(a, b, 0.7, reduction),
               x, signs(4, 3), nograd=(1,))
    check_same(torch, lambda F, a, b, c: L(F).margin_ranking_loss(a, b, c, 0.3, reduction),
               randn(5), randn(5), signs(5), nograd=(2,))
    check_same(torch, lambda F, a, b, c: L(F).triplet_margin_loss(a, b, c, 0.8, 1.5, 1e-6, True,
                                                                 reduction),
               x, y, randn(4, 3))
    logp = np.log(rng.dirichlet(np.ones(3), size=4))
    check_same(torch, lambda F, a, b: L(F).kl_div(a, b, reduction), logp,
               rng.dirichlet(np.ones(3), size=4))
    check_same(torch, lambda F, a, b: L(F).kl_div(a, b, reduction, log_target=True), logp,
               np.log(rng.dirichlet(np.ones(3), size=4)))
    t = rng.poisson(2.0, (4, 3)).astype(np.float64)
    check_same(torch, lambda F, a, b: L(F).poisson_nll_loss(a, b, True, True, 1e-8, reduction),
               x, t, nograd=(1,))
    check_same(torch, lambda F, a, b: L(F).poisson_nll_loss(a, b, False, False, 1e-6,
                                                            reduction),
               np.abs(x) + 0.1, t, nograd=(1,))


def test_torch_level_norms():
    def L(F):
        return ember if F is EF else torch

    x = randn(2, 3, 5)
    check_same(torch, lambda F, a, w, b: L(F).instance_norm(a, w, b, None, None, True, 0.1, 1e-5,
                                                            False),
               x, randn(3), randn(3), rtol=1e-9, atol=1e-10)
    rm_e, rv_e = ember.zeros(3, dtype=ember.float64), ember.ones(3, dtype=ember.float64)
    rm_t, rv_t = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    out_e = ember.instance_norm(ember.from_numpy(x), None, None, rm_e, rv_e, True, 0.3, 1e-5, True)
    out_t = torch.instance_norm(torch.from_numpy(x), None, None, rm_t, rv_t, True, 0.3, 1e-5, True)
    assert_same(out_e, out_t)
    assert_same(rm_e, rm_t)
    assert_same(rv_e, rv_t)
    check_same(torch, lambda F, a, w: L(F).rms_norm(a, [5], w, 1e-4), x, randn(5))
    check_same(torch, lambda F, a: L(F).rms_norm(a, (3, 5)), x)


def test_spellings_all():
    import ember._torch_functional_spellings as s
    for name in s.__all__:
        # (ember's may be wrapped to take numpy's keyword names: _numpy_arg_names.py)
        assert inspect.unwrap(getattr(ember, name)) is getattr(s, name)
        assert hasattr(torch, name), name
    for name in ("embedding_bag", "ctc_loss", "grid_sample", "affine_grid", "gumbel_softmax",
                 "multilabel_margin_loss", "triplet_margin_with_distance_loss"):
        assert name in EF.__all__ and hasattr(torch.nn.functional, name)
    for name in ("EmbeddingBag", "CTCLoss", "MultiLabelMarginLoss",
                 "TripletMarginWithDistanceLoss", "AdaptiveLogSoftmaxWithLoss", "CrossMapLRN2d"):
        assert name in nn.__all__ and getattr(nn, name) is getattr(nn.modules, name)


def test_torch_level_3d_convolutions_and_pool():
    def L(F):
        return ember if F is EF else torch

    check_same(torch, lambda F, x, w, b: L(F).conv3d(x, w, b, 1, 1, 1, 1), randn(1, 2, 4, 5, 4),
               randn(3, 2, 2, 3, 2), randn(3), rtol=1e-9, atol=1e-10)
    check_same(torch, lambda F, x, w: L(F).conv_transpose1d(x, w, None, 2, 1, 1, 1, 1),
               randn(2, 3, 6), randn(3, 2, 3), rtol=1e-9, atol=1e-10)
    check_same(torch, lambda F, x, w: L(F).conv_transpose3d(x, w, None, (2, 1, 1), 0),
               randn(1, 2, 2, 3, 2), randn(2, 3, 2, 2, 2), rtol=1e-9, atol=1e-10)
    check_same(torch, lambda F, x: L(F).max_pool3d(x, 2, [], 1, 1, True), randn(1, 2, 5, 4, 5))
    check_same(torch, lambda F, x: L(F).max_pool3d(x, (2, 1, 2)), randn(2, 1, 4, 3, 4))
