"""ember.nn.utils.parametrize and ember.nn.utils.parametrizations (weight_norm,
spectral_norm, orthogonal) against torch.nn.utils on the same values: the same weights
(copied through numpy) in both libraries, then forward outputs, gradients, state_dict
keys, removal and the exceptions compared."""
import copy
import pickle

import numpy as np
import pytest

import ember
from _torch_compare import assert_same, copy_state, module_pair
import ember.nn as enn
import ember.nn.utils.parametrizations as EPS
import ember.nn.utils.parametrize as EP

torch = pytest.importorskip("torch")
tnn = torch.nn
TP = torch.nn.utils.parametrize
TPS = torch.nn.utils.parametrizations




def _pair(make_e, make_t, seed=0):
    return module_pair(torch, make_e, make_t, seed)


def _linear(n_in=4, n_out=4, seed=0):
    return _pair(lambda: enn.Linear(n_in, n_out), lambda: tnn.Linear(n_in, n_out), seed)


def _x(*shape, seed=1):
    x = np.random.default_rng(seed).standard_normal(shape)
    return ember.tensor(x), torch.tensor(x)


def _both(lib):
    """The parametrization modules for lib (ember or torch), with the same code."""
    nn = enn if lib == "ember" else tnn

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()

    class Scale(nn.Module):  # no right_inverse
        def forward(self, X):
            return 2 * X

    class Halves(nn.Module):  # two originals
        def forward(self, a, b):
            return a + b

        def right_inverse(self, X):
            return X * 0.25, X * 0.75

    class FirstRow(nn.Module):  # changes the shape
        def forward(self, X):
            return X[:1]

    class ToFloat(nn.Module):  # changes the dtype
        def forward(self, X):
            return X.float()

    return Symmetric, Scale, Halves, FirstRow, ToFloat


E_SYM, E_SCALE, E_HALVES, E_FIRSTROW, E_TOFLOAT = _both("ember")
T_SYM, T_SCALE, T_HALVES, T_FIRSTROW, T_TOFLOAT = _both("torch")


def _forward_backward(e, t, x_shape=(3, 4)):
    ex, tx = _x(*x_shape)
    eo, to = e(ex), t(tx)
    assert_same(eo, to)
    (eo * eo).sum().backward()
    (to * to).sum().backward()
    for (en, ep), (tn, tp) in zip(e.named_parameters(), t.named_parameters()):
        assert en == tn
        assert_same(ep.grad, tp.grad)


# ---- parametrize ------------------------------------------------------------------------
def test_register_parametrization_matches_torch():
    e, t = _linear()
    assert EP.register_parametrization(e, "weight", E_SYM()) is e
    TP.register_parametrization(t, "weight", T_SYM())
    assert type(e).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert EP.type_before_parametrizations(e) is enn.Linear
    assert EP.type_before_parametrizations(enn.Linear(2, 2)) is enn.Linear
    assert EP.is_parametrized(e) and EP.is_parametrized(e, "weight")
    assert not EP.is_parametrized(e, "bias") and not EP.is_parametrized(enn.Linear(2, 2))
    assert isinstance(e.parametrizations.weight, EP.ParametrizationList)
    assert list(e.state_dict()) == list(t.state_dict()) == [
        "bias", "parametrizations.weight.original"]
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert_same(e.parametrizations.weight.original, t.parametrizations.weight.original)
    assert_same(e.weight, t.weight)
    np.testing.assert_array_equal(e.weight.detach().numpy(), e.weight.detach().numpy().T)
    assert repr(e) == repr(t).replace("torch", "ember")
    _forward_backward(e, t)


def test_assignment_calls_right_inverse():
    e, t = _linear()
    EP.register_parametrization(e, "weight", E_SYM())
    TP.register_parametrization(t, "weight", T_SYM())
    original = e.parametrizations.weight.original
    value = np.random.default_rng(5).standard_normal((4, 4))
    e.weight = ember.tensor(value)
    t.weight = torch.tensor(value)
    assert e.parametrizations.weight.original is original  # set in place
    assert_same(e.parametrizations.weight.original, t.parametrizations.weight.original)
    assert_same(e.weight, t.weight)
    # a Parameter can not be assigned over the property (torch's KeyError)
    for m, P in ((e, enn.Parameter), (t, tnn.Parameter)):
        with pytest.raises(KeyError, match="already exists"):
            m.weight = P(m.weight.detach().clone())
    # no right_inverse: assignment raises
    e, t = _linear()
    EP.register_parametrization(e, "weight", E_SCALE())
    TP.register_parametrization(t, "weight", T_SCALE())
    for m, lib in ((e, ember), (t, torch)):
        with pytest.raises(RuntimeError, match="does not implement right_inverse"):
            m.weight = lib.zeros(4, 4, dtype=lib.float64)
    _forward_backward(e, t)


def test_chained_parametrizations():
    e, t = _linear()
    for m, P in ((e, EP), (t, TP)):
        S, Sc = (E_SYM, E_SCALE) if m is e else (T_SYM, T_SCALE)
        P.register_parametrization(m, "weight", S())
        P.register_parametrization(m, "weight", Sc())
        P.register_parametrization(m, "bias", Sc())
    assert len(e.parametrizations.weight) == 2
    assert list(e.state_dict()) == list(t.state_dict())
    assert_same(e.weight, t.weight)
    assert_same(e.bias, t.bias)
    _forward_backward(e, t)


@pytest.mark.parametrize("kind", ["shape", "dtype"])
def test_parametrization_changing_shape_or_dtype_needs_unsafe(kind):
    e, t = _linear()
    bad_e, bad_t = (E_FIRSTROW, T_FIRSTROW) if kind == "shape" else (E_TOFLOAT, T_TOFLOAT)
    for m, P, bad in ((e, EP, bad_e), (t, TP, bad_t)):
        with pytest.raises(ValueError, match=f"may not change the {kind}"):
            P.register_parametrization(m, "weight", bad())
        assert not P.is_parametrized(m) and type(m).__name__ == "Linear"
        assert "weight" in m._parameters
        # on an already parametrized tensor: checked as well
        P.register_parametrization(m, "weight", (E_SCALE if m is e else T_SCALE)())
        with pytest.raises(ValueError, match=f"may not change the {kind}"):
            P.register_parametrization(m, "weight", bad())
        assert len(m.parametrizations.weight) == 1
        P.register_parametrization(m, "weight", bad(), unsafe=True)
        assert m.parametrizations.weight.unsafe
    assert tuple(e.weight.shape) == tuple(t.weight.shape)
    assert str(e.weight.dtype).split(".")[-1] == str(t.weight.dtype).split(".")[-1]
    assert_same(e.weight, t.weight, 1e-6)


def test_sequence_right_inverse_registers_original0_1():
    e, t = _linear()
    EP.register_parametrization(e, "weight", E_HALVES())
    TP.register_parametrization(t, "weight", T_HALVES())
    assert list(e.state_dict()) == list(t.state_dict()) == [
        "bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert isinstance(e.parametrizations.weight.original0, enn.Parameter)
    assert_same(e.parametrizations.weight.original0, t.parametrizations.weight.original0)
    assert_same(e.weight, t.weight)
    _forward_backward(e, t)
    value = np.arange(16.0).reshape(4, 4)
    e.weight = ember.tensor(value)
    t.weight = torch.tensor(value)
    assert_same(e.parametrizations.weight.original1, t.parametrizations.weight.original1)
    for m, P in ((e, EP), (t, TP)):
        with pytest.raises(ValueError, match="Cannot leave unparametrized"):
            P.remove_parametrizations(m, "weight", leave_parametrized=False)
        P.remove_parametrizations(m, "weight")
    assert isinstance(e.weight, enn.Parameter) and type(e) is enn.Linear
    assert_same(e.weight, t.weight)


@pytest.mark.parametrize("leave_parametrized", [True, False])
def test_remove_parametrizations(leave_parametrized):
    e, t = _linear()
    for m, P, S, Sc in ((e, EP, E_SYM, E_SCALE), (t, TP, T_SYM, T_SCALE)):
        P.register_parametrization(m, "weight", S())
        P.register_parametrization(m, "bias", Sc())
    original = e.parametrizations.weight.original
    for m, P in ((e, EP), (t, TP)):
        P.remove_parametrizations(m, "weight", leave_parametrized=leave_parametrized)
        assert type(m).__name__ == "ParametrizedLinear"  # bias still parametrized
    assert e.weight is original  # the same Parameter object (an optimizer holding it works)
    assert_same(e.weight, t.weight)
    assert list(e.state_dict()) == list(t.state_dict())
    for m, P in ((e, EP), (t, TP)):
        P.remove_parametrizations(m, "bias", leave_parametrized=leave_parametrized)
        assert type(m).__name__ == "Linear" and not hasattr(m, "parametrizations")
    assert type(e) is enn.Linear
    assert list(e.state_dict()) == list(t.state_dict()) == ["weight", "bias"]
    assert_same(e.bias, t.bias)
    _forward_backward(e, t)


def test_remove_on_non_parametrized_raises():
    e, t = _linear()
    for m, P in ((e, EP), (t, TP)):
        with pytest.raises(ValueError, match="does not have a parametrization on weight"):
            P.remove_parametrizations(m, "weight")
        with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
            P.register_parametrization(m, "nope", (E_SCALE if m is e else T_SCALE)())


def test_parametrized_buffer():
    e, t = _pair(lambda: enn.BatchNorm1d(3), lambda: tnn.BatchNorm1d(3))
    with torch.no_grad():
        t.running_var.add_(torch.arange(3.0, dtype=torch.float64))
    copy_state(t, e)
    EP.register_parametrization(e, "running_var", E_SCALE())
    TP.register_parametrization(t, "running_var", T_SCALE())
    assert list(e.state_dict()) == list(t.state_dict())
    assert ([n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
            and "parametrizations.running_var.original" in dict(e.named_buffers()))
    assert_same(e.running_var, t.running_var)
    e.eval()
    t.eval()
    ex, tx = _x(5, 3)
    assert_same(e(ex), t(tx))


def test_cached():
    counts = {"ember": 0, "torch": 0}

    def counting(lib, nn):
        class Counting(nn.Module):
            def forward(self, X):
                counts[lib] += 1
                return X * 3

        return Counting()

    e, t = _linear()
    EP.register_parametrization(e, "weight", counting("ember", enn))
    TP.register_parametrization(t, "weight", counting("torch", tnn))
    counts.update(ember=0, torch=0)
    for m, P in ((e, EP), (t, TP)):
        with P.cached():
            w1, w2 = m.weight, m.weight
            with P.cached():  # nested: same cache
                w3 = m.weight
            assert w1 is w2 is w3
        assert m.weight is not w1  # cache dropped on exit
    assert counts["ember"] == counts["torch"] == 2


def test_transfer_parametrizations_and_params():
    e, t = _linear()
    e2, t2 = _linear(seed=3)
    for m, P, S, H in ((e, EP, E_SYM, E_HALVES), (t, TP, T_SYM, T_HALVES)):
        P.register_parametrization(m, "weight", S())
        P.register_parametrization(m, "bias", H())
    EP.transfer_parametrizations_and_params(e, e2)
    TP.transfer_parametrizations_and_params(t, t2)
    assert list(e2.state_dict()) == list(t2.state_dict())
    assert e2.parametrizations.weight.original is e.parametrizations.weight.original
    assert_same(e2.weight, t2.weight)
    assert_same(e2.bias, t2.bias)
    # only one name, into a module that lacks it (created as a Parameter)
    e3, t3 = enn.Module(), tnn.Module()
    EP.transfer_parametrizations_and_params(e, e3, "weight")
    TP.transfer_parametrizations_and_params(t, t3, "weight")
    assert list(e3.state_dict()) == list(t3.state_dict())
    assert_same(e3.weight, t3.weight)
    # nothing to transfer
    plain = enn.Linear(2, 2)
    assert EP.transfer_parametrizations_and_params(plain, e3) is e3


def test_deepcopy_and_pickle_and_state_dict_roundtrip():
    e, t = _linear()
    EP.register_parametrization(e, "weight", E_SYM())
    TP.register_parametrization(t, "weight", T_SYM())
    c = copy.deepcopy(e)
    assert type(c).__name__ == "ParametrizedLinear"
    assert c.parametrizations.weight.original is not e.parametrizations.weight.original
    assert_same(c.weight, e.weight)
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        pickle.dumps(e)
    # torch's state_dict loads into a fresh parametrized ember module
    f = enn.Linear(4, 4).double()
    EP.register_parametrization(f, "weight", E_SYM())
    copy_state(t, f)
    assert_same(f.weight, t.weight)


def test_optimizer_step_on_parametrized_module():
    e, t = _linear()
    EP.register_parametrization(e, "weight", E_SYM())
    TP.register_parametrization(t, "weight", T_SYM())
    eo = ember.optim.SGD(e.parameters(), lr=0.1)
    to = torch.optim.SGD(t.parameters(), lr=0.1)
    ex, tx = _x(3, 4)
    for _ in range(3):
        eo.zero_grad()
        to.zero_grad()
        (e(ex) ** 2).sum().backward()
        (t(tx) ** 2).sum().backward()
        eo.step()
        to.step()
    assert_same(e.weight, t.weight)


# ---- parametrizations.weight_norm ---------------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, None])
@pytest.mark.parametrize("layer", ["linear", "conv2d"])
def test_weight_norm_parametrization(layer, dim):
    if layer == "linear":
        e, t = _linear(4, 3)
        x_shape = (2, 4)
    else:
        e, t = _pair(lambda: enn.Conv2d(2, 3, 3), lambda: tnn.Conv2d(2, 3, 3))
        x_shape = (2, 2, 5, 5)
    EPS.weight_norm(e, dim=dim)
    TPS.weight_norm(t, dim=dim)
    assert list(e.state_dict()) == list(t.state_dict())
    for i in (0, 1):
        eo, to = (getattr(m.parametrizations.weight, f"original{i}") for m in (e, t))
        assert tuple(eo.shape) == tuple(to.shape)
        assert_same(eo, to)
    assert_same(e.weight, t.weight)
    with torch.no_grad():
        t.parametrizations.weight.original0.mul_(1.5)
    with ember.no_grad():
        e.parametrizations.weight.original0.mul_(1.5)
    _forward_backward(e, t, x_shape)
    for m, P in ((e, EP), (t, TP)):
        P.remove_parametrizations(m, "weight")
    assert_same(e.weight, t.weight)


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_weight_norm_parametrization_loads_legacy_state_dict():
    torch.manual_seed(0)
    legacy = tnn.Linear(4, 3).double()
    torch.nn.utils.weight_norm(legacy)  # weight_g / weight_v
    sd = {k: ember.tensor(v.detach().numpy()) for k, v in legacy.state_dict().items()}
    e, t = _linear(4, 3, seed=7)
    EPS.weight_norm(e)
    TPS.weight_norm(t)
    e.load_state_dict(sd)
    t.load_state_dict(legacy.state_dict())
    assert_same(e.parametrizations.weight.original0, legacy.weight_g)
    assert_same(e.weight, t.weight)


# ---- parametrizations.spectral_norm -------------------------------------------------------
def _copy_uv(e, t):
    src, dst = t.parametrizations.weight[0], e.parametrizations.weight[0]
    dst._u.copy_(ember.tensor(src._u.numpy()))
    dst._v.copy_(ember.tensor(src._v.numpy()))


@pytest.mark.parametrize("n_power_iterations", [1, 3])
@pytest.mark.parametrize("layer", ["linear", "conv2d", "conv_transpose2d"])
def test_spectral_norm_parametrization(layer, n_power_iterations):
    if layer == "linear":
        e, t = _linear(5, 3)
        x_shape = (2, 5)
    elif layer == "conv2d":
        e, t = _pair(lambda: enn.Conv2d(2, 3, 3), lambda: tnn.Conv2d(2, 3, 3))
        x_shape = (2, 2, 5, 5)
    else:
        e, t = _pair(lambda: enn.ConvTranspose2d(2, 3, 3), lambda: tnn.ConvTranspose2d(2, 3, 3))
        x_shape = (2, 2, 4, 4)
    EPS.spectral_norm(e, n_power_iterations=n_power_iterations)
    TPS.spectral_norm(t, n_power_iterations=n_power_iterations)
    assert list(e.state_dict()) == list(t.state_dict()) == [
        "bias", "parametrizations.weight.original", "parametrizations.weight.0._u",
        "parametrizations.weight.0._v"]
    if layer == "conv_transpose2d":
        assert e.parametrizations.weight[0].dim == 1  # the default for transposed convs
        assert tuple(e.parametrizations.weight[0]._v.shape) == (2 * 3 * 3,)
    _copy_uv(e, t)
    for _ in range(3):  # every access in training mode does n_power_iterations steps
        assert_same(e.weight, t.weight)
    assert_same(e.parametrizations.weight[0]._u, t.parametrizations.weight[0]._u)
    _forward_backward(e, t, x_shape)
    # the largest singular value of the normalized weight is about 1 (each access to
    # the weight is one more power iteration: in both libraries)
    w = e.weight.detach().numpy()
    assert_same(ember.tensor(w), t.weight)
    mat = w.swapaxes(0, 1) if layer == "conv_transpose2d" else w
    assert abs(np.linalg.norm(mat.reshape(mat.shape[0], -1), 2) - 1) < 0.05
    e.eval()
    t.eval()
    u = e.parametrizations.weight[0]._u.numpy().copy()
    assert_same(e.weight, t.weight)
    np.testing.assert_array_equal(e.parametrizations.weight[0]._u.numpy(), u)  # no update


def test_spectral_norm_parametrization_vector_and_errors():
    for P, lib, nn in ((EPS, ember, enn), (TPS, torch, tnn)):
        m = nn.Module()
        m.register_buffer("w", lib.tensor([3.0, 4.0], dtype=lib.float64))
        P.spectral_norm(m, "w")
        np.testing.assert_allclose(m.w.numpy(), [0.6, 0.8])
        with pytest.raises(IndexError, match="Dimension out of range"):
            P.spectral_norm(nn.Linear(3, 3), dim=2)
        with pytest.raises(ValueError, match="n_power_iterations to be positive"):
            P.spectral_norm(nn.Linear(3, 3), n_power_iterations=0)
        with pytest.raises(ValueError, match="has no parameter or buffer with name 'foo'"):
            P.spectral_norm(nn.Linear(3, 3), "foo")


# ---- parametrizations.orthogonal ----------------------------------------------------------
def _orthogonality_error(q):
    q = q.detach().numpy()
    if q.shape[-2] < q.shape[-1]:
        q = q.swapaxes(-1, -2)
    return np.abs(q.swapaxes(-1, -2) @ q - np.eye(q.shape[-1])).max()


def _off_diagonal(delta):
    # The householder map reads the signs of its columns from the original's diagonal
    # (truncated to int, not differentiated, as in torch): a step moves only the rest.
    k = min(delta.shape[-2:])
    delta[..., range(k), range(k)] = 0
    return delta


@pytest.mark.parametrize("use_trivialization", [True, False])
@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
def test_orthogonal_square(orthogonal_map, use_trivialization):
    e, t = _linear(5, 5)
    EPS.orthogonal(e, orthogonal_map=orthogonal_map, use_trivialization=use_trivialization)
    TPS.orthogonal(t, orthogonal_map=orthogonal_map, use_trivialization=use_trivialization)
    assert list(e.state_dict()) == list(t.state_dict())
    assert_same(e.parametrizations.weight.original, t.parametrizations.weight.original, 1e-9)
    assert_same(e.weight, t.weight, 1e-9)
    if use_trivialization or orthogonal_map == "householder":
        assert _orthogonality_error(e.weight) < 1e-12
    # move the original away from its start: the maps themselves are exercised
    delta = _off_diagonal(np.random.default_rng(2).standard_normal((5, 5)) * 0.3)
    with torch.no_grad():
        t.parametrizations.weight.original.add_(torch.tensor(delta))
    with ember.no_grad():
        e.parametrizations.weight.original.add_(ember.tensor(delta))
    assert_same(e.weight, t.weight, 1e-9)
    if use_trivialization or orthogonal_map == "householder":
        assert _orthogonality_error(e.weight) < 1e-12
    ex, tx = _x(3, 5)
    eo, to = e(ex), t(tx)
    assert_same(eo, to, 1e-9)
    (eo * eo.sin()).sum().backward()
    (to * to.sin()).sum().backward()
    assert_same(e.parametrizations.weight.original.grad, t.parametrizations.weight.original.grad, 1e-8)
    assert_same(e.bias.grad, t.bias.grad, 1e-9)


@pytest.mark.parametrize("shape", [(6, 3), (3, 6), (2, 4, 3)])
@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
def test_orthogonal_rectangular_and_batched(orthogonal_map, shape):
    rng = np.random.default_rng(4)
    w = rng.standard_normal(shape)
    e, t = enn.Module(), tnn.Module()
    e.weight = enn.Parameter(ember.tensor(w))
    t.weight = tnn.Parameter(torch.tensor(w))
    EPS.orthogonal(e, orthogonal_map=orthogonal_map)
    TPS.orthogonal(t, orthogonal_map=orthogonal_map)
    # a non-square base is completed with random columns: take torch's
    t_base = t.parametrizations.weight[0].base
    e.parametrizations.weight[0].base = ember.tensor(t_base.numpy())
    delta = _off_diagonal(rng.standard_normal(shape) * 0.2)
    with torch.no_grad():
        t.parametrizations.weight.original.add_(torch.tensor(delta))
    with ember.no_grad():
        e.parametrizations.weight.original.add_(ember.tensor(delta))
    assert _orthogonality_error(e.weight) < 1e-12
    assert_same(e.weight, t.weight, 1e-9)
    e.weight.sum().backward()
    t.weight.sum().backward()
    assert_same(e.parametrizations.weight.original.grad, t.parametrizations.weight.original.grad, 1e-8)


def test_orthogonal_assignment_and_errors():
    q = np.linalg.qr(np.random.default_rng(6).standard_normal((4, 4)))[0]
    e, t = _linear(4, 4)
    EPS.orthogonal(e)
    TPS.orthogonal(t)
    e.weight = ember.tensor(q)  # right_inverse: a new base
    t.weight = torch.tensor(q)
    assert_same(e.weight, t.weight, 1e-12)
    assert_same(e.weight, torch.tensor(q), 1e-12)
    for P, nn in ((EPS, enn), (TPS, tnn)):
        with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
            P.orthogonal(nn.Linear(3, 3), orthogonal_map="qr")
        m = nn.Module()
        m.register_buffer("v", ember.zeros(3) if P is EPS else torch.zeros(3))
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
            P.orthogonal(m, "v")
        with pytest.raises(ValueError, match="has no parameter or buffer"):
            P.orthogonal(nn.Linear(3, 3), "nope")
    # no base: matrix_exp and cayley can not be assigned to
    for P, m, lib in ((EPS, _linear()[0], ember), (TPS, _linear()[1], torch)):
        P.orthogonal(m, orthogonal_map="cayley", use_trivialization=False)
        with pytest.raises(NotImplementedError, match="not possible to assign"):
            m.weight = lib.eye(4, dtype=lib.float64)
