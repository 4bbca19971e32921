"""What a weights_only load may build: the globals allowed by default, the blocklist,
and the globals users allow with add_safe_globals / safe_globals (the same API as
torch.serialization's).

A pickle can only make objects through globals (GLOBAL / STACK_GLOBAL / INST name a
module and a name) and then call them. A weights_only load looks every name up in
these tables, never in the interpreter: it imports nothing and calls nothing else.
"""
import collections
import threading

from . import _rebuild
from ._torch_names import constants, storage_types

__all__ = ["add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]

# Modules no allowlist can open, as in torch: what they hold runs programs or edits the
# process. The builtins listed run code, import, or reach any attribute of any object.
BLOCKED_MODULES = frozenset({"sys", "os", "posix", "nt", "subprocess", "importlib", "runpy"})
BLOCKED_BUILTINS = frozenset({"eval", "exec", "compile", "__import__", "open", "getattr", "setattr",
                              "delattr", "globals", "locals", "vars", "breakpoint", "input",
                              "exit", "quit", "help"})

_lock = threading.Lock()
_user_globals = []  # as given: an object, or (object, "module.name")


def _check_entry(entry):
    if isinstance(entry, tuple):
        if len(entry) != 2 or type(entry[1]) is not str:
            raise TypeError("add_safe_globals: a tuple entry must be (global, 'module.name'), got "
                            f"{entry!r}")
        return
    named = getattr(entry, "__qualname__", None) or getattr(entry, "__name__", None)
    if getattr(entry, "__module__", None) is None or named is None:
        raise TypeError(f"add_safe_globals: {entry!r} has no __module__ and __qualname__; pass "
                        "(object, 'module.name') to name it")


def _full_name(entry):
    if isinstance(entry, tuple):
        return entry[1], entry[0]
    name = getattr(entry, "__qualname__", None) or entry.__name__
    return f"{entry.__module__}.{name}", entry


def add_safe_globals(safe_globals):
    """Allows weights_only loads to use these globals (classes or functions, or
    (object, "module.name") pairs for an object the file names differently). Only add
    what you trust: a weights_only load calls an allowed class or function with
    arguments from the file, and sets attributes of the instances it makes."""
    if not isinstance(safe_globals, (list, tuple)):
        raise TypeError(f"add_safe_globals expects a list, got {type(safe_globals).__name__}")
    for entry in safe_globals:
        _check_entry(entry)
    with _lock:
        for entry in safe_globals:
            if not any(entry is e or (isinstance(e, tuple) and e == entry) for e in _user_globals):
                _user_globals.append(entry)


def get_safe_globals():
    """The globals that add_safe_globals / safe_globals allowed, in the order added."""
    with _lock:
        return list(_user_globals)


def clear_safe_globals():
    """Forgets every global that add_safe_globals allowed."""
    with _lock:
        _user_globals.clear()


def _remove_safe_globals(entries):
    with _lock:
        for entry in entries:
            for i, e in enumerate(_user_globals):
                if e is entry:
                    del _user_globals[i]
                    break


class safe_globals:  # noqa: N801 (torch's name)
    """Context manager: with safe_globals([Config]): ember.load(...) allows Config
    inside the block only (what it added is removed on exit)."""

    def __init__(self, safe_globals):
        if not isinstance(safe_globals, (list, tuple)):
            raise TypeError(f"safe_globals expects a list, got {type(safe_globals).__name__}")
        for entry in safe_globals:
            _check_entry(entry)
        self._entries = list(safe_globals)
        self._added = []

    def __enter__(self):
        present = get_safe_globals()
        self._added = [e for e in self._entries if not any(e is p for p in present)]
        add_safe_globals(self._added)
        return self

    def __exit__(self, *exc):
        _remove_safe_globals(self._added)
        self._added = []
        return False


def user_globals():
    """{"module.name": object} for the globals users allowed, as of now."""
    return dict(_full_name(e) for e in get_safe_globals())


def default_globals(rebuilders):
    """The globals a weights_only load allows by default: {"module.name": (the object
    the pickle gets, the function that stands in for calling it, or None if it is not
    to be called)}. The same names torch allows, mapped to ember's objects:

      tensors         torch._utils._rebuild_tensor(_v2, _v3), _rebuild_parameter(_with_state),
                      torch._tensor._rebuild_from_type_v2, torch.storage._load_from_bytes,
                      the storage classes (torch.FloatStorage, ...), torch.Tensor,
                      torch.nn.parameter.Parameter
      torch values    the dtypes, torch.Size, torch.device, torch.serialization._get_layout,
                      the memory formats
      containers      collections.OrderedDict, collections.Counter, set, frozenset
      plain values    complex, bytes, bytearray, _codecs.encode (protocol 2's bytes)
    """
    from ..nn.parameter import Parameter

    def make_parameter(data=None, requires_grad=True):
        # NEWOBJ torch.nn.Parameter(data, requires_grad), as old checkpoints spell it.
        return rebuilders.rebuild_parameter(data, requires_grad, None)

    table = {name: (obj, None) for name, obj in constants().items()}
    table.update({name: (t, None) for name, t in storage_types().items()})
    table.update({name: (fn, fn) for name, fn in rebuilders.functions().items()})
    table.update({
        "torch.Size": (table["torch.Size"][0], _rebuild.make_size),
        "torch.device": (table["torch.device"][0], _rebuild.make_device),
        "torch.nn.parameter.Parameter": (Parameter, make_parameter),
        "collections.OrderedDict": (collections.OrderedDict, collections.OrderedDict),
        "collections.Counter": (collections.Counter, collections.Counter),
        "builtins.set": (set, set),
        "builtins.frozenset": (frozenset, frozenset),
        "builtins.complex": (complex, _rebuild.make_complex),
        "builtins.bytes": (bytes, _rebuild.make_bytes),
        "builtins.bytearray": (bytearray, _rebuild.make_bytearray),
        "_codecs.encode": (_rebuild.codecs_encode, _rebuild.codecs_encode),
    })
    return table
