"""Gradients of the convolutions and pools: gradcheck (float64 finite
differences) over their options, non-contiguous, batch-1, unbatched and empty
inputs; gradgradcheck through the backward primitives; the primitives'
argument checks; float32 gradients against torch (when installed), max pool
ties included."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

F = ember.nn.functional
rng = np.random.default_rng(11)


def leaf(*shape):
    return ember.from_numpy(rng.standard_normal(shape)).requires_grad_()


def channels_last(n, c, h, w):
    """An [n, c, h, w] leaf that is a permuted (non-contiguous) view of [n, h, w, c]."""
    t = ember.from_numpy(rng.standard_normal((n, h, w, c))).permute(0, 3, 1, 2).requires_grad_()
    assert not t.is_contiguous()
    return t


# ---- conv2d ---------------------------------------------------------------------------------

# (in_channels, out_channels, kernel, input hw, options)
CONV2D_CASES = [
    (2, 3, (3, 3), (5, 5), dict()),
    (2, 2, (3, 2), (6, 5), dict(stride=2, padding=1)),
    (2, 2, (3, 3), (7, 6), dict(stride=(3, 2), padding=(2, 0))),  # leftover input rows
    (2, 2, (2, 3), (6, 7), dict(stride=(1, 2), padding=(1, 2), dilation=(2, 1))),
    (4, 2, (3, 3), (5, 5), dict(padding=1, groups=2)),
    (3, 6, (1, 1), (4, 3), dict(groups=3)),                       # 1x1 kernel, depthwise-like
    (2, 3, (1, 1), (5, 5), dict(stride=2)),
    (2, 2, (2, 2), (5, 4), dict(padding="same")),                 # odd total padding
    (2, 2, (3, 2), (4, 5), dict(padding="same", dilation=2)),
    (2, 2, (3, 3), (5, 5), dict(padding="valid")),
]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("cin, cout, k, hw, opts", CONV2D_CASES)
def test_conv2d_gradcheck(cin, cout, k, hw, opts, bias):
    groups = opts.get("groups", 1)
    x, w = leaf(2, cin, *hw), leaf(cout, cin // groups, *k)
    b = leaf(cout) if bias else None
    inputs = (x, w, b) if bias else (x, w)
    assert gradcheck(lambda x, w, b=None: F.conv2d(x, w, b, **opts), inputs)


def test_conv2d_gradcheck_non_contiguous_batch1_and_unbatched():
    x, w = channels_last(1, 4, 5, 6), channels_last(2, 4, 3, 3)
    assert gradcheck(lambda x, w: F.conv2d(x, w, stride=2, padding=1), (x, w))
    xu = leaf(3, 5, 4).detach().transpose(1, 2).requires_grad_()  # unbatched [C, W, H] view
    assert gradcheck(lambda x, w: F.conv2d(x, w, padding=(0, 1)), (xu, leaf(2, 3, 2, 3)))


def test_conv1d_gradcheck():
    assert gradcheck(lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2),
                     (leaf(2, 3, 9), leaf(4, 3, 3), leaf(4)))
    assert gradcheck(lambda x, w: F.conv1d(x, w, padding="same"), (leaf(2, 3, 6), leaf(2, 3, 4)))


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16])
def test_reduced_precision_gradients_follow_float32(dtype):
    # distinct values k / 16, exact in both dtypes, so the max pools pick the same elements
    x64 = rng.permutation(144).reshape(2, 4, 6, 3) / 16.0
    w64, c64 = rng.standard_normal((4, 2, 3, 3)), rng.standard_normal((2, 4, 6, 3))
    grads = {}
    for dt in (ember.float32, dtype):
        x, w = (ember.from_numpy(a).to(dt).requires_grad_() for a in (x64, w64))
        pooled = F.avg_pool2d(F.max_pool2d(x, 2, 1), 2, ceil_mode=True)
        loss = (F.conv2d(x, w, padding=1, groups=2) * ember.from_numpy(c64).to(dt)).sum()
        (loss + F.adaptive_avg_pool2d(pooled, 2).sum()).backward()
        assert x.grad.dtype == dt and w.grad.dtype == dt
        grads[dt] = (x.grad.float().numpy(), w.grad.float().numpy())
    for a, b in zip(grads[ember.float32], grads[dtype]):
        np.testing.assert_allclose(b, a, rtol=0.05, atol=0.1)


def test_conv2d_empty_batch_gives_zero_weight_gradient():
    x, w, b = leaf(0, 2, 5, 5), leaf(3, 2, 3, 3), leaf(3)
    y = F.conv2d(x, w, b, padding=1)
    assert tuple(y.shape) == (0, 3, 5, 5)
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 2, 5, 5)
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((3, 2, 3, 3)))
    np.testing.assert_array_equal(b.grad.numpy(), np.zeros(3))


def test_conv2d_gradient_only_for_what_requires_it():
    x, w = ember.from_numpy(rng.standard_normal((2, 2, 5, 5))), leaf(3, 2, 3, 3)
    F.conv2d(x, w).sum().backward()
    assert x.grad is None and tuple(w.grad.shape) == (3, 2, 3, 3)


@pytest.mark.parametrize("opts", [
    dict(),
    dict(stride=2, padding=1),
    dict(dilation=(2, 1), padding=(1, 0), groups=2),
    dict(padding="same"),
])
def test_conv2d_gradgradcheck(opts):
    groups = opts.get("groups", 1)
    x, w, b = leaf(2, 2, 5, 4), leaf(2, 2 // groups, 2, 3), leaf(2)
    assert gradgradcheck(lambda x, w, b: F.conv2d(x, w, b, **opts), (x, w, b))


# ---- conv_transpose2d ------------------------------------------------------------------------

# (in_channels, out_channels per group, kernel, input hw, options)
CONV_T_CASES = [
    (2, 3, (3, 3), (3, 4), dict()),
    (2, 2, (3, 2), (3, 3), dict(stride=2, padding=1, output_padding=1)),
    (2, 2, (2, 3), (3, 2), dict(stride=(2, 3), output_padding=(1, 2), dilation=(1, 2))),
    (4, 1, (3, 3), (3, 3), dict(padding=1, groups=2)),
    (2, 2, (3, 3), (3, 3), dict(output_padding=1, dilation=2)),  # output_padding >= stride
    (3, 2, (1, 1), (3, 4), dict(groups=3)),
]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("cin, cout_g, k, hw, opts", CONV_T_CASES)
def test_conv_transpose2d_gradcheck(cin, cout_g, k, hw, opts, bias):
    groups = opts.get("groups", 1)
    x, w = leaf(2, cin, *hw), leaf(cin, cout_g, *k)
    b = leaf(cout_g * groups) if bias else None
    inputs = (x, w, b) if bias else (x, w)
    assert gradcheck(lambda x, w, b=None: F.conv_transpose2d(x, w, b, **opts), inputs)


def test_conv_transpose2d_non_contiguous_unbatched_and_empty():
    x, w = channels_last(1, 2, 3, 4), channels_last(2, 3, 2, 2)
    assert gradcheck(lambda x, w: F.conv_transpose2d(x, w, stride=2), (x, w))
    assert gradcheck(lambda x, w: F.conv_transpose2d(x, w, padding=1), (leaf(2, 3, 3), leaf(2, 2, 3, 3)))
    x, w = leaf(0, 2, 3, 3), leaf(2, 3, 3, 3)
    F.conv_transpose2d(x, w).sum().backward()
    assert tuple(x.grad.shape) == (0, 2, 3, 3)
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((2, 3, 3, 3)))


@pytest.mark.parametrize("opts", [
    dict(stride=2, padding=1, output_padding=1),
    dict(output_padding=1, dilation=2, groups=2),
])
def test_conv_transpose2d_gradgradcheck(opts):
    groups = opts.get("groups", 1)
    x, w, b = leaf(1, 2, 3, 3), leaf(2, 2 // groups, 2, 2), leaf(2)
    assert gradgradcheck(lambda x, w, b: F.conv_transpose2d(x, w, b, **opts), (x, w, b))


# ---- the conv backward primitives -------------------------------------------------------------

def test_conv_backward_primitives_gradcheck():
    """The primitives on their own (create_graph paths call them with any argument needing grad)."""
    opts = dict(stride=[2, 1], padding=[1, 0], dilation=[1, 2], groups=2)
    go, w, x = leaf(2, 4, 3, 2), leaf(4, 1, 3, 2), leaf(2, 2, 5, 4)
    assert gradcheck(lambda g, w: ember._C._conv2d_backward_input(g, w, [2, 2, 5, 4], **opts), (go, w))
    assert gradcheck(lambda g, x: ember._C._conv2d_backward_weight(g, x, [4, 1, 3, 2], **opts), (go, x))
    assert gradgradcheck(lambda g, x: ember._C._conv2d_backward_weight(g, x, [4, 1, 3, 2], **opts), (go, x))


def test_conv_backward_primitives_check_their_arguments():
    g, w, x = ember.zeros(2, 3, 3, 3), ember.zeros(3, 2, 3, 3), ember.zeros(2, 2, 5, 5)
    with pytest.raises(RuntimeError, match="conv2d_backward_input.*windows"):
        ember._C._conv2d_backward_input(g, w, [2, 2, 4, 4])
    with pytest.raises(RuntimeError, match="conv2d_backward_input.*weight of size"):
        ember._C._conv2d_backward_input(g, w, [2, 3, 5, 5])
    with pytest.raises(RuntimeError, match="conv2d_backward_weight.*grad_output"):
        ember._C._conv2d_backward_weight(ember.zeros(2, 4, 3, 3), x, [3, 2, 3, 3])
    with pytest.raises(RuntimeError, match="same dtype"):
        ember._C._conv2d_backward_weight(g, x.double(), [3, 2, 3, 3])
    with pytest.raises(RuntimeError, match="4 sizes"):
        ember._C._conv2d_backward_weight(g, x, [3, 2, 3])
    with pytest.raises(NotImplementedError):
        ember._C._conv2d_backward_input(g.long(), w.long(), [2, 2, 5, 5])


# ---- pools ------------------------------------------------------------------------------------

MAX_POOL_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), dilation=(1, 2)),
    dict(kernel_size=3, stride=2, ceil_mode=True),
    dict(kernel_size=2, stride=3, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=1, dilation=2),
]


@pytest.mark.parametrize("opts", MAX_POOL_CASES)
def test_max_pool2d_gradcheck(opts):
    x = leaf(2, 2, 7, 6)
    assert gradcheck(lambda x: F.max_pool2d(x, **opts), (x,))
    assert gradcheck(lambda x: F.max_pool2d_with_indices(x, **opts)[0], (x,))


def test_max_pool2d_non_contiguous_unbatched_and_empty():
    assert gradcheck(lambda x: F.max_pool2d(x, 3, 2, 1), (channels_last(1, 3, 6, 5),))
    assert gradcheck(lambda x: F.max_pool2d(x, 2, return_indices=True)[0], (leaf(2, 5, 4),))
    x = leaf(0, 2, 4, 4)
    F.max_pool2d(x, 2).sum().backward()
    assert tuple(x.grad.shape) == (0, 2, 4, 4)


def test_max_pool2d_overlapping_windows_add_up():
    x = ember.tensor([[[[1.0, 5.0, 2.0], [0.0, 3.0, 4.0], [6.0, 1.0, 0.0]]]], dtype=ember.float64)
    x.requires_grad_()
    F.max_pool2d(x, 2, stride=1).sum().backward()  # 5 wins twice, 4 and 6 once
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], [[0, 2, 0], [0, 0, 1], [1, 0, 0]])


AVG_POOL_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 1), ceil_mode=True),
    dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 1), ceil_mode=True, count_include_pad=False),
    dict(kernel_size=3, stride=2, padding=1, divisor_override=5),
]


@pytest.mark.parametrize("opts", AVG_POOL_CASES)
def test_avg_pool2d_gradcheck(opts):
    assert gradcheck(lambda x: F.avg_pool2d(x, **opts), (leaf(2, 2, 7, 6),))


def test_avg_pool2d_non_contiguous_unbatched_and_empty():
    assert gradcheck(lambda x: F.avg_pool2d(x, 3, 2, 1), (channels_last(1, 3, 6, 5),))
    assert gradcheck(lambda x: F.avg_pool2d(x, 2, ceil_mode=True), (leaf(2, 5, 3),))
    x = leaf(0, 2, 4, 4)
    F.avg_pool2d(x, 2).sum().backward()
    assert tuple(x.grad.shape) == (0, 2, 4, 4)


@pytest.mark.parametrize("size", [(1, 1), (3, 2), (2, 4), 5, (None, 2), (7, 9)])
def test_adaptive_avg_pool2d_gradcheck(size):
    assert gradcheck(lambda x: F.adaptive_avg_pool2d(x, size), (leaf(2, 2, 5, 7),))


def test_adaptive_avg_pool2d_non_contiguous_unbatched_and_empty():
    assert gradcheck(lambda x: F.adaptive_avg_pool2d(x, (2, 3)), (channels_last(1, 3, 5, 4),))
    assert gradcheck(lambda x: F.adaptive_avg_pool2d(x, 3), (leaf(2, 4, 5),))
    x = leaf(0, 2, 4, 4)
    F.adaptive_avg_pool2d(x, 2).sum().backward()
    assert tuple(x.grad.shape) == (0, 2, 4, 4)


@pytest.mark.parametrize("fn", [
    lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda x: F.avg_pool2d(x, 2, divisor_override=3),
    lambda x: F.max_pool2d(x, 3, 2, 1),
    lambda x: F.max_pool2d(x, 2, 1, dilation=2),
    lambda x: F.adaptive_avg_pool2d(x, (3, 2)),
    lambda x: F.max_pool2d(F.conv2d(x, x[:, :, :2, :2].transpose(0, 1).contiguous(), padding=1, groups=2), 2),
])
def test_pool_gradgradcheck(fn):
    assert gradgradcheck(fn, (leaf(1, 2, 5, 5),))


def test_pool_backward_primitives_check_their_arguments():
    g = ember.zeros(1, 2, 2, 2)
    with pytest.raises(RuntimeError, match="max_pool2d_backward.*index"):
        ember._C._max_pool2d_backward(g, ember.full((1, 2, 2, 2), 16, dtype=ember.int64), [1, 2, 4, 4])
    with pytest.raises(RuntimeError, match="int64 indices"):
        ember._C._max_pool2d_backward(g, ember.zeros(1, 2, 2, 2, dtype=ember.int32), [1, 2, 4, 4])
    with pytest.raises(RuntimeError, match="avg_pool2d_backward.*planes of 3x3"):
        ember._C._avg_pool2d_backward(g, [1, 2, 6, 6], [2])
    with pytest.raises(RuntimeError, match="leading dims"):
        ember._C._adaptive_avg_pool2d_backward(g, [2, 2, 4, 4])
    with pytest.raises(NotImplementedError):
        ember._C._avg_pool2d_backward(g.long(), [1, 2, 4, 4], [2])


def test_pool_backward_primitives_values():
    g = ember.from_numpy(np.arange(8.0).reshape(1, 2, 2, 2))
    gi = ember._C._avg_pool2d_backward(g, [1, 2, 4, 4], [2]).numpy()
    np.testing.assert_array_equal(gi, np.repeat(np.repeat(np.arange(8.0).reshape(1, 2, 2, 2), 2, 2), 2, 3) / 4)
    gi = ember._C._adaptive_avg_pool2d_backward(g.float(), [1, 2, 3, 3]).numpy()
    np.testing.assert_allclose(gi[0, 0], np.array([[0, 1, 1], [2, 6, 4], [2, 5, 3]]) / 4, rtol=1e-6)  # 2x2 windows overlap
    idx = ember.tensor([[[[0, 0], [15, 5]]]])
    gi = ember._C._max_pool2d_backward(g[:, :1], idx, [1, 1, 4, 4]).numpy()
    np.testing.assert_array_equal(gi.reshape(-1)[[0, 5, 15]], [1, 3, 2])
    assert gi.sum() == 6


# ---- against torch -------------------------------------------------------------------------------

def _torch_pair(torch, shapes, dtype=np.float32):
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    ours = [ember.from_numpy(a.copy()).requires_grad_() for a in arrays]
    theirs = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays]
    return ours, theirs


def _compare_grads(ours, theirs, out_e, out_t, rtol=1e-4, atol=1e-4):
    gout = rng.standard_normal(tuple(out_t.shape)).astype(np.float32)
    out_e.backward(ember.from_numpy(gout.copy()))
    out_t.backward(__import__("torch").from_numpy(gout.copy()))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("opts, wshape", [
    (dict(padding=1), (32, 16, 3, 3)),
    (dict(stride=2, padding=1, dilation=1), (16, 16, 3, 3)),
    (dict(padding=2, dilation=2, groups=4), (16, 4, 3, 3)),
    (dict(), (8, 16, 1, 1)),
])
def test_conv2d_float32_gradients_match_torch(opts, wshape):
    torch = pytest.importorskip("torch")
    (x, w, b), (tx, tw, tb) = _torch_pair(torch, [(8, 16, 28, 28), wshape, (wshape[0],)])
    _compare_grads((x, w, b), (tx, tw, tb), F.conv2d(x, w, b, **opts),
                   torch.nn.functional.conv2d(tx, tw, tb, **opts), rtol=1e-3, atol=1e-3)


def test_conv_transpose2d_float32_gradients_match_torch():
    torch = pytest.importorskip("torch")
    opts = dict(stride=2, padding=1, output_padding=1, groups=2)
    (x, w, b), (tx, tw, tb) = _torch_pair(torch, [(8, 16, 14, 14), (16, 8, 3, 3), (16,)])
    _compare_grads((x, w, b), (tx, tw, tb), F.conv_transpose2d(x, w, b, **opts),
                   torch.nn.functional.conv_transpose2d(tx, tw, tb, **opts), rtol=1e-3, atol=1e-3)


def test_conv2d_double_backward_matches_torch():
    torch = pytest.importorskip("torch")
    (x, w), (tx, tw) = _torch_pair(torch, [(2, 4, 9, 8), (6, 2, 3, 3)], np.float64)
    opts = dict(stride=2, padding=1, groups=2)

    def hvp(lib, fn, x, w):
        y = fn(x, w, None, **opts)
        gx, gw = lib.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        return lib.autograd.grad((gx * gx).sum() + (gw * gw).sum(), (x, w))

    ours = hvp(ember, F.conv2d, x, w)
    theirs = hvp(torch, torch.nn.functional.conv2d, tx, tw)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name, opts", [
    ("max_pool2d", dict(kernel_size=3, stride=2, padding=1)),
    ("max_pool2d", dict(kernel_size=2, stride=1, dilation=2, ceil_mode=True)),
    ("avg_pool2d", dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool2d", dict(kernel_size=2, divisor_override=3)),
    ("adaptive_avg_pool2d", dict(output_size=(5, 3))),
])
def test_pool_float32_gradients_match_torch(name, opts):
    torch = pytest.importorskip("torch")
    (x,), (tx,) = _torch_pair(torch, [(8, 16, 28, 28)])
    _compare_grads((x,), (tx,), getattr(F, name)(x, **opts),
                   getattr(torch.nn.functional, name)(tx, **opts), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("opts", [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=1, padding=1),
    dict(kernel_size=3, stride=2, dilation=2, ceil_mode=True),
])
def test_max_pool2d_ties_match_torch(opts):
    """Ties (and -inf, NaN) go where torch sends them: the first maximum of a window."""
    torch = pytest.importorskip("torch")
    a = rng.integers(0, 3, (2, 3, 9, 8)).astype(np.float32)
    a[0, 0, :3, :3] = -np.inf
    a[1, 2, 4, 4] = np.nan
    x, tx = ember.from_numpy(a.copy()).requires_grad_(), torch.from_numpy(a.copy()).requires_grad_()
    _compare_grads((x,), (tx,), F.max_pool2d(x, **opts), torch.nn.functional.max_pool2d(tx, **opts), 0, 0)
    ye, ie = F.max_pool2d(x.detach(), return_indices=True, **opts)
    yt, it = torch.nn.functional.max_pool2d(tx.detach(), return_indices=True, **opts)
    np.testing.assert_array_equal(ie.numpy(), it.numpy())
