"""ember.optim.swa_utils against torch.optim.swa_utils: AveragedModel (SWA, EMA, averaged
buffers) over SGD training, update_bn's statistics, SWALR's learning rates, bad input."""
import copy
import math
import warnings

import numpy as np
import pytest

import ember
from ember.optim import swa_utils

torch = pytest.importorskip("torch")
from torch.optim import swa_utils as torch_swa  # noqa: E402


def _np(t):
    return t.detach().cpu().numpy()


def _make_pair(kind, seed=0):
    """The same small network in both libraries, with torch's weights copied into ember's."""
    def build(nn):
        if kind == "mlp":
            return nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))
        if kind == "bn1d":
            return nn.Sequential(nn.Linear(5, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 3))
        return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                             nn.Flatten(), nn.Linear(4 * 5 * 5, 3))
    torch.manual_seed(seed)
    t_model = build(torch.nn)
    e_model = build(ember.nn)
    state = {k: ember.from_numpy(v.detach().numpy().copy())
             for k, v in t_model.state_dict().items()}
    e_model.load_state_dict(state)
    return e_model, t_model


def _assert_state_equal(e_module, t_module, tol=1e-6):
    e_state, t_state = e_module.state_dict(), t_module.state_dict()
    assert list(e_state) == list(t_state)
    for name, t_value in t_state.items():
        e_value = e_state[name]
        assert str(e_value.dtype).split(".")[-1] == str(t_value.dtype).split(".")[-1], name
        np.testing.assert_allclose(_np(e_value), _np(t_value), rtol=tol, atol=tol, err_msg=name)


def _train_and_average(kind, make_e, make_t, steps=10, device="cpu", input_shape=(8, 5)):
    """SGD steps on both models, with update_parameters after each; returns both averaged
    models after checking them against each other at every step."""
    e_model, t_model = _make_pair(kind)
    e_model = e_model.to(device)
    e_avg, t_avg = make_e(e_model), make_t(t_model)
    e_opt = ember.optim.SGD(e_model.parameters(), lr=0.1, momentum=0.9)
    t_opt = torch.optim.SGD(t_model.parameters(), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(1)
    for step in range(steps):
        x = rng.standard_normal(input_shape).astype(np.float32)
        y = rng.standard_normal((input_shape[0], 3)).astype(np.float32)
        for model, opt, lib, dev in ((e_model, e_opt, ember, device),
                                     (t_model, t_opt, torch, "cpu")):
            opt.zero_grad()
            out = model(lib.from_numpy(x.copy()).to(dev))
            ((out - lib.from_numpy(y.copy()).to(dev)) ** 2).mean().backward()
            opt.step()
        e_avg.update_parameters(e_model)
        t_avg.update_parameters(t_model)
        assert int(e_avg.n_averaged) == int(t_avg.n_averaged) == step + 1
        assert e_avg.n_averaged.dtype == ember.int64
        _assert_state_equal(e_avg, t_avg)
    return e_avg, t_avg, e_model, t_model


def test_averaged_model_default_swa_average(device):
    e_avg, t_avg, e_model, _ = _train_and_average(
        "mlp", swa_utils.AveragedModel, torch_swa.AveragedModel, device=device)
    # The average is a separate copy: the trained model's weights moved on.
    assert not np.allclose(_np(e_avg.module[0].weight), _np(e_model[0].weight))
    assert e_avg.module[0].weight is not e_model[0].weight
    # forward runs the averaged copy
    x = np.random.default_rng(5).standard_normal((4, 5)).astype(np.float32)
    np.testing.assert_allclose(_np(e_avg(ember.from_numpy(x.copy()).to(device))),
                               _np(t_avg(torch.from_numpy(x.copy()))), rtol=1e-5, atol=1e-6)


def test_averaged_model_swa_buffers_are_copied_not_averaged():
    e_avg, t_avg, e_model, _ = _train_and_average(
        "bn1d", swa_utils.AveragedModel, torch_swa.AveragedModel)
    # use_buffers=False: the BatchNorm statistics are the trained model's latest ones
    np.testing.assert_array_equal(_np(e_avg.module[1].running_mean), _np(e_model[1].running_mean))
    assert int(e_avg.module[1].num_batches_tracked) == 10


def test_averaged_model_ema_multi_avg_fn(device):
    _train_and_average(
        "mlp",
        lambda m: swa_utils.AveragedModel(m, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9)),
        lambda m: torch_swa.AveragedModel(m, multi_avg_fn=torch_swa.get_ema_multi_avg_fn(0.9)),
        device=device)


def test_averaged_model_ema_avg_fn(device):
    _train_and_average(
        "mlp",
        lambda m: swa_utils.AveragedModel(m, avg_fn=swa_utils.get_ema_avg_fn(0.8)),
        lambda m: torch_swa.AveragedModel(m, avg_fn=torch_swa.get_ema_avg_fn(0.8)),
        device=device)


@pytest.mark.parametrize("averaging", ["swa", "ema_multi", "ema"])
def test_averaged_model_use_buffers_with_batchnorm(averaging):
    """Buffers (running stats and the int64 num_batches_tracked) are averaged too."""
    def kwargs(lib):
        return {"swa": {}, "ema_multi": {"multi_avg_fn": lib.get_ema_multi_avg_fn(0.7)},
                "ema": {"avg_fn": lib.get_ema_avg_fn(0.7)}}[averaging]
    e_avg, t_avg, _, _ = _train_and_average(
        "conv", lambda m: swa_utils.AveragedModel(m, use_buffers=True, **kwargs(swa_utils)),
        lambda m: torch_swa.AveragedModel(m, use_buffers=True, **kwargs(torch_swa)),
        input_shape=(6, 2, 5, 5))
    assert int(e_avg.module[1].num_batches_tracked) == int(t_avg.module[1].num_batches_tracked)


def test_swa_multi_avg_fn_on_integer_buffers_raises_as_torch():
    """get_swa_multi_avg_fn divides integer tensors with addcdiv, which torch refuses."""
    for lib, swa_mod, model in ((ember, swa_utils, _make_pair("bn1d")[0]),
                                (torch, torch_swa, _make_pair("bn1d")[1])):
        avg = swa_mod.AveragedModel(model, use_buffers=True,
                                    multi_avg_fn=swa_mod.get_swa_multi_avg_fn())
        avg.update_parameters(model)
        model(lib.ones(4, 5))
        with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
            avg.update_parameters(model)
    # with a plain int count the integer path adds diff with a float alpha: refused too
    for lib, swa_mod in ((torch, torch_swa), (ember, swa_utils)):
        a, b = lib.tensor([4, 8]), lib.tensor([10, 20])
        with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
            swa_mod.get_swa_multi_avg_fn()([a], [b], 1)
        assert a.tolist() == [4, 8]


def test_averaged_model_float64_and_custom_avg_fn():
    e_model, t_model = _make_pair("mlp")
    e_model, t_model = e_model.double(), t_model.double()

    def avg_fn(lib):
        return lambda avg, cur, n: avg * 0.25 + cur * 0.75 + n * 1e-3
    e_avg = swa_utils.AveragedModel(e_model, avg_fn=avg_fn(ember))
    t_avg = torch_swa.AveragedModel(t_model, avg_fn=avg_fn(torch))
    for step in range(4):
        with ember.no_grad():
            for p in e_model.parameters():
                p.mul_(1.5).add_(0.1)
        with torch.no_grad():
            for p in t_model.parameters():
                p.mul_(1.5).add_(0.1)
        e_avg.update_parameters(e_model)
        t_avg.update_parameters(t_model)
        _assert_state_equal(e_avg, t_avg, tol=1e-12)
        # the averaged parameters stay leaves without history
        assert all(p.grad_fn is None and p.requires_grad for p in e_avg.parameters())


def test_averaged_model_state_dict_round_trip():
    e_model, _ = _make_pair("mlp")
    avg = swa_utils.AveragedModel(e_model)
    avg.update_parameters(e_model)
    avg.update_parameters(e_model)
    keys = list(avg.state_dict())
    assert keys[0] == "n_averaged" and keys[1:] == ["module." + k for k in e_model.state_dict()]
    other = swa_utils.AveragedModel(e_model)
    other.load_state_dict(avg.state_dict())
    assert int(other.n_averaged) == 2


def test_deepcopy_of_an_ember_module_is_independent():
    e_model, _ = _make_pair("bn1d")
    clone = copy.deepcopy(e_model)
    with ember.no_grad():
        clone[0].weight.add_(1.0)
    clone[1].running_mean.add_(1.0)
    assert not np.allclose(_np(clone[0].weight), _np(e_model[0].weight))
    assert not np.allclose(_np(clone[1].running_mean), _np(e_model[1].running_mean))
    assert isinstance(clone[0].weight, ember.nn.Parameter)


def test_averaged_model_bad_arguments():
    e_model, t_model = _make_pair("mlp")
    for lib, model in ((swa_utils, e_model), (torch_swa, t_model)):
        with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
            lib.AveragedModel(model, avg_fn=lib.get_swa_avg_fn(),
                              multi_avg_fn=lib.get_swa_multi_avg_fn())
        for bad in (-0.1, 1.5):
            with pytest.raises(ValueError, match="Invalid decay value"):
                lib.get_ema_avg_fn(bad)
            with pytest.raises(ValueError, match="Invalid decay value"):
                lib.get_ema_multi_avg_fn(bad)
    # a model of another shape: copy_ refuses the shapes (RuntimeError, as torch)
    for lib, swa_mod, pair_index in ((torch, torch_swa, 1), (ember, swa_utils, 0)):
        avg = swa_mod.AveragedModel(_make_pair("bn1d")[pair_index])
        with pytest.raises(RuntimeError):
            avg.update_parameters(_make_pair("mlp")[pair_index])
    # same parameters but the buffers differ: zip(strict=True) raises ValueError, as torch
    for lib, swa_mod, pair_index in ((torch, torch_swa, 1), (ember, swa_utils, 0)):
        model = _make_pair("bn1d")[pair_index]
        avg = swa_mod.AveragedModel(model)
        no_stats = _make_pair("bn1d")[pair_index]
        no_stats[1].track_running_stats = False
        no_stats[1].running_mean = no_stats[1].running_var = None
        no_stats[1].num_batches_tracked = None
        with pytest.raises(ValueError):
            avg.update_parameters(no_stats)


@pytest.mark.parametrize("loader_kind", ["tensors", "pairs", "tuples"])
@pytest.mark.parametrize("kind", ["bn1d", "conv"])
def test_update_bn_matches_torch(kind, loader_kind):
    e_model, t_model = _make_pair(kind)
    shape = (6, 5) if kind == "bn1d" else (6, 2, 5, 5)
    rng = np.random.default_rng(3)
    batches = [rng.standard_normal(shape).astype(np.float32) * 2 + 1 for _ in range(4)]
    labels = [rng.integers(0, 3, 6) for _ in range(4)]

    def loader(lib):
        if loader_kind == "tensors":
            return [lib.from_numpy(b.copy()) for b in batches]
        if loader_kind == "pairs":
            return [[lib.from_numpy(b.copy()), lib.from_numpy(y.copy())]
                    for b, y in zip(batches, labels)]
        return [(lib.from_numpy(b.copy()),) for b in batches]

    for model in (e_model, t_model):
        model.eval()
        model[1].momentum = 0.3
    swa_utils.update_bn(loader(ember), e_model)
    torch_swa.update_bn(loader(torch), t_model)
    _assert_state_equal(e_model, t_model, tol=1e-5)
    # a cumulative average over the 4 batches, then momentum and eval mode restored
    assert int(e_model[1].num_batches_tracked) == 4
    assert e_model[1].momentum == 0.3 and not e_model.training and not e_model[1].training


def test_update_bn_cumulative_average_and_device_argument():
    e_model, _ = _make_pair("bn1d")
    e_model.train()
    batches = [ember.randn(10, 5) for _ in range(3)]
    swa_utils.update_bn(batches, e_model, device="cpu")
    assert e_model.training and e_model[1].momentum == 0.1
    with ember.no_grad():
        feats = [e_model[0](b) for b in batches]
    expected = sum(_np(f.mean(0)) for f in feats) / 3
    np.testing.assert_allclose(_np(e_model[1].running_mean), expected, rtol=1e-5, atol=1e-6)
    expected_var = sum(_np(f.var(0, unbiased=True)) for f in feats) / 3
    np.testing.assert_allclose(_np(e_model[1].running_var), expected_var, rtol=1e-5, atol=1e-6)


def test_update_bn_without_batchnorm_does_nothing():
    e_model, _ = _make_pair("mlp")
    before = {k: _np(v).copy() for k, v in e_model.state_dict().items()}
    swa_utils.update_bn(iter(()), e_model)
    # returns before reading the loader: no BatchNorm, nothing to do
    swa_utils.update_bn(None, e_model)
    for k, v in e_model.state_dict().items():
        np.testing.assert_array_equal(_np(v), before[k])


def _swalr_lrs(lib, params, epochs, **kwargs):
    opt = lib.optim.SGD([{"params": [params[0]], "lr": 0.5}, {"params": [params[1]], "lr": 0.2}],
                        lr=0.1)
    sched = (swa_utils if lib is ember else torch_swa).SWALR(opt, **kwargs)
    lrs = [[g["lr"] for g in opt.param_groups]]
    assert sched.get_last_lr() == lrs[0]
    for _ in range(epochs):
        opt.step()
        sched.step()
        lrs.append([g["lr"] for g in opt.param_groups])
        assert sched.get_last_lr() == lrs[-1]
    return lrs, sched


@pytest.mark.parametrize("swa_lr", [0.05, [0.05, 0.01]])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 5, 10])
@pytest.mark.parametrize("strategy", ["cos", "linear"])
def test_swalr_matches_torch(strategy, anneal_epochs, swa_lr):
    kwargs = {"swa_lr": swa_lr, "anneal_epochs": anneal_epochs, "anneal_strategy": strategy}
    e_lrs, e_sched = _swalr_lrs(ember, [ember.zeros(2, requires_grad=True) for _ in range(2)],
                                15, **kwargs)
    t_lrs, _ = _swalr_lrs(torch, [torch.zeros(2, requires_grad=True) for _ in range(2)], 15,
                          **kwargs)
    assert len(e_lrs) == len(t_lrs) == 16
    for e_row, t_row in zip(e_lrs, t_lrs):
        assert e_row == pytest.approx(t_row, rel=1e-12, abs=1e-15)
    final = swa_lr if isinstance(swa_lr, list) else [swa_lr, swa_lr]
    assert e_lrs[-1] == pytest.approx(final)
    assert e_sched.last_epoch == 15


def test_swalr_after_another_scheduler_and_state_dict():
    """SWALR starting from a decayed lr (the usual SWA recipe) and resuming from state."""
    def run(lib, swa_mod):
        p = (lib.zeros(2, requires_grad=True),)
        opt = lib.optim.SGD(p, lr=1.0)
        first = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        for _ in range(5):
            opt.step()
            first.step()
        swa = swa_mod.SWALR(opt, swa_lr=0.02, anneal_epochs=4, anneal_strategy="linear")
        lrs = []
        for _ in range(3):
            opt.step()
            swa.step()
            lrs.append(opt.param_groups[0]["lr"])
        state = swa.state_dict()
        assert "anneal_func" not in state and "optimizer" not in state
        resumed = swa_mod.SWALR(opt, swa_lr=0.5, anneal_strategy="cos")
        resumed.load_state_dict(state)
        for _ in range(3):
            opt.step()
            resumed.step()
            lrs.append(opt.param_groups[0]["lr"])
        return lrs, resumed
    e_lrs, e_resumed = run(ember, swa_utils)
    t_lrs, _ = run(torch, torch_swa)
    assert e_lrs == pytest.approx(t_lrs, rel=1e-12)
    assert e_resumed.anneal_func(0.5) == 0.5  # the linear ramp came back with the state


def test_swalr_get_lr_outside_step_warns():
    opt = ember.optim.SGD([ember.zeros(2, requires_grad=True)], lr=0.1)
    sched = swa_utils.SWALR(opt, swa_lr=0.01)
    with pytest.warns(UserWarning, match="get_last_lr"):
        sched.get_lr()


def test_swalr_cosine_formula():
    opt = ember.optim.SGD([ember.zeros(2, requires_grad=True)], lr=1.0)
    sched = swa_utils.SWALR(opt, swa_lr=0.0, anneal_epochs=4)
    lrs = [opt.param_groups[0]["lr"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(5):
            sched.step()
            lrs.append(opt.param_groups[0]["lr"])
    # lr_t = 1 - alpha(t / 4), alpha the cosine ramp, reaching swa_lr after 4 epochs
    expected = [1 - (1 - math.cos(math.pi * min(e, 4) / 4)) / 2 for e in range(6)]
    assert lrs == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("kwargs,match", [
    ({"swa_lr": 0.1, "anneal_strategy": "exp"}, "anneal_strategy must be one of"),
    ({"swa_lr": 0.1, "anneal_strategy": None}, "anneal_strategy must be one of"),
    ({"swa_lr": 0.1, "anneal_epochs": -1}, "anneal_epochs must be equal or greater than 0"),
    ({"swa_lr": 0.1, "anneal_epochs": 2.0}, "anneal_epochs must be equal or greater than 0"),
    ({"swa_lr": 0.1, "anneal_epochs": "3"}, "anneal_epochs must be equal or greater than 0"),
    ({"swa_lr": [0.1, 0.2, 0.3]}, "swa_lr must have the same length as optimizer.param_groups"),
    ({"swa_lr": (0.1,)}, "swa_lr must have the same length as optimizer.param_groups"),
])
def test_swalr_bad_arguments_raise_as_torch(kwargs, match):
    def make(lib):
        return lib.optim.SGD([{"params": [lib.zeros(2, requires_grad=True)]},
                              {"params": [lib.zeros(2, requires_grad=True)]}], lr=0.1)
    t_opt = make(torch)
    with pytest.raises(ValueError, match=match):
        torch_swa.SWALR(t_opt, **kwargs)
    e_opt = make(ember)
    with pytest.raises(ValueError, match=match):
        swa_utils.SWALR(e_opt, **kwargs)
    # checked before anything is written: the groups are untouched
    assert all("swa_lr" not in g and "initial_lr" not in g for g in e_opt.param_groups)


def test_swalr_rejects_a_non_optimizer():
    with pytest.raises(TypeError):
        swa_utils.SWALR(object(), swa_lr=0.1)


def test_module_surface_matches_torch():
    assert sorted(swa_utils.__all__) == sorted(torch_swa.__all__)
    assert ember.optim.swa_utils is swa_utils
    assert issubclass(swa_utils.SWALR, ember.optim.lr_scheduler.LRScheduler)
    assert issubclass(swa_utils.AveragedModel, ember.nn.Module)


def test_swalr_with_a_tensor_lr_matches_torch():
    def run(lib, swa_mod):
        opt = lib.optim.SGD([lib.zeros(2, requires_grad=True)], lr=lib.tensor(0.5))
        sched = swa_mod.SWALR(opt, swa_lr=0.05, anneal_epochs=3)
        lrs = []
        for _ in range(5):
            opt.step()
            sched.step()
            lr = opt.param_groups[0]["lr"]
            assert isinstance(lr, lib.Tensor) and isinstance(sched.get_last_lr()[0], lib.Tensor)
            lrs.append(float(lr))
        return lrs
    assert run(ember, swa_utils) == run(torch, torch_swa)
