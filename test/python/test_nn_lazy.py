"""Lazy modules (LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*,
LazyInstanceNorm*), UninitializedParameter / UninitializedBuffer and nn.Buffer against
torch: reprs and state_dicts before and after the first forward, the inferred shapes, the
class each becomes, outputs and gradients with the same weights, optimizers made after
the dry run, state_dict loading, conversions, copies, and the errors of an uninitialized
module."""
import copy
import pickle

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.optim

from _torch_compare import copy_state

torch = pytest.importorskip("torch")

rng = np.random.default_rng(17)


def randn(*shape):
    return rng.standard_normal(shape)


def t_(lib, a):
    return lib.from_numpy(np.ascontiguousarray(a))


LAZY = [
    ("LazyLinear", (3,), {}, (2, 4)),
    ("LazyLinear", (5,), dict(bias=False), (2, 3, 6)),
    ("LazyConv1d", (4, 3), dict(stride=2, padding=1, groups=2), (2, 4, 9)),
    ("LazyConv1d", (2, 3), {}, (3, 7)),  # unbatched
    ("LazyConv2d", (4, 3), dict(padding="same", bias=False), (2, 3, 6, 5)),
    ("LazyConv3d", (4, 2), dict(padding=1, padding_mode="reflect"), (1, 2, 4, 5, 6)),
    ("LazyConv3d", (2, (1, 2, 2)), dict(stride=2), (3, 4, 5, 6)),
    ("LazyConvTranspose1d", (4, 3), dict(stride=2, output_padding=1, groups=2), (2, 4, 5)),
    ("LazyConvTranspose2d", (3, 2), dict(stride=2, dilation=2), (2, 3, 4, 5)),
    ("LazyConvTranspose3d", (2, 2), dict(stride=(1, 2, 1), bias=False), (1, 3, 3, 4, 2)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm1d", (), dict(affine=False, momentum=None), (4, 3, 5)),
    ("LazyBatchNorm2d", (), dict(track_running_stats=False), (2, 3, 4, 5)),
    ("LazyBatchNorm3d", (), dict(eps=1e-3, bias=False), (2, 3, 2, 3, 4)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), dict(affine=False, track_running_stats=False), (2, 3, 4, 5)),
    ("LazyInstanceNorm3d", (), {}, (2, 3, 2, 3, 4)),
]


def _kind(value):
    return type(value).__name__


def _outputs_and_grads(e, t, x):
    xe, xt = t_(ember, x).requires_grad_(), t_(torch, x).requires_grad_()
    ye, yt = e(xe), t(xt)
    assert tuple(ye.shape) == tuple(yt.shape)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-9, atol=1e-10)
    seed = randn(*yt.shape)
    ye.backward(t_(ember, seed))
    yt.backward(t_(torch, seed))
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-10)
    e_params = dict(e.named_parameters())
    for name, p in t.named_parameters():
        np.testing.assert_allclose(e_params[name].grad.numpy(), p.grad.numpy(), rtol=1e-9,
                                   atol=1e-10)


@pytest.mark.parametrize("name,args,kw,shape", LAZY)
@pytest.mark.filterwarnings("ignore:input's size at dim")  # a non-affine InstanceNorm(0)
def test_lazy_module_lifecycle(name, args, kw, shape):
    e = getattr(nn, name)(*args, **kw).double()
    t = getattr(torch.nn, name)(*args, **kw).double()
    # before the first forward
    assert repr(e) == repr(t)
    assert e.has_uninitialized_params() == t.has_uninitialized_params()
    e_sd, t_sd = e.state_dict(), t.state_dict()
    assert list(e_sd) == list(t_sd)
    assert [_kind(v) for v in e_sd.values()] == [_kind(v) for v in t_sd.values()]
    assert [repr(v) for k, v in e_sd.items() if nn.parameter.is_lazy(v)] == \
        [repr(v) for k, v in t_sd.items() if torch.nn.parameter.is_lazy(v)]
    assert [(n, _kind(b)) for n, b in e.named_buffers()] == [(n, _kind(b)) for n, b in t.named_buffers()]
    assert [(n, _kind(p)) for n, p in e.named_parameters()] == \
        [(n, _kind(p)) for n, p in t.named_parameters()]
    # the dry run
    x = randn(*shape)
    e(t_(ember, x))
    torch.manual_seed(0)
    t(t_(torch, x))
    assert type(e).__name__ == type(t).__name__ == type(t).__name__.replace("Lazy", "")
    assert isinstance(e, getattr(nn, type(t).__name__))
    assert repr(e) == repr(t)
    assert not hasattr(e, "_initialize_hook") and not hasattr(e, "_load_hook")
    assert len(e._forward_pre_hooks) == len(t._forward_pre_hooks) == 0
    assert list(e.state_dict()) == list(t.state_dict())
    for (ne, pe), (nt, pt) in zip(e.named_parameters(), t.named_parameters()):
        assert ne == nt and _kind(pe) == _kind(pt) == "Parameter"
        assert tuple(pe.shape) == tuple(pt.shape) and pe.requires_grad
        assert str(pe.dtype) == "ember.float64"
    for (ne, be), (nt, bt) in zip(e.named_buffers(), t.named_buffers()):
        assert ne == nt and tuple(be.shape) == tuple(bt.shape)
        assert str(be.dtype).split(".")[-1] == str(bt.dtype).split(".")[-1]
        assert type(be) is ember.Tensor
    # with torch's weights (and running statistics): same outputs and gradients
    copy_state(t, e)
    _outputs_and_grads(e, t, randn(*shape))
    for k, v in t.state_dict().items():
        np.testing.assert_allclose(e.state_dict()[k].numpy(), v.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name,args,kw,shape", [c for c in LAZY if "Linear" in c[0] or "Conv" in c[0]])
def test_lazy_init_follows_the_layer(name, args, kw, shape):
    """The dry run initializes with the layer's reset_parameters (kaiming_uniform_, a=sqrt(5))."""
    e = getattr(nn, name)(*args, **kw)
    e(t_(ember, randn(*shape)).float())
    w = e.weight.detach().numpy()
    fan_in = w.shape[1] * int(np.prod(w.shape[2:]))  # torch's fan_in of any weight layout
    bound = 1 / np.sqrt(fan_in)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.5 * bound
    if e.bias is not None:
        assert np.abs(e.bias.detach().numpy()).max() <= bound


@pytest.mark.parametrize("name,args,kw,shape", [LAZY[0], LAZY[2], LAZY[8], LAZY[10], LAZY[16]])
def test_optimizer_made_after_the_dry_run(name, args, kw, shape):
    e = getattr(nn, name)(*args, **kw).double()
    t = getattr(torch.nn, name)(*args, **kw).double()
    x = randn(*shape)
    e(t_(ember, x))
    t(t_(torch, x))
    copy_state(t, e)
    opt_e = ember.optim.SGD(e.parameters(), lr=0.1, momentum=0.9)
    opt_t = torch.optim.SGD(t.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        x = randn(*shape)
        opt_e.zero_grad()
        opt_t.zero_grad()
        (e(t_(ember, x)) ** 2).sum().backward()
        (t(t_(torch, x)) ** 2).sum().backward()
        opt_e.step()
        opt_t.step()
    for (n, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(pe.detach().numpy(), pt.detach().numpy(), rtol=1e-9, atol=1e-12)


def test_lazy_mlp_in_a_container():
    class LazyMLP:
        def __init__(self, lib):
            self.net = lib.nn.Sequential(lib.nn.LazyLinear(10), lib.nn.ReLU(), lib.nn.LazyLinear(1))

    e, t = LazyMLP(ember).net.double(), LazyMLP(torch).net.double()
    assert repr(e) == repr(t)
    x = randn(6, 4)
    e(t_(ember, x))
    t(t_(torch, x))
    assert repr(e) == repr(t)
    copy_state(t, e)
    _outputs_and_grads(e, t, randn(5, 4))


# ---- errors of uninitialized modules --------------------------------------------------------

def same_error(fn):
    with pytest.raises(Exception) as t_err:
        fn(torch)
    with pytest.raises(Exception) as e_err:
        fn(ember)
    assert type(e_err.value).__name__ == type(t_err.value).__name__, (e_err.value, t_err.value)


@pytest.mark.parametrize("case", [
    lambda L: L.nn.LazyLinear(3).weight.shape,
    lambda L: L.nn.LazyLinear(3).weight.numel(),
    lambda L: L.nn.LazyLinear(3).weight.dim(),
    lambda L: L.nn.LazyLinear(3).weight.sum(),
    lambda L: L.nn.LazyLinear(3).weight + 1,
    lambda L: L.nn.LazyLinear(3).weight * 2,
    lambda L: L.nn.LazyLinear(3).weight[0],
    lambda L: L.nn.LazyLinear(3).bias.detach(),
    lambda L: L.nn.LazyLinear(3).weight.share_memory_(),
    lambda L: sum(p.numel() for p in L.nn.LazyLinear(3).parameters()),
    lambda L: L.nn.LazyBatchNorm1d().running_mean.shape,
    lambda L: L.nn.LazyBatchNorm1d().running_mean.mean(),
    lambda L: L.nn.LazyConv2d(4, 3)(L.zeros(3, 5)),  # rank
    lambda L: L.nn.LazyConv2d(4, 3, groups=2)(L.zeros(2, 3, 5, 5)),  # groups
    lambda L: L.nn.LazyConvTranspose2d(4, 3, groups=2)(L.zeros(2, 3, 5, 5)),
    lambda L: L.nn.LazyBatchNorm2d()(L.zeros(2, 3, 4)),  # rank (after the dry run)
    lambda L: L.nn.LazyInstanceNorm1d()(L.zeros(3, 5)),  # unbatched: num_features from dim 1
    lambda L: L.nn.Linear(4, 3).load_state_dict(L.nn.LazyLinear(3).state_dict()),
    lambda L: L.nn.parameter.UninitializedParameter().shape,
    lambda L: L.nn.parameter.UninitializedBuffer().tolist(),
])
def test_uninitialized_errors(case):
    same_error(case)


def test_lazy_linear_rejects_another_width_after_the_dry_run():
    for lib in (ember, torch):
        m = lib.nn.LazyLinear(3)
        m(lib.zeros(2, 4))
        with pytest.raises(RuntimeError):
            m(lib.zeros(2, 5))


def test_allowed_uses_before_the_dry_run():
    for lib in (ember, torch):
        p = lib.nn.LazyLinear(3).weight
        assert tuple(p.size()) == (0,)
        assert p.is_floating_point() and not p.is_complex()
        assert p.requires_grad and p.grad is None and p.is_leaf
        assert str(p.dtype).split(".")[-1] == "float32"
        assert repr(p) == "<UninitializedParameter>"
        q = lib.nn.LazyBatchNorm1d().running_var
        assert repr(q) == "<UninitializedBuffer>" and not q.requires_grad


# ---- loading, conversions, copies -----------------------------------------------------------

def test_load_initialized_state_into_a_lazy_module():
    full = torch.nn.Linear(4, 3).double()
    sd = full.state_dict()
    e, t = nn.LazyLinear(3).double(), torch.nn.LazyLinear(3).double()
    assert repr(e.load_state_dict({k: t_(ember, v.numpy()) for k, v in sd.items()})) == \
        repr(t.load_state_dict(sd))
    # materialized with the loaded values, still the lazy class until its forward
    assert type(e).__name__ == type(t).__name__ == "LazyLinear"
    assert _kind(e.weight) == _kind(t.weight) == "Parameter"
    assert e.in_features == t.in_features == 0
    np.testing.assert_array_equal(e.weight.detach().numpy(), full.weight.detach().numpy())
    x = randn(2, 4)
    _outputs_and_grads(e, t, x)
    assert type(e).__name__ == type(t).__name__ == "Linear"
    assert e.in_features == t.in_features == 4
    # a lazy batch norm loads its statistics' shapes too
    bn = torch.nn.BatchNorm1d(5).double()
    bn(torch.from_numpy(randn(4, 5)))
    e, t = nn.LazyBatchNorm1d().double(), torch.nn.LazyBatchNorm1d().double()
    copy_state(bn, e)
    t.load_state_dict(bn.state_dict())
    assert tuple(e.running_mean.shape) == (5,) and type(e.running_mean) is ember.Tensor
    np.testing.assert_allclose(e.running_mean.numpy(), bn.running_mean.numpy())
    _outputs_and_grads(e, t, randn(4, 5))
    # torch's quirk, kept: nothing was left to infer, so num_features stays 0
    assert type(e).__name__ == "BatchNorm1d" and e.num_features == t.num_features == 0
    assert repr(e) == repr(t)


def test_load_uninitialized_state_into_a_lazy_module():
    for lib in (ember, torch):
        m = lib.nn.LazyBatchNorm2d()
        result = m.load_state_dict(lib.nn.LazyBatchNorm2d().state_dict())
        assert repr(result) == "<All keys matched successfully>"
        assert m.has_uninitialized_params()
        m(lib.zeros(2, 3, 2, 2))
        assert type(m).__name__ == "BatchNorm2d"
    for lib in (ember, torch):  # missing keys are still reported
        with pytest.raises(RuntimeError, match="Missing key"):
            lib.nn.LazyLinear(3).load_state_dict({"weight": lib.nn.LazyLinear(3).weight})


def test_conversions_before_the_dry_run():
    for lib in (ember, torch):
        m = lib.nn.LazyBatchNorm1d().double()
        assert _kind(m.weight) == "UninitializedParameter"
        assert _kind(m.running_mean) == "UninitializedBuffer"
        assert str(m.running_mean.dtype).split(".")[-1] == "float64"
        assert str(m.weight.dtype).split(".")[-1] == "float64"
        m(lib.zeros(4, 3, dtype=lib.float64))
        assert str(m.running_mean.dtype).split(".")[-1] == "float64"
        assert str(m.num_batches_tracked.dtype).split(".")[-1] == "int64"
        assert int(m.num_batches_tracked) == 1


def test_deepcopy_and_pickle_keep_each_copy_lazy():
    e = nn.LazyLinear(3)
    clone = copy.deepcopy(e)
    restored = pickle.loads(pickle.dumps(e))
    clone(ember.zeros(2, 6))
    assert type(clone).__name__ == "Linear" and clone.in_features == 6
    assert type(e).__name__ == "LazyLinear" and e.has_uninitialized_params()
    assert repr(restored) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    restored(ember.zeros(2, 5))
    assert restored.in_features == 5 and type(restored).__name__ == "Linear"
    e(ember.zeros(1, 4))
    assert e.in_features == 4 and len(e._forward_pre_hooks) == 0
    # hooks registered after a restore get fresh ids
    m = pickle.loads(pickle.dumps(nn.LazyConv2d(2, 3)))
    handle = m.register_forward_pre_hook(lambda mod, args: None)
    assert handle.id != m._initialize_hook.id
    m(ember.zeros(1, 2, 5, 5))
    assert type(m).__name__ == "Conv2d" and len(m._forward_pre_hooks) == 1


def test_uninitialized_parameter_and_buffer():
    for lib in (ember, torch):
        P, B = lib.nn.UninitializedParameter, lib.nn.UninitializedBuffer
        p = P()
        assert p.requires_grad and isinstance(p, lib.nn.Parameter)
        p.materialize((2, 3))
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3) and p.requires_grad
        p = P(requires_grad=False, dtype=lib.float64)
        p.materialize((4,))
        assert not p.requires_grad and str(p.dtype).split(".")[-1] == "float64"
        b = B()
        assert not b.requires_grad and b.persistent and b._is_buffer
        b.materialize((2,), dtype=lib.float64)
        assert type(b) is lib.Tensor and tuple(b.shape) == (2,)
        assert str(b.dtype).split(".")[-1] == "float64"
        assert isinstance(b, lib.nn.Buffer)
        c = copy.deepcopy(P(dtype=lib.float64))
        assert type(c).__name__ == "UninitializedParameter"
        assert str(c.dtype).split(".")[-1] == "float64"
        assert lib.nn.parameter.is_lazy(B(persistent=False)) and not lib.nn.parameter.is_lazy(lib.zeros(1))


# ---- nn.Buffer ---------------------------------------------------------------------------

def _buffer_module(lib):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Buffer(lib.ones(2))
            self.b = lib.nn.Buffer(lib.zeros(1), persistent=False)
            self.c = lib.ones(1)  # a plain tensor stays an attribute

    return M()


def test_buffer_registration():
    e, t = _buffer_module(ember), _buffer_module(torch)
    assert list(e.state_dict()) == list(t.state_dict()) == ["a"]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()] == ["a", "b"]
    assert e._non_persistent_buffers_set == t._non_persistent_buffers_set == {"b"}
    for m, lib in ((e, ember), (t, torch)):
        assert type(m.a) is lib.Tensor and isinstance(m.a, lib.nn.Buffer)
        assert not isinstance(lib.ones(1), lib.nn.Buffer) and not isinstance(m.c, lib.nn.Buffer)
        # re-assigning changes the persistence
        m.a = lib.nn.Buffer(lib.ones(3), persistent=False)
        assert list(m.state_dict()) == [] and m._non_persistent_buffers_set == {"a", "b"}
        m.b = lib.nn.Buffer(lib.ones(3))
        assert list(m.state_dict()) == ["b"]
        # a plain tensor assigned to a buffer's name stays a buffer (its persistence kept)
        m.b = lib.zeros(4)
        assert list(m.state_dict()) == ["b"] and tuple(m.b.shape) == (4,)
        # Buffer keeps requires_grad and shares memory with its data
        x = lib.ones(2, requires_grad=True)
        buf = lib.nn.Buffer(x)
        assert buf.requires_grad and buf.grad_fn is None
        buf.data.mul_(2) if lib is torch else buf.detach().mul_(2)
        assert float(x.detach()[0]) == 2.0
        assert tuple(lib.nn.Buffer().shape) == (0,)
        m.to(lib.float64)
        assert str(m.b.dtype).split(".")[-1] == "float64"


@pytest.mark.parametrize("case", [
    lambda L: setattr(_buffer_module(L), "c", L.nn.Buffer(L.ones(1))),  # an attribute already
    lambda L: _set_param_then_buffer(L),
    lambda L: _buffer_before_init(L),
    lambda L: L.nn.Buffer(3),
])
def test_buffer_errors(case):
    same_error(case)


def _set_param_then_buffer(lib):
    m = lib.nn.Module()
    m.p = lib.nn.Parameter(lib.ones(1))
    m.p = lib.nn.Buffer(lib.ones(1))


def _buffer_before_init(lib):
    class M(lib.nn.Module):
        def __init__(self):
            self.a = lib.nn.Buffer(lib.ones(1))
            super().__init__()

    M()
