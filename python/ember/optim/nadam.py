"""NAdam: torch.optim.NAdam's arguments, defaults, checks, state and update rule.

Composed of ember tensor ops in Python, in the order of torch.optim's single-tensor
(foreach=False) code.
"""
from .. import _C
from .optimizer import (Optimizer, _check_adam_family, _check_options, _closure_loss,
                        _new_step_tensor, _no_grad_step, _params_with_grad, _scalar,
                        _upgrade_state)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam, Adam with Nesterov momentum (Dozat, 2016), with momentum decay.

    g = gradient (negated if maximize); with weight_decay, g += weight_decay * param
    (decoupled_weight_decay: param *= 1 - lr * weight_decay instead, as NAdamW);
    mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay)), and mu_{t+1} likewise;
    P = P * mu_t                                    ("mu_product", 0-dim float32)
    m = lerp(m, g, 1 - beta1); v = beta2 * v + (1 - beta2) * g * g
    denom = sqrt(v / (1 - beta2^t)) + eps
    param -= lr * (1 - mu_t) / (1 - P) * g / denom
    param -= lr * mu_{t+1} / (1 - P * mu_{t+1}) * m / denom
    State per parameter: "step", "mu_product", "exp_avg", "exp_avg_sq".
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_adam_family(lr, betas, eps, weight_decay)
        _check_options(momentum_decay=momentum_decay, differentiable=differentiable,
                       capturable=capturable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _upgrade_state(self, {"maximize": False, "foreach": None, "capturable": False,
                              "differentiable": False, "decoupled_weight_decay": False},
                       scalar_keys=("step", "mu_product"))

    @_no_grad_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, eps, weight_decay = _scalar(group["lr"]), group["eps"], group["weight_decay"]
            beta1, beta2 = (_scalar(b) for b in group["betas"])
            momentum_decay = group["momentum_decay"]
            for p in _params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _new_step_tensor()
                    state["mu_product"] = _C.tensor(1.0, dtype=_C.float32)
                    state["exp_avg"] = _C.zeros_like(p)
                    state["exp_avg_sq"] = _C.zeros_like(p)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                mu_product = state["mu_product"]
                state["step"].add_(1)
                step = state["step"].item()

                grad = p.grad.neg() if group["maximize"] else p.grad
                bias_correction2 = 1 - beta2 ** step
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)

                # The momentum schedule at this step and the next one.
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                # The product is kept (and rounded) in the state tensor's dtype, as torch.
                mu_product.mul_(mu)
                mu_product_value = mu_product.item()
                mu_product_next = mu_product_value * mu_next

                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
                p.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product_value))
                p.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
        return loss
