"""RAdam: torch.optim.RAdam's arguments, defaults, checks, state and update rule.

Composed of ember tensor ops in Python, in the order of torch.optim's single-tensor
(foreach=False) code.
"""
from .. import _C
from .optimizer import (Optimizer, _check_adam_family, _check_options, _closure_loss,
                        _new_step_tensor, _no_grad_step, _params_with_grad, _scalar,
                        _upgrade_state)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam, Adam with a rectified adaptive learning rate (Liu et al., 2019).

    g = gradient (negated if maximize); with weight_decay, g += weight_decay * param
    (decoupled_weight_decay: param *= 1 - lr * weight_decay instead);
    m = lerp(m, g, 1 - beta1); v = beta2 * v + (1 - beta2) * g * g;
    rho_inf = 2 / (1 - beta2) - 1; rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t);
    m_hat = m / (1 - beta1^t);
    if rho_t > 5: param -= lr * m_hat * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r_t with
    r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t)),
    else (the variance is not yet tractable) param -= lr * m_hat.
    State per parameter: "step" (0-dim float32), "exp_avg", "exp_avg_sq".
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_adam_family(lr, betas, eps, weight_decay)
        _check_options(differentiable=differentiable, capturable=capturable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _upgrade_state(self, {"foreach": None, "maximize": False, "differentiable": False,
                              "decoupled_weight_decay": False, "capturable": False})

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
                    state["exp_avg_sq"] = _C.zeros_like(p)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                state["step"].add_(1)
                step = state["step"].item()

                grad = p.grad.neg() if group["maximize"] else p.grad
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                update = exp_avg.div(bias_correction1).mul_(lr)
                rho_inf = 2 / (1 - beta2) - 1  # the SMA's maximum length, and its length now
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.0:
                    # sqrt(1 - beta2^t) / (sqrt(v) + eps), as torch computes a number over a
                    # tensor: the tensor's reciprocal times the number (the rounding differs
                    # from a division).
                    adaptive_lr = exp_avg_sq.sqrt().add_(eps).reciprocal_().mul_(
                        bias_correction2 ** 0.5)
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                            / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    update.mul_(adaptive_lr).mul_(rect)
                p.sub_(update)
        return loss
