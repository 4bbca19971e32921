"""nn.Module hooks and state helpers against torch.nn.Module on the same weights:
full backward hooks and pre-hooks (what they receive, what their results change, the
errors), state_dict / load_state_dict hooks, extra state, set_submodule, to_empty, type."""
import warnings

import numpy as np
import pytest

import ember
import ember.nn as enn

torch = pytest.importorskip("torch")
tnn = torch.nn


def _np(x):
    return None if x is None else x.detach().numpy()


def _same_grads(e, t):
    assert len(e) == len(t), (e, t)
    for a, b in zip(e, t):
        assert (a is None) == (b is None), (a, b)
        if a is not None:
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6, atol=1e-6)


def _linear_pair(i=3, o=2, seed=0):
    torch.manual_seed(seed)
    t = tnn.Linear(i, o)
    e = enn.Linear(i, o)
    e.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t.state_dict().items()})
    return e, t


def _recorder(log):
    def hook(module, grad_input, grad_output):
        log.append((grad_input, grad_output))
    return hook


def test_full_backward_hook_values_and_order():
    e, t = _linear_pair()
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    elog, tlog, order = [], [], {"e": [], "t": []}
    for m, log, key in ((e, elog, "e"), (t, tlog, "t")):
        m.register_full_backward_hook(_recorder(log))
        m.register_full_backward_pre_hook(lambda mod, go, key=key: order[key].append("pre"))
        m.register_full_backward_hook(lambda mod, gi, go, key=key: order[key].append("hook"))
    ex = ember.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    (e(ex) ** 2).sum().backward()
    (t(tx) ** 2).sum().backward()
    assert len(elog) == len(tlog) == 1
    _same_grads(elog[0][0], tlog[0][0])
    _same_grads(elog[0][1], tlog[0][1])
    assert order["e"] == order["t"] == ["pre", "hook"]
    np.testing.assert_allclose(_np(ex.grad), _np(tx.grad), rtol=1e-6)


def test_hooks_replace_gradients():
    e, t = _linear_pair()
    for m in (e, t):
        m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10,))
    x = np.ones((2, 3), np.float32)
    ex = ember.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    e(ex).sum().backward()
    t(tx).sum().backward()
    np.testing.assert_allclose(_np(ex.grad), _np(tx.grad), rtol=1e-6)
    np.testing.assert_allclose(_np(e.weight.grad), _np(t.weight.grad), rtol=1e-6)


class _Two(object):
    """forward(x, y, k) -> (x * y, x + 1, 5): several inputs and outputs, some not tensors."""

    @staticmethod
    def make(base):
        class Two(base):
            def forward(self, x, y, k=3):
                return x * y, x + 1, 5
        return Two()


@pytest.mark.parametrize("y_requires_grad", [False, True])
def test_multiple_inputs_outputs(y_requires_grad):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    logs = []
    for lib, base in ((ember, enn.Module), (torch, tnn.Module)):
        m = _Two.make(base)
        log = []
        m.register_full_backward_pre_hook(lambda mod, go, log=log: log.append(("pre", go)))
        m.register_full_backward_hook(lambda mod, gi, go, log=log: log.append(("hook", gi, go)))
        a, b, c = m(lib.tensor(x, requires_grad=True), lib.tensor(y, requires_grad=y_requires_grad), 4)
        (a * 3).sum().backward()  # b unused: its grad_output is None
        logs.append(log)
    elog, tlog = logs
    assert [r[0] for r in elog] == [r[0] for r in tlog] == ["pre", "hook"]
    _same_grads(elog[0][1], tlog[0][1])
    _same_grads(elog[1][1], tlog[1][1])  # y's entry: zeros (not None) when y needs no grad
    _same_grads(elog[1][2], tlog[1][2])


def test_no_input_requires_grad_fires_with_warning():
    e, t = _linear_pair()
    res = []
    for m, lib in ((e, ember), (t, torch)):
        log = []
        m.register_full_backward_hook(_recorder(log))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m(lib.ones(2, 3)).sum().backward()
        assert any("Full backward hook is firing" in str(i.message) for i in w)
        res.append(log)
    assert res[0][0][0] == (None,) and res[1][0][0] == (None,)
    _same_grads(res[0][0][1], res[1][0][1])
    for m, lib in ((e, ember), (t, torch)):
        m.register_full_backward_hook(lambda mod, gi, go: (lib.ones(2, 3),))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError, match="no input requires gradient"):
                m(lib.ones(2, 3)).sum().backward()


def test_removed_hook_and_no_grad():
    e, _ = _linear_pair()
    log = []
    h = e.register_full_backward_hook(_recorder(log))
    with ember.no_grad():
        e(ember.ones(1, 3))
    h.remove()
    e(ember.ones(1, 3, requires_grad=True)).sum().backward()
    assert log == []


@pytest.mark.parametrize("pre", [False, True])
def test_wrong_number_of_gradients(pre):
    for m, lib in zip(_linear_pair(), (ember, torch)):
        if pre:
            m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
            msg = "Backward pre hook returned an invalid number of grad_output, got 2, but expected 1"
        else:
            m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
            msg = "Backward hook returned an invalid number of grad_input, got 2, but expected 1"
        with pytest.raises(RuntimeError, match=msg):
            m(lib.ones(2, 3, requires_grad=True)).sum().backward()


def test_inplace_on_hooked_output_raises():
    for m, lib in zip(_linear_pair(), (ember, torch)):
        m.register_full_backward_hook(lambda mod, gi, go: None)
        out = m(lib.ones(2, 3, requires_grad=True))
        with pytest.raises(RuntimeError, match="is a view and is being modified inplace"):
            out += 1
    for lib, nn_ in ((ember, enn), (torch, tnn)):
        relu = nn_.ReLU(inplace=True)
        relu.register_full_backward_hook(lambda mod, gi, go: None)
        with pytest.raises(RuntimeError, match="is a view and is being modified inplace"):
            relu(lib.ones(2, requires_grad=True) * 1)


def test_prepend_order():
    for m, lib in zip(_linear_pair(), (ember, torch)):
        order = []
        m.register_full_backward_hook(lambda mod, gi, go: order.append(1))
        m.register_full_backward_hook(lambda mod, gi, go: order.append(0), prepend=True)
        m.register_full_backward_pre_hook(lambda mod, go: order.append("b"))
        m.register_full_backward_pre_hook(lambda mod, go: order.append("a"), prepend=True)
        m(lib.ones(1, 3, requires_grad=True)).sum().backward()
        assert order == ["a", "b", 0, 1]


def test_hooks_in_nested_sequential():
    torch.manual_seed(0)
    t = tnn.Sequential(tnn.Linear(3, 4), tnn.Tanh(), tnn.Linear(4, 2))
    e = enn.Sequential(enn.Linear(3, 4), enn.Tanh(), enn.Linear(4, 2))
    e.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t.state_dict().items()})
    logs = []
    for m, lib in ((e, ember), (t, torch)):
        log = []
        for name, sub in m.named_children():
            sub.register_full_backward_hook(lambda mod, gi, go, name=name, log=log: log.append((name, gi, go)))
        m(lib.ones(2, 3, requires_grad=True)).sum().backward()
        logs.append(log)
    assert [r[0] for r in logs[0]] == [r[0] for r in logs[1]] == ["2", "1", "0"]
    for a, b in zip(*logs):
        _same_grads(a[1], b[1])
        _same_grads(a[2], b[2])


# ---- state_dict hooks, extra state -----------------------------------------------------
def _with_extra(base):
    class WithExtra(base):
        def __init__(self):
            super().__init__()
            self.lin = (enn if base is enn.Module else tnn).Linear(2, 2)
            self.count = 0

        def get_extra_state(self):
            return {"count": self.count}

        def set_extra_state(self, state):
            self.count = state["count"]
    return WithExtra()


def test_extra_state():
    e, t = _with_extra(enn.Module), _with_extra(tnn.Module)
    e.count = t.count = 7
    assert list(e.state_dict()) == list(t.state_dict()) == ["_extra_state", "lin.weight", "lin.bias"]
    assert e.state_dict()["_extra_state"] == {"count": 7}
    e2, t2 = _with_extra(enn.Module), _with_extra(tnn.Module)
    e2.load_state_dict(e.state_dict())
    t2.load_state_dict(t.state_dict())
    assert e2.count == t2.count == 7
    for m in (e2, t2):
        sd = m.state_dict()
        del sd["_extra_state"]
        with pytest.raises(RuntimeError, match="_extra_state"):
            m.load_state_dict(sd)
        assert m.load_state_dict(sd, strict=False).missing_keys == ["_extra_state"]
    for m, lib_nn in ((enn.Linear(2, 2), None), (tnn.Linear(2, 2), None)):
        sd = dict(m.state_dict())
        sd["_extra_state"] = 1
        with pytest.raises(RuntimeError, match="Unexpected key"):
            m.load_state_dict(sd)
    with pytest.raises(RuntimeError):
        enn.Linear(1, 1).get_extra_state()
    with pytest.raises(RuntimeError):
        tnn.Linear(1, 1).get_extra_state()


def _seq(nn_):
    return nn_.Sequential(nn_.Linear(2, 3), nn_.Sequential(nn_.Linear(3, 1)))


def test_state_dict_hooks():
    results = []
    for nn_ in (enn, tnn):
        m = _seq(nn_)
        log = []
        m[1].register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre", prefix, keep_vars)))

        def post(mod, sd, prefix, local_metadata):
            log.append(("post", prefix, sorted(k for k in sd), local_metadata["version"]))
            sd[prefix + "extra"] = 1
        m[1].register_state_dict_post_hook(post)
        sd = m.state_dict(keep_vars=True)
        results.append((log, list(sd)))
    assert results[0] == results[1]
    for nn_ in (enn, tnn):
        m = nn_.Linear(1, 1)
        m.register_state_dict_post_hook(lambda mod, sd, prefix, md: {})
        with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
            m.state_dict()


def test_load_state_dict_hooks():
    results = []
    for nn_, lib in ((enn, ember), (tnn, torch)):
        src = _seq(nn_)
        m = _seq(nn_)
        log = []

        def pre(mod, sd, prefix, local_metadata, strict, missing, unexpected, errors, log=log):
            log.append(("pre", prefix, sorted(sd), strict))
            # rename an old key, the usual use of a load pre-hook
            if prefix + "old_weight" in sd:
                sd[prefix + "0.weight"] = sd.pop(prefix + "old_weight")

        def post(mod, keys, log=log):
            log.append(("post", list(keys.missing_keys), list(keys.unexpected_keys)))
            keys.unexpected_keys.clear()  # forgive them: load_state_dict then does not raise
        m[1].register_load_state_dict_pre_hook(pre)
        m.register_load_state_dict_post_hook(post)
        sd = dict(src.state_dict())
        sd["1.old_weight"] = sd.pop("1.0.weight")
        sd["junk"] = lib.zeros(1)
        res = m.load_state_dict(sd)
        assert "1.old_weight" in sd  # the caller's dict is not changed
        assert np.array_equal(m[1][0].weight.detach().numpy(), src[1][0].weight.detach().numpy())
        results.append((log, list(res.missing_keys), list(res.unexpected_keys)))
    assert results[0] == results[1]
    for nn_ in (enn, tnn):
        m = nn_.Linear(1, 1)
        m.register_load_state_dict_post_hook(lambda mod, keys: 1)
        with pytest.raises(AssertionError):
            m.load_state_dict(m.state_dict())


# ---- set_submodule, to_empty, type -----------------------------------------------------
def test_set_submodule():
    for nn_ in (enn, tnn):
        m = _seq(nn_)
        m.set_submodule("1.0", nn_.Linear(3, 5))
        assert m[1][0].out_features == 5
        m.set_submodule("1.new", nn_.ReLU())
        assert isinstance(m[1].new, nn_.ReLU)
        with pytest.raises(AttributeError):
            m.set_submodule("1.other", nn_.ReLU(), strict=True)
        with pytest.raises(ValueError):
            m.set_submodule("", nn_.ReLU())
        with pytest.raises(ValueError):
            m.set_submodule("0", 3)
        with pytest.raises(AttributeError):
            m.set_submodule("0.weight", nn_.ReLU())
        with pytest.raises(AttributeError):
            m.set_submodule("9.x", nn_.ReLU())


def test_to_empty_and_type():
    for nn_, lib in ((enn, ember), (tnn, torch)):
        m = _seq(nn_)
        m2 = m.to_empty(device="cpu")
        assert m2 is m and tuple(m[0].weight.shape) == (3, 2) and isinstance(m[0].weight, nn_.Parameter)
        m[1].to_empty(device="cpu", recurse=False)
        with pytest.raises(TypeError):
            m.to_empty("cpu")
        assert m.type(lib.float64) is m and m[1][0].bias.dtype == lib.float64
        bn = nn_.BatchNorm1d(2).type(lib.float64)
        assert bn.num_batches_tracked.dtype == lib.float64  # type() casts every tensor, as torch
    assert enn.Linear(1, 1).type("ember.DoubleTensor").weight.dtype == ember.float64
    assert tnn.Linear(1, 1).type("torch.DoubleTensor").weight.dtype == torch.float64


def test_module_pickled_without_new_hook_tables_still_runs():
    m = enn.Sequential(enn.Linear(2, 2))
    state = dict(m.__dict__)
    for name in ("_backward_hooks", "_backward_pre_hooks", "_state_dict_pre_hooks"):
        del state[name]
    old = enn.Sequential.__new__(enn.Sequential)
    old.__setstate__(state)
    assert tuple(old(ember.ones(1, 2)).shape) == (1, 2)
    assert list(old.state_dict()) == ["0.weight", "0.bias"]
