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


class FunctionCtx:
    """What forward leaves for backward: saved tensors and other attributes."""

    def __init__(self, args):
        self._to_save = ()
        self._non_differentiable = ()
        self.saved_tensors = ()
        self.materialize_grads = True
        self.needs_input_grad = tuple(isinstance(a, _C.Tensor) and a.requires_grad for a in args)

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, _C.Tensor):
                raise TypeError("save_for_backward can only save tensors, but argument "
                                f"{type(t).__name__} was given")
        self._to_save = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def mark_dirty(self, *tensors):
        """Accepted for compatibility: an input modified in place gets a new history anyway."""

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


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
        ctx = FunctionCtx(args)
        with no_grad():
            outputs = cls.forward(ctx, *args)
        return _C._link_function(cls, ctx, tuple(args), outputs)
