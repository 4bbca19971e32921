"""ember.nn.utils.stateless.functional_call (torch.nn.utils.stateless.functional_call):
calls a module with some of its parameters and buffers replaced for that call only.

Each dotted name of the mapping is swapped into its submodule (into _parameters or
_buffers when the name is one, else set as an attribute, which for a parametrized
tensor goes through its property), the module is called, and the original tensors are
swapped back, also when the call raises. With tie_weights=True a value given for one of
several names of the same tensor (tied weights) is used for all of them. As torch,
this API is deprecated in favour of torch.func.functional_call (FutureWarning).
"""
import contextlib
import warnings

from ..._C import Tensor
from ..modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()


def _get_submodule(module, path, memo):
    if not path:
        return module
    if path in memo:
        return memo[path]
    prefix, _, attr = path.rpartition(".")
    parent = _get_submodule(module, prefix, memo)
    try:
        sub = getattr(parent, attr)
    except AttributeError as ex:
        raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from ex
    if not isinstance(sub, Module):
        raise TypeError(f"submodule `{path}`: {sub} is not an instance of ember.nn.Module")
    memo[path] = sub
    return sub


def _swap_tensor(module, name, tensor):
    """Puts tensor (or, for _MISSING, nothing) at module.<name>; returns what was there."""
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of ember.Tensor")
    if name in module._parameters:
        orig = module._parameters[name]
        if tensor is _MISSING:
            del module._parameters[name]
        else:
            module._parameters[name] = tensor
    elif name in module._buffers:
        orig = module._buffers[name]
        if tensor is _MISSING:
            del module._buffers[name]
        else:
            module._buffers[name] = tensor
    else:
        orig = getattr(module, name) if hasattr(module, name) else _MISSING
        if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
            raise TypeError(f"attribute `{name}`: {orig} is not an instance of ember.Tensor")
        if tensor is not _MISSING:
            setattr(module, name, tensor)
        elif hasattr(module, name):
            delattr(module, name)
    return orig


def _swap_tensors_dict(module, named_tensors, memo):
    originals = {}
    try:
        for path, tensor in named_tensors.items():
            prefix, _, name = path.rpartition(".")
            originals[path] = _swap_tensor(_get_submodule(module, prefix, memo), name, tensor)
    except Exception:
        for path, orig in originals.items():
            prefix, _, name = path.rpartition(".")
            _swap_tensor(_get_submodule(module, prefix, memo), name, orig)
        raise
    return originals


def _untie_named_tensors_map(module, parameters_and_buffers):
    """parameters_and_buffers plus, for each given name of a tied tensor, its other names."""
    names_of = {}
    for name, tensor in [*module.named_parameters(remove_duplicate=False),
                         *module.named_buffers(remove_duplicate=False)]:
        names_of.setdefault(id(tensor), set()).add(name)
    tied_names_map = {}
    for names in names_of.values():
        if len(names) > 1:
            for name in names:
                tied_names_map[name] = names
    given = [name for name in parameters_and_buffers if name in tied_names_map]
    for name in given:
        tied = tied_names_map[name]
        given_tied = tied.intersection(given)
        if len(given_tied) > 1 and len({id(parameters_and_buffers[n]) for n in given_tied}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied)}, "
                             "which are tied. Consider using tie_weights=False")
    untied = dict(parameters_and_buffers)
    for name in given:
        for tied_name in tied_names_map[name]:
            untied[tied_name] = parameters_and_buffers[name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    untied = (_untie_named_tensors_map(module, parameters_and_buffers) if tie_weights
              else parameters_and_buffers)
    if strict:
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing, unexpected = sorted(valid - set(untied)), sorted(set(untied) - valid)
        error_msgs = []
        if unexpected:
            error_msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            error_msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if error_msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(error_msgs)))
    memo = {}
    originals = {}
    try:
        originals = _swap_tensors_dict(module, untied, memo)
        yield
    finally:
        # What the module holds at the end (it may have reassigned a tensor) goes back
        # into the caller's mapping.
        final = _swap_tensors_dict(module, originals, memo)
        parameters_and_buffers.update(
            {k: final[k] for k in parameters_and_buffers if k in final})


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """module(*args, **kwargs) with the tensors named in parameters_and_buffers (dotted
    names, as in state_dict) in place of the module's own for this call.

    args: a tuple, or one argument. tie_weights: tied tensors follow a value given for
    any of their names (ValueError when given different values). strict: the names
    must be exactly the module's parameters and buffers (RuntimeError otherwise).
    Deprecated in torch (use torch.func.functional_call); FutureWarning, as torch.
    """
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    from ...func import functional_call as func_functional_call
    return func_functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                                strict=strict)
