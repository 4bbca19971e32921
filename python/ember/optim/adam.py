"""Adam and AdamW: torch.optim's arguments, defaults, checks and update rule."""
from .. import _C
from .optimizer import (Optimizer, _check_lr, _check_options, _closure_loss, _no_grad_step,
                        _params_with_grad, _scalar, _new_step_tensor)

__all__ = ["Adam", "AdamW"]


def _check_betas(betas):
    # Indexed, not unpacked, as torch does: a 1-tuple is its IndexError, not a ValueError.
    b0 = betas[0]
    if not 0.0 <= b0 < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {b0}")
    b1 = betas[1]
    if not 0.0 <= b1 < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {b1}")
    both_tensors = isinstance(b0, _C.Tensor) and isinstance(b1, _C.Tensor)
    if not ((isinstance(b0, float) and isinstance(b1, float)) or both_tensors):
        raise ValueError("betas must be either both floats or both Tensors")
    for i, b in enumerate(betas):
        if isinstance(b, _C.Tensor) and b.numel() != 1:
            raise ValueError(f"Tensor betas[{i}] must be 1-element")
    return (_scalar(b0), _scalar(b1))


class Adam(Optimizer):
    """Adam, with bias correction by the step count.

    g = gradient (negated if maximize); with weight_decay, g += weight_decay * param
    (decoupled_weight_decay: param *= 1 - lr * weight_decay instead, i.e. AdamW);
    m = lerp(m, g, 1 - beta1); v = beta2 * v + (1 - beta2) * g * g; with amsgrad v is
    replaced by the running max of v; param -= lr / (1 - beta1^t) * m /
    (sqrt(v) / sqrt(1 - beta2^t) + eps).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_lr(lr)
        _check_options(eps=eps)
        betas = _check_betas(betas)
        _check_options(weight_decay=weight_decay, differentiable=differentiable,
                       capturable=capturable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in _params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _new_step_tensor()
                    state["exp_avg"] = _C.zeros_like(p)
                    state["exp_avg_sq"] = _C.zeros_like(p)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = _C.zeros_like(p)
                state["step"].add_(1)
                _C._adam_step_(p, p.grad, state["exp_avg"], state["exp_avg_sq"],
                               state["max_exp_avg_sq"] if group["amsgrad"] else None,
                               lr=_scalar(group["lr"]), beta1=_scalar(beta1),
                               beta2=_scalar(beta2), eps=group["eps"],
                               weight_decay=group["weight_decay"], step=state["step"].item(),
                               maximize=group["maximize"],
                               decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay: param *= 1 - lr * weight_decay before the
    Adam update (weight_decay defaults to 1e-2)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:  # an AdamW stays AdamW whatever it loads
            group["decoupled_weight_decay"] = True
