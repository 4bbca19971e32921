"""ember.export: torch.export's entry points over ember.jit's tracer.

    batch = ember.export.Dim("batch", min=1, max=4096)
    ep = ember.export.export(model, (x,), dynamic_shapes={"x": {0: batch}})
    ep.module()(x2)                       # any batch in [1, 4096]
    ember.export.save(ep, "m.ember")      # the model file ember::jit::load reads in C++

An ExportedProgram is a traced graph (ember.jit.trace with dynamic_shapes; see
docs/jit.md, "Dynamic shapes"): the ops that ran, every size that follows a Dim as an
expression of it, and the guards a call must pass. ember has no graph-capturing
compiler, so Python control flow is resolved at trace time as with ember.jit.trace."""
from ..jit import Dim
from .. import jit as _jit

__all__ = ["export", "ExportedProgram", "Dim", "save", "load"]


class ExportedProgram:
    """What export returns: .module() is the callable program; .graph its listing."""

    def __init__(self, traced):
        self._traced = traced

    def module(self):
        """The program as a callable module (the same TracedModule each time)."""
        return self._traced

    @property
    def graph(self):
        return self._traced.graph

    @property
    def graph_module(self):
        return self._traced

    @property
    def range_constraints(self):
        """{symbol name: (min, max)} of the dynamic sizes."""
        return {s["name"]: (s["min"], s["max"]) for s in self._traced.graph.symbols()}

    def state_dict(self):
        return self._traced.state_dict()

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use "
                           "`exported_program.module()` instead.")

    def __str__(self):
        return f"ExportedProgram:\n{self._traced.graph}"

    __repr__ = __str__


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False, preserve_module_call_signature=()):
    """Traces mod(*args) (an ember.nn.Module) into an ExportedProgram; dynamic_shapes as
    torch.export's (argument name or position -> {dim: Dim})."""
    from ..nn import Module
    if not isinstance(mod, Module):
        raise ValueError(f"Expected `mod` to be an instance of `torch.nn.Module`, got {type(mod)}.")
    if not isinstance(args, tuple):
        raise ValueError(f"Expected `args` to be a tuple, got {type(args)}")
    if kwargs:
        raise NotImplementedError("ember.export.export: keyword inputs are not supported; pass "
                                  "every input positionally in args")
    return ExportedProgram(_jit.trace(mod, args, check_trace=False, dynamic_shapes=dynamic_shapes))


def save(ep, f):
    """Writes the program's model file (ember.jit.load and ember::jit::load read it)."""
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"The 'ep' parameter must be an instance of 'ExportedProgram', got "
                        f"'{type(ep).__name__}' instead.")
    ep._traced.save(f)


def load(f):
    """Reads a model file as an ExportedProgram."""
    return ExportedProgram(_jit.load(f))


