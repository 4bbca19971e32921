"""ember.jit: trace a model once, save one file, run it anywhere (C++ included).

    traced = ember.jit.trace(model, example_input)
    print(traced.graph)                 # the SSA listing of the ops that ran
    traced.save("model.ember")          # graph + weights (safetensors layout)
    same = ember.jit.load("model.ember")

The trace records every op that ran (through the dispatcher's tracer layer), with
the module's parameters and buffers as named values. Python control flow and
values read on the host (``item()``, ``bool(t)``, ``tolist()``) are baked in: they
give a :class:`TracerWarning` at the line that read them. Calling a traced module
runs its graph through the ordinary ops, on any device and under autograd.
"""
# The implementation lives in the submodules; this module only names what ember.jit holds.
# (It defines torch.jit.isinstance, so code here would see that instead of the builtin.)
from ._annotations import *  # noqa: F401,F403  (ignore, unused, annotate, is_scripting, fork, ...)
from ._annotations import __all__ as _annotation_names
from ._dynamic_shapes import Dim
from ._script import (Error, RecursiveScriptModule, ScriptFunction, ScriptModule, freeze,
                      optimize_for_inference, script)
from ._trace import (Graph, TopLevelTracedModule, TracedModule, TracerWarning, TracingCheckError,
                     load, save, trace, trace_module)

__all__ = ["trace", "trace_module", "load", "save", "TracedModule", "TopLevelTracedModule",
           "TracerWarning", "TracingCheckError", "Graph", "Dim", "script", "ScriptModule",
           "ScriptFunction", "RecursiveScriptModule", "Error", "freeze", "optimize_for_inference",
           *_annotation_names]
