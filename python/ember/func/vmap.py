"""vmap (torch.func.vmap, torch.vmap): a function mapped over a dimension of its inputs.

This vmap is a loop, not batching rules: the function runs once per index b of the
mapped dimension, on the slices x.select(in_dim, b) of the mapped inputs (unmapped
inputs and keyword arguments passed whole), and each output is the stack of its
per-slice values at out_dim. For every function whose per-sample computation is what
vmap means this gives torch's values, gradients included (vmap of grad gives per-sample
gradients; grad of vmap differentiates through the slices and the stack); it runs the
function B times instead of once. Differences from torch, all from the loop:
- a function that calls .item() or branches on values works here (torch raises);
- out_dims=None accepts an output whose slices are all equal (torch accepts an output
  that does not depend on the mapped inputs);
- for an empty mapped dimension (size 0) the function runs once on zero-filled slices
  to learn the output shapes;
- randomness: see _randomness.py; chunk_size is checked and changes nothing.
"""
import functools

from .. import _C
from ..utils._pytree import _broadcast_to_and_flatten, tree_flatten, tree_is_leaf, tree_unflatten
from ._randomness import PerSlice, check_randomness_arg, get_states, set_states

__all__ = ["vmap"]


def _get_name(func):
    return getattr(func, "__name__", repr(func))


def _mapped_inputs(func, in_dims, args):
    """(flat args, their spec, flat in_dims normalised to >= 0 or None, batch size)."""
    name = _get_name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or "
                         f"a (potentially nested) tuple matching the structure of inputs, got: "
                         f"{type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
                         "are trying to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, args_spec = tree_flatten(args)
    flat_in_dims = _broadcast_to_and_flatten(in_dims, args_spec)
    if flat_in_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
                         f"the structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but "
                         f"inputs has structure {args_spec}.")
    normalised = []
    for arg, in_dim in zip(flat_args, flat_in_dims):
        if in_dim is not None and not isinstance(in_dim, int):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an "
                             "input but in_dim must be either an integer dimension or None.")
        if in_dim is not None and not isinstance(arg, _C.Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an "
                             f"input but the input is of type {type(arg)}. We cannot vmap over non-Tensor "
                             "arguments, please use None as the respective in_dim")
        if in_dim is not None and not -arg.dim() <= in_dim < arg.dim():
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for some "
                             f"input, but that input is a Tensor of dimensionality {arg.dim()} so expected "
                             f"in_dim to satisfy -{arg.dim()} <= in_dim < {arg.dim()}.")
        normalised.append(None if in_dim is None else in_dim % arg.dim())
    sizes = [arg.shape[d] for arg, d in zip(flat_args, normalised) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(size != sizes[0] for size in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got "
                         f"sizes {sizes} for the mapped dimension")
    return flat_args, args_spec, normalised, sizes[0]


def _slice_args(flat_args, args_spec, in_dims, index):
    return tree_unflatten([arg if d is None else arg.select(d, index) for arg, d in zip(flat_args, in_dims)],
                          args_spec)


def _template_args(flat_args, args_spec, in_dims):
    """Zero-filled stand-ins for the slices of an empty mapped dimension."""
    def template(arg, d):
        if d is None:
            return arg
        shape = tuple(arg.shape[:d]) + tuple(arg.shape[d + 1:])
        return arg.new_zeros(shape)
    return tree_unflatten([template(arg, d) for arg, d in zip(flat_args, in_dims)], args_spec)


def _all_equal(values):
    first = values[0]
    for value in values[1:]:
        if value is first:
            continue
        if not isinstance(value, _C.Tensor) or tuple(value.shape) != tuple(first.shape):
            return False
        if value.dtype != first.dtype or not bool(_C.equal(value, first)):
            return False
    return True


def _check_out_dims(func, out_dims):
    is_container = not tree_is_leaf(out_dims)
    if not (out_dims is None or isinstance(out_dims, int) or is_container):
        raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, "
                         "None or a python collection of ints representing where in the outputs the "
                         "vmapped dimension should appear.")


def _stack_outputs(func, out_dims, per_slice, empty):
    """The outputs of all slices, each leaf stacked at its out_dim (or [] slices: empty batch)."""
    name = _get_name(func)
    flat_per_slice = []
    out_spec = None
    for result in per_slice:
        leaves, spec = tree_flatten(result)
        if out_spec is None:
            out_spec = spec
        elif spec != out_spec:
            raise ValueError(f"vmap({name}, ...): `{name}` returned outputs of different structures for "
                             f"different slices ({out_spec} and {spec}); a vmapped function must return "
                             "the same structure for every sample")
        flat_per_slice.append(leaves)
    if isinstance(per_slice[0], _C.Tensor) and isinstance(out_dims, tuple) and len(out_dims) == 1:
        flat_out_dims = list(out_dims)  # torch takes (d,) for a single tensor output too
    else:
        flat_out_dims = _broadcast_to_and_flatten(out_dims, out_spec)
    if flat_out_dims is None:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
                         f"the structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but "
                         f"outputs has structure {out_spec}.")
    stacked = []
    for i, out_dim in enumerate(flat_out_dims):
        column = [leaves[i] for leaves in flat_per_slice]
        first = column[0]
        if out_dim is None:
            if isinstance(first, _C.Tensor) and not empty and not _all_equal(column):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim "
                                 "is None")
            stacked.append(first)
            continue
        if not isinstance(first, _C.Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(first)}. "
                             "Did you mean to set out_dims= to None for output?")
        if not isinstance(out_dim, int):
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                             "python collection of ints representing where in the outputs the vmapped "
                             "dimension should appear.")
        rank = first.dim() + 1
        if not -rank <= out_dim < rank:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], "
                             f"but got {out_dim})")
        result = _C.stack(column, out_dim)
        stacked.append(result.narrow(out_dim, 0, 0) if empty else result)
    return tree_unflatten(stacked, out_spec)


def _vmap_call(func, in_dims, out_dims, randomness, args, kwargs):
    if not callable(func):
        raise TypeError(f"'{type(func).__name__}' object is not callable")
    flat_args, args_spec, flat_in_dims, batch_size = _mapped_inputs(func, in_dims, args)
    _check_out_dims(func, out_dims)
    if batch_size == 0:
        states = get_states()
        try:
            template_out = func(*_template_args(flat_args, args_spec, flat_in_dims), **kwargs)
        finally:
            set_states(states)
        return _stack_outputs(func, out_dims, [template_out], empty=True)
    per_slice = []
    guard = PerSlice(randomness)
    for index in range(batch_size):
        guard.before(index)
        per_slice.append(func(*_slice_args(flat_args, args_spec, flat_in_dims, index), **kwargs))
        guard.after()
    return _stack_outputs(func, out_dims, per_slice, empty=False)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func mapped over dimension in_dims of its inputs, outputs stacked at out_dims.

    in_dims: an int (every input), or a tuple with one entry per positional argument,
    each an int, None (not mapped) or a pytree matching that argument. out_dims: an int,
    None, or a pytree matching the outputs. randomness: "error" (a random draw raises
    RuntimeError), "different" or "same". A loop over the slices: see this module's doc.
    """
    check_randomness_arg(randomness)
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, args, kwargs)
    return wrapped
