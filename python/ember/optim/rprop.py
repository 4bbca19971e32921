"""Rprop: torch.optim.Rprop's arguments, defaults, checks, state and update rule.

Composed of ember tensor ops in Python, in the order of torch.optim's single-tensor
(foreach=False) code.
"""
from .. import _C
from .optimizer import (Optimizer, _check_lr, _check_options, _closure_loss, _new_step_tensor,
                        _no_grad_step, _params_with_grad, _scalar, _upgrade_state)

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Resilient backpropagation (Riedmiller & Braun, 1993), the iRprop- variant.

    g = gradient (negated if maximize); per element, with s = sign(g * prev):
    factor = etaplus where s > 0, etaminus where s < 0, 1 where s == 0;
    step_size = clamp(step_size * factor, *step_sizes);
    where the sign flipped (factor == etaminus) g = 0 (no move, and no flip next time);
    param -= sign(g) * step_size; prev = g.
    The step sizes start at lr. State per parameter: "step" (0-dim float32), "prev",
    "step_size".
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _check_options(differentiable=differentiable, capturable=capturable)
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _upgrade_state(self, {"foreach": None, "maximize": False, "differentiable": False,
                              "capturable": False})

    @_no_grad_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p in _params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _new_step_tensor()
                    state["prev"] = _C.zeros_like(p)
                    state["step_size"] = _C.full_like(p.grad, _scalar(group["lr"]))
                prev, step_size = state["prev"], state["step_size"]
                state["step"].add_(1)

                grad = p.grad.neg() if group["maximize"] else p.grad
                # The three replacements in torch's order, each on the result of the one
                # before, so that a NaN product stays NaN as in torch.
                factor = grad.mul(prev).sign()
                factor = _C.where(factor.gt(0), etaplus, factor)
                factor = _C.where(factor.lt(0), etaminus, factor)
                factor = _C.where(factor.eq(0), 1, factor)
                step_size.mul_(factor).clamp_(step_size_min, step_size_max)

                # Where the gradient changed sign, do not move and forget the gradient.
                grad = _C.where(factor.eq(etaminus), 0, grad)
                p.addcmul_(grad.sign(), step_size, value=-1)
                prev.copy_(grad)
        return loss
