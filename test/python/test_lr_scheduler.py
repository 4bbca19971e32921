"""ember.optim.lr_scheduler: lr sequences against the closed-form formulas (and torch's
schedulers where torch is importable), chaining, state_dict, warnings and checks."""
import math
import warnings

import pytest

import ember
import ember.optim as optim
from ember.optim import lr_scheduler


def make_optimizer(cls=optim.SGD, lrs=(0.1,), **kwargs):
    groups = [{"params": [ember.zeros(2).requires_grad_()], "lr": lr} for lr in lrs]
    return cls(groups, **kwargs)


def run(scheduler, optimizer, steps):
    """The lrs of group 0 after construction and after each step (optimizer.step() first)."""
    lrs = [scheduler.get_last_lr()[0]]
    for _ in range(steps):
        optimizer.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr()[0])
        assert optimizer.param_groups[0]["lr"] == lrs[-1]
    return lrs


def test_step_lr_follows_the_closed_form():
    opt = make_optimizer(lrs=(1.0, 0.5))
    sched = lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    assert sched.last_epoch == 0 and sched.base_lrs == [1.0, 0.5]
    lrs = run(sched, opt, 10)
    assert lrs == pytest.approx([0.5 ** (e // 3) for e in range(11)])
    assert sched.get_last_lr()[1] == pytest.approx(0.5 * 0.5 ** 3)
    assert sched.last_epoch == 10


def test_multistep_lr_decays_at_milestones_twice_for_a_repeated_one():
    opt = make_optimizer(lrs=(1.0,))
    sched = lr_scheduler.MultiStepLR(opt, milestones=[2, 5, 5], gamma=0.1)
    assert run(sched, opt, 7) == pytest.approx([1, 1, 0.1, 0.1, 0.1, 1e-3, 1e-3, 1e-3])


def test_exponential_lr():
    opt = make_optimizer(lrs=(0.2,))
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.9)
    assert run(sched, opt, 6) == pytest.approx([0.2 * 0.9 ** e for e in range(7)])


@pytest.mark.parametrize("T_max, eta_min", [(5, 0.0), (4, 0.01), (1, 0.0)])
def test_cosine_annealing_follows_the_closed_form_and_back_up(T_max, eta_min):
    opt = make_optimizer(lrs=(0.1,))
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=T_max, eta_min=eta_min)
    lrs = run(sched, opt, 3 * T_max)
    closed = [eta_min + (0.1 - eta_min) * (1 + math.cos(math.pi * e / T_max)) / 2
              for e in range(3 * T_max + 1)]
    assert lrs == pytest.approx(closed, abs=1e-12)


def test_lambda_lr_with_one_function_per_group():
    opt = make_optimizer(lrs=(1.0, 2.0))
    sched = lr_scheduler.LambdaLR(opt, [lambda e: 1 / (e + 1), lambda e: 0.5 ** e])
    for e in range(1, 5):
        opt.step()
        sched.step()
        assert sched.get_last_lr() == pytest.approx([1 / (e + 1), 2.0 * 0.5 ** e])
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        lr_scheduler.LambdaLR(opt, [lambda e: 1.0])


def test_lambda_lr_state_dict_keeps_callable_objects_not_functions():
    class Warmup:
        def __init__(self, n):
            self.n = n

        def __call__(self, epoch):
            return min(1.0, (epoch + 1) / self.n)

    opt = make_optimizer(lrs=(1.0, 1.0))
    sched = lr_scheduler.LambdaLR(opt, [Warmup(4), lambda e: 1.0])
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"n": 4}, None]
    assert "optimizer" not in state
    other = lr_scheduler.LambdaLR(make_optimizer(lrs=(1.0, 1.0)), [Warmup(10), lambda e: 1.0])
    other.load_state_dict(state)
    assert other.lr_lambdas[0].n == 4
    assert state["lr_lambdas"] == [{"n": 4}, None]  # the caller's dict is left whole


@pytest.mark.parametrize("kwargs", [dict(), dict(anneal_strategy="linear"),
                                    dict(three_phase=True, pct_start=0.25)])
def test_one_cycle_lr_shape(kwargs):
    opt = make_optimizer(lrs=(0.5,), momentum=0.9)
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=20, **kwargs)
    momenta = [opt.param_groups[0]["momentum"]]
    lrs = [sched.get_last_lr()[0]]
    for _ in range(19):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
        momenta.append(opt.param_groups[0]["momentum"])
    pct = kwargs.get("pct_start", 0.3)
    peak = int(pct * 20) - 1
    assert lrs[0] == pytest.approx(1.0 / 25)  # max_lr / div_factor
    assert momenta[0] == pytest.approx(0.95)
    assert max(lrs) == pytest.approx(1.0) and lrs.index(max(lrs)) == peak
    assert momenta[peak] == pytest.approx(0.85)
    assert lrs[-1] == pytest.approx(1.0 / 25 / 1e4)  # the minimum at total_steps - 1
    assert sched.base_lrs == [pytest.approx(0.04)]
    assert opt.param_groups[0]["max_lr"] == 1.0
    if kwargs.get("anneal_strategy") == "linear":
        assert lrs[1] - lrs[0] == pytest.approx(lrs[2] - lrs[1])
    if kwargs.get("three_phase"):
        assert lrs[int(2 * pct * 20) - 2] == pytest.approx(1.0 / 25)  # back at the initial lr
    opt.step()
    sched.step()  # step total_steps is allowed, one more is not
    with pytest.raises(ValueError, match="Tried to step 21 times. The specified number of total "
                                         "steps is 20"):
        sched.step()


def test_one_cycle_lr_cycles_adams_beta1_and_per_group_max_lr():
    opt = make_optimizer(optim.Adam, lrs=(0.1, 0.1), betas=(0.9, 0.99))
    sched = lr_scheduler.OneCycleLR(opt, max_lr=[1.0, 2.0], epochs=2, steps_per_epoch=5)
    assert sched.total_steps == 10
    assert opt.param_groups[0]["betas"] == (pytest.approx(0.95), 0.99)
    assert sched.get_last_lr() == pytest.approx([0.04, 0.08])


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(max_lr=1.0), "You must define either total_steps OR"),
    (dict(max_lr=1.0, total_steps=0), "Expected positive integer total_steps, but got 0"),
    (dict(max_lr=1.0, epochs=0, steps_per_epoch=2), "Expected positive integer epochs"),
    (dict(max_lr=1.0, total_steps=10, pct_start=1.5), "Expected float between 0 and 1 pct_start"),
    (dict(max_lr=1.0, total_steps=10, anneal_strategy="exp"), "anneal_strategy must be one of"),
    (dict(max_lr=[1.0, 2.0], total_steps=10), "max_lr must have the same length as "
                                              "optimizer.param_groups"),
])
def test_one_cycle_lr_checks(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        lr_scheduler.OneCycleLR(make_optimizer(momentum=0.9), **kwargs)


def test_one_cycle_lr_needs_momentum_to_cycle_it():
    opt = make_optimizer(optim.Adagrad)
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, cycle_momentum=False)


def test_schedulers_chain():
    opt = make_optimizer(lrs=(1.0,))
    a = lr_scheduler.ExponentialLR(opt, gamma=0.9)
    b = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    for e in range(1, 6):
        opt.step()
        a.step()
        b.step()
        assert opt.param_groups[0]["lr"] == pytest.approx(0.9 ** e * 0.5 ** (e // 2))
    assert opt.param_groups[0]["initial_lr"] == 1.0


def test_state_dict_resumes_a_scheduler():
    opt = make_optimizer(lrs=(0.1,))
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    run(sched, opt, 4)
    state = sched.state_dict()
    assert state["last_epoch"] == 4 and "optimizer" not in state
    opt2 = make_optimizer(lrs=(0.1,))
    opt2.load_state_dict(opt.state_dict())
    sched2 = lr_scheduler.CosineAnnealingLR(opt2, T_max=10)
    sched2.load_state_dict(state)
    opt2.param_groups[0]["lr"] = opt.param_groups[0]["lr"]
    assert run(sched2, opt2, 3) == pytest.approx(run(sched, opt, 3))


def test_resuming_with_last_epoch():
    opt = make_optimizer(lrs=(1.0,))
    with pytest.raises(KeyError, match="initial_lr"):
        lr_scheduler.StepLR(opt, step_size=2, last_epoch=3)
    opt.param_groups[0]["initial_lr"] = 1.0
    opt.param_groups[0]["lr"] = 0.5
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5, last_epoch=3)
    # the constructor's step does not move a resumed schedule ahead of itself
    assert sched.last_epoch == 4 and sched.get_last_lr() == [0.5]
    assert sched.base_lrs == [1.0]


def test_step_with_an_epoch_uses_the_closed_form_and_warns():
    opt = make_optimizer(lrs=(1.0,))
    sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)`"):
        sched.step(7)
    assert sched.last_epoch == 7 and sched.get_last_lr() == [pytest.approx(0.125)]


def test_warns_when_the_scheduler_steps_before_the_optimizer():
    opt = make_optimizer()
    sched = lr_scheduler.StepLR(opt, step_size=1)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    opt = make_optimizer()
    sched = lr_scheduler.StepLR(opt, step_size=1)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()


def test_get_lr_outside_step_warns():
    opt = make_optimizer()
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


def test_a_scheduler_needs_an_optimizer():
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        lr_scheduler.StepLR([], step_size=1)
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        lr_scheduler.OneCycleLR([], max_lr=1.0, total_steps=2)


def test_tensor_lr_is_filled_in_place():
    opt = make_optimizer(lrs=(ember.tensor(1.0, dtype=ember.float64),))
    lr = opt.param_groups[0]["lr"]
    sched = lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] is lr and lr.item() == 0.5
    assert sched.get_last_lr()[0] is not lr


# ---- against torch.optim.lr_scheduler --------------------------------------------------------

SCHEDULES = [
    ("StepLR", dict(step_size=3, gamma=0.3), "SGD", dict(momentum=0.9)),
    ("MultiStepLR", dict(milestones=[1, 4, 4, 9], gamma=0.5), "SGD", {}),
    ("ExponentialLR", dict(gamma=0.8), "Adam", {}),
    ("CosineAnnealingLR", dict(T_max=6, eta_min=0.001), "SGD", {}),
    ("CosineAnnealingLR", dict(T_max=3), "Adam", {}),
    ("OneCycleLR", dict(max_lr=[0.5, 1.0], total_steps=15), "SGD", dict(momentum=0.9)),
    ("OneCycleLR", dict(max_lr=0.3, total_steps=15, three_phase=True, anneal_strategy="linear",
                        pct_start=0.2), "Adam", {}),
    ("OneCycleLR", dict(max_lr=0.3, epochs=3, steps_per_epoch=5, cycle_momentum=False),
     "Adagrad", {}),
    ("LambdaLR", dict(lr_lambda=lambda e: 0.9 ** e + 0.01 * e), "RMSprop", {}),
]


@pytest.mark.parametrize("sched_name, sched_kwargs, opt_name, opt_kwargs", SCHEDULES,
                         ids=[s[0] for s in SCHEDULES])
def test_matches_torch(sched_name, sched_kwargs, opt_name, opt_kwargs):
    torch = pytest.importorskip("torch")
    ours_opt = make_optimizer(getattr(optim, opt_name), lrs=(0.1, 0.05), **opt_kwargs)
    theirs_opt = getattr(torch.optim, opt_name)(
        [{"params": [torch.zeros(2, requires_grad=True)], "lr": lr} for lr in (0.1, 0.05)],
        **opt_kwargs)
    ours = getattr(lr_scheduler, sched_name)(ours_opt, **sched_kwargs)
    theirs = getattr(torch.optim.lr_scheduler, sched_name)(theirs_opt, **sched_kwargs)
    step_alongside_torch(ours, ours_opt, theirs, theirs_opt, 15)


def step_alongside_torch(ours, ours_opt, theirs, theirs_opt, steps):
    """Steps both (optimizer first), checking lrs and momenta before each step, then the
    epoch count and the state_dict's public keys."""
    for _ in range(steps):
        assert ours.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=1e-12, abs=1e-15)
        for mine, ref in zip(ours_opt.param_groups, theirs_opt.param_groups):
            assert mine["lr"] == pytest.approx(ref["lr"], rel=1e-12, abs=1e-15)
            for key in ("momentum", "betas"):
                if key in ref:
                    assert mine[key] == pytest.approx(ref[key], rel=1e-12)
        ours_opt.step()
        theirs_opt.step()
        ours.step()
        theirs.step()
    assert getattr(ours, "last_epoch", None) == getattr(theirs, "last_epoch", None)
    ours_state, theirs_state = ours.state_dict(), theirs.state_dict()
    assert sorted(k for k in ours_state if not k.startswith("_")) == \
        sorted(k for k in theirs_state if not k.startswith("_"))
