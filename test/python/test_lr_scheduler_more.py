"""The schedulers added after the first six: MultiplicativeLR, ConstantLR, LinearLR,
PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR, SequentialLR, ChainedScheduler and
ReduceLROnPlateau. Sequences against closed forms here, and step by step against torch's
(lrs, momenta, state_dict keys) where torch is importable."""
import math
import warnings

import pytest

import ember.optim as optim
from ember.optim import lr_scheduler

from test_lr_scheduler import make_optimizer, run, step_alongside_torch


def test_constant_lr_closed_form():
    opt = make_optimizer(lrs=(0.5,))
    sched = lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=3)
    assert run(sched, opt, 5) == pytest.approx([0.25, 0.25, 0.25, 0.5, 0.5, 0.5])


def test_linear_lr_closed_form():
    opt = make_optimizer(lrs=(1.0,))
    sched = lr_scheduler.LinearLR(opt, start_factor=0.2, end_factor=1.0, total_iters=4)
    assert run(sched, opt, 6) == pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0, 1.0, 1.0])


def test_polynomial_lr_closed_form():
    opt = make_optimizer(lrs=(1.0,))
    sched = lr_scheduler.PolynomialLR(opt, total_iters=4, power=2.0)
    assert run(sched, opt, 6) == pytest.approx([(1 - min(e, 4) / 4) ** 2 for e in range(7)],
                                               abs=1e-15)


def test_multiplicative_lr_multiplies_from_epoch_one():
    opt = make_optimizer(lrs=(1.0,))
    sched = lr_scheduler.MultiplicativeLR(opt, lr_lambda=lambda e: 0.5)
    assert run(sched, opt, 3) == pytest.approx([1.0, 0.5, 0.25, 0.125])


def test_warm_restarts_restart_with_growing_periods():
    opt = make_optimizer(lrs=(1.0,))
    sched = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.0)
    lrs = run(sched, opt, 7)
    # periods of 2 then 4 epochs: T_cur = 0,1 | 0,1,2,3 | 0,1
    cur = [(0, 2), (1, 2), (0, 4), (1, 4), (2, 4), (3, 4), (0, 8), (1, 8)]
    assert lrs == pytest.approx([(1 + math.cos(math.pi * c / t)) / 2 for c, t in cur], abs=1e-12)


def test_cyclic_lr_triangle():
    opt = make_optimizer(lrs=(0.1,), momentum=0.9)
    sched = lr_scheduler.CyclicLR(opt, base_lr=0.0, max_lr=1.0, step_size_up=2)
    assert run(sched, opt, 6) == pytest.approx([0.0, 0.5, 1.0, 0.5, 0.0, 0.5, 1.0])
    assert opt.param_groups[0]["momentum"] == pytest.approx(0.8)


def test_sequential_lr_switches_at_milestones():
    opt = make_optimizer(lrs=(1.0,))
    warmup = lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=2)
    decay = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    sched = lr_scheduler.SequentialLR(opt, [warmup, decay], milestones=[2])
    assert run(sched, opt, 5) == pytest.approx([0.25, 0.625, 1.0, 0.5, 0.25, 0.125])


def test_chained_scheduler_multiplies_effects():
    opt = make_optimizer(lrs=(1.0,))
    a = lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    b = lr_scheduler.ExponentialLR(opt, gamma=0.9)
    sched = lr_scheduler.ChainedScheduler([a, b])
    assert run(sched, opt, 3) == pytest.approx([0.5, 0.45, 0.81, 0.729])


def test_reduce_on_plateau_waits_for_patience_then_cools_down():
    opt = make_optimizer(lrs=(1.0,))
    sched = lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1, cooldown=1, min_lr=0.2)
    lrs = []
    for metric in [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]:
        sched.step(metric)
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs == pytest.approx([1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.2])
    assert sched.get_last_lr() == [0.2]
    state = sched.state_dict()
    again = lr_scheduler.ReduceLROnPlateau(make_optimizer(lrs=(1.0,)))
    again.load_state_dict(state)
    assert again.best == 1.0 and again.factor == 0.5 and again.mode == "min"


def test_reduce_on_plateau_improvement_resets_the_count():
    opt = make_optimizer(lrs=(1.0,))
    sched = lr_scheduler.ReduceLROnPlateau(opt, mode="max", patience=0, threshold=0.1,
                                           threshold_mode="abs")
    sched.step(1.0)   # best
    sched.step(1.05)  # not better by 0.1: reduced
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)
    sched.step(1.2)   # better
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)


@pytest.mark.parametrize("make, error, pattern", [
    (lambda o: lr_scheduler.ConstantLR(o, factor=2.0), ValueError, "between 0 and 1"),
    (lambda o: lr_scheduler.LinearLR(o, start_factor=0.0), ValueError, "greater than 0"),
    (lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=0), ValueError, "T_0"),
    (lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0), ValueError, "T_mult"),
    (lambda o: lr_scheduler.CyclicLR(o, 0.1, 1.0, mode="zigzag"), ValueError, "mode is invalid"),
    (lambda o: lr_scheduler.CyclicLR(o, [0.1, 0.2], 1.0), ValueError, "base_lr must have"),
    (lambda o: lr_scheduler.ReduceLROnPlateau(o, factor=1.0), ValueError, "Factor should be"),
    (lambda o: lr_scheduler.ReduceLROnPlateau(o, mode="best"), ValueError, "mode best is unknown"),
    (lambda o: lr_scheduler.ReduceLROnPlateau(o, threshold_mode="x"), ValueError, "threshold mode"),
    (lambda o: lr_scheduler.MultiplicativeLR(o, lr_lambda=0.5), TypeError, "should be a function"),
    (lambda o: lr_scheduler.SequentialLR(o, [], milestones=[]), ValueError, "at least one"),
    (lambda o: lr_scheduler.SequentialLR(o, [lr_scheduler.StepLR(o, 2)], milestones=[3]),
     ValueError, "one more than the number of milestone"),
    (lambda o: lr_scheduler.ChainedScheduler([lr_scheduler.ReduceLROnPlateau(o)]),
     ValueError, "does not support `ReduceLROnPlateau`"),
    (lambda o: lr_scheduler.SequentialLR(
        o, [lr_scheduler.StepLR(o, 2), lr_scheduler.StepLR(make_optimizer(), 2)], [1]),
     ValueError, "same optimizer"),
])
def test_bad_arguments(make, error, pattern):
    with pytest.raises(error, match=pattern):
        make(make_optimizer(momentum=0.9))


# ---- against torch.optim.lr_scheduler --------------------------------------------------------

def _constant_then_exp(mod, opt):
    return [mod.ConstantLR(opt, factor=0.5, total_iters=3), mod.ExponentialLR(opt, gamma=0.9)]


SCHEDULES = [
    ("MultiplicativeLR", lambda m, o: m.MultiplicativeLR(o, lr_lambda=lambda e: 0.95), "SGD", {}),
    ("ConstantLR", lambda m, o: m.ConstantLR(o, factor=0.3, total_iters=4), "Adam", {}),
    ("LinearLR", lambda m, o: m.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=6),
     "SGD", dict(momentum=0.9)),
    ("PolynomialLR", lambda m, o: m.PolynomialLR(o, total_iters=8, power=1.5), "SGD", {}),
    ("WarmRestarts", lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
     "SGD", {}),
    ("CyclicLR", lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=3,
                                         step_size_down=2), "SGD", dict(momentum=0.9)),
    ("CyclicLR2", lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="triangular2"),
     "SGD", dict(momentum=0.9)),
    ("CyclicLRexp", lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="exp_range",
                                            gamma=0.9), "Adam", {}),
    ("SequentialLR", lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.1, total_iters=3), m.CosineAnnealingLR(o, T_max=6),
            m.StepLR(o, 2)], milestones=[3, 9]), "SGD", {}),
    ("ChainedScheduler", lambda m, o: m.ChainedScheduler(_constant_then_exp(m, o)), "SGD", {}),
]


@pytest.mark.parametrize("name, make, opt_name, opt_kwargs", SCHEDULES,
                         ids=[s[0] for s in SCHEDULES])
def test_matches_torch(name, make, opt_name, opt_kwargs):
    torch = pytest.importorskip("torch")
    ours_opt = make_optimizer(getattr(optim, opt_name), lrs=(0.1, 0.05), **opt_kwargs)
    theirs_opt = getattr(torch.optim, opt_name)(
        [{"params": [torch.zeros(2, requires_grad=True)], "lr": lr} for lr in (0.1, 0.05)],
        **opt_kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns about steps before optimizer.step
        ours, theirs = make(lr_scheduler, ours_opt), make(torch.optim.lr_scheduler, theirs_opt)
    step_alongside_torch(ours, ours_opt, theirs, theirs_opt, 16)


def test_reduce_on_plateau_matches_torch():
    torch = pytest.importorskip("torch")
    ours_opt = make_optimizer(lrs=(0.1, 0.05))
    theirs_opt = torch.optim.SGD(
        [{"params": [torch.zeros(2, requires_grad=True)], "lr": lr} for lr in (0.1, 0.05)])
    kw = dict(mode="min", factor=0.3, patience=2, threshold=0.05, cooldown=1, min_lr=[0.001, 0.002])
    ours = lr_scheduler.ReduceLROnPlateau(ours_opt, **kw)
    theirs = torch.optim.lr_scheduler.ReduceLROnPlateau(theirs_opt, **kw)
    metrics = [1.0, 0.9, 0.89, 0.88, 0.87, 0.5, 0.49, 0.48, 0.48, 0.47, 0.47, 0.3, 0.3, 0.3, 0.3]
    for m in metrics * 2:
        ours.step(m)
        theirs.step(m)
        assert ours.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=1e-12)
        assert (ours.num_bad_epochs, ours.cooldown_counter, ours.best) == \
            (theirs.num_bad_epochs, theirs.cooldown_counter, theirs.best)
