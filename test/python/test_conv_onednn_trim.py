"""oneDNN convolutions on maps smaller than the kernel (lib/cpu/onednn_conv.cpp, trim):
the kernel taps that read only padding are cut before oneDNN sees the problem, the
weights read through strides into the full tensor and the cut taps' gradient set to
zero. Values and the three gradients against PyTorch, on the oneDNN backend forced and
on the rule, for cut and uncut kernels, stride, dilation, groups, rectangular kernels,
conv_transpose2d (oneDNN's backward-data), and a sweep of 1-d geometries."""
import itertools

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(not ember._C._onednn_conv_available(), reason="oneDNN 2.x not installed")


@pytest.fixture(params=["onednn", "auto"])
def backend(request):
    before = ember._C._get_conv_backend()
    ember._C._set_conv_backend(request.param)
    yield request.param
    ember._C._set_conv_backend(before)


def check_conv2d(x, w, b, rtol=1e-4, atol=1e-4, **kw):
    ex, ew = ember.tensor(x, requires_grad=True), ember.tensor(w, requires_grad=True)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    eb = ember.tensor(b, requires_grad=True) if b is not None else None
    tb = torch.tensor(b, requires_grad=True) if b is not None else None
    ey, ty = ember.nn.functional.conv2d(ex, ew, eb, **kw), torch.nn.functional.conv2d(tx, tw, tb, **kw)
    assert tuple(ey.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=atol)
    g = np.random.default_rng(5).standard_normal(tuple(ty.shape)).astype(np.float32)
    (ey * ember.tensor(g)).sum().backward()
    (ty * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=rtol, atol=atol)
    np.testing.assert_allclose(ew.grad.numpy(), tw.grad.numpy(), rtol=rtol, atol=atol)
    if b is not None:
        np.testing.assert_allclose(eb.grad.numpy(), tb.grad.numpy(), rtol=rtol, atol=atol)
    return ew.grad.numpy()


# (n, c, h, w, out, kh, kw, stride, padding, dilation, groups)
CASES = [
    (4, 32, 1, 1, 48, 3, 3, 1, 1, 1, 1),          # ResNet-18's last stage: the centre tap only
    (4, 32, 2, 2, 48, 3, 3, 2, 1, 1, 1),          # 2x2 -> 1x1 stride 2: taps 1..2 of each row
    (3, 16, 2, 2, 16, 3, 3, 1, 1, 1, 1),          # 2x2 map, 3x3 kernel: every tap live
    (2, 16, 1, 5, 24, 3, 3, 1, 1, 1, 1),          # cut in height only
    (2, 16, 1, 1, 16, 5, 5, 1, 2, 1, 1),          # the centre of a 5x5
    (2, 16, 2, 2, 16, 3, 3, 1, 2, 2, 1),          # dilation 2: the centre only
    (2, 16, 1, 1, 32, 3, 3, 1, 1, 1, 4),          # groups
    (2, 16, 1, 1, 16, 3, 3, 1, 1, 1, 16),         # depthwise
    (2, 16, 2, 3, 16, 3, 5, (2, 1), (1, 2), 1, 1),  # rectangular
    (2, 16, 3, 3, 16, 5, 5, 1, 1, 1, 1),          # 5x5 at padding 1 on 3x3: both outer taps cut
    (2, 16, 1, 1, 16, 3, 3, 1, 3, 1, 1),          # padding wider than the kernel: every tap live
    (64, 64, 1, 1, 64, 3, 3, 1, 1, 1, 1),         # enough work for the rule to pick oneDNN
    (64, 64, 2, 2, 128, 3, 3, 2, 1, 1, 1),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
@pytest.mark.parametrize("bias", [True, False])
def test_small_map_conv2d(backend, case, bias):
    n, c, h, w, o, kh, kw, s, p, d, g = case
    rng = np.random.default_rng(hash(case) % 2**32)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((o, c // g, kh, kw)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32) if bias else None
    check_conv2d(x, wt, b, rtol=2e-4, atol=2e-4, stride=s, padding=p, dilation=d, groups=g)


def test_cut_taps_get_zero_gradient(backend):
    # A weight gradient buffer that held values before must come back zero at the cut taps.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 32, 1, 1)).astype(np.float32)
    w = rng.standard_normal((32, 32, 3, 3)).astype(np.float32)
    for _ in range(3):  # the allocator reuses freed blocks: stale values would show
        gw = check_conv2d(x, w, None, padding=1)
        assert np.all(gw[:, :, [0, 0, 0, 1, 1, 2, 2, 2], [0, 1, 2, 0, 2, 0, 1, 2]] == 0)
        assert np.any(gw[:, :, 1, 1] != 0)


def test_noncontiguous_weight(backend):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 16, 1, 1)).astype(np.float32)
    w_big = rng.standard_normal((16, 32, 3, 3)).astype(np.float32)
    ew = ember.tensor(w_big)[:, ::2]  # a strided view: the kernel copies it first
    ey = ember.nn.functional.conv2d(ember.tensor(x), ew, padding=1)
    ty = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w_big)[:, ::2], padding=1)
    np.testing.assert_allclose(ey.numpy(), ty.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", [(2, 16, 1, 1, 8, 3, 1, 1, 0), (2, 16, 1, 1, 8, 3, 2, 1, 1),
                                  (2, 8, 2, 2, 8, 5, 1, 2, 0)])
def test_conv_transpose2d_small(backend, case):
    # conv_transpose2d runs as oneDNN's backward-data of the conv2d from its output to its input.
    n, c, h, w, o, k, s, p, op = case
    rng = np.random.default_rng(6)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((c, o, k, k)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    kw = dict(stride=s, padding=p, output_padding=op)
    ey = ember.nn.functional.conv_transpose2d(ember.tensor(x), ember.tensor(wt), ember.tensor(b), **kw)
    ty = torch.nn.functional.conv_transpose2d(torch.tensor(x), torch.tensor(wt), torch.tensor(b), **kw)
    np.testing.assert_allclose(ey.numpy(), ty.numpy(), rtol=1e-4, atol=1e-4)


def test_sweep_1d_geometries():
    # Every small (size, kernel, stride, padding, dilation) in the height dimension on the
    # oneDNN backend: the cut (or not) must give torch's values and gradients.
    before = ember._C._get_conv_backend()
    ember._C._set_conv_backend("onednn")
    rng = np.random.default_rng(9)
    try:
        tried = 0
        for h, k, s, p, d in itertools.product(range(1, 5), (1, 2, 3, 5), (1, 2, 3), range(0, 4), (1, 2)):
            if h + 2 * p - d * (k - 1) - 1 < 0 or p > 2 * k:
                continue
            x = rng.standard_normal((2, 16, h, 2)).astype(np.float32)
            w = rng.standard_normal((16, 16, k, 1)).astype(np.float32)
            check_conv2d(x, w, None, stride=(s, 1), padding=(p, 0), dilation=(d, 1))
            tried += 1
        assert tried > 100
    finally:
        ember._C._set_conv_backend(before)
