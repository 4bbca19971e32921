"""torch.cond and torch.while_loop: control flow as functions, run eagerly.

torch gives them to its compiler; ember runs them as the Python they describe, with the
argument checks torch makes, so programs written for torch.export run unchanged."""


def _pred_value(pred):
    from ._C import Tensor
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got "
                               f"a tensor of shape {tuple(pred.shape)}.")
        return bool(pred.item())
    if isinstance(pred, (bool, int, float)):
        return bool(pred)
    raise RuntimeError(f"Expected pred to be bool or tensor, but got {type(pred).__name__}.")


def cond(pred, true_fn, false_fn, operands=()):
    """true_fn(*operands) if pred else false_fn(*operands)."""
    if not (callable(true_fn) and callable(false_fn)):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)):
        raise RuntimeError(f"Expect operands to be a tuple of possibly nested dict/list/tuple "
                           f"that only consists of tensor leaves, but got {operands}.")
    branch = true_fn if _pred_value(pred) else false_fn
    return branch(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Runs carried = body_fn(*carried) while cond_fn(*carried) holds; returns carried."""
    if not (callable(cond_fn) and callable(body_fn)):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"Expect carried_inputs to be a tuple or a list, got "
                           f"{type(carried_inputs).__name__}.")
    carried = tuple(carried_inputs)
    while _pred_value(cond_fn(*carried)):
        out = body_fn(*carried)
        out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        if len(out) != len(carried):
            raise RuntimeError(f"body_fn should return {len(carried)} values (as many as "
                               f"carried_inputs), got {len(out)}.")
        carried = out
    return carried


__all__ = ["cond", "while_loop"]
