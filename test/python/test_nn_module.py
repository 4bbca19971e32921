"""ember.nn.Module and Parameter: registration, traversal, state_dict, modes,
conversions, hooks and repr (compared with torch's where torch is importable)."""
import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import ember
import ember.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.block = nn.Sequential(nn.ReLU(), nn.Linear(4, 2))
        self.scale = nn.Parameter(ember.ones(1))
        self.register_buffer("steps", ember.zeros(1))
        self.register_buffer("cache", ember.zeros(2), persistent=False)

    def forward(self, x):
        return self.block(self.fc1(x)) * self.scale


# ---- Parameter -----------------------------------------------------------------------

def test_parameter_is_a_tensor_subclass():
    data = ember.randn(2, 3)
    p = nn.Parameter(data)
    assert isinstance(p, ember.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert not data.requires_grad  # p is a detached alias of data
    assert not nn.Parameter(data, requires_grad=False).requires_grad
    data.add_(1)
    np.testing.assert_array_equal(p.detach().numpy(), data.numpy())  # shares memory
    assert type(p + 1) is ember.Tensor and type(p.t()) is ember.Tensor
    assert type(p.detach()) is ember.Tensor and type(p.data) is ember.Tensor
    assert nn.Parameter().shape == (0,)


def test_parameter_repr_and_copies():
    p = nn.Parameter(ember.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert str(p) == repr(p)
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad
    q.data.add_(1)
    assert p.tolist() == [1.0, 2.0]
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is nn.Parameter and r.tolist() == [1.0, 2.0]


def test_parameter_grad_and_data_setter():
    p = nn.Parameter(ember.ones(3))
    (p * 2).sum().backward()
    assert p.grad.tolist() == [2.0, 2.0, 2.0]
    p.data = ember.zeros(3, dtype=ember.float64)
    assert p.dtype == ember.float64 and p.requires_grad and type(p) is nn.Parameter
    assert p.grad is None  # the old grad no longer fits


def test_tensor_constructor_and_make_subclass():
    x = ember.randn(3, requires_grad=True)
    a = ember.Tensor(x)  # a detached alias, as torch.Tensor(tensor)
    assert type(a) is ember.Tensor and not a.requires_grad and a.grad_fn is None
    with ember.no_grad():
        a.mul_(0)
    assert x.tolist() == [0.0, 0.0, 0.0]
    assert ember.Tensor(x, requires_grad=True).requires_grad
    p = ember.Tensor._make_subclass(nn.Parameter, x, True)
    assert type(p) is nn.Parameter and p.requires_grad
    with pytest.raises(TypeError, match="subclass of Tensor"):
        ember.Tensor._make_subclass(int, x)
    t = ember.zeros(2)
    t.data = ember.ones(3, dtype=ember.float64)
    assert t.tolist() == [1.0, 1.0, 1.0] and t.dtype == ember.float64


# ---- registration ----------------------------------------------------------------------

def test_setattr_registers_parameters_modules_buffers():
    m = Net()
    assert list(m._parameters) == ["scale"]
    assert list(m._modules) == ["fc1", "block"]
    assert list(m._buffers) == ["steps", "cache"]
    m.extra = 5
    assert m.extra == 5 and "extra" not in m._parameters
    m.steps = ember.ones(1)
    assert m._buffers["steps"].tolist() == [1.0]
    with pytest.raises(TypeError, match="cannot assign 'int' as parameter 'scale'"):
        m.scale = 3
    with pytest.raises(TypeError, match="as child module 'fc1'"):
        m.fc1 = ember.zeros(1)
    with pytest.raises(TypeError, match="as buffer 'steps'"):
        m.steps = 1.0
    m.scale = None
    assert m.scale is None and "scale" in m._parameters
    m.fc1 = nn.Parameter(ember.zeros(1))  # a name moves from _modules to _parameters
    assert "fc1" not in m._modules and "fc1" in m._parameters
    del m.fc1, m.steps, m.block
    assert not hasattr(m, "fc1") and "steps" not in m._buffers and "block" not in m._modules
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nothing'"):
        m.nothing


def test_register_checks():
    m = nn.Module()
    with pytest.raises(KeyError, match="contain"):
        m.register_parameter("a.b", None)
    with pytest.raises(KeyError, match="empty string"):
        m.register_buffer("", None)
    with pytest.raises(TypeError, match="should be a string"):
        m.add_module(3, nn.ReLU())
    with pytest.raises(TypeError, match="is not a Module subclass"):
        m.add_module("x", 3)
    with pytest.raises(TypeError, match="to parameter 'w'"):
        m.register_parameter("w", ember.zeros(2))
    with pytest.raises(TypeError, match="to buffer 'b'"):
        m.register_buffer("b", [1, 2])
    x = ember.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'w'"):
        m.register_parameter("w", _non_leaf_parameter(x))
    m.register_module("child", nn.ReLU())
    with pytest.raises(KeyError, match="attribute 'child' already exists"):
        m.register_buffer("child", None)
    m.plain = 1
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.register_parameter("plain", None)

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(ember.zeros(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def _non_leaf_parameter(x):
    """A Parameter object with a grad_fn is impossible to build from Python, so use a
    stand-in object that looks like one to register_parameter's check."""
    class Fake(nn.Parameter):
        grad_fn = (x * 2).grad_fn

    return Fake(ember.zeros(2))


def test_missing_forward():
    with pytest.raises(NotImplementedError, match=r'Module \[Module\] is missing the required "forward"'):
        nn.Module()(1)


# ---- traversal -----------------------------------------------------------------------

def test_named_parameters_buffers_modules():
    m = Net()
    assert [n for n, _ in m.named_parameters()] == [
        "scale", "fc1.weight", "fc1.bias", "block.1.weight", "block.1.bias"]
    assert [n for n, _ in m.named_parameters(recurse=False)] == ["scale"]
    assert [n for n, _ in m.named_parameters(prefix="net")][0] == "net.scale"
    assert len(list(m.parameters())) == 5
    assert [n for n, _ in m.named_buffers()] == ["steps", "cache"]
    assert [n for n, _ in m.named_children()] == ["fc1", "block"]
    assert [n for n, _ in m.named_modules()] == ["", "fc1", "block", "block.0", "block.1"]
    assert [type(c).__name__ for c in m.children()] == ["Linear", "Sequential"]
    assert len(list(m.modules())) == 5


def test_shared_parameters_and_modules_are_deduplicated():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, lin)
    assert len(list(seq.parameters())) == 2
    assert [n for n, _ in seq.named_parameters(remove_duplicate=False)] == [
        "0.weight", "0.bias", "1.weight", "1.bias"]
    assert len(list(seq.modules())) == 2
    assert len(list(seq.named_modules(remove_duplicate=False))) == 3
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_get_submodule_parameter_buffer():
    m = Net()
    assert m.get_submodule("block.1") is m.block[1]
    assert m.get_submodule("") is m
    assert m.get_parameter("block.1.weight") is m.block[1].weight
    assert m.get_buffer("steps") is m.steps
    with pytest.raises(AttributeError, match="Sequential has no attribute `7`"):
        m.get_submodule("block.7")
    with pytest.raises(AttributeError, match="`scale` is not an nn.Module"):
        m.get_submodule("scale")
    with pytest.raises(AttributeError, match="`steps` is not an nn.Parameter"):
        m.get_parameter("steps")


# ---- modes, grads, conversions -------------------------------------------------------

def test_train_eval_requires_grad_zero_grad():
    m = Net()
    assert m.training and m.block[0].training
    assert m.eval() is m and not m.training and not m.block[1].training
    m.train()
    assert m.block[1].training
    with pytest.raises(ValueError, match="expected to be boolean"):
        m.train("yes")
    m(ember.randn(2, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(p.grad is not None and p.grad.abs().sum().item() == 0 for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_to_dtype_keeps_parameter_objects():
    m = Net()
    m.register_buffer("count", ember.zeros(1, dtype=ember.int64))
    weight = m.fc1.weight
    opt = ember.optim.SGD(m.parameters(), lr=0.1)
    m(ember.randn(2, 3)).sum().backward()
    assert m.to(ember.float64) is m
    assert m.fc1.weight is weight and type(weight) is nn.Parameter
    assert weight.dtype == ember.float64 and weight.requires_grad
    assert weight.grad.dtype == ember.float64
    assert m.steps.dtype == ember.float64 and m.count.dtype == ember.int64
    before = weight.detach().clone()
    opt.step()  # the optimizer still holds the converted parameter
    assert not np.allclose(weight.detach().numpy(), before.numpy())
    m.float()
    assert weight.dtype == ember.float32
    assert m.half().fc1.weight.dtype == ember.float16
    m.to(dtype=ember.float32, device="cpu")
    m.cpu()
    assert m(ember.randn(2, 3)).dtype == ember.float32
    with pytest.raises(TypeError, match="floating point"):
        m.to(ember.int32)


def test_apply_visits_children_first():
    seen = []
    Net().apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "ReLU", "Linear", "Sequential", "Net"]


# ---- state_dict ----------------------------------------------------------------------

def test_state_dict_round_trip():
    a, b = Net(), Net()
    sd = a.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == ["scale", "steps", "fc1.weight", "fc1.bias", "block.1.weight",
                        "block.1.bias"]  # the non-persistent buffer is left out
    assert not sd["fc1.weight"].requires_grad and type(sd["scale"]) is ember.Tensor
    assert a.state_dict(keep_vars=True)["scale"] is a.scale
    assert list(a.fc1.state_dict(prefix="x."))[0] == "x.weight"
    result = b.load_state_dict(sd)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    x = ember.randn(3, 3)
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())
    weight = b.fc1.weight
    b.load_state_dict({k: v + 1 for k, v in sd.items()})
    assert b.fc1.weight is weight  # loaded in place
    b.load_state_dict(sd, assign=True)
    assert b.fc1.weight is not weight and type(b.fc1.weight) is nn.Parameter


def test_state_dict_survives_ember_save_load(tmp_path):
    a, b = Net(), Net()
    ember.save(a.state_dict(), tmp_path / "net.pt")
    b.load_state_dict(ember.load(tmp_path / "net.pt"))
    np.testing.assert_array_equal(b.fc1.weight.detach().numpy(), a.fc1.weight.detach().numpy())


def test_load_state_dict_strict_errors():
    m = Net()
    sd = m.state_dict()
    del sd["fc1.bias"]
    sd["fc1.extra"] = ember.zeros(1)
    sd["other"] = ember.zeros(1)
    with pytest.raises(RuntimeError) as err:
        m.load_state_dict(sd)
    assert str(err.value) == (
        "Error(s) in loading state_dict for Net:\n"
        '\tMissing key(s) in state_dict: "fc1.bias". \n'
        '\tUnexpected key(s) in state_dict: "other", "fc1.extra". ')
    result = m.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["fc1.bias"]
    assert result.unexpected_keys == ["other", "fc1.extra"]  # torch's order: module by module
    bad = Net().state_dict()
    bad["fc1.weight"] = ember.zeros(5, 3)
    with pytest.raises(RuntimeError, match=r"size mismatch for fc1.weight: copying a param with "
                                           r"shape ember.Size\(\[5, 3\]\) from checkpoint, the "
                                           r"shape in current model is ember.Size\(\[4, 3\]\)."):
        m.load_state_dict(bad)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        m.load_state_dict([1, 2])


def test_batchnorm_state_dict_without_num_batches_tracked():
    bn = nn.BatchNorm1d(3)
    sd = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    assert nn.BatchNorm1d(3).load_state_dict(sd).missing_keys == []  # an old-format dict


# ---- hooks ---------------------------------------------------------------------------

def test_forward_hooks():
    m = nn.Linear(2, 2)
    calls = []

    def pre(mod, args):
        calls.append("pre")
        return (args[0] * 0,)

    def post(mod, args, out):
        calls.append("post")
        return out + 1

    h1 = m.register_forward_pre_hook(pre)
    h2 = m.register_forward_hook(post)
    m.register_forward_hook(lambda mod, args, out: calls.append("first"), prepend=True)
    out = m(ember.randn(3, 2))
    np.testing.assert_allclose(out.detach().numpy(), np.broadcast_to(m.bias.detach().numpy() + 1,
                                                                    (3, 2)), atol=1e-6)
    assert calls == ["pre", "first", "post"]
    h1.remove()
    h2.remove()
    calls.clear()
    m(ember.randn(1, 2))
    assert calls == ["first"]
    with m.register_forward_hook(lambda mod, a, kw, out: calls.append(kw), with_kwargs=True):
        pass
    assert len(m._forward_hooks) == 1


# ---- containers ----------------------------------------------------------------------

def test_sequential_indexing():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and len(sub) == 2 and sub[0] is seq[1]
    seq.append(nn.Sigmoid())
    assert [type(x).__name__ for x in seq] == ["Linear", "ReLU", "Linear", "Sigmoid"]
    del seq[1]
    assert list(seq._modules) == ["0", "1", "2"]
    seq[0] = nn.Identity()
    assert isinstance(seq[0], nn.Identity)
    with pytest.raises(IndexError):
        seq[5]
    named = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
    assert list(named._modules) == ["a", "b"]
    assert len(named + nn.Sequential(nn.ReLU())) == 3


def test_module_list_dict_parameter_list_dict():
    ml = nn.ModuleList([nn.Linear(1, 1)])
    ml.append(nn.ReLU())
    ml.extend([nn.Tanh()])
    ml += [nn.Sigmoid()]
    assert len(ml) == 4 and isinstance(ml[-1], nn.Sigmoid) and len(ml[1:3]) == 2
    ml.insert(0, nn.Identity())
    assert isinstance(ml[0], nn.Identity) and len(list(ml.parameters())) == 2
    md = nn.ModuleDict({"a": nn.Linear(1, 2)})
    md["b"] = nn.ReLU()
    md.update([("c", nn.Tanh())])
    assert list(md.keys()) == ["a", "b", "c"] and "b" in md and len(md) == 3
    assert md.pop("b").__class__ is nn.ReLU and list(md) == ["a", "c"]
    pl = nn.ParameterList([ember.zeros(2), nn.Parameter(ember.ones(3))])
    pl.append(ember.zeros(1))
    assert len(pl) == 3 and all(type(p) is nn.Parameter for p in pl)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    pd = nn.ParameterDict({"w": ember.zeros(2)})
    pd["v"] = nn.Parameter(ember.ones(1))
    assert list(pd.keys()) == ["w", "v"] and type(pd["w"]) is nn.Parameter
    assert [n for n, _ in pd.named_parameters()] == ["w", "v"]
    holder = nn.Module()
    holder.params = pl
    assert len(holder.state_dict()) == 3


# ---- repr, against torch -------------------------------------------------------------

def test_repr_format():
    assert repr(Net()) == (
        "Net(\n"
        "  (fc1): Linear(in_features=3, out_features=4, bias=True)\n"
        "  (block): Sequential(\n"
        "    (0): ReLU()\n"
        "    (1): Linear(in_features=4, out_features=2, bias=True)\n"
        "  )\n"
        ")")
    ml = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh()])
    assert repr(ml) == "ModuleList(\n  (0-1): 2 x ReLU()\n  (2): Tanh()\n)"


def test_repr_matches_torch():
    torch = pytest.importorskip("torch")
    exprs = [
        "nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),"
        " nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.1), nn.Linear(8, 10))",
        "nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.LayerNorm(2)])",
        "nn.ModuleDict({'emb': nn.Embedding(10, 4, padding_idx=0), 'act': nn.GELU()})",
        "nn.Sequential(nn.Sequential(nn.Sequential(nn.Identity())))",
    ]
    for expr in exprs:
        assert repr(eval(expr, {"nn": nn})) == repr(eval(expr, {"nn": torch.nn}))
    ep = nn.ParameterList([ember.zeros(2, 3), ember.zeros(4)])
    tp = torch.nn.ParameterList([torch.zeros(2, 3), torch.zeros(4)])
    assert repr(ep) == repr(tp).replace("torch.", "ember.")
    assert repr(nn.Parameter(ember.zeros(2))) == repr(torch.nn.Parameter(torch.zeros(2)))


def test_state_dict_keys_and_loading_match_torch():
    torch = pytest.importorskip("torch")
    build = ("nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), "
             "nn.Linear(4, 3), nn.LayerNorm(3))")
    tm, em = eval(build, {"nn": torch.nn}), eval(build, {"nn": nn})
    assert list(em.state_dict()) == list(tm.state_dict())
    em.load_state_dict({k: ember.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((2, 2, 3, 3)).astype(np.float32)
    tm.eval(), em.eval()
    np.testing.assert_allclose(em(ember.tensor(x)).detach().numpy(),
                               tm(torch.tensor(x)).detach().numpy(), atol=1e-5)
    tsd = {k: torch.tensor(v.numpy()) for k, v in em.state_dict().items()}
    assert tm.load_state_dict(tsd).missing_keys == []
