"""SGD: torch.optim.SGD's arguments, defaults, checks and update rule."""
from .. import _C
from .optimizer import (Optimizer, _check_lr, _check_options, _closure_loss, _no_grad_step,
                        _params_with_grad, _scalar)

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with (Nesterov) momentum.

    With g the gradient (negated if maximize) plus weight_decay * param, and b the
    momentum buffer (the first step's g, then momentum * b + (1 - dampening) * g):
    param -= lr * (g + momentum * b if nesterov else b), or lr * g without momentum.
    foreach and fused are accepted for PyTorch compatibility: the update is always
    one fused C++ loop per parameter.
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        _check_lr(lr)
        _check_options(momentum=momentum, weight_decay=weight_decay, differentiable=differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            momentum = group["momentum"]
            for p in _params_with_grad(group):
                buf, first = None, False
                if momentum != 0:  # as torch.optim, state only exists with momentum
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    first = buf is None
                    if first:
                        buf = state["momentum_buffer"] = _C.empty_like(p)
                _C._sgd_step_(p, p.grad, buf, lr=_scalar(group["lr"]), momentum=momentum,
                              dampening=group["dampening"],
                              weight_decay=_scalar(group["weight_decay"]),
                              nesterov=group["nesterov"], maximize=group["maximize"],
                              init_buffer=first)
        return loss
