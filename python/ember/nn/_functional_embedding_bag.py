"""F.embedding_bag, torch.embedding_bag and torch.embedding_renorm_ as composites of ember ops.

The rows of every index are looked up with F.embedding (so scale_grad_by_freq and the
weight gradient are its own); each index's bag comes from a searchsorted of the bag
starts (torch's offset2bag). 'sum' and 'mean' add the rows into their bags with
index_add; 'max' lays the bags out as a (bags, longest bag, dim) block padded with -inf
and takes the max over it, so that the gradient goes to the row that won, as in torch.
Entries equal to padding_idx are left out of every bag (and of the bag sizes); empty
bags give zeros. The checks and messages are PyTorch's.
"""
import warnings

from .. import _C
from ..autograd import no_grad

__all__ = ["embedding_bag"]  # embedding_renorm_ is torch-level only (ember.embedding_renorm_)

_MODES = {"sum": 0, "mean": 1, "max": 2}
_TYPE_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
    "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    "int64": "Long",
}


def _type_name(t):
    dtype = str(t.dtype).split(".")[-1]
    return f"torch.{_TYPE_NAMES.get(dtype, dtype)}Tensor"


def _check_index_type(t, arg, fn):
    if t.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(f"Expected tensor for argument #{arg} 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {_type_name(t)} instead "
                           f"(while checking arguments for {fn})")


def embedding_renorm_(input, indices, max_norm, norm_type):
    """torch.embedding_renorm_: rescales, in place and without recording a gradient, each
    row of input (2-D) named in indices whose norm_type-norm exceeds max_norm to norm
    max_norm (scale max_norm / (norm + 1e-7), as torch). Returns input."""
    _check_index_type(indices, 2, "embedding_renorm_")
    if input.dim() != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {input.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "embedding_renorm_)")
    if input.requires_grad and input.is_leaf and _C.is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    rows = indices.reshape(-1).long()
    if rows.numel() == 0:
        return input
    num = input.shape[0]
    low, high = int(rows.min().item()), int(rows.max().item())
    for bad in (low, high):
        if bad < -num or bad >= num:
            raise IndexError(f"select(): index {bad} out of range for tensor of size "
                             f"{list(input.shape)} at dimension 0")
    rows = _C.unique(_C.where(rows < 0, rows + num, rows))
    with no_grad():
        chosen = input.index_select(0, rows)
        norms = chosen.norm(norm_type, 1, True)
        scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        input.index_copy_(0, rows, chosen * scale.to(chosen.dtype))
    return input


def _normalize_padding_idx(padding_idx, num_embeddings):
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, "
                           f"-{num_embeddings} through {num_embeddings - 1}, but got "
                           f"{padding_idx}")
    return padding_idx + num_embeddings if padding_idx < 0 else padding_idx


def _embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                   per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """torch.embedding_bag: (output, offset2bag, bag_size, max_indices) for 1-D indices and
    1-D offsets, mode 0 sum, 1 mean, 2 max. The three index outputs are torch's: each
    index's bag; the number of non-padding indices in each bag ('mean', 'max'; zeros for
    'sum'); for 'max' the row that won each (bag, feature), for 'mean' the bag sizes again,
    zeros for 'sum'."""
    _check_index_type(indices, 1, "embedding_bag")
    _check_index_type(offsets, 1, "embedding_bag")
    if mode not in (0, 1, 2):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    if per_sample_weights is not None:
        if per_sample_weights.dtype != weight.dtype:
            raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type "
                               "as tensor for argument #1 'per_sample_weights'; but type "
                               f"{_type_name(weight)} does not equal "
                               f"{_type_name(per_sample_weights)} (while checking arguments "
                               "for embedding_bag)")
        if mode != 0:
            raise RuntimeError("embedding_bag: per_sample_weights only supported with "
                               "mode='sum'")
    num_embeddings, dim = weight.shape
    padding_idx = _normalize_padding_idx(padding_idx, num_embeddings)
    index_dtype = _C.int32 if (indices.dtype == _C.int32 and offsets.dtype == _C.int32) \
        else _C.int64
    device = weight.device
    indices = indices.reshape(-1).long()
    n = indices.numel()
    starts = [int(v) for v in offsets.reshape(-1).tolist()]
    if starts and starts[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {starts[0]}")
    if starts and starts[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got "
                           f"offsets[-1] of {starts[-1]}")
    if include_last_offset:
        starts = starts[:-1]
    bags = len(starts)
    if n:
        low, high = int(indices.min().item()), int(indices.max().item())
        for bad in (low, high):
            if bad < 0 or bad >= num_embeddings:
                raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but "
                                   f"found idx to be {bad}")
    starts_t = _C.tensor(starts, dtype=_C.int64, device=device)
    offset2bag = _C.searchsorted(starts_t, _C.arange(n, device=device), right=True) - 1
    keep = None if padding_idx is None else indices != padding_idx
    rows = _C.embedding(indices, weight, padding_idx, None, 2.0, scale_grad_by_freq, sparse)
    if keep is not None:
        rows = _C.where(keep.unsqueeze(1), rows, 0.0)
    if bags == 0:  # no bags at all (torch's kernel crashes here): empty outputs
        empty = _C.zeros((0,), dtype=index_dtype, device=device)
        return (rows[:0], offset2bag.clamp(min=0).to(index_dtype), empty,
                _C.zeros((0, dim) if mode == 2 else (0,), dtype=index_dtype, device=device))
    ones = _C.ones(n, dtype=_C.int64, device=device)
    if keep is not None:
        ones = keep.long()
    bag_size = _C.zeros(bags, dtype=_C.int64, device=device).index_add(0, offset2bag, ones)

    if mode == 2:
        ends = starts[1:] + [n]
        lengths = [max(e - s, 0) for s, e in zip(starts, ends)]
        longest = max(lengths) if lengths else 0
        if longest == 0 or n == 0:
            output = _C.zeros((bags, dim), dtype=weight.dtype, device=device)
            if weight.requires_grad and _C.is_grad_enabled():
                output = output + rows.sum() * 0
            max_indices = _C.zeros((bags, dim), dtype=index_dtype, device=device)
        else:
            j = _C.arange(longest, device=device)
            pos = starts_t.unsqueeze(1) + j
            valid = j < _C.tensor(lengths, dtype=_C.int64, device=device).unsqueeze(1)
            pos = _C.where(valid, pos, 0)
            if keep is not None:
                valid = valid & keep.index_select(0, pos.reshape(-1)).reshape(bags, longest)
            block = rows.index_select(0, pos.reshape(-1)).reshape(bags, longest, dim)
            block = _C.where(valid.unsqueeze(2), block, float("-inf"))
            best, where_best = block.max(1)
            nonempty = (bag_size > 0).unsqueeze(1)
            output = _C.where(nonempty, best, 0.0)
            winners = pos.gather(1, where_best)
            max_indices = _C.where(nonempty, indices.gather(0, winners.reshape(-1))
                                   .reshape(bags, dim), 0).to(index_dtype)
    else:
        source = rows
        if per_sample_weights is not None:
            source = rows * per_sample_weights.reshape(-1, 1)
        output = _C.zeros((bags, dim), dtype=weight.dtype, device=device).index_add(
            0, offset2bag, source)
        if mode == 1:
            output = output / bag_size.clamp(min=1).to(weight.dtype).unsqueeze(1)
            max_indices = bag_size.to(index_dtype)
        else:
            max_indices = _C.zeros(bags, dtype=index_dtype, device=device)
    if mode == 0:
        bag_size = _C.zeros(bags, dtype=index_dtype, device=device)
        if weight.dtype != _C.float64 and padding_idx is None:
            # torch's fast 'sum' path (no padding_idx, not double) leaves offset2bag empty
            offset2bag = offset2bag[:0]
    return output, offset2bag.to(index_dtype), bag_size.to(index_dtype), max_indices


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """torch.nn.functional.embedding_bag: the sums, means or maxima of bags of embedding
    rows. input is 2-D (fixed-length bags, offsets None) or 1-D with offsets (the start of
    each bag; with include_last_offset the last entry closes the last bag).
    per_sample_weights scale the rows ('sum' only); padding_idx entries are left out;
    max_norm renormalizes the looked-up rows of weight in place first."""
    if weight.dtype == _C.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. "
                      "Usage `embedding_bag(weight, input, ...)` is deprecated, "
                      "and should now be `embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        offsets = _C.arange(0, input.numel(), input.shape[1], dtype=input.dtype,
                            device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        with no_grad():
            embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    return _embedding_bag(weight, input, offsets, scale_grad_by_freq, _MODES[mode], sparse,
                          per_sample_weights, include_last_offset, padding_idx)[0]
