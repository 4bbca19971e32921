"""vjp (torch.func.vjp): the function's output and its vector-Jacobian product function.

vjp(func, *primals) runs func once and returns (output, vjp_fn); vjp_fn(cotangents),
cotangents shaped as the output pytree, returns a tuple of gradients shaped as the
primals and may be called many times (the graph is kept).
"""
from .. import _C
from ..utils._pytree import tree_flatten, tree_unflatten, treespec_pprint
from ._argnums import flat_tensor_inputs, flat_tensor_outputs, release_tree, split_aux
from ._levels import GradLevel

__all__ = ["vjp"]

_API = "vjp(f, *primals)"


def _check_cotangents(flat_cot, cot_spec, flat_out, out_spec):
    if cot_spec != out_spec:
        raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure "
                           f"of outputs to the function. cotangents: {treespec_pprint(cot_spec)}, "
                           f"primal output: {treespec_pprint(out_spec)}")
    for i, (cot, out) in enumerate(zip(flat_cot, flat_out)):
        if not isinstance(cot, _C.Tensor):
            raise RuntimeError(f"vjp_fn: expected the cotangents to be Tensors, got {type(cot)} "
                               f"at position {i}")
        if tuple(cot.shape) != tuple(out.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {cot.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn), or (output, vjp_fn, aux) with has_aux."""
    level = GradLevel()
    with level:
        flat_inputs, in_spec = flat_tensor_inputs(primals)
        wrapped = [level.wrap_input(t) for t in flat_inputs]
        output = func(*tree_unflatten(wrapped, in_spec))
        output, aux = split_aux(output, has_aux, _API)
        flat_out, out_spec = flat_tensor_outputs(output, _API)
        connected = level.reaches_outside(flat_out)
    primals_out = tree_unflatten([level.release(o, connected) for o in flat_out], out_spec)

    def vjp_fn(cotangents):
        flat_cot, cot_spec = tree_flatten(cotangents)
        _check_cotangents(flat_cot, cot_spec, flat_out, out_spec)
        # Cotangents the caller's graph tracks (an enclosing transform's inputs) make the
        # result depend on them: the graph is kept then.
        need_graph = _C.is_grad_enabled() and (connected or level.graph_reaches_outside(flat_cot))
        cot = [c.to(o.dtype) for c, o in zip(flat_cot, flat_out)]
        grads = level.gradients(flat_out, wrapped, cot, create_graph=need_graph)
        return tree_unflatten([level.release(g, need_graph) for g in grads], in_spec)

    if has_aux:
        return primals_out, vjp_fn, release_tree(level, aux, True)
    return primals_out, vjp_fn
