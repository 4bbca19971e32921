"""`import torch.nn as nn` in a program that wrote `import ember as torch`.

A PyTorch program is run on ember by changing its `import torch` line into
`import ember as torch`; its other imports stay as they are: `import torch.nn as nn`,
`from torch.utils.data import DataLoader`, `from torch import optim`,
`import torch.nn.functional as F`. Python resolves those through sys.modules["torch"],
never through the name `torch` the module has bound, so without help they fail
(no torch installed) or, worse, load PyTorch's own modules next to ember's tensors.

ember therefore wraps builtins.__import__: an absolute import of `torch` or `torch.X`
made from a module whose global `torch` is ember is answered with `ember` or
`ember.X`. Every other import is passed on untouched, so a module that imports the
real PyTorch (ember's tests do, as their oracle) still gets it, and sys.modules["torch"]
is never written. The decision is made per importing module, by its globals, which is
what the program's own `import ember as torch` line states.
"""
import builtins
import sys

_TORCH = "torch"


def _is_torch_name(name):
    return name == _TORCH or name.startswith(_TORCH + ".")


def _make_import(previous_import, ember_module):
    def import_with_torch_alias(name, globals=None, locals=None, fromlist=(), level=0):
        # The cheap string test first: this wrapper sees every import statement.
        if (level == 0 and _is_torch_name(name) and globals is not None
                and globals.get(_TORCH) is ember_module):
            ember_name = "ember" + name[len(_TORCH):]
            try:
                return previous_import(ember_name, globals, locals, fromlist, 0)
            except ModuleNotFoundError as error:
                if error.name is None or not (error.name == "ember" or error.name.startswith("ember.")):
                    raise
                missing = _TORCH + error.name[len("ember"):]
                raise ModuleNotFoundError(
                    f"No module named '{missing}': this module bound `torch` to ember "
                    f"(import ember as torch), and ember has no '{error.name}'",
                    name=missing) from None
        return previous_import(name, globals, locals, fromlist, level)

    import_with_torch_alias._ember_torch_alias = True
    return import_with_torch_alias


def install():
    """Wrap builtins.__import__ once (a second ember import, or a reload, keeps one wrapper)."""
    current = builtins.__import__
    if getattr(current, "_ember_torch_alias", False):
        return
    builtins.__import__ = _make_import(current, sys.modules["ember"])
