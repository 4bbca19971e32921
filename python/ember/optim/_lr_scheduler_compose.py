"""Schedulers that drive other schedulers (SequentialLR, ChainedScheduler) or follow a
metric (ReduceLROnPlateau), with torch.optim.lr_scheduler's names, rules and messages.
Re-exported by ember.optim.lr_scheduler."""
import warnings
from bisect import bisect_right
from math import inf

from .lr_scheduler import (EPOCH_DEPRECATION_WARNING, LRScheduler, _lrs, _set_group_value)
from .optimizer import Optimizer


def _check_schedulers(owner, optimizer, schedulers):
    """The rules SequentialLR and ChainedScheduler share: at least one scheduler, each
    an LR scheduler of the same optimizer, none a ReduceLROnPlateau (its step needs the
    metric)."""
    name = type(owner).__name__
    if len(schedulers) < 1:
        raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it "
                             "requires additional kwargs to be specified when calling `step`, "
                             f"but got one at index {i} in the given schedulers sequence.")
        if optimizer != scheduler.optimizer:
            raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, "
                             f"but got scheduler {type(scheduler).__name__} at index {i} has "
                             f"{scheduler.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


class _SchedulerList(LRScheduler):
    """state_dict/load_state_dict of a scheduler that holds others: its own attributes
    plus each inner scheduler's state."""

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        inner = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for scheduler, state in zip(self._schedulers, inner):
            scheduler.load_state_dict(state)


class SequentialLR(_SchedulerList):
    """Runs schedulers one after another: schedulers[i] from milestones[i - 1] on, each
    restarted (epoch 0) at its milestone."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_schedulers(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be "
                             "one more than the number of milestone points, but got number of "
                             f"schedulers {len(schedulers)} and the number of milestones to be "
                             f"equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Undo the initial steps the schedulers took when they were made, then take the
        # first one's again from the base lrs.
        for group in optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None):
        """One epoch back for every scheduler inside (nested ones too)."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_SchedulerList):
    """Steps every scheduler of the list at each step(), so their effects multiply."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError("ChainedScheduler expects at least one scheduler to be chained, but "
                             "got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(self, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _lrs(self._schedulers[-1].optimizer)

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _lrs(self._schedulers[-1].optimizer)


class ReduceLROnPlateau(LRScheduler):
    """Multiplies the lrs by factor when the metric passed to step(metric) has not
    improved (by threshold, relative or absolute) for patience epochs; then waits
    cooldown epochs. Never below min_lr; changes smaller than eps are skipped."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _lrs(optimizer)
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        value = float(metrics)
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        improved = self._is_better(value, self.best)
        self.best = value if improved else self.best
        # a bad epoch counts unless it falls in the cooldown after a reduction
        self.num_bad_epochs = 0 if improved else self.num_bad_epochs + 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = _lrs(self.optimizer)

    def _reduce_lr(self):
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` "
                    f"({len(self.optimizer.param_groups)}) differs from when `ReduceLROnPlateau` "
                    f"was initialized ({len(self.min_lrs)}), usually due to a new param group "
                    "being added to the optimizer. Please modify the `min_lrs` field to match "
                    "the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                _set_group_value(group, "lr", new_lr)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = inf if mode == "min" else -inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)
