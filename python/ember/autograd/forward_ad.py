"""ember.autograd.forward_ad: torch's forward-mode AD API (dual tensors).

    with forward_ad.dual_level():
        x = forward_ad.make_dual(primal, tangent)
        y = f(x)
        value, jvp = forward_ad.unpack_dual(y)     # jvp = J(primal) @ tangent

ember's autograd is reverse mode. A dual tensor here is the primal, recorded by the tape;
unpack_dual computes the output's tangent J t from that record with two reverse passes
(the double-backward trick, as ember.func.jvp: with u a zero tensor shaped like the
output, J^T u is linear in u, and the gradient of <J^T u, t> with respect to u is J t).
So it works through every op with a second derivative, gives torch's values, and costs
two backward passes per unpacked output. Tangents are not carried through code run under
no_grad (torch's forward AD is not affected by no_grad; here there is no record there)."""
from typing import NamedTuple, Optional

from .. import _C
from . import grad as _grad
from .grad_mode import enable_grad

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level",
           "make_dual", "unpack_dual"]


class UnpackedDualTensor(NamedTuple):
    """What unpack_dual returns: the primal value and its tangent (None without one)."""
    primal: _C.Tensor
    tangent: Optional[_C.Tensor]


class _Level:
    def __init__(self):
        self.duals = []  # (dual tensor, its tangent), in the order made


_levels = []  # the open levels, innermost last


def enter_dual_level():
    """Opens a new level and returns its index (levels nest; tangents belong to one)."""
    if _levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment: ember keeps "
                           "one dual level at a time")
    _levels.append(_Level())
    return len(_levels) - 1


def _level_at(level, what):
    if level is None:
        level = len(_levels) - 1
    if not _levels or not 0 <= level < len(_levels):
        if what == "exit":
            raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                               "was created. This is not supported.")
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    return _levels[level]


def exit_dual_level(*, level=None):
    """Closes the level: its duals lose their tangents."""
    _level_at(level, "exit")
    _levels.pop()


class dual_level:
    """with dual_level(): ... — the scope in which dual tensors keep their tangents."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def make_dual(tensor, tangent, *, level=None):
    """A tensor equal to `tensor` whose tangent (forward gradient) is `tangent`."""
    lvl = _level_at(level, "make")
    if not isinstance(tensor, _C.Tensor) or not isinstance(tangent, _C.Tensor):
        raise TypeError("make_dual: expected tensor and tangent to be Tensors")
    if not tensor.is_floating_point():
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not tangent.is_floating_point():
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than that "
                           f"of the original Tensor, this is not supported. Tensor is of size "
                           f"{list(tensor.shape)} while the given forward gradient is of size "
                           f"{list(tangent.shape)}.")
    # The dual shares the primal's memory; it requires grad so that the tape records what
    # is computed from it (a tensor that already does keeps its own graph behind it).
    dual = tensor.view_as(tensor) if tensor.requires_grad else tensor.detach().requires_grad_(True)
    lvl.duals.append((dual, tangent.detach().to(tensor.dtype)))
    return dual


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of tensor: its tangent is J t over the level's duals, or None when
    it does not depend on any of them."""
    if not isinstance(tensor, _C.Tensor):
        raise TypeError(f"unpack_dual: expected a Tensor, got {type(tensor).__name__}")
    if not _levels or (level is not None and not 0 <= level < len(_levels)):
        return UnpackedDualTensor(tensor, None)
    lvl = _levels[len(_levels) - 1 if level is None else level]
    for dual, tangent in lvl.duals:
        if dual is tensor:
            return UnpackedDualTensor(tensor, tangent)
    if not tensor.requires_grad or not tensor.is_floating_point() or not lvl.duals:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(tensor, _tangent_of(tensor, lvl.duals))


def _tangent_of(output, duals):
    with enable_grad():  # unpack_dual may be called under no_grad
        u = _C.zeros_like(output).requires_grad_(True)
        inputs = tuple(d for d, _ in duals)
        gs = _grad(output, inputs, u, retain_graph=True, create_graph=True, allow_unused=True)
        pairs = [(g, t) for g, (_, t) in zip(gs, duals) if g is not None and g.requires_grad]
        if not pairs:
            # J^T u does not depend on u: the output does not depend on the duals.
            return None if all(g is None for g in gs) else _C.zeros_like(output)
        jvp, = _grad(tuple(g for g, _ in pairs), (u,), tuple(t for _, t in pairs),
                     retain_graph=True, allow_unused=True)
    return _C.zeros_like(output) if jvp is None else jvp.detach()

