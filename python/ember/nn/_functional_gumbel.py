"""F.gumbel_softmax: samples from the Gumbel-softmax (concrete) distribution, as PyTorch.

softmax((logits + g) / tau) with g = -log(Exponential(1)) noise; hard=True returns the
one-hot of the argmax with the soft sample's gradient (straight-through estimator).
"""
import warnings

from .. import _C

__all__ = ["gumbel_softmax"]


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """torch.nn.functional.gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    if not logits.is_floating_point():
        dtype = str(logits.dtype).split(".")[-1]
        names = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                 "uint8": "Byte", "bool": "Bool"}
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{names.get(dtype, dtype)}")
    gumbels = -_C.empty_like(logits).exponential_().log()  # ~Gumbel(0, 1)
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _C.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
