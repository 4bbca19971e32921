"""nn.Module: the base class of every layer, with torch.nn.Module's API.

A Module keeps its parameters, buffers and child modules in three ordered
dicts; attribute assignment routes values into them (__setattr__), and the
traversals, state_dict and conversions walk them. Nothing here computes:
forward() of each layer calls ember's C++ ops.
"""
import contextvars
import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import _C
from ..._C import Tensor
from ...autograd import no_grad
from ..parameter import Buffer, Parameter
from ._hooks import ModuleHooksMixin, RemovableHandle  # noqa: F401 (RemovableHandle: torch's place)

__all__ = ["Module"]


def _typename(obj):
    """torch.typename: how error messages name the type of a value."""
    if isinstance(obj, Tensor):
        return "ember.Tensor"
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _addindent(s, num_spaces):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(num_spaces * " " + line for line in lines[1:])


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns (torch's name and repr)."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _check_member_name(kind, name, module, table):
    """register_parameter / register_buffer / add_module's checks on the name."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f"{kind} name can't contain \".\"")
    if name == "":
        raise KeyError(f"{kind} name can't be empty string \"\"")
    if hasattr(module, name) and name not in table:
        raise KeyError(f"attribute '{name}' already exists")


def _parse_to(*args, **kwargs):
    """Module.to's arguments: (device), (dtype), (device, dtype), (tensor), keywords."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, bool):
            non_blocking = a
        elif isinstance(a, (str, int, _C.device)):
            device = a
        else:
            raise TypeError(f"to() received an invalid argument of type {_typename(a)}")
    if device is not None and not isinstance(device, _C.device):
        device = _C.device(device) if isinstance(device, str) else _C.device("cuda", device)
    if dtype is not None and not dtype.is_floating_point:
        raise TypeError("nn.Module.to only accepts floating point dtypes, but got desired "
                        f"dtype={dtype}")
    return device, dtype, non_blocking


_EXTRA_STATE_KEY_SUFFIX = "_extra_state"

# The writes of a load_state_dict in progress. _load_from_state_dict queues each copy
# here instead of making it; load_state_dict makes them all once every key, shape and
# value has been checked, so a call that raises leaves the module as it was (PyTorch
# copies as it goes and leaves a half-loaded module). None outside load_state_dict:
# a direct _load_from_state_dict call writes at once, as in PyTorch.
_pending_state_writes = contextvars.ContextVar("_pending_state_writes", default=None)


def _write_or_queue(write):
    pending = _pending_state_writes.get()
    if pending is None:
        write()
    else:
        pending.append(write)


_LEGACY_TYPES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
                 "BFloat16Tensor": "bfloat16", "LongTensor": "int64", "IntTensor": "int32",
                 "ShortTensor": "int16", "CharTensor": "int8", "ByteTensor": "uint8", "BoolTensor": "bool"}


def _dtype_from_type(dst_type):
    """Module.type's argument: a dtype or a legacy type name ('ember.FloatTensor')."""
    if isinstance(dst_type, _C.dtype):
        return dst_type
    if isinstance(dst_type, str):
        name = dst_type.split(".")[-1]
        if dst_type.split(".")[0] in ("ember", "torch") and name in _LEGACY_TYPES:
            return getattr(_C, _LEGACY_TYPES[name])
        raise ValueError(f"invalid type: '{dst_type}'")
    raise TypeError(f"type() expects a dtype or a type name, got {_typename(dst_type)}")


class Module(ModuleHooksMixin):
    """Base class of all neural network modules (torch.nn.Module)."""

    _version = 1
    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        set_ = super().__setattr__
        set_("training", True)
        set_("_parameters", OrderedDict())
        set_("_buffers", OrderedDict())
        set_("_non_persistent_buffers_set", set())
        set_("_modules", OrderedDict())
        self._init_hooks()

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- registration ----------------------------------------------------------------
    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_member_name("buffer", name, self, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(ember Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_member_name("parameter", name, self, self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(ember.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        self._parameters[name] = param

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module

    register_module = add_module

    def __getattr__(self, name):
        # Only called when normal lookup fails: look in the three tables.
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*tables):
            for t in tables:
                if name in t:
                    if isinstance(t, dict):
                        del t[name]
                    else:
                        t.discard(name)

        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(ember.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                    "(ember.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = d.get("_buffers")
                if isinstance(value, Buffer):
                    # nn.Buffer: registered (with its persistence) wherever it is assigned
                    self.register_buffer(name, value, value.persistent)
                elif buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        "(ember.Tensor or None expected)")
                    buffers[name] = value
                else:
                    super().__setattr__(name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        attrs = set(dir(type(self))) | set(self.__dict__)
        attrs |= set(self._parameters) | set(self._buffers) | set(self._modules)
        return sorted(a for a in attrs if not a[0].isdigit())

    # ---- traversal -------------------------------------------------------------------
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Replaces (or, unless strict, adds) the submodule at the dotted path target."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def _get_member(self, target, table, kind):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in getattr(mod, table):
            raise AttributeError("`" + name + "` is not " + kind)
        return getattr(mod, name)

    def get_parameter(self, target):
        return self._get_member(target, "_parameters", "an nn.Parameter")

    def get_buffer(self, target):
        return self._get_member(target, "_buffers", "a buffer")

    # ---- modes and gradients ---------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad = p.grad.detach()
                p.grad.zero_()

    # ---- conversions -----------------------------------------------------------------
    def _apply(self, fn, recurse=True):
        """Converts every parameter and buffer with fn, keeping each Parameter object
        (so an optimizer built before .to() still holds the module's parameters)."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                converted = fn(param)
                grad = None if param.grad is None else fn(param.grad)
            param.data = converted
            if grad is not None:
                param.grad = grad
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        device, dtype, non_blocking = _parse_to(*args, **kwargs)

        def convert(t):
            target = {"non_blocking": non_blocking}
            if device is not None:
                target["device"] = device
            if dtype is not None and t.is_floating_point():
                target["dtype"] = dtype
            return t.to(**target) if len(target) > 1 else t

        return self._apply(convert)

    def _cast_floating(self, dtype):
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self):
        return self._cast_floating(_C.float32)

    def double(self):
        return self._cast_floating(_C.float64)

    def half(self):
        return self._cast_floating(_C.float16)

    def bfloat16(self):
        return self._cast_floating(_C.bfloat16)

    def type(self, dst_type):
        """Casts every parameter and buffer (floating or not) to dst_type."""
        dtype = _dtype_from_type(dst_type)
        return self._apply(lambda t: t.to(dtype))

    def to_empty(self, *, device, recurse=True):
        """Moves parameters and buffers to device without copying their values
        (uninitialized memory of the same shapes and dtypes)."""
        return self._apply(lambda t: _C.empty_like(t, device=device), recurse=recurse)

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def share_memory(self):
        """Moves every parameter and buffer into shared memory (Tensor.share_memory_),
        in place, for processes started after this call (see ember.multiprocessing)."""
        return self._apply(lambda t: t.share_memory_())

    def cuda(self, device=None):
        target = _C.device("cuda") if device is None else _parse_to(device)[0]
        return self._apply(lambda t: t.to(target))

    # ---- state_dict ------------------------------------------------------------------
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if self._has_extra_state("get_extra_state"):
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return self._run_state_dict_post_hooks(destination, prefix, local_metadata)

    def get_extra_state(self):
        """Override (with set_extra_state) to save a picklable value under '<prefix>_extra_state'."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called.")

    def set_extra_state(self, state):
        """Override (with get_extra_state) to restore what get_extra_state returned."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called.")

    def _has_extra_state(self, name):
        return getattr(type(self), name) is not getattr(Module, name)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs, assign=False):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                         persistent.items()) if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  f"ember.Tensor from checkpoint but received {type(value)}")
                continue
            # torch's backward compatibility: a 0-dim parameter takes a 1-element tensor.
            # (Through .shape, as torch: an uninitialized value refuses it with torch's error.)
            if len(param.shape) == 0 and len(value.shape) == 1:
                value = value[0]
            if tuple(value.shape) != tuple(param.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{value.shape} from checkpoint, the shape in current model "
                                  f"is {param.shape}.")
                continue
            def write(name=name, param=param, value=value):
                with no_grad():
                    if assign:
                        self._assign_loaded(name, param, value)
                    else:
                        param.copy_(value)
            _write_or_queue(write)
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if self._has_extra_state("set_extra_state"):
            if extra_state_key in state_dict:
                extra_state = state_dict[extra_state_key]
                _write_or_queue(lambda: self.set_extra_state(extra_state))
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)[0]
                    if input_name not in self._modules and input_name not in local_state:
                        unexpected_keys.append(key)

    def _assign_loaded(self, name, param, value):
        if isinstance(param, Parameter):
            if not isinstance(value, Parameter):
                value = Parameter(value, requires_grad=param.requires_grad)
            self._parameters[name] = value
        else:
            self._buffers[name] = value

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        # A copy, as torch: load pre-hooks may edit what they see without touching the caller's.
        state_dict = OrderedDict(state_dict)

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs, assign)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                         child_prefix)
            # The hooks see (and may edit in place) the keys found so far; the values are
            # copied only after every check, so a hook still sees the values from before.
            module._run_load_state_dict_post_hooks(_IncompatibleKeys(missing_keys, unexpected_keys))

        pending = []
        token = _pending_state_writes.set(pending)
        try:
            load(self, state_dict)
        finally:
            _pending_state_writes.reset(token)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        for write in pending:  # everything checked: now the copies
            write()
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ---- calling (hooks in _hooks.py) ------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    # ---- printing --------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
