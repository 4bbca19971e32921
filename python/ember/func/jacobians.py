"""jacrev, jacfwd and hessian (torch.func.jacrev, jacfwd, hessian).

The Jacobian of every output leaf with respect to every input leaf has shape
output.shape + input.shape, arranged as torch does: the output pytree, each leaf
holding the pytree of args[argnums] (a tuple of them for tuple argnums). jacrev takes
one reverse pass per output element; jacfwd one forward product (double-backward
trick) per input element, not a vmap over the basis as torch does, so chunk_size only
bounds nothing here and is checked for torch's errors. hessian is jacfwd(jacrev(f)).
"""
import functools

from .. import _C
from ..utils._pytree import tree_unflatten
from ._argnums import (check_argnums, flat_tensor_inputs, flat_tensor_outputs, release_tree,
                       replace_args, select_args, split_aux)
from ._forward_trick import ForwardProducts
from ._levels import GradLevel
from ._randomness import RANDOM_IN_ERROR_MODE, check_randomness_arg, get_states, set_states, states_changed

__all__ = ["jacrev", "jacfwd", "hessian"]


def _basis_vector(like, index):
    """The index-th one-hot tensor shaped (and typed) like `like`."""
    flat = _C.zeros_like(like).reshape(-1)
    flat[index] = 1
    return flat.view(tuple(like.shape))


def _jacobian_block(pieces, out_shape, in_shape, dtype, like, stack_dim):
    shape = tuple(out_shape) + tuple(in_shape)
    if not pieces:
        return like.new_zeros(shape, dtype=dtype)
    return _C.stack(pieces, stack_dim).reshape(shape)


def _run(level, func, args, kwargs, argnums):
    flat_inputs, in_spec = flat_tensor_inputs(select_args(args, argnums))
    wrapped = [level.wrap_input(t) for t in flat_inputs]
    output = func(*replace_args(args, argnums, tree_unflatten(wrapped, in_spec)), **kwargs)
    return flat_inputs, wrapped, in_spec, output


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """A function returning the Jacobian of func with respect to args[argnums] (reverse mode);
    with has_aux, func returns (output, aux) and the result is (jacobian, aux)."""
    del _preallocate_and_copy
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        argnums_ = check_argnums(argnums, len(args))
        with GradLevel() as level:
            _, wrapped, in_spec, output = _run(level, func, args, kwargs, argnums_)
            output, aux = split_aux(output, has_aux, "vjp(f, *primals)")
            flat_out, out_spec = flat_tensor_outputs(output, "vjp(f, *primals)")
            connected = level.reaches_outside(flat_out)
            per_output = []
            for out in flat_out:
                rows = [[] for _ in wrapped]
                if out.requires_grad:
                    for j in range(out.numel()):
                        grads = level.gradients([out], wrapped, [_basis_vector(out, j)],
                                                create_graph=connected)
                        for row, g in zip(rows, grads):
                            row.append(g)
                blocks = [level.release(_jacobian_block(row, out.shape, x.shape, x.dtype, x, 0), connected)
                          for row, x in zip(rows, wrapped)]
                per_output.append(tree_unflatten(blocks, in_spec))
            jacobian = tree_unflatten(per_output, out_spec)
            if has_aux:
                return jacobian, release_tree(level, aux, True)
            return jacobian
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """A function returning the Jacobian of func with respect to args[argnums] (forward
    products); with has_aux, (jacobian, aux). randomness as vmap's: with "error", a
    function that draws random numbers raises RuntimeError, as torch's jacfwd does."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        check_randomness_arg(randomness)  # when called, as torch checks it
        argnums_ = check_argnums(argnums, len(args))
        with GradLevel() as level:
            flat_inputs, _ = flat_tensor_inputs(select_args(args, argnums_))
            for primal in flat_inputs:
                if not primal.is_floating_point():
                    raise ValueError(f"Expected primal to be floating point or complex, but got: "
                                     f"{primal.dtype}")
            rng_before = get_states() if randomness == "error" else None
            _, wrapped, in_spec, output = _run(level, func, args, kwargs, argnums_)
            if rng_before is not None and states_changed(rng_before):
                set_states(rng_before)
                raise RuntimeError(RANDOM_IN_ERROR_MODE)
            output, aux = split_aux(output, has_aux, "jvp(f, primals, tangents)")
            flat_out, out_spec = flat_tensor_outputs(output, "jvp(f, primals, tangents)")
            products = ForwardProducts(level, flat_out, wrapped)
            connected = level.reaches_outside(flat_out)
            # blocks[k][i]: d output k / d input i, built one input element (column) at a time.
            blocks = [[None] * len(wrapped) for _ in flat_out]
            for i, x in enumerate(wrapped):
                columns = [[] for _ in flat_out]
                for j in range(x.numel()):
                    tangents = [None] * len(wrapped)
                    tangents[i] = _basis_vector(x, j)
                    for column, jv in zip(columns, products.push(tangents, create_graph=connected)):
                        column.append(jv)
                for k, out in enumerate(flat_out):
                    block = _jacobian_block(columns[k], out.shape, x.shape, out.dtype, out, -1)
                    blocks[k][i] = level.release(block, connected)
            jacobian = tree_unflatten([tree_unflatten(row, in_spec) for row in blocks], out_spec)
            if has_aux:
                return jacobian, release_tree(level, aux, True)
            return jacobian
    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a function returning a 0-d tensor: jacfwd(jacrev(func, argnums), argnums)."""
    return jacfwd(jacrev(func, argnums), argnums)
