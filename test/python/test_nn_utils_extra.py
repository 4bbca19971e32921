"""ember.nn.utils: the legacy spectral_norm hooks, conv/linear + BatchNorm fusion,
skip_init and stateless.functional_call; ember.nn.init: dirac_, sparse_, the deprecated
aliases and every initializer's errors and fans, against torch on the same values."""
import math
import warnings

import numpy as np
import pytest

import ember
from _torch_compare import assert_same, module_pair
import ember.nn as enn
import ember.nn.utils as EU
from ember.nn import init as EI
from ember.nn.utils import stateless as ES

torch = pytest.importorskip("torch")
tnn = torch.nn
TU = torch.nn.utils
TI = torch.nn.init




def _pair(make_e, make_t, seed=0):
    return module_pair(torch, make_e, make_t, seed)


def _x(*shape, seed=1):
    x = np.random.default_rng(seed).standard_normal(shape)
    return ember.tensor(x), torch.tensor(x)


# ---- legacy spectral_norm -----------------------------------------------------------------
def _copy_uv(e, t, name="weight"):
    for suffix in ("_u", "_v"):
        getattr(e, name + suffix).copy_(ember.tensor(getattr(t, name + suffix).numpy()))


@pytest.mark.parametrize("n_power_iterations", [1, 2])
@pytest.mark.parametrize("layer", ["linear", "conv2d", "conv_transpose2d"])
def test_spectral_norm_matches_torch(layer, n_power_iterations):
    if layer == "linear":
        e, t = _pair(lambda: enn.Linear(5, 3), lambda: tnn.Linear(5, 3))
        x_shape = (2, 5)
    elif layer == "conv2d":
        e, t = _pair(lambda: enn.Conv2d(2, 3, 3), lambda: tnn.Conv2d(2, 3, 3))
        x_shape = (2, 2, 5, 5)
    else:
        e, t = _pair(lambda: enn.ConvTranspose2d(2, 3, 3), lambda: tnn.ConvTranspose2d(2, 3, 3))
        x_shape = (2, 2, 4, 4)
    assert EU.spectral_norm(e, n_power_iterations=n_power_iterations) is e
    TU.spectral_norm(t, n_power_iterations=n_power_iterations)
    assert list(e.state_dict()) == list(t.state_dict()) == [
        "bias", "weight_orig", "weight_u", "weight_v"]
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert tuple(e.weight_v.shape) == tuple(t.weight_v.shape)  # dim=1 for ConvTranspose
    _copy_uv(e, t)
    ex, tx = _x(*x_shape)
    for step in range(3):  # each training forward: n_power_iterations steps on u, v
        eo, to = e(ex), t(tx)
        assert_same(eo, to)
        assert_same(e.weight, t.weight)
        assert_same(e.weight_u, t.weight_u)
        assert_same(e.weight_v, t.weight_v)
    (eo * eo).sum().backward()
    (to * to).sum().backward()
    assert_same(e.weight_orig.grad, t.weight_orig.grad)
    assert_same(e.bias.grad, t.bias.grad)
    e.eval()
    t.eval()
    u = e.weight_u.numpy().copy()
    assert_same(e(ex), t(tx))
    np.testing.assert_array_equal(e.weight_u.numpy(), u)  # eval: no power iteration
    # the state_dict metadata records the format version, as torch's
    assert e.state_dict()._metadata[""]["spectral_norm"] == {"weight.version": 1}
    for U, m in ((EU, e), (TU, t)):
        with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
            U.spectral_norm(m)
        U.remove_spectral_norm(m)
        with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
            U.remove_spectral_norm(m)
    assert isinstance(e.weight, enn.Parameter)
    assert list(e.state_dict()) == list(t.state_dict()) == ["bias", "weight"]
    assert "spectral_norm" not in e.state_dict()._metadata[""]
    assert_same(e.weight, t.weight)


def test_spectral_norm_state_dict_roundtrip_and_errors():
    e, t = _pair(lambda: enn.Linear(4, 3), lambda: tnn.Linear(4, 3))
    EU.spectral_norm(e)
    TU.spectral_norm(t)
    # torch's state_dict (converted, no metadata: already in the current format) loads
    e.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t.state_dict().items()})
    assert_same(e.weight_v, t.weight_v)
    # and ember's own (with metadata) loads back into ember
    e2 = EU.spectral_norm(enn.Linear(4, 3).double())
    e2.load_state_dict(e.state_dict())
    assert_same(e2.weight_u, t.weight_u)
    for U, nn in ((EU, enn), (TU, tnn)):
        with pytest.raises(ValueError, match="n_power_iterations to be positive"):
            U.spectral_norm(nn.Linear(3, 3), n_power_iterations=0)
        with pytest.raises(ValueError, match="cannot be applied as parameter `bias` is None"):
            U.spectral_norm(nn.Linear(3, 3, bias=False), "bias")


def test_spectral_norm_loads_version_0_state_dict():
    """A version-0 state_dict held weight (W / sigma) and weight_orig but no weight_v:
    the load pre-hook solves for v, as torch."""
    e, t = _pair(lambda: enn.Linear(6, 3), lambda: tnn.Linear(6, 3))
    EU.spectral_norm(e)
    TU.spectral_norm(t)
    old = {k: v.clone() for k, v in t.state_dict().items() if k != "weight_v"}
    with torch.no_grad():
        old["weight"] = t.weight_orig / 2.5
    t.load_state_dict(old)
    e.load_state_dict({k: ember.tensor(v.numpy()) for k, v in old.items()})
    assert_same(e.weight_v, t.weight_v, 1e-8)
    e.eval()
    t.eval()
    ex, tx = _x(2, 6)
    assert_same(e(ex), t(tx), 1e-8)


# ---- fusion -------------------------------------------------------------------------------
def _bn_pair(cls_e, cls_t, n, affine=True, seed=3):
    e, t = _pair(lambda: cls_e(n, affine=affine), lambda: cls_t(n, affine=affine), seed)
    rng = np.random.default_rng(seed)
    state = {"running_mean": rng.standard_normal(n), "running_var": rng.uniform(0.5, 2, n)}
    if affine:
        state.update(weight=rng.standard_normal(n), bias=rng.standard_normal(n))
    for k, v in state.items():
        with ember.no_grad():
            getattr(e, k).copy_(ember.tensor(v))
        with torch.no_grad():
            getattr(t, k).copy_(torch.tensor(v))
    return e.eval(), t.eval()


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("layer", ["conv1d", "conv2d", "conv_transpose2d"])
def test_fuse_conv_bn_eval(layer, affine, bias):
    if layer == "conv1d":
        ce, ct = _pair(lambda: enn.Conv1d(2, 4, 3, bias=bias), lambda: tnn.Conv1d(2, 4, 3, bias=bias))
        be, bt = _bn_pair(enn.BatchNorm1d, tnn.BatchNorm1d, 4, affine)
        x_shape = (3, 2, 7)
    elif layer == "conv2d":
        ce, ct = _pair(lambda: enn.Conv2d(2, 4, 3, bias=bias), lambda: tnn.Conv2d(2, 4, 3, bias=bias))
        be, bt = _bn_pair(enn.BatchNorm2d, tnn.BatchNorm2d, 4, affine)
        x_shape = (3, 2, 6, 6)
    else:
        ce, ct = _pair(lambda: enn.ConvTranspose2d(2, 4, 3, bias=bias),
                       lambda: tnn.ConvTranspose2d(2, 4, 3, bias=bias))
        be, bt = _bn_pair(enn.BatchNorm2d, tnn.BatchNorm2d, 4, affine)
        x_shape = (3, 2, 4, 4)
    transpose = layer == "conv_transpose2d"
    ce.eval()
    ct.eval()
    fe = EU.fuse_conv_bn_eval(ce, be, transpose=transpose)
    ft = TU.fuse_conv_bn_eval(ct, bt, transpose=transpose)
    assert type(fe) is type(ce) and fe is not ce
    assert isinstance(fe.weight, enn.Parameter) and isinstance(fe.bias, enn.Parameter)
    assert_same(fe.weight, ft.weight)
    assert_same(fe.bias, ft.bias)
    ex, tx = _x(*x_shape)
    assert_same(fe(ex), be(ce(ex)))  # fused == conv then bn (eval)
    assert_same(fe(ex), ft(tx))
    assert (ce.bias is None) == (not bias)  # the original conv is untouched


def test_fuse_conv_bn_weights_and_errors():
    ce, ct = _pair(lambda: enn.Conv2d(2, 3, 1), lambda: tnn.Conv2d(2, 3, 1))
    be, bt = _bn_pair(enn.BatchNorm2d, tnn.BatchNorm2d, 3)
    we, bias_e = EU.fuse_conv_bn_weights(ce.weight, None, be.running_mean, be.running_var, 1e-3,
                                         None, be.bias)
    wt, bias_t = TU.fuse_conv_bn_weights(ct.weight, None, bt.running_mean, bt.running_var, 1e-3,
                                         None, bt.bias)
    assert_same(we, wt)
    assert_same(bias_e, bias_t)
    assert we.requires_grad and not bias_e.requires_grad  # as torch: from conv_w / zeros
    assert wt.requires_grad and not bias_t.requires_grad
    for U, c, b in ((EU, ce, be), (TU, ct, bt)):
        with pytest.raises(AssertionError, match="Fusion only for eval"):
            U.fuse_conv_bn_eval(c.train(), b)
        c.eval()


@pytest.mark.parametrize("num_features", [4, 1])
@pytest.mark.parametrize("bias", [True, False])
def test_fuse_linear_bn_eval(bias, num_features):
    le, lt = _pair(lambda: enn.Linear(3, 4, bias=bias), lambda: tnn.Linear(3, 4, bias=bias))
    be, bt = _bn_pair(enn.BatchNorm1d, tnn.BatchNorm1d, num_features)
    le.eval()
    lt.eval()
    fe = EU.fuse_linear_bn_eval(le, be)
    ft = TU.fuse_linear_bn_eval(lt, bt)
    assert_same(fe.weight, ft.weight)
    assert_same(fe.bias, ft.bias)
    ex, tx = _x(5, 3)
    assert_same(fe(ex), ft(tx))
    if num_features == 4:
        assert_same(fe(ex), be(le(ex)))
    we, b_e = EU.fuse_linear_bn_weights(le.weight, le.bias, be.running_mean, be.running_var,
                                        be.eps, be.weight, be.bias)
    assert_same(we, fe.weight)
    assert_same(b_e, fe.bias)


def test_fuse_linear_bn_errors():
    for U, nn in ((EU, enn), (TU, tnn)):
        lin, bn = nn.Linear(3, 4).eval(), nn.BatchNorm1d(3).eval()
        with pytest.raises(AssertionError, match="linear.out_features == bn.num_features"):
            U.fuse_linear_bn_eval(lin, bn)
        with pytest.raises(AssertionError, match="Fusion only for eval"):
            U.fuse_linear_bn_eval(lin.train(), nn.BatchNorm1d(4).eval())


# ---- skip_init ----------------------------------------------------------------------------
def test_skip_init():
    e = EU.skip_init(enn.Linear, 5, 2, dtype=ember.float64)
    t = TU.skip_init(tnn.Linear, 5, 2, dtype=torch.float64)
    assert type(e) is enn.Linear
    assert [(n, tuple(p.shape)) for n, p in e.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert e.weight.dtype == ember.float64 and e.weight.requires_grad
    e2 = EU.skip_init(enn.Conv2d, in_channels=2, out_channels=3, kernel_size=3)
    assert tuple(e2.weight.shape) == (3, 2, 3, 3) and str(e2.weight.device) == "cpu"

    class NoDevice(enn.Module):
        def __init__(self, n):
            super().__init__()

    class NoDeviceT(tnn.Module):
        def __init__(self, n):
            super().__init__()

    for U, cls in ((EU, NoDevice), (TU, NoDeviceT)):
        with pytest.raises(RuntimeError, match="must support a 'device' arg"):
            U.skip_init(cls, 3)
        with pytest.raises(RuntimeError, match="Expected a Module"):
            U.skip_init(int, 3)


# ---- stateless.functional_call --------------------------------------------------------------
def _net(nn):
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Tanh(), nn.Linear(4, 2))


def test_functional_call_substitutes_parameters_and_buffers():
    e, t = _pair(lambda: _net(enn), lambda: _net(tnn))
    rng = np.random.default_rng(8)
    new = {"0.weight": rng.standard_normal((4, 3)), "3.bias": rng.standard_normal(2),
           "1.running_mean": rng.standard_normal(4), "1.running_var": rng.uniform(1, 2, 4)}
    e_new = {k: ember.tensor(v, requires_grad=k.endswith(("weight", "bias")))
             for k, v in new.items()}
    t_new = {k: torch.tensor(v, requires_grad=k.endswith(("weight", "bias")))
             for k, v in new.items()}
    before = {k: v.numpy().copy() for k, v in e.state_dict().items()}
    ex, tx = _x(6, 3)
    for mode in ("eval", "train"):
        getattr(e, mode)()
        getattr(t, mode)()
        with pytest.warns(FutureWarning, match="deprecated"):
            eo = ES.functional_call(e, e_new, (ex,))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            to = torch.nn.utils.stateless.functional_call(t, t_new, (tx,))
        assert_same(eo, to)
    # in training mode, BatchNorm updated the running stats it was given (in place)
    assert_same(e_new["1.running_mean"], t_new["1.running_mean"])
    assert_same(e_new["1.running_var"], t_new["1.running_var"])
    # the module's own tensors are back and unchanged
    for k, v in e.state_dict().items():
        if k.startswith("1.running") or k == "1.num_batches_tracked":
            continue
        np.testing.assert_array_equal(v.numpy(), before[k])
    eo.sum().backward()
    to.sum().backward()
    assert_same(e_new["0.weight"].grad, t_new["0.weight"].grad)
    assert_same(e_new["3.bias"].grad, t_new["3.bias"].grad)
    assert e[0].weight.grad is None  # the substitute got the gradient, not the module's


def test_functional_call_args_kwargs_strict_and_ties():
    class Tied(enn.Module):
        def __init__(self):
            super().__init__()
            self.a = enn.Linear(2, 2, bias=False)
            self.b = enn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x, scale=1.0):
            return self.b(self.a(x)) * scale

    m = Tied().double()
    x = ember.tensor([[1.0, 2.0]], dtype=ember.float64)
    eye = ember.eye(2, dtype=ember.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        # a single argument need not be a tuple; kwargs pass through
        out = ES.functional_call(m, {"a.weight": eye}, x, {"scale": 3.0})
        np.testing.assert_allclose(out.detach().numpy(), [[3.0, 6.0]])  # tied: b.weight follows
        out = ES.functional_call(m, {"a.weight": eye}, x, tie_weights=False)
        w = m.a.weight.detach().numpy()
        np.testing.assert_allclose(out.detach().numpy(), x.numpy() @ w.T, rtol=1e-12)
        with pytest.raises(ValueError, match="which are tied"):
            ES.functional_call(m, {"a.weight": eye, "b.weight": eye * 2}, x)
        with pytest.raises(RuntimeError, match="Missing key"):
            ES.functional_call(m, {"a.weight": eye}, x, strict=True, tie_weights=False)
        with pytest.raises(RuntimeError, match="Unexpected key"):
            ES.functional_call(m, {"a.weight": eye, "b.weight": eye, "c": eye}, x, strict=True)
        with pytest.raises(AttributeError, match="has no attribute"):
            ES.functional_call(m, {"z.weight": eye}, x)
    assert m.b.weight is m.a.weight and "c" not in m.__dict__

    # torch raises the same exception types for the same calls
    class TiedT(tnn.Module):
        def __init__(self):
            super().__init__()
            self.a = tnn.Linear(2, 2, bias=False)
            self.b = tnn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x, scale=1.0):
            return self.b(self.a(x)) * scale

    mt, teye, tx = TiedT().double(), torch.eye(2, dtype=torch.float64), torch.tensor([[1.0, 2.0]],
                                                                                    dtype=torch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        fc = torch.nn.utils.stateless.functional_call
        np.testing.assert_allclose(fc(mt, {"a.weight": teye}, tx, {"scale": 3.0}).detach().numpy(),
                                   [[3.0, 6.0]])
        with pytest.raises(ValueError, match="which are tied"):
            fc(mt, {"a.weight": teye, "b.weight": teye * 2}, tx)
        with pytest.raises(RuntimeError, match="Missing key"):
            fc(mt, {"a.weight": teye}, tx, strict=True, tie_weights=False)
        with pytest.raises(AttributeError, match="has no attribute"):
            fc(mt, {"z.weight": teye}, tx)


def test_functional_call_on_parametrized_original():
    from ember.nn.utils import parametrizations as EPS
    from torch.nn.utils import parametrizations as TPS
    e, t = _pair(lambda: enn.Linear(3, 2), lambda: tnn.Linear(3, 2))
    EPS.weight_norm(e)
    TPS.weight_norm(t)
    v = np.random.default_rng(3).standard_normal((2, 3))
    ex, tx = _x(4, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        eo = ES.functional_call(e, {"parametrizations.weight.original1": ember.tensor(v)}, ex)
        to = torch.nn.utils.stateless.functional_call(
            t, {"parametrizations.weight.original1": torch.tensor(v)}, tx)
    assert_same(eo, to)


# ---- nn.init -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,groups", [((6, 3, 5), 1), ((6, 2, 3, 3), 2), ((4, 4, 3, 3, 3), 1),
                                          ((6, 3, 4, 4), 3), ((2, 5, 4), 1), ((4, 2, 2, 2), 4)])
def test_dirac_matches_torch(shape, groups):
    w = enn.Parameter(ember.empty(*shape))
    assert EI.dirac_(w, groups=groups) is w
    assert w.requires_grad and w.grad_fn is None
    t = TI.dirac_(torch.empty(*shape), groups=groups)
    np.testing.assert_array_equal(w.detach().numpy(), t.numpy())
    # a dirac conv passes its input channels through (groups=1, out >= in)
    if groups == 1 and len(shape) == 4 and shape[0] >= shape[1]:
        conv = enn.Conv2d(shape[1], shape[0], shape[2:], padding=shape[2] // 2, bias=False)
        EI.dirac_(conv.weight)
        ex, _ = _x(1, shape[1], 5, 5)
        np.testing.assert_allclose(conv(ex.float()).detach().numpy()[:, :shape[1]], ex.numpy(),
                                   rtol=1e-6)


def _outcome(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn()
        except Exception as ex:  # noqa: BLE001 (compared with torch's)
            return ("raises", type(ex).__name__, str(ex))
    return ("returns", tuple(result.shape), sorted({w.category.__name__ for w in caught}))


INIT_CASES = {
    "dirac 2-d": lambda I, L: I.dirac_(L.empty(3, 3)),
    "dirac 6-d": lambda I, L: I.dirac_(L.empty(2, 2, 1, 1, 1, 1)),
    "dirac groups": lambda I, L: I.dirac_(L.empty(3, 2, 3), groups=2),
    "eye 3-d": lambda I, L: I.eye_(L.empty(2, 2, 2)),
    "eye rect": lambda I, L: I.eye_(L.empty(2, 3)),
    "xavier_uniform 1-d": lambda I, L: I.xavier_uniform_(L.empty(4)),
    "xavier_normal 0-d": lambda I, L: I.xavier_normal_(L.empty(())),
    "xavier 5-d": lambda I, L: I.xavier_uniform_(L.empty(2, 3, 2, 2, 2)),
    "kaiming_uniform 1-d": lambda I, L: I.kaiming_uniform_(L.empty(4)),
    "kaiming_normal 1-d": lambda I, L: I.kaiming_normal_(L.empty(4)),
    "kaiming zero-element": lambda I, L: I.kaiming_normal_(L.empty(0, 3)),
    "kaiming bad mode": lambda I, L: I.kaiming_uniform_(L.empty(2, 3), mode="fan_avg"),
    "kaiming upper mode": lambda I, L: I.kaiming_uniform_(L.empty(2, 3), mode="FAN_OUT"),
    "kaiming bad nonlinearity": lambda I, L: I.kaiming_normal_(L.empty(2, 3), nonlinearity="gelu"),
    "orthogonal 1-d": lambda I, L: I.orthogonal_(L.empty(4)),
    "orthogonal empty": lambda I, L: I.orthogonal_(L.empty(0, 4)),
    "orthogonal 4-d": lambda I, L: I.orthogonal_(L.empty(3, 2, 2, 2)),
    "sparse 3-d": lambda I, L: I.sparse_(L.empty(2, 2, 2), 0.5),
    "sparse": lambda I, L: I.sparse_(L.empty(6, 4), 0.5),
    "uniform a > b": lambda I, L: I.uniform_(L.empty(3), 1.0, 0.0),
    "normal negative std": lambda I, L: I.normal_(L.empty(3), 0.0, -1.0),
    "trunc_normal a > b": lambda I, L: I.trunc_normal_(L.empty(3), 0.0, 1.0, 2.0, -2.0),
    "trunc_normal negative std": lambda I, L: I.trunc_normal_(L.empty(3), 0.0, -1.0),
    "constant int": lambda I, L: I.constant_(L.empty(2, dtype=L.int64), 3),
    "zeros": lambda I, L: I.zeros_(L.empty(2, 2)),
}


@pytest.mark.parametrize("case", sorted(INIT_CASES))
def test_init_outcomes_match_torch(case):
    got = _outcome(lambda: INIT_CASES[case](EI, ember))
    want = _outcome(lambda: INIT_CASES[case](TI, torch))
    assert got[:2] == want[:2]
    if got[0] == "raises" and got[1] == "ValueError":
        assert got[2] == want[2]
    if got[0] == "returns":
        assert got[2] == want[2]  # the same warnings


def test_init_fans_and_bounds_match_torch():
    for shape in [(5, 3), (8, 4, 3), (6, 2, 3, 3), (4, 3, 2, 2, 2)]:
        assert EI._calculate_fan_in_and_fan_out(ember.empty(*shape)) == \
            TI._calculate_fan_in_and_fan_out(torch.empty(*shape))
        for mode in ("fan_in", "fan_out"):
            assert EI._calculate_correct_fan(ember.empty(*shape), mode) == \
                TI._calculate_correct_fan(torch.empty(*shape), mode)
    for nl, param in [("linear", None), ("tanh", None), ("relu", None), ("leaky_relu", None),
                      ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu", None), ("conv3d", None),
                      ("conv_transpose2d", None), ("sigmoid", None)]:
        assert EI.calculate_gain(nl, param) == TI.calculate_gain(nl, param)
    # uniform bounds: the largest |value| of many draws approaches the same bound
    w = ember.empty(400, 300)
    bound = math.sqrt(3.0) * TI.calculate_gain("leaky_relu", math.sqrt(5)) / math.sqrt(300)
    v = np.abs(EI.kaiming_uniform_(w, a=math.sqrt(5)).numpy())
    assert v.max() <= bound and v.max() > 0.999 * bound


def test_orthogonal_and_sparse_values():
    q = EI.orthogonal_(ember.empty(3, 2, 2, 2), gain=2.0).numpy().reshape(3, 8)
    np.testing.assert_allclose(q @ q.T, 4 * np.eye(3), atol=1e-5)
    w = EI.sparse_(ember.empty(10, 6), sparsity=0.25, std=0.5)
    zeros = (w.numpy() == 0).sum(axis=0)
    assert (zeros >= math.ceil(0.25 * 10)).all()
    g = ember.Generator().manual_seed(3)
    a = EI.sparse_(ember.empty(10, 6), 0.3, generator=g).numpy()
    g.manual_seed(3)
    np.testing.assert_array_equal(a, EI.sparse_(ember.empty(10, 6), 0.3, generator=g).numpy())


@pytest.mark.parametrize("name", ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform",
                                  "xavier_normal", "kaiming_uniform", "kaiming_normal",
                                  "orthogonal", "sparse"])
def test_deprecated_aliases(name):
    args = {"constant": (0.5,), "sparse": (0.1,)}.get(name, ())
    shape = (3, 3, 3) if name == "dirac" else (3, 3)
    for I, L in ((EI, ember), (TI, torch)):
        with pytest.warns(FutureWarning, match=f"nn.init.{name}` is now deprecated"):
            out = getattr(I, name)(L.empty(*shape), *args)
        assert tuple(out.shape) == shape


def test_signatures_match_torch():
    import inspect

    import ember.nn.utils.fusion as EF
    import ember.nn.utils.parametrizations as EPS
    import ember.nn.utils.parametrize as EP

    def signature(fn):
        return [(p.name, p.default, p.kind) for p in inspect.signature(fn).parameters.values()]

    pairs = [(EP, TU.parametrize), (EPS, TU.parametrizations), (ES, TU.stateless),
             (EF, TU.fusion)]
    for ours, theirs in pairs:
        assert sorted(ours.__all__) == sorted(theirs.__all__)
        for name in ours.__all__:
            if inspect.isfunction(getattr(theirs, name)):
                assert signature(getattr(ours, name)) == signature(getattr(theirs, name)), name
    for name in ("spectral_norm", "remove_spectral_norm", "skip_init", "fuse_conv_bn_eval"):
        assert signature(getattr(EU, name)) == signature(getattr(TU, name)), name
    assert signature(EI.dirac_) == signature(TI.dirac_)
    assert signature(EI.sparse_) == signature(TI.sparse_)
