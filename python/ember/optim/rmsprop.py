"""RMSprop: torch.optim.RMSprop's arguments, defaults, checks and update rule."""
from .. import _C
from .optimizer import (Optimizer, _check_lr, _check_options, _closure_loss, _no_grad_step,
                        _params_with_grad, _scalar, _new_step_tensor)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop.

    g = gradient (negated if maximize) + weight_decay * param; v = alpha * v +
    (1 - alpha) * g * g; centered: avg = sqrt(v - E[g]^2) with E[g] =
    lerp(E[g], g, 1 - alpha), else avg = sqrt(v); avg += eps; with momentum
    b = momentum * b + g / avg and param -= lr * b, else param -= lr * g / avg.
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_lr(lr)
        _check_options(eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha,
                       differentiable=differentiable, capturable=capturable)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay, "capturable": capturable,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            momentum, centered = group["momentum"], group["centered"]
            for p in _params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _new_step_tensor()
                    state["square_avg"] = _C.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _C.zeros_like(p)
                    if centered:
                        state["grad_avg"] = _C.zeros_like(p)
                state["step"].add_(1)
                _C._rmsprop_step_(p, p.grad, state["square_avg"],
                                  state["momentum_buffer"] if momentum > 0 else None,
                                  state["grad_avg"] if centered else None,
                                  lr=_scalar(group["lr"]), alpha=group["alpha"], eps=group["eps"],
                                  weight_decay=group["weight_decay"], momentum=momentum,
                                  maximize=group["maximize"])
        return loss
