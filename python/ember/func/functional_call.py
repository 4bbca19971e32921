"""functional_call and stack_module_state (torch.func.functional_call, stack_module_state).

functional_call calls a module with some of its parameters and buffers replaced for
that call only (the swapping is ember.nn.utils.stateless's, without that API's
deprecation warning); combined with grad and vmap it gives per-sample gradients and
model ensembles. stack_module_state stacks the parameters and buffers of several
models of the same class into one dict each, for vmap over the stacked dimension.
"""
from collections.abc import Sequence

from .. import _C
from ..nn.utils.stateless import _reparametrize_module

__all__ = ["functional_call", "stack_module_state"]


def _merge_dicts(parameter_and_buffer_dicts):
    if isinstance(parameter_and_buffer_dicts, dict):
        return parameter_and_buffer_dicts
    if not isinstance(parameter_and_buffer_dicts, Sequence) or isinstance(parameter_and_buffer_dicts, str):
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
                         f"got {type(parameter_and_buffer_dicts)}")
    if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    counts = {}
    for d in parameter_and_buffer_dicts:
        for key in d:
            counts[key] = counts.get(key, 0) + 1
    repeated = [key for key, n in counts.items() if n > 1]
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
                         "ambiguous")
    return {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """module(*args, **kwargs) with the tensors of parameter_and_buffer_dicts (a dict, or a
    list/tuple of dicts with distinct keys; dotted names as in state_dict) in place of the
    module's own. args: a tuple, or one argument. tie_weights: a value given for one name
    of tied tensors is used for all of them. strict: the names must be exactly the
    module's parameters and buffers (RuntimeError otherwise)."""
    parameters_and_buffers = _merge_dicts(parameter_and_buffer_dicts)
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def _stacked_leaf(tensors, name):
    all_requires_grad = all(t.requires_grad for t in tensors)
    if not all_requires_grad and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = _C.stack(tuple(tensors), 0)
    if all_requires_grad:
        result = result.detach().requires_grad_()
    return result


def stack_module_state(models):
    """(params, buffers): dicts of each name's tensors from every model stacked on a new
    leading dimension; stacked parameters are new leaves that require grad when the
    models' do. The models must be of one class and all in training or all in eval mode."""
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    model0_type = type(models[0])
    if not all(type(m) is model0_type for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(model.named_parameters()) for model in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    all_buffers = [dict(model.named_buffers()) for model in models]
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers
