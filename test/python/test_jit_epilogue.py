"""Issue 17's batch-1 latency work (docs/jit.md, "The deployment runtime"): a relu after
addmm / mm / conv2d runs as that node's epilogue in the runtime, freeze folds eval-mode
batch norm into the convolution before it, and max_pool2d has a path for 2x2 windows of
stride 2. Each must give eager's results: the epilogue and the pool path bit for bit,
the folded batch norm up to float rounding (torch.jit.freeze folds it the same way)."""
import numpy as np
import pytest

import ember
import ember.nn as nn

torch = pytest.importorskip("torch")

_jit = ember._C._jit


def _cnn(bn_eval=True):
    ember.manual_seed(1)
    m = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 2 * 2, 10), nn.ReLU())
    with ember.no_grad():
        for mod in m.modules():
            if isinstance(mod, nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.5, 0.5)
                mod.running_var.uniform_(0.5, 2.0)
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.uniform_(-0.5, 0.5)
    return m.eval() if bn_eval else m


def _mlp():
    ember.manual_seed(0)
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(),
                         nn.Linear(16, 10)).eval()


def _ops(traced):
    return [n.op for n in traced.graph.nodes()]


@pytest.mark.parametrize("make", [_mlp, _cnn])
@pytest.mark.parametrize("batch", [1, 5])
def test_relu_epilogue_is_bit_for_bit_eager(make, batch):
    model = make()
    x = ember.randn(batch, 1, 8, 8)
    with ember.no_grad():
        traced = ember.jit.trace(model, x)
        want = model(x).numpy()
        assert "relu" in _ops(traced)  # the graph keeps its relu nodes
        for fusion in (True, False):
            _jit._set_fusion(fusion)
            try:
                for _ in range(3):  # the first run plans memory, later ones replay it
                    np.testing.assert_array_equal(traced(x).numpy(), want)
            finally:
                _jit._set_fusion(True)


def test_relu_epilogue_runs_instead_of_the_relu_node():
    # The tests above would pass with no epilogue at all; this one sees it run: the
    # profiler records no relu op when the products apply it, and both relus as ops when
    # the switch (shared with fusion) turns it off.
    from ember.profiler import profile

    model = _mlp()
    x = ember.randn(5, 1, 8, 8)
    counts = {}
    with ember.no_grad():
        traced = ember.jit.trace(model, x)
        for fusion in (True, False):
            _jit._set_fusion(fusion)
            try:
                traced(x)  # plans
                with profile() as prof:
                    traced(x)
            finally:
                _jit._set_fusion(True)
            counts[fusion] = {a.key: a.count for a in prof.key_averages()}
    assert counts[True].get("relu", 0) == 0 and counts[True]["addmm"] == 3
    assert counts[False]["relu"] == 2


def test_relu_epilogue_keeps_nan_and_signed_zero():
    w = ember.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])

    def fn(x):
        return ember.relu(ember.mm(x, w))

    x = ember.tensor([[float("nan"), -0.0, -3.0, 2.5]])
    with ember.no_grad():
        traced = ember.jit.trace(fn, x)
        got, want = traced(x).numpy(), fn(x).numpy()
    assert np.isnan(got[0, 0]) and np.isnan(want[0, 0])
    np.testing.assert_array_equal(np.signbit(got[0, 1:]), np.signbit(want[0, 1:]))
    np.testing.assert_array_equal(got[0, 1:], want[0, 1:])


def test_relu_epilogue_leaves_shared_and_returned_values_alone():
    lin = nn.Linear(4, 4)

    def fn(x):
        y = lin(x)              # read by relu and returned: relu must not write into it
        z = ember.mm(x, x.t())  # read by relu and by the add
        return y, ember.relu(y), ember.relu(z) + z

    x = ember.randn(4, 4)
    with ember.no_grad():
        traced = ember.jit.trace(fn, x)
        for got, want in zip(traced(x), fn(x)):
            np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_relu_epilogue_off_under_autograd():
    model = _mlp()
    x = ember.randn(3, 1, 8, 8)
    traced = ember.jit.trace(model, x)
    out = traced(x)  # gradients on: the relu nodes run as nodes, with their history
    assert out.requires_grad
    out.sum().backward()
    traced_grads = [p.grad.numpy().copy() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    for got, want in zip(traced_grads, (p.grad.numpy() for p in model.parameters())):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_freeze_folds_batch_norm_into_the_convolution(tmp_path):
    model = _cnn()
    x = ember.randn(3, 1, 8, 8)
    with ember.no_grad():
        traced = ember.jit.trace(model, x)
        frozen = ember.jit.freeze(traced)
        assert "batch_norm" in _ops(traced) and "batch_norm" not in _ops(frozen)
        assert _ops(frozen).count("conv2d") == 2
        want = model(x).numpy()
        np.testing.assert_allclose(frozen(x).numpy(), want, rtol=1e-5, atol=1e-5)
        frozen.save(tmp_path / "f.ember")
        np.testing.assert_array_equal(ember.jit.load(tmp_path / "f.ember")(x).numpy(),
                                      frozen(x).numpy())
        # torch's frozen TorchScript agrees (same weights).
        tmodel = torch.nn.Sequential(
            torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.BatchNorm2d(16),
            torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(64, 10),
            torch.nn.ReLU()).eval()
        tmodel.load_state_dict({k: torch.from_numpy(v.numpy().copy())
                                for k, v in model.state_dict().items()})
        tx = torch.from_numpy(x.numpy().copy())
        ts = torch.jit.freeze(torch.jit.trace(tmodel, tx))
        np.testing.assert_allclose(frozen(x).numpy(), ts(tx).numpy(), rtol=1e-5, atol=1e-5)


def test_freeze_keeps_batch_norm_it_cannot_fold():
    x = ember.randn(3, 2, 6, 6)
    conv, bn = nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4)
    with ember.no_grad():
        bn.running_var.uniform_(0.5, 2.0)
    bn.eval()

    def shared(x):  # the convolution's output is read twice
        y = conv(x)
        return bn(y) + y

    def no_conv(x):
        return bn(x.repeat(1, 2, 1, 1))

    with ember.no_grad():
        for fn in (shared, no_conv):
            frozen = ember.jit.freeze(ember.jit.trace(fn, x))
            assert "batch_norm" in _ops(frozen)
            np.testing.assert_allclose(frozen(x).numpy(), fn(x).numpy(), rtol=1e-6, atol=1e-6)
    # Training mode updates the statistics: never folded.
    train = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4)).train()
    tb = ember.jit.trace(train, x, check_trace=False)
    tb.training = False
    assert "batch_norm" in _ops(ember.jit.freeze(tb))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 32, 8, 8), (2, 3, 5, 7), (1, 1, 2, 2), (3, 4, 9, 4)])
def test_max_pool_2x2_matches_torch(dtype, shape):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape).astype(dtype)
    a.flat[::7] = 0.0
    a.flat[1::11] = -0.0
    a.flat[3::13] = np.nan
    a.flat[5::17] = -np.inf
    a[..., 0, 1] = a[..., 0, 0]  # ties
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    for ceil_mode in (False, True):
        got = ember.nn.functional.max_pool2d(e, 2, ceil_mode=ceil_mode).numpy()
        want = torch.nn.functional.max_pool2d(t, 2, ceil_mode=ceil_mode).numpy()
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    # Non-contiguous input, and the with-indices form (the other path) agree.
    ne = ember.from_numpy(a.copy()).transpose(2, 3)
    nt = torch.from_numpy(a.copy()).transpose(2, 3)
    np.testing.assert_array_equal(ember.nn.functional.max_pool2d(ne, 2).numpy(),
                                  torch.nn.functional.max_pool2d(nt, 2).numpy())
    v, i = ember.nn.functional.max_pool2d(e, 2, return_indices=True)
    tv, ti = torch.nn.functional.max_pool2d(t, 2, return_indices=True)
    np.testing.assert_array_equal(v.numpy(), tv.numpy())


def test_max_pool_2x2_integers_and_gradient():
    a = np.arange(2 * 3 * 6 * 6, dtype=np.int32).reshape(2, 3, 6, 6) % 17
    got = ember.nn.functional.max_pool2d(ember.from_numpy(a.copy()), 2).numpy()
    want = torch.nn.functional.max_pool2d(torch.from_numpy(a.copy()).float(), 2).numpy()
    np.testing.assert_array_equal(got, want.astype(np.int32))
    x = ember.randn(2, 3, 6, 6, requires_grad=True)
    tx = torch.from_numpy(x.detach().numpy().copy()).requires_grad_()
    ember.nn.functional.max_pool2d(x, 2).sum().backward()
    torch.nn.functional.max_pool2d(tx, 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,kernel,pad,groups", [
    ((1, 32, 4, 4), 3, 1, 1), ((3, 6, 5, 7), 3, 1, 2), ((2, 4, 6, 3), 5, 2, 1),
    ((2, 3, 8, 8), 1, 0, 1), ((1, 2, 28, 28), 3, 1, 1), ((4, 1, 8, 8), 3, 1, 1)])
def test_small_map_convolution_matches_torch(dtype, shape, kernel, pad, groups):
    """im2col's copy through a padded plane (maps up to 1024 values with their padding):
    forward and both gradients against torch."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal((6, shape[1] // groups, kernel, kernel)).astype(dtype)
    b = rng.standard_normal(6).astype(dtype)
    ex, ew, eb = (ember.from_numpy(a.copy()).requires_grad_() for a in (x, w, b))
    tx, tw, tb = (torch.from_numpy(a.copy()).requires_grad_() for a in (x, w, b))
    got = ember.nn.functional.conv2d(ex, ew, eb, padding=pad, groups=groups)
    want = torch.nn.functional.conv2d(tx, tw, tb, padding=pad, groups=groups)
    tol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=tol, atol=tol)
    g = rng.standard_normal(tuple(want.shape)).astype(dtype)
    got.backward(ember.from_numpy(g.copy()))
    want.backward(torch.from_numpy(g.copy()))
    for e, t in ((ex, tx), (ew, tw), (eb, tb)):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


def test_relu_epilogue_with_an_unused_relu():
    """Without the passes, a relu nobody reads stays in the graph: its output is released
    as soon as the epilogue made it, and the run must not run the relu again."""
    w = ember.randn(4, 3)

    def fn(x):
        y = ember.mm(x, w)
        ember.relu(y)  # unused
        return ember.relu(ember.mm(x, w)) * 2.0

    x = ember.randn(5, 4)
    with ember.no_grad():
        traced = ember.jit.trace(fn, x, optimize=False)
        assert [n.op for n in traced.graph.nodes()].count("relu") == 2
        for _ in range(3):
            np.testing.assert_array_equal(traced(x).numpy(), fn(x).numpy())


@pytest.mark.parametrize("affine", [True, False])
def test_freeze_folds_batch_norm_after_a_convolution_without_bias(affine):
    """ResNet's form: conv2d(bias=False) then batch norm (with and without its affine
    parameters), grouped; the folded convolution gets a bias of its own."""
    ember.manual_seed(3)
    model = nn.Sequential(nn.Conv2d(4, 6, 3, padding=1, bias=False, groups=2),
                          nn.BatchNorm2d(6, affine=affine), nn.ReLU())
    with ember.no_grad():
        model[1].running_mean.uniform_(-0.5, 0.5)
        model[1].running_var.uniform_(0.5, 2.0)
    model.eval()
    x = ember.randn(2, 4, 5, 5)
    with ember.no_grad():
        frozen = ember.jit.freeze(ember.jit.trace(model, x))
        assert _ops(frozen) == ["conv2d", "relu"]
        np.testing.assert_allclose(frozen(x).numpy(), model(x).numpy(), rtol=1e-5, atol=1e-5)
