"""F.multilabel_margin_loss and F.triplet_margin_with_distance_loss as composites of ember ops.

multilabel_margin_loss compares, for every sample, each of its target classes (the
target row up to the first -1) with each class that is not a target: the hinge
max(0, 1 - (x[target] - x[other])) summed over those pairs and divided by the number of
classes, laid out as one (N, C, C) block. The checks and messages are PyTorch's.
"""
from .. import _C

__all__ = ["multilabel_margin_loss", "triplet_margin_with_distance_loss"]

_REDUCTIONS = ("none", "mean", "sum")
_TYPE_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
    "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    "int64": "Long",
}


def _type_name(dtype):
    name = str(dtype).split(".")[-1]
    return _TYPE_NAMES.get(name, name)


def _legacy_reduction(size_average, reduce):
    """torch's _Reduction.legacy_get_string (warning as torch does)."""
    import warnings
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{ret}' instead.", stacklevel=3)
    return ret


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """torch.nn.functional.multilabel_margin_loss: input (C) or (N, C) scores, target of the
    same shape holding class indices, ended by the first -1. Per sample
    sum over target j and non-target i of max(0, 1 - (x[j] - x[i])), divided by C."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    ndims = input.dim()
    if not ((ndims == 2 and input.shape[1] != 0) or (ndims == 1 and input.shape[0] != 0)
            or ndims == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")
    if ndims <= 1:
        dim = 1 if ndims == 0 else input.shape[0]
        if not (target.dim() <= 1 and target.numel() == dim):
            raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of "
                               f"size: {list(input.shape)}")
    else:
        dim = input.shape[1]
        if not (target.dim() == 2 and tuple(target.shape) == tuple(input.shape)):
            raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of "
                               f"size: {list(input.shape)}")
    if target.dtype != _C.int64:
        raise RuntimeError(f"expected scalar type Long but found {_type_name(target.dtype)}")
    if not input.is_floating_point():
        raise NotImplementedError('"multilabel_margin_loss_forward_out_frame" not implemented '
                                  f"for '{_type_name(input.dtype)}'")
    x = input.reshape(-1, dim)
    t = target.reshape(-1, dim)
    nframe = x.shape[0]
    # the targets: each row up to its first negative entry
    prefix = (t >= 0).long().cumprod(1).bool()
    read = _C.cat([_C.ones((nframe, 1), dtype=_C.bool, device=t.device), prefix[:, :-1]], 1)
    if bool((read & ((t < -1) | (t >= dim))).any().item()):
        raise RuntimeError("argument #2 'target' is out of range")
    safe = _C.where(prefix, t, 0)
    is_target = _C.zeros((nframe, dim), dtype=_C.int64, device=t.device).scatter_add(
        1, safe, prefix.long()) > 0
    x_target = x.gather(1, safe)  # (N, C): the score of each listed target
    z = 1 - x_target.unsqueeze(2) + x.unsqueeze(1)  # (N, target j, class i)
    use = prefix.unsqueeze(2) & (~is_target).unsqueeze(1) & (z > 0)
    loss = _C.where(use, z, 0.0).sum((1, 2)) / dim
    if ndims <= 1:
        loss = loss.reshape(())
    if reduction == "mean" and loss.numel() == 0:
        return loss.sum()
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """torch.nn.functional.triplet_margin_with_distance_loss:
    max(0, margin + d(anchor, positive) - d(anchor, negative)) for any distance function
    (default: pairwise_distance); swap uses min(d(a, n), d(p, n)) as the negative distance."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a_dim}D, positive "
                           f"{p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        from . import functional as F
        distance_function = F.pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_swap = distance_function(positive, negative)
        dist_neg = _C.minimum(dist_neg, dist_swap)
    loss = _C.clamp_min(margin + dist_pos - dist_neg, 0)
    return _reduce(loss, reduction)
