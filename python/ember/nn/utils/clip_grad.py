"""clip_grad_norm_ and clip_grad_value_ (torch.nn.utils)."""
import math
import types
import warnings

from ... import _C
from ...autograd import no_grad
from ..._C import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of tensors (as if they were one concatenated vector), a 0-dim
    tensor; norm_type may be inf. `foreach` is accepted for torch's signature; ember runs
    one op per tensor either way."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _C.tensor(0.0)
    with no_grad():
        if math.isinf(norm_type):
            norms = [t.detach().abs().max().to(tensors[0].dtype) for t in tensors]
            total_norm = norms[0] if len(norms) == 1 else _C.stack(norms).max()
        else:
            norms = [t.detach().norm(norm_type) for t in tensors]
            total_norm = _C.stack(norms).norm(norm_type)
    if error_if_nonfinite and not bool(total_norm.isfinite()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients of parameters in place by max_norm / (total_norm + 1e-6) when
    that is below 1 (total_norm as get_total_norm computes it)."""
    grads = _grads(parameters)
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        # torch clamps the coefficient at 1 instead of branching, so it never synchronizes.
        clip_coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(clip_coef.to(g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scales the gradients in place so that their joint norm is at most max_norm.

    Returns the total norm of all gradients (viewed as one vector) before clipping,
    a 0-dim tensor: get_total_norm then clip_grads_with_norm_, as torch.
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2)
    total_norm = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient in place to [-clip_value, clip_value] (`foreach` as above)."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)
