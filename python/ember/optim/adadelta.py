"""Adadelta: torch.optim.Adadelta's arguments, defaults, checks, state and update rule.

Unlike SGD/Adam/RMSprop/Adagrad (one fused C++ op per parameter), this optimizer
composes ember tensor ops in Python, in the order of torch.optim's single-tensor
(foreach=False) code, so that the rounding agrees with PyTorch's.

The helpers it shares with the other tensor-op optimizers (_upgrade_state, ...) are in
optimizer.py.
"""
from .. import _C
from .optimizer import (Optimizer, _check_lr, _check_options, _closure_loss, _new_step_tensor,
                        _no_grad_step, _params_with_grad, _scalar, _upgrade_state)

__all__ = ["Adadelta"]




class Adadelta(Optimizer):
    """Adadelta (Zeiler, 2012).

    g = gradient (negated if maximize) + weight_decay * param;
    v = rho * v + (1 - rho) * g * g                 ("square_avg")
    delta = sqrt(u + eps) / sqrt(v + eps) * g
    u = rho * u + (1 - rho) * delta * delta         ("acc_delta")
    param -= lr * delta
    State per parameter: "step" (0-dim float32), "square_avg", "acc_delta".
    foreach is accepted and changes nothing (always the single-tensor arithmetic).
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:  # rho = 1 is allowed (the averages then never move)
            raise ValueError(f"Invalid rho value: {rho}")
        _check_options(eps=eps, weight_decay=weight_decay, differentiable=differentiable,
                       capturable=capturable)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _upgrade_state(self, {"foreach": None, "maximize": False, "differentiable": False,
                              "capturable": False})

    @_no_grad_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, rho, eps = _scalar(group["lr"]), group["rho"], group["eps"]
            weight_decay = group["weight_decay"]
            for p in _params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _new_step_tensor()
                    state["square_avg"] = _C.zeros_like(p)
                    state["acc_delta"] = _C.zeros_like(p)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                state["step"].add_(1)

                grad = p.grad.neg() if group["maximize"] else p.grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
                acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                p.add_(delta, alpha=-lr)
        return loss
