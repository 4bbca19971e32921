"""numpy's keyword names, as PyTorch's argument parser accepts them.

Every function and Tensor method PyTorch binds in C takes `axis` for `dim`, `keepdims`
for `keepdim`, `x`, `a` or `x1` for `input`, and `x2` for `other`:
`P.sum(1, keepdims=True)`, `torch.cat(ts, axis=0)`, `x.mean(axis=(0, 1))`. install()
wraps each ember function and Tensor method that has one of those parameters (read from
its signature) in a `_C._NumpyArgNames`, which renames the keyword on the way in; a call
that uses none of them goes straight to the function (csrc/numpy_arg_names.cpp).
"""
from __future__ import annotations

import inspect
import re
import types

from . import _C

# numpy's name -> PyTorch's parameter.
ALIASES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input", "x2": "other"}

# A signature line of a pybind11 docstring: `name(p: type, q: type = default) -> result`,
# alone or numbered among overloads.
_SIGNATURE_LINE = re.compile(r"^\s*(?:\d+\.\s*)?\w+\((.*)\)\s*->")

# (An _OutVariant's function is wrapped when the _OutVariant is made: _out_variants.wrap.)
_WRAPPABLE = (types.BuiltinFunctionType, types.FunctionType, types.MethodDescriptorType)


def _top_level_commas(text):
    """text split at the commas outside brackets (a type like tuple[int, ...] has its own)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parameter_names(fn):
    """The parameter names of fn over all its overloads; empty when they cannot be read."""
    target = getattr(fn, "__func__", fn)
    if isinstance(target, types.FunctionType):
        try:
            return set(inspect.signature(target).parameters)
        except (TypeError, ValueError):
            return set()
    names = set()
    for line in (getattr(fn, "__doc__", None) or "").splitlines():
        match = _SIGNATURE_LINE.match(line)
        if match is None:
            continue
        for part in _top_level_commas(match.group(1)):
            name = part.split(":", 1)[0].split("=", 1)[0].strip().lstrip("*")
            if name.isidentifier():
                names.add(name)
    return names


def aliases_for(fn):
    """{numpy name: parameter} for the parameters fn has and whose numpy name it does not."""
    params = parameter_names(fn)
    return {alias: name for alias, name in ALIASES.items() if name in params and alias not in params}


def _instance_method_function(obj):
    """The function inside a pybind11 instancemethod, else None."""
    if type(obj).__name__ == "instancemethod":
        return getattr(obj, "__func__", None)
    return None


def wrap(fn, method=False):
    """fn wrapped to also take numpy's names, or fn itself when it has none to take."""
    if isinstance(fn, (_C._NumpyArgNames, _C._NumpyArgNamesMethod)):
        return fn
    inner = _instance_method_function(fn) if method else None
    aliases = aliases_for(inner if inner is not None else fn)
    if not aliases:
        return fn
    return _C._NumpyArgNames(fn, aliases, method=method)


def install_functions(namespace, names=None):
    """Wraps the functions of a module (or the named ones) that take dim/keepdim/input/other."""
    for name in list(names if names is not None else vars(namespace)):
        if name.startswith("__"):
            continue
        fn = getattr(namespace, name, None)
        if isinstance(fn, _WRAPPABLE):
            wrapped = wrap(fn)
            if wrapped is not fn:
                setattr(namespace, name, wrapped)


def install_methods(cls):
    """Wraps cls's methods (defined on cls itself) the same way."""
    for name, attr in list(vars(cls).items()):
        if name.startswith("__"):
            continue
        if isinstance(attr, (types.FunctionType, types.MethodDescriptorType)) or \
                _instance_method_function(attr) is not None:
            wrapped = wrap(attr, method=True)
            if wrapped is not attr:
                setattr(cls, name, wrapped)
