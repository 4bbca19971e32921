"""ember.optim.swa_utils: Stochastic Weight Averaging and EMA, as torch.optim.swa_utils.

AveragedModel keeps a deep copy of a model whose parameters (and, with use_buffers=True,
buffers) are running averages of the model's: an equal-weight average (SWA) by default,
or whatever avg_fn / multi_avg_fn computes (get_ema_* for an exponential moving average).
update_bn recomputes BatchNorm statistics with one pass over a loader; SWALR anneals the
learning rate to a fixed SWA value.

The arithmetic follows PyTorch's, so results agree to the last bit where the ops do: on
CPU the default average is `avg + (model - avg) / (n + 1)` (PyTorch's per-tensor path),
on CUDA a lerp with weight 1 / (n + 1) (its foreach path). ember has no _foreach_ ops,
so the "multi" functions loop over the lists with the same in-place op per tensor.
"""
import itertools
import math
import warnings
from copy import deepcopy

from .. import _C
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _per_group
from .optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]

# Devices where PyTorch averages with its foreach (lerp) kernels instead of the
# per-tensor formula; matching the choice keeps the rounding identical.
_LERP_DEVICE_TYPES = ("cuda",)


def _is_float_or_complex(t):
    return _C.is_floating_point(t) or _C.is_complex(t)


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place EMA over lists of tensors: ema = decay * ema + (1 - decay) * model."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _num_averaged):
        if _is_float_or_complex(ema_param_list[0]):
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.lerp_(p_model, 1 - decay)
        else:  # integer tensors (e.g. num_batches_tracked): lerp_ is float-only
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """An in-place equal-weight average over lists of tensors."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if _is_float_or_complex(averaged_param_list[0]):
            # PyTorch passes 1 / (n + 1) (a 0-dim tensor when n is one) as the scalar weight.
            weight = 1 / (num_averaged + 1)
            if isinstance(weight, _C.Tensor):
                weight = weight.item()
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                p_avg.lerp_(p_model, weight)
        else:
            diffs = [p_model - p_avg for p_avg, p_model
                     in zip(averaged_param_list, current_param_list, strict=True)]
            for p_avg, diff in zip(averaged_param_list, diffs):
                if isinstance(num_averaged, _C.Tensor):
                    p_avg.addcdiv_(diff, num_averaged + 1)
                else:
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """EMA of one tensor: returns decay * ema + (1 - decay) * model."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """Equal-weight average of one tensor: returns avg + (model - avg) / (n + 1)."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _group_by_device_and_dtype(averaged, current):
    """{(device, dtype): ([averaged...], [current...])} in first-seen order: the lists a
    multi_avg_fn receives (one dtype and device per call, as PyTorch's grouping)."""
    groups = {}
    for p_avg, p_model in zip(averaged, current):
        key = (str(p_avg.device), p_avg.dtype)
        group = groups.setdefault(key, (p_avg.device, [], []))
        group[1].append(p_avg)
        group[2].append(p_model)
    return list(groups.values())


class AveragedModel(Module):
    """AveragedModel(model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False)

    A deep copy of `model` (moved to `device` if given) whose parameters are running
    averages of model's parameters, updated by update_parameters(model). The first call
    copies the parameters; later calls apply avg_fn(avg, model_param, n_averaged) (one
    tensor, the result is copied in), multi_avg_fn(avg_list, model_list, n_averaged) (in
    place, one call per device and dtype), or the equal-weight SWA average when neither
    is given. With use_buffers=True the buffers are averaged too; otherwise they are
    copied from model. n_averaged (an int64 buffer) counts the updates. forward()
    calls the copy.
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _C.tensor(0, dtype=_C.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Average model's parameters (and buffers if use_buffers) into this copy."""
        if self.use_buffers:
            self_params = itertools.chain(self.module.parameters(), self.module.buffers())
            model_params = itertools.chain(model.parameters(), model.buffers())
        else:
            self_params = self.parameters()
            model_params = model.parameters()
        averaged, current = [], []
        first_update = bool(self.n_averaged == 0)
        for p_avg, p_model in zip(self_params, model_params):
            p_model_ = p_model.detach().to(p_avg.device)
            averaged.append(p_avg.detach())
            current.append(p_model_)
            if first_update:
                p_avg.detach().copy_(p_model_)

        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                for device, avg_group, model_group in _group_by_device_and_dtype(averaged,
                                                                                  current):
                    n_averaged = self.n_averaged.to(device)
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(avg_group, model_group, n_averaged)
                    elif device.type in _LERP_DEVICE_TYPES:
                        get_swa_multi_avg_fn()(avg_group, model_group, n_averaged)
                    else:
                        swa = get_swa_avg_fn()
                        for p_avg, p_model in zip(avg_group, model_group, strict=True):
                            p_avg.copy_(swa(p_avg, p_model, n_averaged))
            else:
                for p_avg, p_model in zip(averaged, current, strict=True):
                    n_averaged = self.n_averaged.to(p_avg.device)
                    p_avg.copy_(self.avg_fn(p_avg, p_model, n_averaged))

        if not self.use_buffers:
            # Buffers are not averaged: keep them in sync with the source model.
            for b_avg, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_avg.detach().copy_(b_model.detach().to(b_avg.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute the running_mean/running_var of model's BatchNorm layers with one pass
    over loader (batches are tensors, or lists/tuples whose first item is the input),
    as a cumulative average (momentum None); momenta and training mode are restored."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return

    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    try:
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    finally:
        # PyTorch restores only after a full pass; restoring on an error too leaves the
        # model usable (its statistics are then those of the batches seen).
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


_ANNEAL_SHAPES = {
    "linear": lambda t: t,
    "cos": lambda t: 0.5 * (1.0 - math.cos(math.pi * t)),
}


def _ramp_start(lr, swa_lr, alpha):
    """The lr the ramp started from, given lr = alpha * swa_lr + (1 - alpha) * start."""
    return swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)


class SWALR(LRScheduler):
    """SWALR(optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1)

    Anneals each group's lr to swa_lr (one value, or one per group) over anneal_epochs
    epochs, with a cosine ("cos") or linear ("linear") ramp, then keeps it there.
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        # Every check before the groups are written, so a bad call changes nothing.
        swa_lrs = [v.clone() if isinstance(v, _C.Tensor) else v
                   for v in _per_group("swa_lr", optimizer, swa_lr)]
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        for value, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = value
        self._set_anneal_func(anneal_strategy)
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        # the fraction of the way from the start lr to swa_lr after a fraction t of the ramp
        self.anneal_func = _ANNEAL_SHAPES["cos" if anneal_strategy == "cos" else "linear"]

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        # The lr of the previous step is undone to the lr the ramp started from (chainable
        # form), then the ramp is evaluated one step further.
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        start_lrs = [_ramp_start(group["lr"], group["swa_lr"], prev_alpha)
                     for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, start_lrs)]

    def state_dict(self):
        """Every attribute but the optimizer and the anneal function (a bound method)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
