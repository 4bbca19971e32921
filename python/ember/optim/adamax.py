"""Adamax: torch.optim.Adamax's arguments, defaults, checks, state and update rule.

Composed of ember tensor ops in Python, in the order of torch.optim's single-tensor
(foreach=False) code. Its argument checks (_check_adam_family, optimizer.py) are
NAdam's and RAdam's too.
"""
from .. import _C
from .optimizer import (Optimizer, _check_adam_family, _check_options, _closure_loss,
                        _new_step_tensor, _no_grad_step, _params_with_grad, _scalar,
                        _upgrade_state)

__all__ = ["Adamax"]




class Adamax(Optimizer):
    """Adamax, Adam with the infinity norm (Kingma & Ba, 2014, section 7).

    g = gradient (negated if maximize) + weight_decay * param;
    m = lerp(m, g, 1 - beta1)                       ("exp_avg")
    u = max(beta2 * u, |g| + eps)                   ("exp_inf")
    param -= lr / (1 - beta1^t) * m / u
    State per parameter: "step" (0-dim float32), "exp_avg", "exp_inf".
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_adam_family(lr, betas, eps, weight_decay)
        _check_options(differentiable=differentiable, capturable=capturable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
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
            lr, eps, weight_decay = _scalar(group["lr"]), group["eps"], group["weight_decay"]
            beta1, beta2 = (_scalar(b) for b in group["betas"])
            for p in _params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _new_step_tensor()
                    state["exp_avg"] = _C.zeros_like(p)
                    state["exp_inf"] = _C.zeros_like(p)
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                state["step"].add_(1)

                grad = p.grad.neg() if group["maximize"] else p.grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                exp_avg.lerp_(grad, 1 - beta1)
                # The exponentially weighted infinity norm, written back in place.
                exp_inf.copy_(_C.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps)))
                clr = lr / (1 - beta1 ** state["step"].item())
                p.addcdiv_(exp_avg, exp_inf, value=-clr)
        return loss
