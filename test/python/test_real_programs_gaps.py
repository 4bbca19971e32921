"""What public PyTorch programs (pytorch/examples, nanoGPT) needed from ember when run
with `import ember as torch`: each fix is compared with PyTorch here.

- `import torch.nn as nn` / `from torch.utils.data import DataLoader` after
  `import ember as torch` resolve to ember's modules (python/ember/_torch_import_alias.py)
- torch.backends.mps and torch.xpu availability queries
- torch.autograd.Variable (legacy constructor)
- torch.amp.GradScaler
- indexing with a `range` (x[range(n), y] = v)
"""
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

PYTHON_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "python")


def run_program(source, tmp_path, extra_files=None):
    """Run `source` as a script in a fresh interpreter with ember importable."""
    for name, text in (extra_files or {}).items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    script = tmp_path / "program.py"
    script.write_text(textwrap.dedent(source))
    env = dict(os.environ, PYTHONPATH=os.path.abspath(PYTHON_DIR))
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


# ---------------------------------------------------------------- import aliasing

def test_submodule_imports_after_import_ember_as_torch(tmp_path):
    out = run_program("""
        import ember as torch
        import torch.nn as nn
        import torch.nn.functional as F
        import torch.optim as optim
        from torch.utils.data import DataLoader, TensorDataset
        from torch.optim.lr_scheduler import StepLR
        from torch import nn as nn2
        from torch.nn import functional as F2
        import torch.utils.data
        import ember
        assert torch is ember
        assert nn is ember.nn and nn2 is ember.nn
        assert F is ember.nn.functional and F2 is ember.nn.functional
        assert optim is ember.optim
        assert DataLoader is ember.utils.data.DataLoader
        assert StepLR is ember.optim.lr_scheduler.StepLR
        assert torch.utils.data is ember.utils.data
        import torch  # a later plain `import torch` in the same module stays ember
        assert torch is ember
        import sys
        assert "torch" not in sys.modules or sys.modules["torch"] is not ember
        model = nn.Sequential(nn.Linear(3, 2))
        loader = DataLoader(TensorDataset(torch.ones(4, 3)), batch_size=2)
        print(sum(model(x).shape[0] for (x,) in loader))
        """, tmp_path)
    assert out.strip() == "4"


def test_alias_is_per_module_real_torch_untouched(tmp_path):
    # A module that imports the real PyTorch (as this test file does) still gets it,
    # even after another module bound `torch` to ember.
    out = run_program("""
        import ember as torch
        import torch.nn as nn
        import uses_real_torch
        import ember
        assert uses_real_torch.torch is not ember
        assert uses_real_torch.nn is not ember.nn
        assert uses_real_torch.torch.nn is uses_real_torch.nn
        assert nn is ember.nn
        print(type(uses_real_torch.torch.ones(1)).__module__)
        """, tmp_path, {"uses_real_torch.py": """
        import torch
        import torch.nn as nn
        """})
    assert out.strip() == "torch"


def test_alias_inside_functions_and_classes(tmp_path):
    out = run_program("""
        import ember as torch

        def build():
            from torch import nn
            import torch.nn.functional as F
            return nn.Linear(2, 2), F

        class Holder:
            import torch.optim as optim

        layer, F = build()
        import ember
        assert isinstance(layer, ember.nn.Linear) and F is ember.nn.functional
        assert Holder.optim is ember.optim
        print("ok")
        """, tmp_path)
    assert out.strip() == "ok"


def test_alias_missing_submodule_raises_module_not_found(tmp_path):
    out = run_program("""
        import ember as torch
        try:
            import torch.no_such_submodule
        except ModuleNotFoundError as error:
            print(error.name)
            print("ember" in str(error))
        """, tmp_path)
    assert out.split() == ["torch.no_such_submodule", "True"]
    # torch raises the same exception type for the same import.
    with pytest.raises(ModuleNotFoundError):
        import torch.no_such_submodule  # noqa: F401


def test_alias_leaves_other_imports_alone(tmp_path):
    out = run_program("""
        import ember as torch
        import json, os.path
        from collections import OrderedDict
        torchvision_like = __import__("os")
        import builtins
        # installing twice (a re-import of ember) keeps a single wrapper
        import ember._torch_import_alias as alias
        before = builtins.__import__
        alias.install()
        assert builtins.__import__ is before
        print(json.dumps([1]), OrderedDict is not None)
        """, tmp_path)
    assert out.strip() == "[1] True"


# ---------------------------------------------------------------- device queries

def test_backends_mps_queries_match_torch():
    assert ember.backends.mps.is_available() == torch.backends.mps.is_available()
    assert ember.backends.mps.is_built() == torch.backends.mps.is_built()


def test_xpu_queries_match_torch():
    assert ember.xpu.is_available() == torch.xpu.is_available()
    assert ember.xpu.device_count() == torch.xpu.device_count()


# ---------------------------------------------------------------- Variable

def test_variable_detaches_and_shares_data():
    for dtype in (np.float32, np.float64):
        data = np.random.randn(3, 4).astype(dtype)
        e = ember.tensor(data, requires_grad=True)
        t = torch.tensor(data, requires_grad=True)
        ev = ember.autograd.Variable(e * 2)
        tv = torch.autograd.Variable(t * 2)
        assert ev.requires_grad == tv.requires_grad is False
        assert ev.grad_fn is None and tv.grad_fn is None
        np.testing.assert_array_equal(ev.numpy(), tv.numpy())
        assert ev.dtype == getattr(ember, str(tv.dtype).split(".")[1])
        # it shares the data of its argument
        source = ember.zeros(3)
        shared = ember.autograd.Variable(source)
        source.add_(1)
        np.testing.assert_array_equal(shared.numpy(), np.ones(3, np.float32))


def test_variable_requires_grad_makes_a_leaf():
    e = ember.autograd.Variable(ember.ones(2, 3)[:, 1], requires_grad=True)
    t = torch.autograd.Variable(torch.ones(2, 3)[:, 1], requires_grad=True)
    assert e.requires_grad and e.is_leaf and t.requires_grad and t.is_leaf
    (e * e).sum().backward()
    (t * t).sum().backward()
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy())
    assert ember.autograd.Variable(ember.ones(2), True).requires_grad


def test_variable_isinstance_and_type():
    from ember.autograd import Variable
    x = ember.ones(2)
    assert isinstance(x, Variable) == isinstance(torch.ones(2), torch.autograd.Variable) is True
    assert (type(x) == Variable) == (type(torch.ones(2)) == torch.autograd.Variable) is False
    assert not isinstance(3, Variable)
    assert type(Variable(x)) is type(x)


def test_variable_empty_and_volatile():
    e, t = ember.autograd.Variable(), torch.autograd.Variable()
    assert tuple(e.shape) == tuple(t.shape) == (0,)
    assert e.dtype == ember.float32
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = ember.autograd.Variable(ember.ones(2), volatile=True)
    assert any("volatile was removed" in str(w.message) for w in caught)
    assert not v.requires_grad


class _Plain:
    pass


@pytest.mark.parametrize("bad", [3, [1.0, 2.0], "x", np.ones(2), _Plain()])
def test_variable_rejects_non_tensors_like_torch(bad):
    with pytest.raises(TypeError) as theirs:
        torch.autograd.Variable(bad)
    with pytest.raises(TypeError) as ours:
        ember.autograd.Variable(bad)
    assert str(ours.value) == str(theirs.value)


def test_variable_integer_requires_grad_raises_like_torch():
    with pytest.raises(RuntimeError):
        torch.autograd.Variable(torch.ones(2, dtype=torch.long), requires_grad=True)
    source = ember.ones(2, dtype=ember.int64)
    with pytest.raises(RuntimeError):
        ember.autograd.Variable(source, requires_grad=True)
    assert not source.requires_grad


# ---------------------------------------------------------------- GradScaler

def _twin_models(seed=0, dtype=np.float32):
    rng = np.random.RandomState(seed)
    w1, b1 = rng.randn(5, 4).astype(dtype), rng.randn(5).astype(dtype)
    w2, b2 = rng.randn(1, 5).astype(dtype), rng.randn(1).astype(dtype)

    def build(lib):
        model = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.Tanh(), lib.nn.Linear(5, 1))
        if dtype == np.float64:
            model = model.double()
        with lib.no_grad():
            for p, value in zip(model.parameters(), (w1, b1, w2, b2)):
                p.copy_(lib.tensor(value))
        return model

    return build(ember), build(torch)


def _scaler_run(lib, model, steps, inf_steps, **scaler_kwargs):
    rng = np.random.RandomState(1)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = lib.amp.GradScaler("cpu", **scaler_kwargs)
    record = []
    for step in range(steps):
        x = lib.tensor(rng.randn(8, 4).astype(np.float32))
        if next(model.parameters()).dtype == lib.float64:
            x = x.double()
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        if step in inf_steps:
            loss = loss * float("inf")
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.unscale_(opt)
        grads = [p.grad.clone() for p in model.parameters()]
        scaler.step(opt)
        scaler.update()
        record.append((scaled.item(), [g.numpy().copy() for g in grads],
                       [p.detach().numpy().copy() for p in model.parameters()],
                       scaler.get_scale(), scaler._get_growth_tracker()))
    return record, scaler.state_dict()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grad_scaler_matches_torch(dtype):
    ours_model, theirs_model = _twin_models(dtype=dtype)
    kwargs = dict(init_scale=2.0 ** 10, growth_interval=3, growth_factor=3.0, backoff_factor=0.3)
    ours, ours_state = _scaler_run(ember, ours_model, 9, {1, 5}, **kwargs)
    theirs, theirs_state = _scaler_run(torch, theirs_model, 9, {1, 5}, **kwargs)
    assert ours_state == theirs_state
    for (o_loss, o_grads, o_params, o_scale, o_tracker), (t_loss, t_grads, t_params, t_scale, t_tracker) in zip(ours, theirs):
        assert o_scale == t_scale and o_tracker == t_tracker
        if np.isfinite(t_loss):
            np.testing.assert_allclose(o_loss, t_loss, rtol=1e-5)
        for a, b in zip(o_grads, t_grads):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
        for a, b in zip(o_params, t_params):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_grad_scaler_scale_nested_outputs():
    e = ember.amp.GradScaler("cpu", init_scale=4.0)
    t = torch.amp.GradScaler("cpu", init_scale=4.0)
    values = np.random.randn(3).astype(np.float32)
    ours = e.scale([ember.tensor(values), (ember.tensor(values[:2]),)])
    theirs = t.scale([torch.tensor(values), (torch.tensor(values[:2]),)])
    assert type(ours) is list and type(ours[1]) is tuple
    np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())
    np.testing.assert_array_equal(ours[1][0].numpy(), theirs[1][0].numpy())
    with pytest.raises(ValueError):
        t.scale(3.0)
    with pytest.raises(ValueError):
        e.scale(3.0)


def test_grad_scaler_state_dict_round_trip():
    for lib in (ember, torch):
        scaler = lib.amp.GradScaler("cpu", init_scale=8.0)
        scaler.load_state_dict({"scale": 32.0, "growth_factor": 4.0, "backoff_factor": 0.25,
                                "growth_interval": 7, "_growth_tracker": 2})
        assert scaler.get_scale() == 32.0 and scaler._get_growth_tracker() == 2
        scaler.scale(lib.ones(1))
        assert scaler.state_dict() == {"scale": 32.0, "growth_factor": 4.0, "backoff_factor": 0.25,
                                       "growth_interval": 7, "_growth_tracker": 2}
        with pytest.raises(RuntimeError):
            scaler.load_state_dict({})


def test_grad_scaler_disabled_is_pass_through():
    for lib in (ember, torch):
        model = lib.nn.Linear(2, 1)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        scaler = lib.amp.GradScaler("cpu", enabled=False)
        loss = model(lib.ones(1, 2)).sum()
        assert scaler.scale(loss) is loss
        loss.backward()
        scaler.unscale_(opt)
        before = model.weight.detach().clone()
        scaler.step(opt)
        scaler.update()
        assert not bool((model.weight.detach() == before).all())
        assert scaler.get_scale() == 1.0 and scaler.state_dict() == {} and not scaler.is_enabled()


def test_grad_scaler_cuda_without_cuda_warns_and_disables():
    if torch.cuda.is_available() or ember.cuda.is_available():
        pytest.skip("CUDA is available here")
    for lib in (ember, torch):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            scaler = lib.amp.GradScaler("cuda")
        assert not scaler.is_enabled()


def _misuse(lib, action):
    model = lib.nn.Linear(2, 1)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu")
    if action == "unscale_before_scale":
        model(lib.ones(1, 2)).sum().backward()
        scaler.unscale_(opt)
        return
    scaler.scale(model(lib.ones(1, 2)).sum()).backward()
    if action == "unscale_twice":
        scaler.unscale_(opt)
        scaler.unscale_(opt)
    elif action == "unscale_after_step":
        scaler.step(opt)
        scaler.unscale_(opt)
    elif action == "step_twice":
        scaler.step(opt)
        scaler.step(opt)
    elif action == "closure":
        scaler.step(opt, closure=lambda: None)
    elif action == "fp16_grads":
        model.half()
        for p in model.parameters():
            p.grad = lib.full_like(p, 3.0)
        weight_grad = model.weight.grad.clone()
        try:
            scaler.unscale_(opt)
        finally:
            assert bool((model.weight.grad == weight_grad).all())


@pytest.mark.parametrize("action,error", [("unscale_twice", RuntimeError), ("unscale_after_step", RuntimeError),
                                          ("step_twice", RuntimeError), ("closure", RuntimeError),
                                          ("fp16_grads", ValueError), ("unscale_before_scale", AssertionError)])
def test_grad_scaler_misuse_raises_like_torch(action, error):
    with pytest.raises(error) as theirs:
        _misuse(torch, action)
    with pytest.raises(error) as ours:
        _misuse(ember, action)
    assert str(ours.value) == str(theirs.value)


def test_grad_scaler_update_new_scale():
    for lib in (ember, torch):
        scaler = lib.amp.GradScaler("cpu")
        scaler.scale(lib.ones(1))
        scaler.update(5.0)
        assert scaler.get_scale() == 5.0
        scaler.update(lib.tensor(7.0))
        assert scaler.get_scale() == 7.0
        with pytest.raises(AssertionError):
            scaler.update(lib.ones(2))


# ---------------------------------------------------------------- range indices

@pytest.mark.parametrize("index", [range(3), range(0, 4, 2), range(3, 0, -1), range(0)])
def test_getitem_with_range(index):
    data = np.random.randn(4, 5).astype(np.float32)
    ours = ember.tensor(data)[index]
    theirs = torch.tensor(data)[index]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    ours = ember.tensor(data)[index, 1:]
    theirs = torch.tensor(data)[index, 1:]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_setitem_with_range_and_tensor_pairs():
    # x_[range(x.shape[0]), y] = x.max(), from pytorch/examples mnist_forward_forward
    data = np.random.randn(6, 10).astype(np.float32)
    labels = np.random.randint(0, 10, size=6)
    ours, theirs = ember.tensor(data), torch.tensor(data)
    ours[range(ours.shape[0]), ember.tensor(labels)] = ours.max()
    theirs[range(theirs.shape[0]), torch.tensor(labels)] = theirs.max()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    # gradients flow through a range-indexed read
    e = ember.tensor(data, requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    e[range(2, 5)].sum().backward()
    t[range(2, 5)].sum().backward()
    np.testing.assert_array_equal(e.grad.numpy(), t.grad.numpy())


def test_range_index_out_of_bounds_raises_index_error():
    with pytest.raises(IndexError):
        torch.zeros(3)[range(5)]
    x = ember.zeros(3)
    with pytest.raises(IndexError):
        x[range(5)]
    with pytest.raises(IndexError):
        x[range(5)] = 1.0
    np.testing.assert_array_equal(x.numpy(), np.zeros(3, np.float32))


# ---------------------------------------------------------------- distributions

def _pair(array, requires_grad=False):
    return (ember.tensor(array, requires_grad=requires_grad),
            torch.tensor(array, requires_grad=requires_grad))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4,), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("use_logits", [False, True])
def test_categorical_matches_torch(dtype, shape, use_logits):
    rng = np.random.RandomState(0)
    raw = (rng.randn(*shape) if use_logits else rng.rand(*shape) + 0.05).astype(dtype)
    e_param, t_param = _pair(raw, requires_grad=True)
    key = "logits" if use_logits else "probs"
    e = ember.distributions.Categorical(**{key: e_param})
    t = torch.distributions.Categorical(**{key: t_param})
    assert tuple(e.batch_shape) == tuple(t.batch_shape) and tuple(e.event_shape) == tuple(t.event_shape)
    for name in ("probs", "logits"):
        np.testing.assert_allclose(getattr(e, name).detach().numpy(), getattr(t, name).detach().numpy(),
                                   rtol=1e-5, atol=1e-6)
    values = rng.randint(0, shape[-1], size=shape[:-1])
    e_lp, t_lp = e.log_prob(ember.tensor(values)), t.log_prob(torch.tensor(values))
    np.testing.assert_allclose(e_lp.detach().numpy(), t_lp.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert e_lp.dtype == ember.float64 if dtype == np.float64 else e_lp.dtype == ember.float32
    np.testing.assert_allclose(e.entropy().detach().numpy(), t.entropy().detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(e.mode.numpy(), t.mode.numpy())
    # REINFORCE-style gradient: -(log_prob * reward).sum()
    (e_lp.sum() + e.entropy().sum()).backward()
    (t_lp.sum() + t.entropy().sum()).backward()
    np.testing.assert_allclose(e_param.grad.numpy(), t_param.grad.numpy(), rtol=1e-4, atol=1e-5)
    # sample shapes, dtype and support
    for sample_shape in [(), (6,), (2, 3)]:
        e_s, t_s = e.sample(sample_shape), t.sample(sample_shape)
        assert tuple(e_s.shape) == tuple(t_s.shape) and e_s.dtype == ember.int64
        assert bool((e_s >= 0).all()) and bool((e_s < shape[-1]).all())
    # log_prob broadcasts a sample batch against the batch shape
    many = rng.randint(0, shape[-1], size=(7,) + shape[:-1])
    np.testing.assert_allclose(e.log_prob(ember.tensor(many)).detach().numpy(),
                               t.log_prob(torch.tensor(many)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_categorical_sampling_frequencies():
    ember.manual_seed(0)
    probs = np.array([0.1, 0.6, 0.3])
    samples = ember.distributions.Categorical(probs=ember.tensor(probs)).sample((20000,)).numpy()
    np.testing.assert_allclose(np.bincount(samples, minlength=3) / 20000, probs, atol=0.02)


def test_categorical_zero_probability_entropy_is_finite():
    e = ember.distributions.Categorical(probs=ember.tensor([0.0, 0.5, 0.5]))
    t = torch.distributions.Categorical(probs=torch.tensor([0.0, 0.5, 0.5]))
    np.testing.assert_allclose(e.entropy().numpy(), t.entropy().numpy(), rtol=1e-6)
    np.testing.assert_allclose(e.logits.numpy(), t.logits.numpy(), rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda lib: lib.distributions.Categorical(),
    lambda lib: lib.distributions.Categorical(probs=lib.ones(2), logits=lib.ones(2)),
    lambda lib: lib.distributions.Categorical(probs=lib.tensor([0.5, -0.1, 0.6])),
    lambda lib: lib.distributions.Categorical(probs=lib.tensor(0.5)),
    lambda lib: lib.distributions.Categorical(logits=lib.tensor([0.0, float("nan")])),
    lambda lib: lib.distributions.Categorical(logits=lib.zeros(3)).log_prob(lib.tensor(3)),
    lambda lib: lib.distributions.Categorical(logits=lib.zeros(3)).log_prob(lib.tensor(-1)),
    lambda lib: lib.distributions.Categorical(logits=lib.zeros(2, 3)).log_prob(lib.zeros(3, dtype=lib.long)),
    lambda lib: lib.distributions.Normal(lib.zeros(2), lib.tensor([1.0, 0.0])),
    lambda lib: lib.distributions.Normal(lib.zeros(2), lib.ones(2)).log_prob(lib.tensor([0.0, float("nan")])),
])
def test_distribution_bad_arguments_raise_value_error_like_torch(make):
    with pytest.raises(ValueError):
        make(torch)
    with pytest.raises(ValueError):
        make(ember)


def test_distribution_validation_can_be_turned_off():
    probs = [0.5, -0.1, 0.6]
    torch.distributions.Categorical(probs=torch.tensor(probs), validate_args=False)
    ember.distributions.Categorical(probs=ember.tensor(probs), validate_args=False)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_matches_torch(dtype):
    rng = np.random.RandomState(1)
    loc, scale = rng.randn(3, 1).astype(dtype), (rng.rand(4) + 0.5).astype(dtype)
    e_loc, t_loc = _pair(loc, True)
    e_scale, t_scale = _pair(scale, True)
    e = ember.distributions.Normal(e_loc, e_scale)
    t = torch.distributions.Normal(t_loc, t_scale)
    assert tuple(e.batch_shape) == tuple(t.batch_shape) == (3, 4)
    value = rng.randn(2, 3, 4).astype(dtype)
    e_lp, t_lp = e.log_prob(ember.tensor(value)), t.log_prob(torch.tensor(value))
    np.testing.assert_allclose(e_lp.detach().numpy(), t_lp.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(e.entropy().detach().numpy(), t.entropy().detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(e.cdf(ember.tensor(value)).detach().numpy(),
                               t.cdf(torch.tensor(value)).detach().numpy(), rtol=1e-5, atol=1e-6)
    (e_lp.sum() + e.entropy().sum()).backward()
    (t_lp.sum() + t.entropy().sum()).backward()
    np.testing.assert_allclose(e_loc.grad.numpy(), t_loc.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(e_scale.grad.numpy(), t_scale.grad.numpy(), rtol=1e-4, atol=1e-5)
    assert tuple(e.sample((5,)).shape) == tuple(t.sample((5,)).shape) == (5, 3, 4)
    assert not e.sample().requires_grad and e.rsample().requires_grad
    np.testing.assert_allclose(e.stddev.detach().numpy(), t.stddev.detach().numpy())
    np.testing.assert_allclose(e.variance.detach().numpy(), t.variance.detach().numpy(), rtol=1e-6)


def test_normal_with_python_numbers():
    e, t = ember.distributions.Normal(0.5, 2.0), torch.distributions.Normal(0.5, 2.0)
    assert tuple(e.batch_shape) == tuple(t.batch_shape) == ()
    np.testing.assert_allclose(e.log_prob(ember.tensor(1.0)).numpy(), t.log_prob(torch.tensor(1.0)).numpy(), rtol=1e-6)
    mixed = ember.distributions.Normal(ember.zeros(3), 1.0)
    assert tuple(mixed.batch_shape) == (3,)


def test_reinforce_policy_update_runs_through_alias(tmp_path):
    # pytorch/examples reinforcement_learning/reinforce.py without gym: the policy,
    # Categorical action sampling and the policy-gradient update.
    out = run_program("""
        import numpy as np
        import ember as torch
        import torch.nn as nn
        import torch.nn.functional as F
        import torch.optim as optim
        from torch.distributions import Categorical

        torch.manual_seed(543)

        class Policy(nn.Module):
            def __init__(self):
                super(Policy, self).__init__()
                self.affine1 = nn.Linear(4, 128)
                self.dropout = nn.Dropout(p=0.6)
                self.affine2 = nn.Linear(128, 2)
                self.saved_log_probs = []
                self.rewards = []

            def forward(self, x):
                x = self.affine1(x)
                x = self.dropout(x)
                x = F.relu(x)
                action_scores = self.affine2(x)
                return F.softmax(action_scores, dim=1)

        policy = Policy()
        optimizer = optim.Adam(policy.parameters(), lr=1e-2)
        eps = np.finfo(np.float32).eps.item()
        rng = np.random.RandomState(0)
        for episode in range(3):
            for t in range(10):
                state = torch.from_numpy(rng.randn(4).astype(np.float32)).float().unsqueeze(0)
                probs = policy(state)
                m = Categorical(probs)
                action = m.sample()
                policy.saved_log_probs.append(m.log_prob(action))
                policy.rewards.append(1.0)
            R, returns = 0, []
            for r in policy.rewards[::-1]:
                R = r + 0.99 * R
                returns.insert(0, R)
            returns = torch.tensor(returns)
            returns = (returns - returns.mean()) / (returns.std() + eps)
            policy_loss = []
            for log_prob, R in zip(policy.saved_log_probs, returns):
                policy_loss.append(-log_prob * R)
            optimizer.zero_grad()
            policy_loss = torch.cat(policy_loss).sum()
            policy_loss.backward()
            optimizer.step()
            del policy.rewards[:]
            del policy.saved_log_probs[:]
        print("ok", policy_loss.dim())
        """, tmp_path)
    assert out.strip() == "ok 0"


# ---------------------------------------------------------------- nn.parallel

def test_data_parallel_module_without_accelerator_matches_torch():
    if torch.cuda.is_available() or ember.cuda.is_available():
        pytest.skip("this compares the no-accelerator behaviour")
    data = np.random.RandomState(4).randn(5, 3).astype(np.float32)
    e_inner, t_inner = ember.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    with ember.no_grad():
        e_inner.weight.copy_(ember.tensor(t_inner.weight.detach().numpy()))
        e_inner.bias.copy_(ember.tensor(t_inner.bias.detach().numpy()))
    e, t = ember.nn.DataParallel(e_inner), torch.nn.DataParallel(t_inner)
    assert e.device_ids == t.device_ids == []
    assert list(e.state_dict()) == list(t.state_dict()) == ["module.weight", "module.bias"]
    e_out, t_out = e(ember.tensor(data)), t(torch.tensor(data))
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-6)
    e_out.sum().backward()
    t_out.sum().backward()
    np.testing.assert_allclose(e_inner.weight.grad.numpy(), t_inner.weight.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert ember.nn.parallel.DataParallel is ember.nn.DataParallel


def test_data_parallel_function_without_accelerator_raises_like_torch():
    if torch.cuda.is_available() or ember.cuda.is_available():
        pytest.skip("this compares the no-accelerator behaviour")
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.parallel.data_parallel(torch.nn.Linear(2, 2), torch.ones(1, 2))
    with pytest.raises(RuntimeError) as ours:
        ember.nn.parallel.data_parallel(ember.nn.Linear(2, 2), ember.ones(1, 2))
    assert str(ours.value) == str(theirs.value)


def test_dcgan_style_imports_through_alias(tmp_path):
    out = run_program("""
        import ember as torch
        import torch.nn as nn
        import torch.nn.parallel
        import torch.backends.cudnn as cudnn
        import torch.utils.data
        from torch.autograd import Variable
        cudnn.benchmark = True
        import ember
        assert nn.parallel is ember.nn.parallel
        x = Variable(torch.ones(2, 3))
        net = nn.DataParallel(nn.Linear(3, 1))
        print(tuple(net(x).shape))
        """, tmp_path)
    assert out.strip() == "(2, 1)"
