"""The activations of ops/activation.h against PyTorch: ember.nn.functional's
elu ... softmin, the top-level torch names (selu, celu, threshold, hardshrink,
prelu, rrelu and their _ forms), Tensor methods, in-place forms and the modules
(values, gradients, reprs). Skipped without torch."""
import numpy as np
import pytest

import ember
import ember.nn as enn
import ember.nn.functional as F

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

RNG = np.random.default_rng(0)

# (name, fn(F-module, x)) pairs: the same call on both libraries.
UNARY = [
    ("elu", lambda f, x: f.elu(x)),
    ("elu_alpha", lambda f, x: f.elu(x, 0.7)),
    ("selu", lambda f, x: f.selu(x)),
    ("celu", lambda f, x: f.celu(x, alpha=1.7)),
    ("hardtanh", lambda f, x: f.hardtanh(x)),
    ("hardtanh_bounds", lambda f, x: f.hardtanh(x, -0.5, max_val=2.0)),
    ("relu6", lambda f, x: f.relu6(x * 4)),
    ("hardsigmoid", lambda f, x: f.hardsigmoid(x * 4)),
    ("hardswish", lambda f, x: f.hardswish(x * 4)),
    ("mish", lambda f, x: f.mish(x * 3)),
    ("logsigmoid", lambda f, x: f.logsigmoid(x * 10)),
    ("softsign", lambda f, x: f.softsign(x)),
    ("softshrink", lambda f, x: f.softshrink(x)),
    ("softshrink_lambd", lambda f, x: f.softshrink(x, lambd=0.2)),
    ("hardshrink", lambda f, x: f.hardshrink(x, 0.3)),
    ("tanhshrink", lambda f, x: f.tanhshrink(x)),
    ("threshold", lambda f, x: f.threshold(x, 0.1, -2.0)),
    ("glu", lambda f, x: f.glu(x)),
    ("glu_dim0", lambda f, x: f.glu(x, 0)),
    ("softmin", lambda f, x: f.softmin(x, dim=1)),
    ("softmin_dtype", lambda f, x: f.softmin(x, 0, dtype=x.dtype)),
    ("rrelu_eval", lambda f, x: f.rrelu(x, 0.1, 0.3)),
    ("softplus", lambda f, x: f.softplus(x * 5, beta=2, threshold=3)),
    ("leaky_relu", lambda f, x: f.leaky_relu(x, 0.2)),
]

IDS = [n for n, _ in UNARY]


def pair(shape, dtype=np.float64, scale=1.0):
    a = np.asarray(RNG.standard_normal(shape) * scale)
    return ember.from_numpy(a.astype(dtype)), torch.from_numpy(a.astype(dtype))


# torch computes a few float64 gradients with float constants (hardsigmoid's 1/6,
# celu's 1/alpha); ember keeps them in double, so those agree to float precision only.
_FLOAT_CONSTANT_GRADS = {"celu", "hardsigmoid"}


def close(e, t, rtol=1e-5, atol=1e-6):
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.float()
        e = e.float()
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name,fn", UNARY, ids=IDS)
def test_values_float32(name, fn):
    e, t = pair((6, 8), np.float32)
    out = fn(F, e)
    assert out.dtype == ember.float32
    close(out, fn(TF, t))


@pytest.mark.parametrize("name,fn", UNARY, ids=IDS)
def test_values_noncontiguous(name, fn):
    e, t = pair((8, 8))
    close(fn(F, e.t()), fn(TF, t.t()), 1e-12, 1e-12)
    close(fn(F, e[:, ::2]), fn(TF, t[:, ::2]), 1e-12, 1e-12)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name,fn", UNARY, ids=IDS)
def test_values_half(name, fn, dtype):
    a = RNG.standard_normal((4, 6)).astype(np.float32)
    e = ember.from_numpy(a).to(getattr(ember, dtype))
    t = torch.from_numpy(a).to(getattr(torch, dtype))
    out = fn(F, e)
    assert out.dtype == getattr(ember, dtype)
    close(out, fn(TF, t), 2e-2, 2e-2)


@pytest.mark.parametrize("name,fn", UNARY, ids=IDS)
def test_gradients_float64(name, fn):
    a = RNG.standard_normal((4, 6))
    e = ember.from_numpy(a.copy()).requires_grad_()
    t = torch.from_numpy(a.copy()).requires_grad_()
    w = RNG.standard_normal(fn(TF, t).shape)
    (fn(F, e) * ember.from_numpy(w)).sum().backward()
    (fn(TF, t) * torch.from_numpy(w)).sum().backward()
    tol = 1e-7 if name in _FLOAT_CONSTANT_GRADS else 1e-10
    close(e.grad, t.grad, tol, 1e-12)


# Smooth ones (no kink near the random points): second derivatives by gradgradcheck.
@pytest.mark.parametrize("name", ["elu", "selu", "celu", "mish", "logsigmoid", "softsign", "tanhshrink",
                                  "glu", "softmin", "hardswish"])
def test_second_derivatives(name):
    fn = dict(UNARY)[name]
    x = ember.from_numpy(RNG.standard_normal((3, 4))).requires_grad_()
    assert ember.autograd.gradcheck(lambda v: fn(F, v), (x,))
    assert ember.autograd.gradgradcheck(lambda v: fn(F, v), (x,))


@pytest.mark.parametrize("name,fn", UNARY, ids=IDS)
def test_zero_dim_and_empty(name, fn):
    if name.startswith("glu"):
        e, t = pair((0, 4))
        close(fn(F, e), fn(TF, t))
        return
    for shape in [(), (0, 3)]:
        if shape == () and name == "softmin":  # dim=1 does not exist there
            continue
        e, t = pair(shape)
        out = fn(F, e)
        assert tuple(out.shape) == tuple(fn(TF, t).shape)
        close(out, fn(TF, t), 1e-12, 1e-12)


def test_special_values():
    vals = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 3.0, -3.0, 6.0, 0.5, -0.5, 80.0, -80.0]
    e = ember.tensor(vals, dtype=ember.float32)
    t = torch.tensor(vals, dtype=torch.float32)
    for name, fn in UNARY:
        if name.startswith("glu") or name.startswith("softmin"):
            continue
        got, exp = fn(F, e), fn(TF, t)
        np.testing.assert_allclose(got.numpy(), exp.numpy(), rtol=1e-6, atol=1e-6, equal_nan=True,
                                   err_msg=name)


def test_integer_inputs_keep_dtype_or_raise():
    x = ember.tensor([-3, 0, 2, 7])
    tx = torch.tensor([-3, 0, 2, 7])
    for f in [lambda m, v: m.hardtanh(v, -1.5, 2.5), lambda m, v: m.relu6(v),
              lambda m, v: m.threshold(v, 1, 5)]:
        out = f(F, x)
        assert out.dtype == ember.int64
        assert out.tolist() == f(TF, tx).tolist()
    close(F.softsign(x), TF.softsign(tx))
    for f in [F.elu, F.selu, F.hardsigmoid, F.hardswish, F.mish, F.logsigmoid, F.hardshrink]:
        with pytest.raises(NotImplementedError):
            f(x)


INPLACE = [
    ("elu", lambda f, x: f.elu(x, 0.5, inplace=True), lambda x: ember._C.elu_(x, 0.5)),
    ("selu", lambda f, x: f.selu(x, True), None),
    ("celu", lambda f, x: f.celu(x, 2.0, True), None),
    ("hardtanh", lambda f, x: f.hardtanh(x, -0.5, 0.5, True), None),
    ("hardtanh_", lambda f, x: f.hardtanh_(x, -0.5, 0.5), None),
    ("relu6", lambda f, x: f.relu6(x, inplace=True), None),
    ("hardsigmoid", lambda f, x: f.hardsigmoid(x, True), None),
    ("hardswish", lambda f, x: f.hardswish(x, True), None),
    ("mish", lambda f, x: f.mish(x, True), None),
    ("threshold", lambda f, x: f.threshold(x, 0.2, 9.0, True), None),
    ("threshold_", lambda f, x: f.threshold_(x, 0.2, 9.0), None),
    ("relu", lambda f, x: f.relu(x, True), None),
    ("relu_", lambda f, x: f.relu_(x), None),
    ("leaky_relu", lambda f, x: f.leaky_relu(x, 0.3, True), None),
    ("leaky_relu_", lambda f, x: f.leaky_relu_(x, 0.3), None),
    ("elu_", lambda f, x: f.elu_(x), None),
    ("celu_", lambda f, x: f.celu_(x, 0.5), None),
    ("selu_", lambda f, x: f.selu_(x), None),
    ("rrelu_eval", lambda f, x: f.rrelu(x, 0.1, 0.2, False, True), None),
    ("silu", lambda f, x: f.silu(x, True), None),
]


@pytest.mark.parametrize("name,fn,_", INPLACE, ids=[n for n, _, _ in INPLACE])
def test_inplace_values_version_and_grad(name, fn, _):
    a = RNG.standard_normal((3, 5))
    e = ember.from_numpy(a.copy())
    t = torch.from_numpy(a.copy())
    v0 = e._version
    out = fn(F, e)
    assert out is e and e._version > v0
    close(e, fn(TF, t), 1e-12, 1e-12)
    # Through a non-leaf: gradients as torch's.
    el = ember.from_numpy(a.copy()).requires_grad_()
    tl = torch.from_numpy(a.copy()).requires_grad_()
    y = el * 1.5
    fn(F, y)
    (y * y).sum().backward()
    ty = tl * 1.5
    fn(TF, ty)
    (ty * ty).sum().backward()
    close(el.grad, tl.grad, 1e-7 if name in _FLOAT_CONSTANT_GRADS else 1e-10, 1e-12)
    # On a leaf that requires grad: refused, as in torch.
    leaf = ember.from_numpy(a.copy()).requires_grad_()
    with pytest.raises(RuntimeError, match="leaf Variable"):
        fn(F, leaf)


def test_top_level_and_methods():
    e, t = pair((4, 3))
    close(ember.selu(e), torch.selu(t))
    close(ember.celu(e, 0.3), torch.celu(t, 0.3))
    close(ember.threshold(e, 0.0, 5.0), torch.threshold(t, 0.0, 5.0))
    close(ember.hardshrink(e, 0.4), torch.hardshrink(t, 0.4))
    close(e.hardshrink(), t.hardshrink())
    close(e.hardshrink(lambd=0.1), t.hardshrink(lambd=0.1))
    w_e, w_t = ember.tensor([0.1, 0.2, 0.3], dtype=ember.float64), torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)
    close(ember.prelu(e, w_e), torch.prelu(t, w_t))
    close(e.prelu(w_e), t.prelu(w_t))
    close(ember.rrelu(e), torch.rrelu(t))
    for name in ["relu_", "selu_"]:
        x, tx = e.clone(), t.clone()
        assert getattr(ember, name)(x) is x
        getattr(torch, name)(tx)
        close(x, tx)
    x, tx = e.clone(), t.clone()
    ember.celu_(x, 2.0)
    torch.celu_(tx, 2.0)
    close(x, tx)
    x, tx = e.clone(), t.clone()
    ember.threshold_(x, 0.5, -1)
    torch.threshold_(tx, 0.5, -1)
    close(x, tx)


@pytest.mark.parametrize("shape,wshape", [((4, 3, 5), (3,)), ((4, 3, 2, 2), (1,)), ((6,), (1,)), ((), (1,)),
                                          ((2, 3), ()), ((0, 3), (3,))])
def test_prelu_values_and_grads(shape, wshape):
    a = RNG.standard_normal(shape)
    w = RNG.standard_normal(wshape)
    e, t = ember.from_numpy(a.copy()).requires_grad_(), torch.from_numpy(a.copy()).requires_grad_()
    we, wt = ember.from_numpy(np.array(w)).requires_grad_(), torch.from_numpy(np.array(w)).requires_grad_()
    oe, ot = F.prelu(e, we), TF.prelu(t, wt)
    close(oe, ot, 1e-12, 1e-12)
    g = RNG.standard_normal(ot.shape)
    (oe * ember.from_numpy(np.array(g))).sum().backward()
    (ot * torch.from_numpy(np.array(g))).sum().backward()
    close(e.grad, t.grad, 1e-10, 1e-12)
    close(we.grad, wt.grad, 1e-10, 1e-12)


def test_rrelu_training_draws_slopes_in_range():
    ember.manual_seed(0)
    x = -ember.rand(2000, dtype=ember.float64) - 0.1
    x.requires_grad_()
    y = F.rrelu(x, 0.2, 0.4, training=True)
    slopes = (y / x).detach().numpy()
    assert slopes.min() >= 0.2 and slopes.max() <= 0.4 and slopes.std() > 0.03
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-12)
    pos = ember.rand(10, dtype=ember.float64) + 0.1
    assert F.rrelu(pos, training=True).tolist() == pos.tolist()
    # The generator decides the draw.
    g1, g2 = ember.Generator().manual_seed(5), ember.Generator().manual_seed(5)
    z = -ember.ones(50)
    assert ember.rrelu(z, training=True, generator=g1).tolist() == \
        ember.rrelu(z, training=True, generator=g2).tolist()
    # In place while training.
    w = -ember.ones(100)
    assert F.rrelu(w, training=True, inplace=True) is w
    assert ((w <= -1 / 8) & (w >= -1 / 3)).all().item()


def test_softmin_implicit_dim_warns():
    e, t = pair((2, 3))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        out = F.softmin(e)
    with pytest.warns(UserWarning):
        close(out, TF.softmin(t))


MODULES = [
    ("ELU()", {}), ("ELU(alpha=2.0, inplace=True)", {}), ("SELU()", {}), ("SELU(True)", {}),
    ("CELU(0.5)", {}), ("CELU(alpha=2.0, inplace=True)", {}), ("Hardtanh()", {}),
    ("Hardtanh(-2, 2, True)", {}), ("Hardtanh(min_val=-0.5, max_val=0.25)", {}), ("ReLU6()", {}),
    ("ReLU6(inplace=True)", {}), ("Hardsigmoid()", {}), ("Hardsigmoid(True)", {}), ("Hardswish(True)", {}),
    ("Mish()", {}), ("Mish(True)", {}), ("LogSigmoid()", {}), ("Softsign()", {}), ("Softshrink()", {}),
    ("Softshrink(0.25)", {}), ("Hardshrink(lambd=0.1)", {}), ("Tanhshrink()", {}),
    ("Threshold(0.1, 20)", {}), ("Threshold(0.1, 20.0, inplace=True)", {}), ("GLU()", {}), ("GLU(0)", {}),
    ("PReLU()", {}), ("PReLU(3, 0.1)", {}), ("RReLU()", {}), ("RReLU(0.1, 0.3, True)", {}),
    ("Softmin(1)", {}), ("Softmin()", {}), ("Softmax2d()", {}), ("Softplus()", {}),
    ("Softplus(beta=2, threshold=10)", {}),
]


@pytest.mark.parametrize("expr", [m for m, _ in MODULES])
def test_module_repr_and_forward(expr):
    em = eval("enn." + expr)
    tm = eval("torch.nn." + expr)
    assert repr(em) == repr(tm)
    em.eval()
    tm.eval()
    a = RNG.standard_normal((2, 3 if expr.startswith("PReLU(3") else 4, 3, 2))
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if expr.startswith("PReLU"):
        e, t = e.float(), t.float()
    if expr == "Softmin()":
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
            out = em(e)
        with pytest.warns(UserWarning):
            close(out, tm(t))
        return
    close(em(e), tm(t))
    if "inplace=True" in repr(tm) or "True" in expr:
        assert np.allclose(e.numpy(), t.numpy(), equal_nan=True)


def test_hardtanh_module_bounds():
    with pytest.raises(AssertionError):
        enn.Hardtanh(1.0, 1.0)
    with pytest.warns(FutureWarning):
        m = enn.Hardtanh(min_value=-3.0)
    assert m.min_val == -3.0


def test_softmax2d_rank_check():
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D instead"):
        enn.Softmax2d()(ember.zeros(2, 3))


def test_prelu_module_training_step():
    tm = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.PReLU(3), torch.nn.Linear(3, 1))
    em = enn.Sequential(enn.Linear(4, 3), enn.PReLU(3), enn.Linear(3, 1))
    em.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert isinstance(em[1].weight, enn.Parameter) and tuple(em[1].weight.shape) == (3,)
    te, tt = pair((8, 4), np.float32)
    topt = torch.optim.SGD(tm.parameters(), lr=0.1)
    eopt = ember.optim.SGD(em.parameters(), lr=0.1)
    for _ in range(3):
        topt.zero_grad()
        eopt.zero_grad()
        tm(tt).pow(2).mean().backward()
        em(te).pow(2).mean().backward()
        topt.step()
        eopt.step()
    close(em[1].weight, tm[1].weight)
    close(em[0].weight, tm[0].weight)


def test_rrelu_module_train_eval():
    m = enn.RReLU(0.1, 0.3)
    x = -ember.ones(1000)
    y = m(x)
    assert y.unique().numel() > 10
    m.eval()
    assert np.allclose(m(x).numpy(), -0.2)


def test_exports():
    for name in ["ELU", "SELU", "CELU", "Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish", "Mish", "LogSigmoid",
                 "Softsign", "Softshrink", "Hardshrink", "Tanhshrink", "Threshold", "GLU", "PReLU", "RReLU",
                 "Softmin", "Softmax2d", "Softplus"]:
        assert name in enn.__all__ and hasattr(enn, name)
    for name in ["elu", "selu", "celu", "hardtanh", "hardtanh_", "relu6", "hardsigmoid", "hardswish", "mish",
                 "logsigmoid", "softsign", "softshrink", "hardshrink", "tanhshrink", "threshold", "threshold_",
                 "glu", "prelu", "rrelu", "rrelu_", "softmin", "relu_", "elu_", "leaky_relu_", "softplus"]:
        assert name in F.__all__ and hasattr(F, name)
