"""The CPU convolutions on both backends (lib/cpu/onednn_conv.cpp): im2col + sgemm
and oneDNN's primitives, each forced (and the measured rule, "auto") with ember._C._set_conv_backend (and once with
EMBER_CONV_BACKEND in a subprocess), against PyTorch: values and gradients of
conv1d/2d/3d and the transposed convolutions, odd sizes, stride, padding, dilation,
groups, depthwise, batch 1, non-contiguous inputs, float32, float64 (always im2col:
oneDNN has no float64 convolution) and bfloat16; float64 finite-difference
gradchecks; and that a training loop builds each primitive once."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

BACKENDS = ["im2col", "onednn"]
needs_onednn = pytest.mark.skipif(not ember._C._onednn_conv_available(), reason="oneDNN 2.x not installed")


@pytest.fixture(params=BACKENDS + ["auto"])
def backend(request):
    if request.param == "onednn" and not ember._C._onednn_conv_available():
        pytest.skip("oneDNN 2.x not installed")
    before = ember._C._get_conv_backend()
    ember._C._set_conv_backend(request.param)
    yield request.param
    ember._C._set_conv_backend(before)


def rand(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def run_both(ember_fn, torch_fn, arrays, grad_seed=1, dtype_e=None, dtype_t=None):
    """Output and gradients (of sum(y * g), g random) of ember_fn and torch_fn on arrays."""
    et = [ember.tensor(a, requires_grad=True) if a is not None else None for a in arrays]
    tt = [torch.tensor(a, requires_grad=True) if a is not None else None for a in arrays]
    if dtype_e is not None:
        et = [t.to(dtype_e).detach().requires_grad_() if t is not None else None for t in et]
        tt = [t.to(dtype_t).detach().requires_grad_() if t is not None else None for t in tt]
    ey, ty = ember_fn(*et), torch_fn(*tt)
    g = np.random.default_rng(grad_seed).standard_normal(tuple(ty.shape)).astype(np.float32)
    (ey * ember.tensor(g).to(ey.dtype)).sum().backward()
    (ty * torch.tensor(g).to(ty.dtype)).sum().backward()
    return ey, ty, et, tt


def assert_matches(ey, ty, et, tt, rtol=1e-4, atol=1e-4):
    assert tuple(ey.shape) == tuple(ty.shape)
    assert str(ey.dtype).split(".")[-1] == str(ty.dtype).split(".")[-1]
    np.testing.assert_allclose(ey.detach().float().numpy(), ty.detach().float().numpy(), rtol=rtol, atol=atol)
    for e, t in zip(et, tt):
        if e is None:
            continue
        np.testing.assert_allclose(e.grad.float().numpy(), t.grad.float().numpy(), rtol=rtol, atol=atol)


# (n, c, h, w, out, kh, kw, stride, padding, dilation, groups, bias)
CONV2D_CASES = [
    (2, 3, 9, 7, 5, 3, 3, 1, 1, 1, 1, True),
    (1, 4, 11, 13, 6, 3, 3, 2, 1, 2, 2, True),      # batch 1, stride, dilation, groups
    (3, 8, 10, 10, 8, 3, 3, 1, 1, 1, 8, True),      # depthwise
    (2, 8, 9, 9, 16, 3, 3, 2, 0, 1, 8, False),      # depthwise with a channel multiplier
    (2, 16, 14, 14, 32, 1, 1, 1, 0, 1, 1, True),    # pointwise
    (2, 4, 5, 5, 4, 5, 5, 3, 0, 1, 1, False),       # stride leaves rows unused
    (2, 3, 17, 15, 7, 7, 5, (2, 3), (3, 1), 1, 1, True),  # rectangular everything
    (4, 6, 6, 6, 12, 3, 3, 1, 2, (2, 1), 3, True),
    (1, 1, 8, 8, 16, 3, 3, 1, 1, 1, 1, True),       # the digits CNN's first layer
    (5, 16, 4, 4, 32, 3, 3, 1, 1, 1, 1, True),
    (2, 32, 3, 3, 64, 3, 3, 1, 1, 1, 1, True),      # tiny maps, more channels
]


@pytest.mark.parametrize("case", CONV2D_CASES, ids=lambda c: "-".join(map(str, c)))
def test_conv2d_values_and_grads(backend, case):
    n, c, h, w, o, kh, kw, s, p, d, g, has_bias = case
    rng = np.random.default_rng(hash(case) % 2**32)
    arrays = [rand(rng, n, c, h, w), rand(rng, o, c // g, kh, kw), rand(rng, o) if has_bias else None]
    kw_args = dict(stride=s, padding=p, dilation=d, groups=g)
    res = run_both(lambda x, wt, b: ember.nn.functional.conv2d(x, wt, b, **kw_args),
                   lambda x, wt, b: torch.nn.functional.conv2d(x, wt, b, **kw_args), arrays)
    assert_matches(*res)


@pytest.mark.parametrize("case", [(2, 5, 17, 7, 3, 1, 1, 1, 1), (1, 4, 30, 8, 5, 3, 2, 2, 2),
                                  (3, 6, 12, 6, 3, 2, 0, 1, 6)])
def test_conv1d(backend, case):
    n, c, l, o, k, s, p, d, g = case
    rng = np.random.default_rng(7)
    arrays = [rand(rng, n, c, l), rand(rng, o, c // g, k), rand(rng, o)]
    kw_args = dict(stride=s, padding=p, dilation=d, groups=g)
    res = run_both(lambda x, wt, b: ember.nn.functional.conv1d(x, wt, b, **kw_args),
                   lambda x, wt, b: torch.nn.functional.conv1d(x, wt, b, **kw_args), arrays)
    assert_matches(*res)


@pytest.mark.parametrize("case", [(2, 3, 5, 6, 7, 4, 3, 1, 1, 1, 1), (1, 4, 6, 5, 5, 4, 3, 2, 1, 1, 2),
                                  (2, 4, 5, 5, 5, 4, 2, 1, 0, 2, 4)])
def test_conv3d(backend, case):
    n, c, dd, h, w, o, k, s, p, dil, g = case
    rng = np.random.default_rng(11)
    arrays = [rand(rng, n, c, dd, h, w), rand(rng, o, c // g, k, k, k), rand(rng, o)]
    kw_args = dict(stride=s, padding=p, dilation=dil, groups=g)
    res = run_both(lambda x, wt, b: ember.nn.functional.conv3d(x, wt, b, **kw_args),
                   lambda x, wt, b: torch.nn.functional.conv3d(x, wt, b, **kw_args), arrays)
    assert_matches(*res)


# (n, c_in, h, w, out_per_group, k, stride, padding, output_padding, groups, dilation, bias)
TRANSPOSED_CASES = [
    (2, 6, 8, 9, 2, 3, 2, 1, 1, 2, 1, True),
    (1, 4, 5, 5, 3, 3, 1, 0, 0, 1, 1, False),
    (2, 3, 4, 6, 5, 4, 3, 1, 2, 1, 1, True),
    (2, 4, 5, 4, 2, 3, 1, 2, 0, 4, 2, True),    # depthwise, dilation
    (2, 2, 5, 5, 3, 3, 1, 0, 1, 1, 2, True),    # output_padding >= stride (dilation 2)
]


@pytest.mark.parametrize("case", TRANSPOSED_CASES, ids=lambda c: "-".join(map(str, c)))
def test_conv_transpose2d(backend, case):
    n, c, h, w, opg, k, s, p, op, g, d, has_bias = case
    rng = np.random.default_rng(3)
    arrays = [rand(rng, n, c, h, w), rand(rng, c, opg, k, k), rand(rng, opg * g) if has_bias else None]
    kw_args = dict(stride=s, padding=p, output_padding=op, groups=g, dilation=d)
    res = run_both(lambda x, wt, b: ember.nn.functional.conv_transpose2d(x, wt, b, **kw_args),
                   lambda x, wt, b: torch.nn.functional.conv_transpose2d(x, wt, b, **kw_args), arrays)
    assert_matches(*res)


def test_conv_transpose1d(backend):
    rng = np.random.default_rng(5)
    arrays = [rand(rng, 2, 4, 9), rand(rng, 4, 3, 3), rand(rng, 3)]
    res = run_both(lambda x, wt, b: ember.nn.functional.conv_transpose1d(x, wt, b, stride=2, padding=1),
                   lambda x, wt, b: torch.nn.functional.conv_transpose1d(x, wt, b, stride=2, padding=1), arrays)
    assert_matches(*res)


def test_noncontiguous_inputs(backend):
    rng = np.random.default_rng(9)
    x = rand(rng, 3, 9, 10, 6)          # used as x.permute(0, 1, 3, 2)[:, ::2]
    wt = rand(rng, 5, 4, 3, 3)          # used as wt.transpose(0, 1): [4, 5, 3, 3]
    ex, tx = ember.tensor(x), torch.tensor(x)
    ew, tw = ember.tensor(wt), torch.tensor(wt)
    exs, txs = ex.permute(0, 1, 3, 2)[:, ::2], tx.permute(0, 1, 3, 2)[:, ::2]
    ews, tws = ew.transpose(0, 1), tw.transpose(0, 1)
    assert not exs.is_contiguous() and not ews.is_contiguous()
    ey = ember.nn.functional.conv2d(exs, ews, padding=1)
    ty = torch.nn.functional.conv2d(txs, tws, padding=1)
    np.testing.assert_allclose(ey.numpy(), ty.numpy(), rtol=1e-4, atol=1e-4)
    # and a non-contiguous output of the backward (grad_output from a transposed view)
    res = run_both(lambda x, w: ember.nn.functional.conv2d(x.transpose(2, 3), w, padding=1),
                   lambda x, w: torch.nn.functional.conv2d(x.transpose(2, 3), w, padding=1),
                   [rand(rng, 2, 4, 7, 5), rand(rng, 6, 4, 3, 3)])
    assert_matches(*res)


def test_float64_stays_on_im2col(backend):
    """oneDNN has no float64 convolution: float64 runs im2col (no primitive built) and matches torch."""
    rng = np.random.default_rng(13)
    before = ember._C._onednn_conv_primitives_created()
    arrays = [rand(rng, 2, 3, 7, 8, dtype=np.float64), rand(rng, 5, 3, 3, 3, dtype=np.float64),
              rand(rng, 5, dtype=np.float64)]
    res = run_both(lambda x, w, b: ember.nn.functional.conv2d(x, w, b, stride=2, padding=1),
                   lambda x, w, b: torch.nn.functional.conv2d(x, w, b, stride=2, padding=1), arrays)
    assert_matches(*res, rtol=1e-12, atol=1e-12)
    assert ember._C._onednn_conv_primitives_created() == before


def test_bfloat16(backend):
    rng = np.random.default_rng(17)
    arrays = [rand(rng, 2, 4, 6, 6), rand(rng, 8, 4, 3, 3), rand(rng, 8)]
    res = run_both(lambda x, w, b: ember.nn.functional.conv2d(x, w, b, padding=1),
                   lambda x, w, b: torch.nn.functional.conv2d(x, w, b, padding=1), arrays,
                   dtype_e=ember.bfloat16, dtype_t=torch.bfloat16)
    assert_matches(*res, rtol=2e-2, atol=0.15)


def test_empty_batch(backend):
    x = ember.zeros(0, 3, 5, 5, requires_grad=True)
    w = ember.randn(4, 3, 3, 3, requires_grad=True)
    y = ember.nn.functional.conv2d(x, w, padding=1)
    assert tuple(y.shape) == (0, 4, 5, 5)
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 3, 5, 5)
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((4, 3, 3, 3), np.float32))


def test_gradcheck_float64(backend):
    rng = np.random.default_rng(19)
    x = ember.tensor(rand(rng, 2, 4, 5, 6, dtype=np.float64), requires_grad=True)
    w = ember.tensor(rand(rng, 6, 2, 3, 2, dtype=np.float64), requires_grad=True)
    b = ember.tensor(rand(rng, 6, dtype=np.float64), requires_grad=True)
    f = lambda x, w, b: ember.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2)
    assert ember.autograd.gradcheck(f, (x, w, b))
    ft = lambda x, w, b: ember.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)
    wt = ember.tensor(rand(rng, 4, 3, 3, 3, dtype=np.float64), requires_grad=True)
    bt = ember.tensor(rand(rng, 3, dtype=np.float64), requires_grad=True)
    assert ember.autograd.gradcheck(ft, (x, wt, bt))


def test_float32_gradients_against_float64_finite_differences(backend):
    """The float32 kernels (oneDNN's when forced) against central differences in float64."""
    rng = np.random.default_rng(23)
    x64, w64 = rand(rng, 2, 3, 6, 5, dtype=np.float64), rand(rng, 4, 3, 3, 3, dtype=np.float64)
    g = rand(rng, 2, 4, 3, 3, dtype=np.float64)
    kw_args = dict(stride=2, padding=1)
    x = ember.tensor(x64.astype(np.float32), requires_grad=True)
    w = ember.tensor(w64.astype(np.float32), requires_grad=True)
    (ember.nn.functional.conv2d(x, w, **kw_args) * ember.tensor(g.astype(np.float32))).sum().backward()

    def loss(xa, wa):
        with ember.no_grad():
            return float((ember.nn.functional.conv2d(ember.tensor(xa), ember.tensor(wa), **kw_args)
                          * ember.tensor(g)).sum())
    eps = 1e-6
    for arr, grad, which in ((x64, x.grad.numpy(), 0), (w64, w.grad.numpy(), 1)):
        fd = np.zeros_like(arr)
        for i in np.ndindex(arr.shape):
            plus, minus = arr.copy(), arr.copy()
            plus[i] += eps
            minus[i] -= eps
            args_p = (plus, w64) if which == 0 else (x64, plus)
            args_m = (minus, w64) if which == 0 else (x64, minus)
            fd[i] = (loss(*args_p) - loss(*args_m)) / (2 * eps)
        np.testing.assert_allclose(grad, fd, rtol=1e-4, atol=1e-4)


@needs_onednn
def test_training_loop_builds_each_primitive_once():
    before_backend = ember._C._get_conv_backend()
    ember._C._set_conv_backend("onednn")
    try:
        ember.manual_seed(0)
        model = ember.nn.Sequential(ember.nn.Conv2d(3, 8, 3, padding=1), ember.nn.ReLU(),
                                    ember.nn.Conv2d(8, 8, 3, stride=2, groups=2))
        x = ember.randn(4, 3, 11, 11)
        start = ember._C._onednn_conv_primitives_created()
        counts = []
        for _ in range(4):
            model.zero_grad()
            model(x).sum().backward()
            counts.append(ember._C._onednn_conv_primitives_created())
        # two forwards, one backward-data (the first layer's input needs no gradient),
        # two backward-weights, all built in the first step
        assert counts == [start + 5] * 4
    finally:
        ember._C._set_conv_backend(before_backend)


@needs_onednn
def test_thread_count_change_gives_same_values():
    before_backend, threads = ember._C._get_conv_backend(), ember.get_num_threads()
    ember._C._set_conv_backend("onednn")
    try:
        x, w = ember.randn(4, 8, 12, 12), ember.randn(16, 8, 3, 3)
        y_many = ember.nn.functional.conv2d(x, w, padding=1)
        ember.set_num_threads(1)
        y_one = ember.nn.functional.conv2d(x, w, padding=1)
        np.testing.assert_allclose(y_one.numpy(), y_many.numpy(), rtol=1e-5, atol=1e-5)
    finally:
        ember.set_num_threads(threads)
        ember._C._set_conv_backend(before_backend)


def test_backend_switch_rejects_unknown_names():
    before = ember._C._get_conv_backend()
    with pytest.raises(ValueError, match="set_conv_backend"):
        ember._C._set_conv_backend("cudnn")
    assert ember._C._get_conv_backend() == before
    for name in ("im2col", "onednn", "auto"):
        ember._C._set_conv_backend(name)
        assert ember._C._get_conv_backend() == name
    ember._C._set_conv_backend(before)


@pytest.mark.parametrize("name", BACKENDS)
def test_environment_variable_forces_backend(name):
    code = ("import ember, numpy as np\n"
            "print(ember._C._get_conv_backend())\n"
            "y = ember.nn.functional.conv2d(ember.ones(2, 3, 6, 6), ember.ones(4, 3, 3, 3), padding=1)\n"
            "print(float(y.sum()), ember._C._onednn_conv_primitives_created())\n")
    env = dict(os.environ, EMBER_CONV_BACKEND=name)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.path.dirname(os.path.dirname(ember.__file__)),
                                                     env.get("PYTHONPATH", "")] if p)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert lines[0] == name
    total, created = lines[1].split()
    ref = torch.nn.functional.conv2d(torch.ones(2, 3, 6, 6), torch.ones(4, 3, 3, 3), padding=1).sum()
    assert float(total) == pytest.approx(float(ref))
    if name == "im2col" or not ember._C._onednn_conv_available():
        assert int(created) == 0
    else:
        assert int(created) == 1
