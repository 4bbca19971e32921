"""ember.compile: PyTorch 2's `torch.compile` entry point, for programs written for it.

ember has no graph compiler: it runs eagerly, and its per-op cost is what a compiler
would remove (docs/PERF.md). compile exists so that a program written for PyTorch 2
(nanoGPT's `model = torch.compile(model)`, a `@torch.compile` decorator) runs unchanged:
it checks its arguments as PyTorch does and returns

- for an nn.Module, an OptimizedModule that holds the module as `_orig_mod` and calls
  it, as PyTorch's does: its state_dict keys carry the `_orig_mod.` prefix, so
  checkpoints saved from a compiled model load on either side;
- for a function, the function itself (PyTorch returns a wrapper that runs it).

Results are those of the eager call, bit for bit; nothing is traced or cached, so
`mode`, `backend`, `fullgraph`, `dynamic` and `options` change nothing here.
"""
from __future__ import annotations

import functools

from .nn.modules.module import Module

__all__ = ["compile", "OptimizedModule"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


class OptimizedModule(Module):
    """A module returned by ember.compile: calls `_orig_mod`, forwards attribute reads
    to it (as PyTorch's OptimizedModule does)."""

    def __init__(self, mod: Module):
        super().__init__()
        self._orig_mod = mod  # registered as the submodule `_orig_mod`
        self.training = mod.training

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(super().__getattr__("_orig_mod"), name)


def _check(model, mode, options, backend):
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at "
                           "the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if backend is not None and not (isinstance(backend, str) or callable(backend)):
        raise TypeError(f"compile(): backend must be a str or a callable, not {type(backend).__name__}")
    if model is not None and not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None,  # noqa: A001
            options=None, name=None, disable=False, recompile_limit=None, isolate_recompiles=False,
            dynamic_shapes=None):
    """PyTorch's torch.compile, running eagerly (see the module's docstring)."""
    _check(model, mode, options, backend)
    if model is None:  # @ember.compile(...) with arguments
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, name=name, disable=disable)
    if isinstance(model, Module):
        return OptimizedModule(model)
    return model
