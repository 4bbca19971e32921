"""ASGD: torch.optim.ASGD's arguments, defaults, checks, state and update rule.

Composed of ember tensor ops in Python, in the order of torch.optim's single-tensor
(foreach=False) code.
"""
from .. import _C
from .optimizer import (Optimizer, _check_lr, _check_options, _closure_loss, _no_grad_step,
                        _params_with_grad, _scalar, _upgrade_state)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged stochastic gradient descent (Polyak & Juditsky, 1992).

    g = gradient (negated if maximize) + weight_decay * param;
    param = param * (1 - lambd * eta) - eta * g;
    ax = param while mu == 1, else ax += mu * (param - ax)       (the average, "ax")
    then, for the next step t + 1: eta = lr / (1 + lambd * lr * t)^alpha and
    mu = 1 / max(1, t - t0) (so averaging starts after t0 steps), both rounded to the
    default dtype.
    State per parameter: "step", "eta", "mu" (0-dim float32 tensors: eta and mu are
    rounded to float32 as in torch) and "ax".
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        _check_options(lambd=lambd, alpha=alpha, weight_decay=weight_decay,
                       differentiable=differentiable, capturable=capturable)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _upgrade_state(self, {"foreach": None, "maximize": False, "differentiable": False,
                              "capturable": False}, scalar_keys=("step", "eta", "mu"),
                       on_param_device=True)

    @_no_grad_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, lambd, alpha, t0 = _scalar(group["lr"]), group["lambd"], group["alpha"], group["t0"]
            weight_decay = group["weight_decay"]
            for p in _params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    # Unlike the other optimizers' (always on the CPU), ASGD's scalars
                    # live on the parameter's device, as in torch.
                    state["step"] = _C.tensor(0.0, dtype=_C.float32, device=p.device)
                    state["eta"] = _C.tensor(float(lr), dtype=_C.float32, device=p.device)
                    state["mu"] = _C.tensor(1.0, dtype=_C.float32, device=p.device)
                    state["ax"] = _C.zeros_like(p)
                eta, mu, ax = state["eta"], state["mu"], state["ax"]
                state["step"].add_(1)

                grad = p.grad.neg() if group["maximize"] else p.grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                eta_value = eta.item()
                p.mul_(1 - lambd * eta_value)  # the decay term
                p.add_(grad, alpha=-eta_value)

                mu_value = mu.item()
                if mu_value != 1:
                    ax.add_(p.sub(ax).mul_(mu_value))
                else:  # before t0 the "average" is the last iterate
                    ax.copy_(p)

                # torch makes the new values tensors of the default dtype (float32
                # unless changed) before copying them in: they are rounded to it even
                # where the state is float64 (as after load_state_dict).
                step = state["step"].item()
                eta.copy_(_C.tensor(lr / ((1 + lambd * lr * step) ** alpha)))
                mu.copy_(_C.tensor(1 / max(1, step - t0)))
        return loss
