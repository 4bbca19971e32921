"""The Optimizer base class, with torch.optim.Optimizer's behaviour.

param_groups is a list of dicts (each with its "params" and every option),
state maps a parameter to a dict of its state, and state_dict() has
torch.optim's layout, so code written for PyTorch's optimizers works here. The
update itself runs in C++: each subclass's step() calls one fused op
(ember._C._<name>_step_) per parameter.
"""
import copy
import functools
import warnings
from collections import defaultdict
from itertools import chain

from .. import _C
from ..autograd import enable_grad, no_grad

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def _no_grad_step(step):
    """Decorates an optimizer's step(closure=None): it runs with grad mode off, as the
    parameters are written in place (torch.optim does the same)."""

    @functools.wraps(step)
    def wrapper(self, closure=None):
        _check_step_inputs(self)
        with no_grad():
            return step(self, closure)
    return wrapper


def _check_step_inputs(optimizer):
    """Every gradient and every per-parameter state tensor agrees with its parameter,
    checked before step() writes anything: a step that raises leaves all parameters and
    all state as they were (torch.optim fails on the first bad parameter, after updating
    the ones before it). Optimizers whose state is not shaped like the parameters (LBFGS
    keeps flat vectors) set _state_shaped_like_params = False."""
    check_state = getattr(optimizer, "_state_shaped_like_params", True)
    for group in optimizer.param_groups:
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            if tuple(grad.shape) != tuple(p.shape) or grad.device != p.device:
                raise RuntimeError(
                    f"{type(optimizer).__name__}.step: a parameter of shape {tuple(p.shape)} on "
                    f"{p.device} has a gradient of shape {tuple(grad.shape)} on {grad.device}")
            if not check_state:
                continue
            for key, value in optimizer.state.get(p, {}).items():
                if (isinstance(value, _C.Tensor) and value.dim() > 0
                        and (tuple(value.shape) != tuple(p.shape) or value.device != p.device)):
                    raise RuntimeError(
                        f"{type(optimizer).__name__}.step: state '{key}' of a parameter of shape "
                        f"{tuple(p.shape)} on {p.device} has shape {tuple(value.shape)} on "
                        f"{value.device} (a state_dict loaded for other parameters?)")


def _closure_loss(closure):
    """The loss of step()'s closure, evaluated with grad mode on (None without one)."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


def _params_with_grad(group):
    """The group's parameters that have a gradient (step() skips the others)."""
    return [p for p in group["params"] if p.grad is not None]


def _new_step_tensor():
    """A new step count, as torch.optim stores it: a 0-dim float32 tensor."""
    return _C.tensor(0.0, dtype=_C.float32)


def _scalar(value):
    """A Python number from a number or a one-element tensor (a Tensor lr)."""
    return value.item() if isinstance(value, _C.Tensor) else value


def _check_lr(lr):
    if isinstance(lr, _C.Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_options(differentiable=False, capturable=False, **options):
    """torch.optim's checks, in the order given: every option must be >= 0
    ("Invalid momentum value: -1"). differentiable and capturable (CUDA graphs)
    are accepted only as False."""
    for name, value in options.items():
        if not 0.0 <= value:
            what = "epsilon" if name == "eps" else name
            raise ValueError(f"Invalid {what} value: {value}")
    for name, value in (("differentiable", differentiable), ("capturable", capturable)):
        if value:
            raise NotImplementedError(f"ember.optim: {name}=True is not supported")


def _upgrade_state(optimizer, options, scalar_keys=("step",), on_param_device=False):
    """What torch.optim's __setstate__ does for a state saved by an older version: the
    options a group lacks get their defaults, and the per-parameter scalars saved as
    Python numbers ("step", NAdam's "mu_product", ASGD's "eta" and "mu") become 0-dim
    float32 tensors again (on the CPU, or for ASGD on the parameter's device)."""
    for group in optimizer.param_groups:
        for name, default in options.items():
            group.setdefault(name, default)
        for p in group["params"]:
            state = optimizer.state.get(p)
            if not state:
                continue
            for key in scalar_keys:
                if key in state and not isinstance(state[key], _C.Tensor):
                    device = p.device if on_param_device else "cpu"
                    state[key] = _C.tensor(float(state[key]), dtype=_C.float32, device=device)


def _check_adam_family(lr, betas, eps, weight_decay):
    """torch's checks for Adamax, NAdam and RAdam, in its order: lr, eps, each beta in
    [0, 1), weight_decay. (Unlike Adam, no "both floats or both Tensors" rule.)"""
    _check_lr(lr)
    _check_options(eps=eps)
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    _check_options(weight_decay=weight_decay)


class Optimizer:
    """Base class of the optimizers.

    Args:
        params: an iterable of tensors, or of dicts that define parameter
            groups (each with "params" and options overriding the defaults).
        defaults: a dict of the optimization options' default values.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, _C.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        if isinstance(params, set):
            warnings.warn("optimizer parameters need to be organized in ordered collections, but "
                          "the ordering of tensors in sets will change between runs. Please use a "
                          "list instead.", FutureWarning, stacklevel=2)
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {key}: {group[key]}" for key in sorted(group) if key != "params")
        return "\n".join(lines) + "\n)"

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss."""
        raise NotImplementedError

    def zero_grad(self, set_to_none=True):
        """Drops the gradients (set_to_none=True) or zeroes them in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def add_param_group(self, param_group):
        """Adds a group of parameters with its own options (the defaults fill the rest)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, _C.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                            "the ordering of tensors in sets will change between runs. Please use "
                            "a list instead.")
        else:
            param_group["params"] = list(params)

        names = [p[0] for p in param_group["params"] if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in param_group["params"]]
        if names:
            if len(names) != len(param_group["params"]):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names

        for param in param_group["params"]:
            if not isinstance(param, _C.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required optimization "
                                 f"parameter {name}")
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        param_set = set()
        for group in self.param_groups:
            param_set.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                kind = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} to the optimizer")
        if not param_set.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ---- state dict -------------------------------------------------------------------

    def state_dict(self):
        """{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}, with the
        parameters numbered through the groups in order. The state tensors are shared, not
        copied (copy.deepcopy the result to keep a snapshot)."""
        index_of = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index_of.setdefault(id(p), len(index_of))
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index_of[id(k)] if isinstance(k, _C.Tensor) else k): v
                 for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Takes the options and the state of state_dict() from an optimizer of the same kind
        with groups of the same sizes. State tensors are copied, in the dtype of their
        parameter (except "step")."""
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _copy_state_for(param, v)
            else:
                state[k] = v
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})


def _copy_state_for(param, value, key=None):
    """A deep copy of a parameter's saved state, its tensors on the parameter's device and
    (floating point ones, except "step") in the parameter's dtype; "step" as a tensor."""
    if key == "step" and not isinstance(value, _C.Tensor):  # older PyTorch saved a number
        return _C.tensor(float(value), dtype=_C.float32)
    if isinstance(value, _C.Tensor):
        if key != "step" and value.is_floating_point() and param.is_floating_point():
            return value.to(device=param.device, dtype=param.dtype, copy=True)
        return value.to(device=param.device, copy=True) if key != "step" else value.clone()
    if isinstance(value, dict):
        return {k: _copy_state_for(param, v, key=k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_copy_state_for(param, v) for v in value)
    return value
