"""nn.Module's hooks: handles, registration, and the machinery of full backward hooks.

Full backward hooks (torch.nn.Module.register_full_backward_hook) work as torch's
torch.utils.hooks.BackwardHook does: the tensor inputs that require grad and the tensor
outputs of one forward call go through an identity autograd Function each. The output
identity's backward sees grad_output first (runs the pre-hooks, keeps grad_output);
the input identity's backward runs once the gradients w.r.t. the inputs are complete and
calls hook(module, grad_input, grad_output), whose result replaces grad_input. The
identities return views, so modifying the hooked module's output (or, in the forward,
its input) in place raises autograd's view + in-place error, as in torch.
"""
import itertools
import warnings
import weakref
from collections import OrderedDict

from ... import _C
from ...autograd import Function

__all__ = ["RemovableHandle", "ModuleHooksMixin"]


class RemovableHandle:
    """A handle that removes the hook it was returned for (also as a context manager)."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _add_hook(table, hook, prepend=False):
    handle = RemovableHandle(table)
    table[handle.id] = hook
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle


class BackwardHookFunction(Function):
    """Identity on tensors whose backward hands the gradients to a _BackwardHook callback.

    apply(callback, materialize, *tensors): the callback is an argument (not a tensor, so
    it gets no gradient) because Function.apply gives forward nothing else per call. As in
    torch, grad_output shows None for an unused output (materialize=False) while
    grad_input shows zeros."""

    @staticmethod
    def forward(ctx, callback, materialize, *tensors):
        ctx.callback = callback
        ctx.set_materialize_grads(materialize)
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        return (None, None) + tuple(ctx.callback(grads))


def _chain(hooks, call, grads, error):
    """Runs call(hook, grads) for each hook; a result that is not None replaces grads."""
    for hook in hooks:
        out = call(hook, grads)
        if out is None:
            continue
        if len(out) != len(grads):
            raise RuntimeError(f"{error}, got {len(out)}, but expected {len(grads)}")
        grads = out
    return grads


class _BackwardHook:
    """The state of one forward call of a module with full backward hooks."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_index = None   # positions of the wrapped inputs (None: none was wrapped)
        self.input_zeros = ()     # (position, tensor) of tensor inputs that do not require grad
        self.output_index = None

    @staticmethod
    def _wrap(values, callback, materialize):
        """values with its tensors that require grad replaced by identities, and their positions."""
        index = [i for i, v in enumerate(values) if isinstance(v, _C.Tensor) and v.requires_grad]
        if not index or not _C.is_grad_enabled():
            return values, None
        wrapped = BackwardHookFunction.apply(callback, materialize, *(values[i] for i in index))
        out = list(values)
        for i, w in zip(index, wrapped):
            out[i] = w
        return tuple(out), index

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        res, self.input_index = self._wrap(args, self._on_grad_input, True)
        if self.input_index is not None:
            # torch gives these zero gradients (its identity materializes them).
            self.input_zeros = tuple((i, a) for i, a in enumerate(args)
                                     if isinstance(a, _C.Tensor) and not a.requires_grad)
        return res

    def setup_output_hook(self, result):
        is_tuple = isinstance(result, tuple)
        values = result if is_tuple else (result,)
        self.n_outputs = len(values)
        res, self.output_index = self._wrap(values, self._on_grad_output, False)
        return res if is_tuple else res[0]

    def _pack(self, index, grads, size):
        res = [None] * size
        for i, g in zip(index, grads):
            res[i] = g
        return res

    def _on_grad_output(self, grads):
        grad_outputs = tuple(self._pack(self.output_index, grads, self.n_outputs))
        grad_outputs = _chain(self.user_pre_hooks, lambda hook, go: hook(self.module, go), grad_outputs,
                              "Backward pre hook returned an invalid number of grad_output")
        if self.input_index is None:
            # No input requires grad: the hooks fire now, with no grad_input to change.
            if self.user_hooks:
                warnings.warn("Full backward hook is firing when gradients are computed with respect to "
                              "module outputs since no inputs require gradients. See "
                              "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                              "#torch.nn.Module.register_full_backward_hook for more details.",
                              stacklevel=2)
                grad_inputs = (None,) * self.n_inputs
                for hook in self.user_hooks:
                    res = hook(self.module, grad_inputs, grad_outputs)
                    if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                        raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                           "always return None or None for all gradients.")
        else:
            self.grad_outputs = grad_outputs
        return tuple(grad_outputs[i] for i in self.output_index)

    def _on_grad_input(self, grads):
        if self.grad_outputs is None:
            # The gradient reached the inputs without passing through the outputs
            # (double backward, say): torch does not call the hooks then.
            return grads
        res = self._pack(self.input_index, grads, self.n_inputs)
        for i, a in self.input_zeros:
            res[i] = _C.zeros_like(a)
        res = tuple(res)
        res = _chain(self.user_hooks, lambda hook, gi: hook(self.module, gi, self.grad_outputs), res,
                     "Backward hook returned an invalid number of grad_input")
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_index)


class ModuleHooksMixin:
    """Module's hook registration and the forward / backward hook calls around forward."""

    _HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
                   "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                   "_load_state_dict_post_hooks")
    _HOOK_SETS = ("_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                  "_forward_pre_hooks_with_kwargs")

    def _init_hooks(self):
        for name in self._HOOK_DICTS:
            object.__setattr__(self, name, OrderedDict())
        for name in self._HOOK_SETS:
            object.__setattr__(self, name, set())

    def __setstate__(self, state):
        # A module pickled before some hook table existed gets it empty (as torch does).
        self.__dict__.update(state)
        for name in self._HOOK_DICTS:
            self.__dict__.setdefault(name, OrderedDict())
        for name in self._HOOK_SETS:
            self.__dict__.setdefault(name, set())

    # ---- forward hooks ---------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        handle = _add_hook(self._forward_pre_hooks, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        handle = _add_hook(self._forward_hooks, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        if always_call:
            self._forward_hooks_always_called.add(handle.id)
        return handle

    def _run_pre_hooks(self, args, kwargs):
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        return args, kwargs

    def _run_forward_hooks(self, args, kwargs, output, only_always_called=False):
        for hook_id, hook in list(self._forward_hooks.items()):
            if only_always_called and hook_id not in self._forward_hooks_always_called:
                continue
            if hook_id in self._forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if result is not None:
                output = result
        return output

    # ---- backward hooks --------------------------------------------------------------
    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) -> new grad_input or None, called when the
        gradients w.r.t. the module's positional tensor inputs are computed."""
        return _add_hook(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) -> new grad_output or None, called when the gradients
        w.r.t. the module's outputs are computed, before the module's own backward."""
        return _add_hook(self._backward_pre_hooks, hook, prepend)

    def _call_with_hooks(self, args, kwargs):
        backward = None
        if self._backward_hooks or self._backward_pre_hooks:
            backward = _BackwardHook(self, list(self._backward_hooks.values()),
                                     list(self._backward_pre_hooks.values()))
        args, kwargs = self._run_pre_hooks(args, kwargs)
        if backward is not None:
            args = backward.setup_input_hook(args)
        try:
            output = self.forward(*args, **kwargs)
        except Exception:
            if self._forward_hooks_always_called:
                self._run_forward_hooks(args, kwargs, None, only_always_called=True)
            raise
        output = self._run_forward_hooks(args, kwargs, output)
        if backward is not None:
            if not isinstance(output, (_C.Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple "
                              f"of Tensors but received {type(output)}", stacklevel=3)
            else:
                output = backward.setup_output_hook(output)
        return output

    # ---- state_dict hooks ------------------------------------------------------------
    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars), called before state_dict() saves this module."""
        return _add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) -> None, called after state_dict()
        saved this module and its children; it may change state_dict in place."""
        hook._from_public_api = True
        return _add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs), called before this module's entries are loaded."""
        return _add_hook(self._load_state_dict_pre_hooks, hook)

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) -> None, called after load_state_dict() loaded this
        module and its children; it may edit incompatible_keys' lists in place."""
        return _add_hook(self._load_state_dict_post_hooks, hook)

    def _run_state_dict_post_hooks(self, destination, prefix, local_metadata):
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                if getattr(hook, "_from_public_api", False):
                    raise RuntimeError("state_dict post-hook must return None")
                destination = result
        return destination

    def _run_load_state_dict_post_hooks(self, incompatible_keys):
        for hook in self._load_state_dict_post_hooks.values():
            out = hook(self, incompatible_keys)
            if out is not None:
                raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                     "expected to return new values, if incompatible_keys need to be "
                                     "modified, it should be done inplace.")
