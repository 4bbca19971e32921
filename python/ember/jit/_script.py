"""torch.jit.script, for programs written for TorchScript.

ember has no TorchScript compiler: its deployment path is ember.jit.trace (with
dynamic_shapes for sizes that vary). So that models and functions written for TorchScript
run unchanged, ``script`` returns an object that runs the Python eagerly (what TorchScript
promises to compute), is a ScriptModule/ScriptFunction for isinstance checks, and says
what it cannot do (``save``, ``graph``, ``code``) instead of pretending."""
import builtins


class Error(Exception):
    """torch.jit.Error: what a TorchScript program raises."""


class ScriptModule:
    """Base of the modules torch.jit makes: traced (TracedModule) and "scripted" ones."""


class ScriptFunction:
    """A function passed to script(): runs its Python eagerly."""

    def __init__(self, fn):
        self.__wrapped__ = fn
        self.__name__ = getattr(fn, "__name__", "ScriptFunction")
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__doc__ = getattr(fn, "__doc__", None)

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)

    def save(self, *args, **kwargs):
        raise NotImplementedError(_NO_COMPILER.format(what=f"function {self.__name__}"))

    @property
    def graph(self):
        raise NotImplementedError(_NO_COMPILER.format(what=f"function {self.__name__}"))

    code = graph

    def __repr__(self):
        return f"<ember.jit.ScriptFunction {self.__name__} (runs eagerly)>"


_NO_COMPILER = ("ember.jit.script: ember has no TorchScript compiler, so the scripted {what} runs "
                "its Python eagerly and has no graph to show or save. To deploy it, trace it on "
                "example inputs: ember.jit.trace(model, example_inputs, dynamic_shapes=...) "
                "(docs/jit.md), then .save(path)")


class RecursiveScriptModule(ScriptModule):
    """Mixed into a scripted module's class: the module runs as it did; the TorchScript-only
    features say why they are missing."""

    def save(self, *args, **kwargs):
        raise NotImplementedError(_NO_COMPILER.format(what=f"module {type(self).__name__}"))

    @property
    def graph(self):
        raise NotImplementedError(_NO_COMPILER.format(what=f"module {type(self).__name__}"))

    code = graph

    @property
    def original_name(self):
        return type(self)._scripted_from.__name__


def _scripted_module(module):
    """A new module object sharing module's parameters, buffers and submodules (as torch's
    scripted module shares them), of a class that is also a RecursiveScriptModule."""
    cls = type(module)
    scripted_cls = type(cls.__name__, (RecursiveScriptModule, cls),
                        {"__module__": cls.__module__, "_scripted_from": cls})
    new = object.__new__(scripted_cls)
    state = dict(module.__dict__)
    for name in ("_parameters", "_buffers", "_modules"):
        if name in state:
            state[name] = dict(state[name])
    new.__dict__.update(state)
    return new


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Returns obj ready to run as TorchScript would: a Module becomes a ScriptModule that
    runs its forward eagerly, a function a ScriptFunction; classes are returned as they are."""
    from ..nn import Module
    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(obj, Module):
        return _scripted_module(obj)
    if isinstance(obj, type):
        return obj
    if callable(obj):
        return ScriptFunction(obj)
    raise RuntimeError(f"ember.jit.script: expected a Module, a function or a class, got "
                       f"{type(obj).__name__}")


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """A traced module with its parameters and buffers made constants and what depends on
    the weights alone precomputed (a linear's transposed weight): a new module for
    deployment, which no longer follows the original's parameters. A scripted module runs
    eagerly and is returned as it is."""
    if not builtins.isinstance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use torch.jit.script "
                           "or torch.jit.trace to script your 'nn.Module'.")
    if getattr(mod, "training", False):
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. "
                           "Please call .eval() on your module before freezing.")
    from ._trace import TracedModule
    if builtins.isinstance(mod, TracedModule):
        frozen = TracedModule(mod._c._copy(), mod._name, mod._input_structure)
        frozen.run_pass("freeze")
        return frozen
    return mod


def optimize_for_inference(mod, other_methods=None):
    return freeze(mod.eval() if hasattr(mod, "eval") else mod)


__all__ = ["Error", "ScriptModule", "ScriptFunction", "RecursiveScriptModule", "script",
           "freeze", "optimize_for_inference"]
