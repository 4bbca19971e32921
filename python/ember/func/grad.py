"""grad and grad_and_value (torch.func.grad, torch.func.grad_and_value).

The gradient of a function returning a 0-d tensor with respect to the arguments named
by argnums (each a tensor or a pytree of tensors). The inputs need not require grad;
the computation runs with grad enabled even under ember.no_grad() (a no_grad inside
the function is respected); nested grad(grad(f)) gives second derivatives. See
_levels.py for how the result joins, or not, the caller's autograd graph.
"""
import functools

from .. import _C
from ..utils._pytree import tree_unflatten
from ._argnums import (check_argnums, flat_tensor_inputs, release_tree, replace_args, select_args,
                       split_aux)
from ._levels import GradLevel

__all__ = ["grad", "grad_and_value"]

_API = "grad_and_value(f)(*args)"


def _grad_and_value_call(func, argnums, has_aux, args, kwargs):
    argnums = check_argnums(argnums, len(args))
    with GradLevel() as level:
        flat_inputs, in_spec = flat_tensor_inputs(select_args(args, argnums))
        wrapped = [level.wrap_input(t) for t in flat_inputs]
        output = func(*replace_args(args, argnums, tree_unflatten(wrapped, in_spec)), **kwargs)
        output, aux = split_aux(output, has_aux, _API)
        if not isinstance(output, _C.Tensor):
            raise RuntimeError(f"{_API}: Expected f(*args) to return a Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError(f"{_API}: Expected f(*args) to return a scalar Tensor, got tensor with "
                               f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                               "instead?")
        connected = level.reaches_outside([output])
        grads = level.gradients([output], wrapped, [_C.ones_like(output)], create_graph=connected)
        grads = tree_unflatten([level.release(g, connected) for g in grads], in_spec)
        value = level.release(output, connected)
        if has_aux:
            return grads, (value, release_tree(level, aux, True))
        return grads, value


def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning (gradient, value) of func: gradient shaped as args[argnums]
    (a tuple of them for tuple argnums); with has_aux, func returns (value, aux) and the
    result is (gradient, (value, aux))."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value_call(func, argnums, has_aux, args, kwargs)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """A function returning the gradient of func (a 0-d tensor) with respect to
    args[argnums]; with has_aux, func returns (value, aux) and the result is (gradient, aux)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = _grad_and_value_call(func, argnums, has_aux, args, kwargs)
        if has_aux:
            return grads, value[1]
        return grads
    return wrapper
