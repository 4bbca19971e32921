"""The unpickler of weights_only=False loads: Python's own pickle.Unpickler, which can
run any code the file names, as torch.load(weights_only=False) can. Use it only for
files you trust.

What it adds is the mapping of torch's names to ember's (find_class), so that a file
written by torch loads into ember objects without torch: the rebuild functions and
storage classes become ember's (_rebuild.py, _torch_names.py), a torch.nn module class
becomes the ember.nn class of the same name, and torch.X becomes ember.X where ember
has it. A torch name that ember does not have raises pickle.UnpicklingError: ember
never imports torch, even when it is installed.
"""
import copy
import importlib
import pickle

from ._torch_names import constants, storage_types, unsupported


class TorchNames:
    """Resolves the globals of a trusted load: torch's names first, then anything else
    as pickle does (which imports the module the file names)."""

    def __init__(self, rebuilders):
        from . import _rebuild
        self._table = {**constants(), **storage_types(), **rebuilders.functions(),
                       "torch.Size": _rebuild.make_size, "torch.device": _rebuild.make_device}

    def find(self, module, name, default_find):
        full = f"{module}.{name}"
        if full in self._table:
            return self._table[full]
        if module != "torch" and not module.startswith("torch."):
            return default_find(module, name)
        found = self._ember_equivalent(module, name)
        if found is not None:
            return found
        reason = unsupported(full) or "ember has no equivalent of it"
        raise pickle.UnpicklingError(f"ember.load: the checkpoint refers to {full}: {reason}")

    @staticmethod
    def _ember_equivalent(module, name):
        """ember.nn.Linear for torch.nn.modules.linear.Linear; ember.X.Y for torch.X.Y."""
        from .. import nn
        if module.startswith("torch.nn.modules."):
            cls = getattr(nn, name, None)
            if isinstance(cls, type) and issubclass(cls, nn.Module):
                return cls
        try:
            ember_module = importlib.import_module("ember" + module[len("torch"):])
        except (ImportError, ValueError):  # no such ember module (or no valid name)
            return None
        return getattr(ember_module, name, None)


def make_unpickler(file, names, persistent_load, pickle_module=pickle, **pickle_load_args):
    """An Unpickler of pickle_module over file whose find_class maps torch's names and
    whose persistent_load resolves the checkpoint's storages."""

    class CheckpointUnpickler(pickle_module.Unpickler):
        def find_class(self, module, name):
            return names.find(module, name, super().find_class)

    unpickler = CheckpointUnpickler(file, **pickle_load_args)
    unpickler.persistent_load = persistent_load
    return unpickler


def complete_modules(obj):
    """ember.nn modules unpickled from torch's files hold the attributes torch's
    Module has; this adds those ember's Module.__init__ sets and torch's lacks (ember's
    Module has no __setstate__ to do it). Looks through the loaded object, and the
    dicts, lists and tuples in it, for modules."""
    from ..nn import Module
    defaults = None
    seen, todo = set(), [obj]
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, Module):
            if defaults is None:
                defaults = Module().__dict__
            for m in item.modules():
                for key, value in defaults.items():
                    if key not in m.__dict__:
                        m.__dict__[key] = copy.copy(value)
        elif isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
    return obj
