"""ember.optim: several steps of every optimizer and option combination against numpy
references written here from the published update rules (torch.optim's docs), against
torch.optim itself where torch is importable, and the Optimizer API (param groups,
zero_grad, state_dict, closures, argument checks)."""
import copy

import numpy as np
import pytest

import ember
import ember.optim as optim
from _helpers import to_ember, to_numpy

STEPS = 5
RNG = np.random.default_rng(0)
W0 = [RNG.standard_normal((3, 4)), RNG.standard_normal(5)]
# loss = sum(A * w * w) + sum(C * w): a gradient 2 A w + C that changes with w.
A = [RNG.uniform(-1, 2, (3, 4)), RNG.uniform(-1, 2, 5)]
C = [RNG.standard_normal((3, 4)), RNG.standard_normal(5)]


def grad_ref(i, w):
    return 2 * A[i] * w + C[i]


# ---- the update rules, one step each, from torch.optim's documentation ----------------

def sgd_ref(p, g, s, t, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
            maximize=False):
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    if momentum:
        s["b"] = g.copy() if t == 1 else momentum * s["b"] + (1 - dampening) * g
        g = g + momentum * s["b"] if nesterov else s["b"]
    return p - lr * g


def adam_ref(p, g, s, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False,
             maximize=False, decoupled=False):
    b1, b2 = betas
    g = -g if maximize else g
    if weight_decay:
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
    s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
    v = s["v"]
    if amsgrad:
        s["vmax"] = v = np.maximum(s.get("vmax", 0), v)
    m_hat, v_hat = s["m"] / (1 - b1 ** t), v / (1 - b2 ** t)
    return p - lr * m_hat / (np.sqrt(v_hat) + eps)


def adamw_ref(p, g, s, t, weight_decay=1e-2, **kw):
    return adam_ref(p, g, s, t, weight_decay=weight_decay, decoupled=True, **kw)


def rmsprop_ref(p, g, s, t, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                centered=False, maximize=False):
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    s["v"] = alpha * s.get("v", 0) + (1 - alpha) * g * g
    v = s["v"]
    if centered:
        s["gavg"] = alpha * s.get("gavg", 0) + (1 - alpha) * g
        v = v - s["gavg"] ** 2
    if momentum > 0:
        s["b"] = momentum * s.get("b", 0) + g / (np.sqrt(v) + eps)
        return p - lr * s["b"]
    return p - lr * g / (np.sqrt(v) + eps)


def adagrad_ref(p, g, s, t, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                eps=1e-10, maximize=False):
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    clr = lr / (1 + (t - 1) * lr_decay)
    s["sum"] = s.get("sum", initial_accumulator_value) + g * g
    return p - clr * g / (np.sqrt(s["sum"]) + eps)


CASES = [
    ("SGD", sgd_ref, dict(lr=0.1)),
    ("SGD", sgd_ref, dict(lr=0.1, momentum=0.9)),
    ("SGD", sgd_ref, dict(lr=0.05, momentum=0.9, dampening=0.3)),
    ("SGD", sgd_ref, dict(lr=0.05, momentum=0.8, nesterov=True)),
    ("SGD", sgd_ref, dict(lr=0.1, weight_decay=0.1)),
    ("SGD", sgd_ref, dict(lr=0.05, momentum=0.5, weight_decay=0.2, nesterov=True, maximize=True)),
    ("SGD", sgd_ref, dict()),
    ("Adam", adam_ref, dict(lr=0.05)),
    ("Adam", adam_ref, dict(lr=0.05, amsgrad=True)),
    ("Adam", adam_ref, dict(lr=0.05, weight_decay=0.1)),
    ("Adam", adam_ref, dict(lr=0.05, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("Adam", adam_ref, dict(lr=0.1, betas=(0.5, 0.75), eps=1e-3)),
    ("Adam", adam_ref, dict()),
    ("AdamW", adamw_ref, dict(lr=0.05)),
    ("AdamW", adamw_ref, dict(lr=0.05, weight_decay=0.5, amsgrad=True)),
    ("AdamW", adamw_ref, dict(lr=0.05, maximize=True, betas=(0.8, 0.9))),
    ("RMSprop", rmsprop_ref, dict(lr=0.01)),
    ("RMSprop", rmsprop_ref, dict(lr=0.01, centered=True)),
    ("RMSprop", rmsprop_ref, dict(lr=0.01, momentum=0.9)),
    ("RMSprop", rmsprop_ref, dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.1)),
    ("RMSprop", rmsprop_ref, dict(lr=0.01, alpha=0.9, eps=1e-4, maximize=True)),
    ("Adagrad", adagrad_ref, dict(lr=0.1)),
    ("Adagrad", adagrad_ref, dict(lr=0.1, lr_decay=0.1)),
    ("Adagrad", adagrad_ref, dict(lr=0.1, weight_decay=0.1, maximize=True)),
    ("Adagrad", adagrad_ref, dict(lr=0.1, initial_accumulator_value=0.5, eps=1e-6)),
]
CASE_IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(CASES)]


def make_params(dtype=ember.float64):
    return [to_ember(w, dtype).requires_grad_() for w in W0]


def loss_of(params):
    total = None
    for p, a, c in zip(params, A, C):
        term = (to_ember(a, p.dtype) * p * p).sum() + (to_ember(c, p.dtype) * p).sum()
        total = term if total is None else total + term
    return total


def run_ember(name, kwargs, params, steps=STEPS):
    opt = getattr(optim, name)(params, **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        loss_of(params).backward()
        opt.step()
    return opt


def run_reference(ref, kwargs, steps=STEPS):
    ws = [w.copy() for w in W0]
    states = [{} for _ in ws]
    for t in range(1, steps + 1):
        ws = [ref(w, grad_ref(i, w), s, t, **kwargs) for i, (w, s) in enumerate(zip(ws, states))]
    return ws


# ---- values against the references ------------------------------------------------------

@pytest.mark.parametrize("name, ref, kwargs", CASES, ids=CASE_IDS)
def test_steps_match_the_published_update_rule(name, ref, kwargs):
    params = make_params()
    run_ember(name, kwargs, params)
    for p, expected in zip(params, run_reference(ref, kwargs)):
        np.testing.assert_allclose(to_numpy(p.detach()), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name, ref, kwargs", CASES[::3], ids=CASE_IDS[::3])
def test_float32_parameters_stay_float32_and_close(name, ref, kwargs):
    params = make_params(ember.float32)
    opt = run_ember(name, kwargs, params)
    for p, expected in zip(params, run_reference(ref, kwargs)):
        assert p.dtype == ember.float32
        np.testing.assert_allclose(to_numpy(p.detach()), expected, rtol=1e-4, atol=1e-5)
    for state in opt.state.values():
        for key, value in state.items():
            if isinstance(value, ember.Tensor) and key != "step":
                assert value.dtype == ember.float32


def test_non_contiguous_parameters_and_gradients():
    base = [to_ember(np.ascontiguousarray(w.T)) for w in W0]
    params = [b.t().detach().requires_grad_() if b.dim() == 2 else b.requires_grad_() for b in base]
    assert not params[0].is_contiguous()
    opt = optim.Adam(params, lr=0.05, amsgrad=True)
    ref = [w.copy() for w in W0]
    states = [{}, {}]
    for t in range(1, STEPS + 1):
        for i, p in enumerate(params):  # a transposed (non-contiguous) gradient
            g = grad_ref(i, to_numpy(p.detach()))
            p.grad = to_ember(np.ascontiguousarray(g.T)).t() if g.ndim == 2 else to_ember(g)
        opt.step()
        ref = [adam_ref(w, grad_ref(i, w), s, t, lr=0.05, amsgrad=True)
               for i, (w, s) in enumerate(zip(ref, states))]
    assert not params[0].is_contiguous()
    for p, expected in zip(params, ref):
        np.testing.assert_allclose(to_numpy(p.detach()), expected, rtol=1e-10, atol=1e-12)


def test_large_parameter_runs_the_threaded_loop():
    w = RNG.standard_normal(200_003)
    grads = [np.cos(w * t) for t in (1, 2)]
    p = to_ember(w).requires_grad_()
    opt = optim.RMSprop([p], lr=0.01, momentum=0.9, centered=True)
    state = {}
    for t, g in enumerate(grads, 1):
        p.grad = to_ember(g)
        opt.step()
        w = rmsprop_ref(w, g, state, t, lr=0.01, momentum=0.9, centered=True)
    np.testing.assert_allclose(to_numpy(p.detach()), w, rtol=1e-10, atol=1e-12)


def test_empty_and_zero_dim_parameters():
    empty = ember.zeros(0, 3, dtype=ember.float64).requires_grad_()
    scalar = ember.tensor(2.0, dtype=ember.float64).requires_grad_()
    opt = optim.Adam([empty, scalar], lr=0.1)
    empty.grad = ember.zeros(0, 3, dtype=ember.float64)
    scalar.grad = ember.tensor(1.0, dtype=ember.float64)
    opt.step()
    assert empty.shape == (0, 3)
    assert scalar.item() == pytest.approx(1.9)
    assert opt.state[empty]["exp_avg"].shape == (0, 3)


# ---- the Optimizer API ---------------------------------------------------------------------

def test_param_groups_with_their_own_lr():
    a, b = make_params()
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 1.0, "momentum": 0.5}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 1.0]
    assert opt.param_groups[0]["momentum"] == 0 and opt.param_groups[1]["momentum"] == 0.5
    assert opt.param_groups[1]["params"][0] is b
    for _ in range(3):
        opt.zero_grad()
        loss_of([a, b]).backward()
        opt.step()
    np.testing.assert_allclose(to_numpy(a.detach()),
                               run_reference(sgd_ref, dict(lr=0.1), 3)[0], rtol=1e-12)
    np.testing.assert_allclose(to_numpy(b.detach()),
                               run_reference(sgd_ref, dict(lr=1.0, momentum=0.5), 3)[1],
                               rtol=1e-12)
    assert set(opt.state) == {b}  # SGD keeps state only where there is momentum


def test_add_param_group_and_its_checks():
    a, b = make_params()
    opt = optim.Adam([a], lr=0.1)
    opt.add_param_group({"params": [b], "lr": 0.01})
    assert opt.param_groups[1]["betas"] == (0.9, 0.999)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([a])
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        opt.add_param_group({"params": [a * 2]})
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors"):
        opt.add_param_group({"params": [1.0]})
    with pytest.raises(TypeError, match="ordered collections"):
        opt.add_param_group({"params": {b}})
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([a, a], lr=0.1)


def test_named_parameters_are_kept_as_param_names():
    a, b = make_params()
    opt = optim.SGD([("weight", a), ("bias", b)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert [id(p) for p in opt.param_groups[0]["params"]] == [id(a), id(b)]
    with pytest.raises(ValueError, match="with/without names"):
        optim.SGD([("weight", a), b], lr=0.1)


@pytest.mark.parametrize("bad, exc, pattern", [
    ([], ValueError, "optimizer got an empty parameter list"),
    (None, TypeError, "should be an iterable of Tensors or dicts"),
])
def test_bad_params(bad, exc, pattern):
    params = ember.zeros(2).requires_grad_() if bad is None else bad
    with pytest.raises(exc, match=pattern):
        optim.SGD(params, lr=0.1)


@pytest.mark.parametrize("cls, kwargs, pattern", [
    (optim.SGD, dict(lr=-1), "Invalid learning rate: -1"),
    (optim.SGD, dict(momentum=-0.5), "Invalid momentum value: -0.5"),
    (optim.SGD, dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    (optim.SGD, dict(nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
    (optim.SGD, dict(nesterov=True, momentum=0.9, dampening=0.1), "Nesterov momentum requires"),
    (optim.Adam, dict(lr=-0.1), "Invalid learning rate: -0.1"),
    (optim.Adam, dict(eps=-1e-8), "Invalid epsilon value: -1e-08"),
    (optim.Adam, dict(betas=(1.0, 0.999)), "Invalid beta parameter at index 0: 1.0"),
    (optim.Adam, dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    (optim.Adam, dict(betas=(0, 0.9)), "betas must be either both floats or both Tensors"),
    (optim.AdamW, dict(weight_decay=-1e-2), "Invalid weight_decay value: -0.01"),
    (optim.RMSprop, dict(alpha=-1), "Invalid alpha value: -1"),
    (optim.RMSprop, dict(momentum=-1), "Invalid momentum value: -1"),
    (optim.RMSprop, dict(eps=-1), "Invalid epsilon value: -1"),
    (optim.Adagrad, dict(lr_decay=-1), "Invalid lr_decay value: -1"),
    (optim.Adagrad, dict(initial_accumulator_value=-1), "Invalid initial_accumulator_value value"),
    (optim.Adagrad, dict(eps=-1), "Invalid epsilon value: -1"),
])
def test_invalid_options_raise_torchs_value_errors(cls, kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        cls(make_params(), **kwargs)


def test_unsupported_modes_say_so():
    with pytest.raises(NotImplementedError, match="differentiable"):
        optim.SGD(make_params(), lr=0.1, differentiable=True)
    with pytest.raises(NotImplementedError, match="capturable"):
        optim.Adam(make_params(), capturable=True)
    optim.Adam(make_params(), foreach=True, fused=True).step()  # always one fused loop


def test_defaults_are_torchs():
    p = make_params()
    assert optim.SGD(p).defaults["lr"] == 1e-3
    adam = optim.Adam(p).defaults
    assert (adam["lr"], adam["betas"], adam["eps"], adam["weight_decay"]) == (1e-3, (0.9, 0.999),
                                                                              1e-8, 0)
    assert optim.AdamW(p).defaults["weight_decay"] == 1e-2
    assert optim.AdamW(p).defaults["decoupled_weight_decay"] is True
    rms = optim.RMSprop(p).defaults
    assert (rms["lr"], rms["alpha"], rms["eps"]) == (1e-2, 0.99, 1e-8)
    ada = optim.Adagrad(p).defaults
    assert (ada["lr"], ada["eps"], ada["initial_accumulator_value"]) == (1e-2, 1e-10, 0)


def test_zero_grad_sets_to_none_or_zeroes_in_place():
    params = make_params()
    opt = optim.SGD(params, lr=0.1)
    loss_of(params).backward()
    opt.zero_grad()
    assert all(p.grad is None for p in params)
    loss_of(params).backward()
    g = params[0].grad
    opt.zero_grad(set_to_none=False)
    assert params[0].grad is not None
    np.testing.assert_array_equal(to_numpy(params[0].grad), np.zeros((3, 4)))
    np.testing.assert_array_equal(to_numpy(g), np.zeros((3, 4)))  # the same tensor


def test_zero_grad_detaches_a_gradient_with_history():
    p = make_params()[0]
    (p * p).sum().backward(create_graph=True)
    assert p.grad.requires_grad
    optim.SGD([p], lr=0.1).zero_grad(set_to_none=False)
    assert not p.grad.requires_grad and p.grad.grad_fn is None


def test_step_skips_parameters_without_gradients():
    a, b = make_params()
    b_before = to_numpy(b.detach())
    opt = optim.Adam([a, b], lr=0.1)
    (a * a).sum().backward()
    opt.step()
    np.testing.assert_array_equal(to_numpy(b.detach()), b_before)
    assert b not in opt.state and a in opt.state
    assert opt.state[a]["step"].item() == 1


def test_step_runs_the_closure_with_grad_on_and_returns_its_loss():
    params = make_params()
    opt = optim.SGD(params, lr=0.1)
    seen = []

    def closure():
        opt.zero_grad()
        loss = loss_of(params)
        seen.append(ember.is_grad_enabled())
        loss.backward()
        return loss

    with ember.no_grad():
        loss = opt.step(closure)
    assert seen == [True]
    assert isinstance(loss, ember.Tensor)
    assert loss.item() == pytest.approx(sum(float(np.sum(a * w * w + c * w))
                                            for a, c, w in zip(A, C, W0)))
    np.testing.assert_allclose(to_numpy(params[0].detach()),
                               run_reference(sgd_ref, dict(lr=0.1), 1)[0], rtol=1e-12)
    assert opt.step() is None


def test_the_update_is_not_recorded_by_autograd():
    p = make_params()[0]
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    (p * p).sum().backward()
    opt.step()
    assert p.is_leaf and p.grad_fn is None and p.requires_grad
    assert not opt.state[p]["momentum_buffer"].requires_grad


def test_repr_lists_each_groups_options():
    opt = optim.SGD([{"params": make_params()[:1]}, {"params": make_params()[1:], "lr": 1.0}],
                    lr=0.1, momentum=0.9)
    text = repr(opt)
    assert text.startswith("SGD (\nParameter Group 0\n")
    assert "    lr: 0.1\n" in text and "Parameter Group 1\n" in text and "    lr: 1.0\n" in text
    assert text.endswith(")")


# ---- state_dict ----------------------------------------------------------------------------

@pytest.mark.parametrize("name, ref, kwargs", CASES, ids=CASE_IDS)
def test_state_dict_round_trip_continues_identically(name, ref, kwargs):
    params = make_params()
    opt = run_ember(name, kwargs, params, steps=3)
    saved = copy.deepcopy(opt.state_dict())
    clones = [p.detach().clone().requires_grad_() for p in params]
    restored = getattr(optim, name)(clones, **{**kwargs, "lr": 0.5})
    restored.load_state_dict(saved)
    assert restored.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
    for o, ps in ((opt, params), (restored, clones)):
        for _ in range(2):
            o.zero_grad()
            loss_of(ps).backward()
            o.step()
    for p, q in zip(params, clones):
        np.testing.assert_array_equal(to_numpy(p.detach()), to_numpy(q.detach()))
    # The state was copied: the loaded optimizer does not step the saved tensors.
    for key, value in saved["state"].get(0, {}).items():
        assert value is not restored.state[clones[0]][key]


def test_state_dict_layout_is_torchs():
    params = make_params()
    opt = run_ember("Adam", dict(lr=0.1, amsgrad=True), params, steps=2)
    sd = opt.state_dict()
    assert set(sd) == {"state", "param_groups"}
    assert sorted(sd["state"]) == [0, 1]
    assert sorted(sd["state"][0]) == ["exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"]
    step = sd["state"][0]["step"]
    assert step.dtype == ember.float32 and step.dim() == 0 and step.item() == 2
    assert sd["param_groups"][0]["params"] == [0, 1]
    assert sd["state"][0]["exp_avg"] is opt.state[params[0]]["exp_avg"]  # shared, as torch


def test_load_state_dict_checks_the_groups():
    a, b = make_params()
    opt = optim.SGD([a, b], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict({"state": {}, "param_groups": [{"lr": 0.1, "params": [0]}]})


def test_load_state_dict_casts_state_to_the_parameter_dtype():
    p64 = make_params()
    opt64 = run_ember("Adam", dict(lr=0.1), p64, steps=2)
    p32 = make_params(ember.float32)
    opt32 = optim.Adam(p32, lr=0.1)
    opt32.load_state_dict(opt64.state_dict())
    state = opt32.state[p32[0]]
    assert state["exp_avg"].dtype == ember.float32
    assert state["step"].dtype == ember.float32 and state["step"].item() == 2


# ---- against torch.optim ---------------------------------------------------------------------

def _torch_run(torch, name, kwargs, dtype, steps=STEPS):
    tdtype = {ember.float32: torch.float32, ember.float64: torch.float64}[dtype]
    params = [torch.tensor(w, dtype=tdtype, requires_grad=True) for w in W0]
    opt = getattr(torch.optim, name)(params, foreach=False, **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        loss = sum((torch.tensor(a, dtype=tdtype) * p * p).sum() + (torch.tensor(c, dtype=tdtype) * p).sum()
                   for p, a, c in zip(params, A, C))
        loss.backward()
        opt.step()
    return opt, params


@pytest.mark.parametrize("dtype, rtol, atol", [(ember.float64, 1e-12, 1e-14),
                                               (ember.float32, 2e-6, 1e-6)], ids=["f64", "f32"])
@pytest.mark.parametrize("name, ref, kwargs", CASES, ids=CASE_IDS)
def test_matches_torch_optim(name, ref, kwargs, dtype, rtol, atol):
    torch = pytest.importorskip("torch")
    params = make_params(dtype)
    opt = run_ember(name, kwargs, params)
    topt, tparams = _torch_run(torch, name, kwargs, dtype)
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(to_numpy(p.detach()), tp.detach().numpy(), rtol=rtol, atol=atol)
    # The state too, key by key (momentum buffers, moments, sums, step counts).
    for p, tp in zip(params, tparams):
        ours, theirs = opt.state[p], topt.state[tp]
        assert sorted(ours) == sorted(theirs)
        for key, value in theirs.items():
            if value is None:
                assert ours[key] is None
            else:
                np.testing.assert_allclose(to_numpy(ours[key]), value.numpy(), rtol=rtol,
                                           atol=atol)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_state_dict_has_torchs_keys(name):
    torch = pytest.importorskip("torch")
    kwargs = {"SGD": dict(lr=0.1, momentum=0.9), "RMSprop": dict(momentum=0.5, centered=True),
              "Adam": dict(amsgrad=True)}.get(name, {})
    ours = run_ember(name, kwargs, make_params(), steps=2).state_dict()
    theirs = _torch_run(torch, name, kwargs, ember.float64, steps=2)[0].state_dict()
    theirs["param_groups"][0]["foreach"] = None  # _torch_run asks for foreach=False
    assert ours["param_groups"] == theirs["param_groups"]
    assert sorted(ours["state"]) == sorted(theirs["state"])
    for i, state in theirs["state"].items():
        assert sorted(ours["state"][i]) == sorted(state)
        if "step" in state:
            assert ours["state"][i]["step"].dtype == ember.float32
            assert ours["state"][i]["step"].item() == state["step"].item()


@pytest.mark.parametrize("name, kwargs", [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
                                          ("Adam", dict(lr=0.05, amsgrad=True)),
                                          ("AdamW", dict(lr=0.05)),
                                          ("RMSprop", dict(centered=True, momentum=0.5)),
                                          ("Adagrad", dict(lr_decay=0.1))])
def test_loads_torchs_state_dict_and_continues_like_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    topt, tparams = _torch_run(torch, name, kwargs, ember.float64, steps=3)
    converted = copy.deepcopy(topt.state_dict())
    converted["state"] = {i: {k: (to_ember(v.numpy()) if torch.is_tensor(v) else v)
                              for k, v in s.items()} for i, s in converted["state"].items()}
    params = [to_ember(p.detach().numpy()).requires_grad_() for p in tparams]
    opt = getattr(optim, name)(params)
    opt.load_state_dict(converted)
    for o, ps, lib in ((opt, params, ember), (topt, tparams, torch)):
        for _ in range(2):
            o.zero_grad()
            sum(((lib.tensor(a) * p * p).sum() + (lib.tensor(c) * p).sum())
                for p, a, c in zip(ps, A, C)).backward()
            o.step()
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(to_numpy(p.detach()), tp.detach().numpy(), rtol=1e-12)


def test_load_state_dict_takes_a_step_saved_as_a_number():
    params = make_params()
    opt = run_ember("Adam", dict(lr=0.1), params, steps=2)
    saved = copy.deepcopy(opt.state_dict())
    for state in saved["state"].values():
        state["step"] = 2.0
    other = optim.Adam([p.detach().clone().requires_grad_() for p in params], lr=0.1)
    other.load_state_dict(saved)
    step = other.state_dict()["state"][0]["step"]
    assert isinstance(step, ember.Tensor) and step.item() == 2
