"""The nnextra layers and functionals against torch: distances, shuffles, pooling, norms,
fold / unfold, padding and upsampling modules (values, gradients, reprs), and the
statistics of the channel / alpha dropout variants."""
import numpy as np
import pytest

import ember
import ember.nn as nn

from _torch_compare import check_same, copy_state

torch = pytest.importorskip("torch")

rng = np.random.default_rng(11)


def randn(*shape):
    return rng.standard_normal(shape)


# ---- distances ------------------------------------------------------------------------

@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
def test_normalize(p):
    check_same(torch, lambda F, x: F.normalize(x, p=p), randn(4, 5))
    check_same(torch, lambda F, x: F.normalize(x, dim=-1, eps=0.5), randn(3, 2, 4))
    check_same(torch, lambda F, x: F.normalize(x, dim=0), randn(4, 3), transpose=(0,))


def test_cosine_similarity():
    check_same(torch, lambda F, a, b: F.cosine_similarity(a, b), randn(4, 5), randn(4, 5))
    check_same(torch, lambda F, a, b: F.cosine_similarity(a, b, dim=-1), randn(3, 1, 6), randn(2, 6))
    check_same(torch, lambda F, a, b: F.cosine_similarity(a, b, dim=0, eps=10.0), randn(5), randn(5))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance(p, keepdim):
    check_same(torch, lambda F, a, b: F.pairwise_distance(a, b, p=p, keepdim=keepdim), randn(4, 5),
               randn(4, 5))
    check_same(torch, lambda F, a, b: F.pairwise_distance(a, b, p=p, keepdim=keepdim), randn(5), randn(5))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
def test_pdist(p):
    check_same(torch, lambda F, a: F.pdist(a, p=p), randn(5, 3))


def test_distance_modules():
    a, b = randn(3, 4), randn(3, 4)
    for name, kw in [("CosineSimilarity", {"dim": 0}), ("PairwiseDistance", {"p": 1.0, "keepdim": True})]:
        e, t = getattr(nn, name)(**kw), getattr(torch.nn, name)(**kw)
        assert repr(e) == repr(t)
        np.testing.assert_allclose(e(ember.from_numpy(a), ember.from_numpy(b)).numpy(),
                                   t(torch.from_numpy(a), torch.from_numpy(b)).numpy(), rtol=1e-12)


# ---- shuffles -------------------------------------------------------------------------

def test_pixel_and_channel_shuffle():
    check_same(torch, lambda F, x: F.pixel_shuffle(x, 2), randn(2, 8, 3, 3))
    check_same(torch, lambda F, x: F.pixel_shuffle(x, 3), randn(9, 2, 2))  # unbatched
    check_same(torch, lambda F, x: F.pixel_unshuffle(x, 2), randn(2, 3, 4, 6))
    check_same(torch, lambda F, x: F.pixel_unshuffle(x, 2), randn(2, 2, 3, 4, 2))  # 2 batch dims
    check_same(torch, lambda F, x: F.channel_shuffle(x, 3), randn(2, 6, 2, 2), grad=False)
    for e, t in [(nn.PixelShuffle(2), torch.nn.PixelShuffle(2)),
                 (nn.PixelUnshuffle(3), torch.nn.PixelUnshuffle(3)),
                 (nn.ChannelShuffle(2), torch.nn.ChannelShuffle(2))]:
        assert repr(e) == repr(t)


# ---- pooling --------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 2, "dilation": 2, "ceil_mode": True}])
def test_max_pool1d(kw):
    check_same(torch, lambda F, x: F.max_pool1d(x, **kw), randn(2, 3, 9))
    check_same(torch, lambda F, x: F.max_pool1d(x, **kw, return_indices=True), randn(3, 9))
    e, t = nn.MaxPool1d(**kw), torch.nn.MaxPool1d(**kw)
    assert repr(e) == repr(t)


def test_avg_pool1d_and_adaptive():
    check_same(torch, lambda F, x: F.avg_pool1d(x, 3, stride=2, padding=1, count_include_pad=False),
               randn(2, 3, 8))
    check_same(torch, lambda F, x: F.adaptive_avg_pool1d(x, 3), randn(2, 3, 8))
    check_same(torch, lambda F, x: F.adaptive_max_pool1d(x, 3, return_indices=True), randn(3, 8))
    check_same(torch, lambda F, x: F.adaptive_max_pool1d(x, 4), randn(2, 3, 8))
    for size in [(3, 4), 2, (None, 3), (5, 7)]:
        check_same(torch, lambda F, x: F.adaptive_max_pool2d(x, size, return_indices=True), randn(2, 3, 7, 6))
        check_same(torch, lambda F, x: F.adaptive_max_pool2d(x, size), randn(3, 7, 6))
    for e, t in [(nn.AvgPool1d(3, 2), torch.nn.AvgPool1d(3, 2)),
                 (nn.AdaptiveAvgPool1d(3), torch.nn.AdaptiveAvgPool1d(3)),
                 (nn.AdaptiveMaxPool1d(3), torch.nn.AdaptiveMaxPool1d(3)),
                 (nn.AdaptiveMaxPool2d((2, None)), torch.nn.AdaptiveMaxPool2d((2, None))),
                 (nn.LPPool1d(2, 3), torch.nn.LPPool1d(2, 3)),
                 (nn.LPPool2d(1.5, (2, 3), stride=1), torch.nn.LPPool2d(1.5, (2, 3), stride=1))]:
        assert repr(e) == repr(t)


def test_lp_pool():
    x = np.abs(randn(2, 3, 8)) + 0.1
    check_same(torch, lambda F, x: F.lp_pool1d(x, 2.0, 3), x)
    check_same(torch, lambda F, x: F.lp_pool1d(x, 3.0, 2, stride=1, ceil_mode=True), x)
    y = np.abs(randn(2, 3, 6, 5)) + 0.1
    check_same(torch, lambda F, x: F.lp_pool2d(x, 2.0, (2, 3)), y)
    check_same(torch, lambda F, x: F.lp_pool2d(x, 1.5, 2, stride=1), y)


# ---- norms ----------------------------------------------------------------------------

def test_instance_norm_functional():
    check_same(torch, lambda F, x, w, b: F.instance_norm(x, weight=w, bias=b), randn(2, 3, 5),
               randn(3), randn(3))
    check_same(torch, lambda F, x: F.instance_norm(x, eps=1e-3), randn(2, 3, 4, 5))


@pytest.mark.parametrize("name,shape", [("InstanceNorm1d", (2, 3, 6)), ("InstanceNorm1d", (3, 6)),
                                        ("InstanceNorm2d", (2, 3, 4, 5)), ("InstanceNorm2d", (3, 4, 5))])
@pytest.mark.parametrize("affine,track", [(False, False), (True, True)])
def test_instance_norm_modules(name, shape, affine, track):
    kw = {"affine": affine, "track_running_stats": track, "momentum": 0.3}
    e, t = getattr(nn, name)(3, **kw).double(), getattr(torch.nn, name)(3, **kw).double()
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    if affine:
        with torch.no_grad():
            t.weight.normal_()
            t.bias.normal_()
    copy_state(t, e)
    for mode in ["train", "eval"]:
        getattr(e, mode)()
        getattr(t, mode)()
        x = randn(*shape)
        xe = ember.from_numpy(x.copy()).requires_grad_()
        xt = torch.from_numpy(x.copy()).requires_grad_()
        ye, yt = e(xe), t(xt)
        np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-6, atol=1e-8)
        ye.sum().backward() if False else (ye * ye).sum().backward()
        (yt * yt).sum().backward()
        np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-6, atol=1e-8)
        for k, v in t.state_dict().items():
            np.testing.assert_allclose(e.state_dict()[k].numpy(), v.numpy(), rtol=1e-6, atol=1e-8)


def test_local_response_norm():
    check_same(torch, lambda F, x: F.local_response_norm(x, 3), randn(2, 5, 4))
    check_same(torch, lambda F, x: F.local_response_norm(x, 2, alpha=0.1, beta=0.5, k=2.0), randn(2, 5, 3, 4))
    e, t = nn.LocalResponseNorm(2, alpha=0.1), torch.nn.LocalResponseNorm(2, alpha=0.1)
    assert repr(e) == repr(t)


@pytest.mark.parametrize("eps", [None, 1e-3])
def test_rms_norm(eps):
    check_same(torch, lambda F, x, w: F.rms_norm(x, (4,), w, eps), randn(2, 3, 4), randn(4))
    check_same(torch, lambda F, x: F.rms_norm(x, [3, 4], eps=eps), randn(2, 3, 4))
    x32 = randn(2, 5).astype(np.float32) * 1e-4
    check_same(torch, lambda F, x: F.rms_norm(x, [5], eps=eps), x32, rtol=1e-5, atol=1e-6)
    for kw in [{}, {"eps": 1e-6, "elementwise_affine": False}]:
        e, t = nn.RMSNorm((3, 4), **kw), torch.nn.RMSNorm((3, 4), **kw)
        assert repr(e) == repr(t)
        assert list(e.state_dict()) == list(t.state_dict())


# ---- fold / unfold --------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": (2, 3), "stride": 2, "padding": 1},
                                {"kernel_size": 2, "dilation": (2, 1), "padding": (0, 1)}])
def test_unfold_fold(kw):
    check_same(torch, lambda F, x: F.unfold(x, **kw), randn(2, 3, 6, 7))
    check_same(torch, lambda F, x: F.unfold(x, **kw), randn(3, 6, 7))  # unbatched
    cols = torch.nn.functional.unfold(torch.zeros(1, 3, 6, 7), **kw)
    check_same(torch, lambda F, x: F.fold(x, (6, 7), **kw), randn(2, *cols.shape[1:]))
    check_same(torch, lambda F, x: F.fold(x, (6, 7), **kw), randn(*cols.shape[1:]))
    e, t = nn.Unfold(**kw), torch.nn.Unfold(**kw)
    assert repr(e) == repr(t)
    e, t = nn.Fold((6, 7), **kw), torch.nn.Fold((6, 7), **kw)
    assert repr(e) == repr(t)


# ---- padding / upsampling -------------------------------------------------------------

PADS = [("ZeroPad1d", (2,), (2, 3, 5)), ("ZeroPad2d", ((1, 2, 0, 1),), (2, 3, 4, 5)),
        ("ConstantPad1d", ((1, 2), 3.5), (3, 5)), ("ConstantPad2d", (1, -1.0), (2, 3, 4, 5)),
        ("ConstantPad3d", (1, 2.0), (2, 3, 3, 4, 5)), ("ReflectionPad1d", (2,), (2, 3, 5)),
        ("ReflectionPad2d", ((1, 2, 2, 1),), (2, 3, 4, 5)), ("ReplicationPad1d", ((3, 1),), (2, 3, 5)),
        ("ReplicationPad2d", (2,), (3, 4, 5)), ("CircularPad1d", (2,), (2, 3, 5)),
        ("CircularPad2d", ((1, 0, 2, 1),), (2, 3, 4, 5))]


@pytest.mark.parametrize("name,args,shape", PADS, ids=[p[0] for p in PADS])
def test_padding_modules(name, args, shape):
    e, t = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(e) == repr(t)
    assert e.padding == t.padding
    x = randn(*shape)
    np.testing.assert_array_equal(e(ember.from_numpy(x)).numpy(), t(torch.from_numpy(x)).numpy())


def test_upsample_modules():
    x = randn(2, 3, 4, 5)
    for e, t in [(nn.Upsample(scale_factor=2), torch.nn.Upsample(scale_factor=2)),
                 (nn.Upsample(size=(5, 7), mode="bilinear"), torch.nn.Upsample(size=(5, 7), mode="bilinear")),
                 (nn.UpsamplingNearest2d(size=(6, 6)), torch.nn.UpsamplingNearest2d(size=(6, 6))),
                 (nn.UpsamplingBilinear2d(scale_factor=2), torch.nn.UpsamplingBilinear2d(scale_factor=2))]:
        assert repr(e) == repr(t)
        np.testing.assert_allclose(e(ember.from_numpy(x)).numpy(), t(torch.from_numpy(x)).numpy(), rtol=1e-6,
                                   atol=1e-9)
    with pytest.warns(UserWarning, match="deprecated"):
        out = nn.functional.upsample(ember.from_numpy(x), scale_factor=2)
    assert tuple(out.shape) == (2, 3, 8, 10)


# ---- dropout variants -----------------------------------------------------------------

@pytest.mark.parametrize("name,shape", [("Dropout1d", (40, 50, 8)), ("Dropout1d", (400, 8)),
                                        ("Dropout2d", (40, 50, 3, 3)), ("Dropout3d", (40, 50, 2, 2, 2)),
                                        ("Dropout3d", (400, 2, 2, 2))])
def test_channel_dropout(name, shape):
    m = getattr(nn, name)(p=0.3)
    assert repr(m) == repr(getattr(torch.nn, name)(p=0.3))
    x = ember.ones(*shape)
    y = m(x).numpy()
    batched = len(shape) == {"Dropout1d": 3, "Dropout2d": 4, "Dropout3d": 5}[name]
    chans = y.reshape(shape[0] * shape[1] if batched else shape[0], -1)
    # every channel is all zero or all 1 / (1 - p)
    assert np.all((chans == 0).all(1) | np.isclose(chans, 1 / 0.7).all(1))
    frac = (chans == 0).all(1).mean()
    assert 0.2 < frac < 0.4
    m.eval()
    np.testing.assert_array_equal(m(x).numpy(), x.numpy())


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout_keeps_mean_and_variance(feature):
    m = nn.FeatureAlphaDropout(0.2) if feature else nn.AlphaDropout(0.2)
    assert repr(m) == repr((torch.nn.FeatureAlphaDropout if feature else torch.nn.AlphaDropout)(0.2))
    x = ember.randn(200, 100, 10) if feature else ember.randn(200, 1000)
    y = m(x).numpy()
    assert abs(y.mean()) < 0.05 and abs(y.std() - 1) < 0.05
    if feature:  # the dropped value is the same across a whole channel
        c = y.reshape(200 * 100, 10)
        dropped = np.isclose(c, c[:, :1]).all(1)
        assert 0.15 < dropped.mean() < 0.25
    m.eval()
    np.testing.assert_array_equal(m(x).numpy(), x.numpy())
    assert nn.functional.alpha_dropout(x, 0.5).numpy().tolist() == x.numpy().tolist()  # training=False


def test_dropout_p_one_and_gradient():
    x = ember.ones(4, 3, 5, requires_grad=True)
    y = nn.functional.dropout1d(x, p=1.0)
    assert float(y.abs().sum()) == 0
    y = nn.functional.dropout2d(x.unsqueeze(-1), p=0.5)
    y.sum().backward()
    g = x.grad.numpy()
    assert set(np.unique(g).round(6)) <= {0.0, 2.0}
