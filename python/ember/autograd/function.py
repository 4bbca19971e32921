"""ember.autograd.Function: custom ops with a hand-written backward.

    class Exp(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)
"""
from .. import _C
from .grad_mode import no_grad


class FunctionCtx(_C._FunctionCtx):
    """What forward leaves for backward: saved tensors and any other attributes.

    save_for_backward(*tensors) / saved_tensors, mark_dirty(*inputs changed in place),
    mark_non_differentiable(*outputs), set_materialize_grads(bool) and needs_input_grad
    are shared with the C++ API (ember::autograd::AutogradContext).
    """


class Function:
    """Subclass with static forward(ctx, *args) and backward(ctx, *grads); call .apply(*args)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args):
        ctx = FunctionCtx()
        ctx._set_inputs(args)
        with no_grad():
            outputs = cls.forward(ctx, *args)
        return _C._link_function(cls, ctx, tuple(args), outputs)
