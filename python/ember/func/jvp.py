"""jvp and linearize (torch.func.jvp, torch.func.linearize): forward-mode products.

Computed with the double-backward trick (see _forward_trick.py), so the function must be
twice differentiable in ember where torch's forward mode would not need that, and the
tangent outputs have the outputs' dtypes (torch gives the tangents' dtype when a
tangent of another floating dtype is passed).
"""
from .. import _C
from ..utils._pytree import tree_flatten, tree_unflatten
from ._argnums import flat_tensor_outputs, release_tree, split_aux
from ._forward_trick import ForwardProducts
from ._levels import GradLevel

__all__ = ["jvp", "linearize"]

_API = "jvp(f, primals, tangents)"


def _check_primal(primal):
    if not primal.is_floating_point():
        raise ValueError(f"Expected primal to be floating point or complex, but got: {primal.dtype}")


def _check_primals_and_tangents(primals, tangents):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_API}: Expected primals to be a tuple. E.g. it should be valid to call "
                           "f(*primals).")
    flat_primals, primals_spec = tree_flatten(primals)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(f"{_API}: Expected primals and tangents to have the same python structure. "
                           "For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           f"primals with structure {primals_spec} and tangents with structure "
                           f"{tangents_spec}")
    for what, flat in (("primals", flat_primals), ("tangents", flat_tangents)):
        for leaf in flat:
            if not isinstance(leaf, _C.Tensor):
                raise RuntimeError(f"{_API}: Expected {what} to only contain Tensors, got {type(leaf)}")
    for primal, tangent in zip(flat_primals, flat_tangents):
        if tuple(primal.shape) != tuple(tangent.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of "
                               "the original Tensor, this is not supported. Tensor is of size "
                               f"{list(primal.shape)} while the given forward gradient is of size "
                               f"{list(tangent.shape)}.")
        _check_primal(primal)
    return flat_primals, primals_spec, flat_tangents


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), J tangents), or with has_aux (output, jvp_out, aux)."""
    if strict:
        raise RuntimeError("torch.func.jvp(f, primals, tangents, strict=True): strict=True is not yet "
                           "implemented")
    flat_primals, primals_spec, flat_tangents = _check_primals_and_tangents(primals, tangents)
    with GradLevel() as level:
        wrapped = [level.wrap_input(t) for t in flat_primals]
        output = func(*tree_unflatten(wrapped, primals_spec))
        output, aux = split_aux(output, has_aux, _API)
        flat_out, out_spec = flat_tensor_outputs(output, _API)
        products = ForwardProducts(level, flat_out, wrapped)
        connected = level.caller_grad_enabled and (
            level.graph_reaches_outside(flat_out) or products.tangents_reach_outside(flat_tangents))
        tangents_out = products.push(flat_tangents, create_graph=connected)
    primals_out = tree_unflatten([level.release(o, connected) for o in flat_out], out_spec)
    tangents_out = tree_unflatten([level.release(t, connected) for t in tangents_out], out_spec)
    if has_aux:
        return primals_out, tangents_out, release_tree(level, aux, True)
    return primals_out, tangents_out


def linearize(func, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) is J tangents at primals, from one run of func."""
    flat_primals, primals_spec = tree_flatten(primals)
    for primal in flat_primals:
        if not isinstance(primal, _C.Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(primal)}")
        _check_primal(primal)
    level = GradLevel()
    with level:
        wrapped = [level.wrap_input(t) for t in flat_primals]
        output = func(*tree_unflatten(wrapped, primals_spec))
        flat_out, out_spec = flat_tensor_outputs(output, "linearize(f, *primals)")
        products = ForwardProducts(level, flat_out, wrapped)
        connected = level.reaches_outside(flat_out)
    primals_out = tree_unflatten([level.release(o, connected) for o in flat_out], out_spec)

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangents_spec} to have the same argspec as the "
                               f"primals {primals_spec}")
        for idx, (tangent, primal) in enumerate(zip(flat_tangents, flat_primals)):
            if not isinstance(tangent, _C.Tensor):
                raise RuntimeError(f"linearize: expected the tangents to be Tensors, got {type(tangent)}")
            if tuple(tangent.shape) != tuple(primal.shape):
                raise RuntimeError(f"tangent:{idx} with shape {tangent.shape} in flattened pytree doesn't "
                                   f"match the shape {primal.shape} of the corresponding primal.")
        need_graph = _C.is_grad_enabled() and (connected or products.tangents_reach_outside(flat_tangents))
        out = products.push(flat_tangents, create_graph=need_graph)
        return tree_unflatten([level.release(t, need_graph) for t in out], out_spec)

    return primals_out, jvp_fn
