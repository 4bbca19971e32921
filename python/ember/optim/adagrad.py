"""Adagrad: torch.optim.Adagrad's arguments, defaults, checks and update rule."""
from .. import _C
from .optimizer import (Optimizer, _check_lr, _check_options, _closure_loss, _no_grad_step,
                        _params_with_grad, _scalar, _new_step_tensor)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad.

    g = gradient (negated if maximize) + weight_decay * param; at step t the lr is
    lr / (1 + (t - 1) * lr_decay); sum += g * g; param -= lr_t * g / (sqrt(sum) + eps).
    Every parameter's state ("step" 0, "sum" filled with initial_accumulator_value)
    exists from construction on, as in PyTorch.
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        _check_options(lr_decay=lr_decay, weight_decay=weight_decay,
                       initial_accumulator_value=initial_accumulator_value, eps=eps,
                       differentiable=differentiable)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group)

    def _init_state(self, p, group):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _new_step_tensor()
            state["sum"] = _C.full_like(p, group["initial_accumulator_value"])
        return state

    @_no_grad_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in _params_with_grad(group):
                state = self._init_state(p, group)  # a group added later starts here
                state["step"].add_(1)
                _C._adagrad_step_(p, p.grad, state["sum"], lr=_scalar(group["lr"]),
                                  lr_decay=group["lr_decay"], weight_decay=group["weight_decay"],
                                  eps=group["eps"], step=state["step"].item(),
                                  maximize=group["maximize"])
        return loss
