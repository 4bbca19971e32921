"""ember.utils.checkpoint: activation checkpointing (torch.utils.checkpoint).

checkpoint(function, *args) runs `function` without recording its intermediate
activations and recomputes it during backward, trading compute for memory. With
preserve_rng_state=True (the default) the CPU generator's state (and the CUDA
generators' of the devices the tensor arguments are on) is stashed before the forward
and restored for the recomputation, so random ops (dropout) draw the same values.

use_reentrant=True (torch's default, with its warning when use_reentrant is not given)
is torch's CheckpointFunction: an autograd.Function whose backward recomputes `function`
and runs a nested backward through it, accumulating into the .grad of everything it
used. As in torch: only positional arguments; when no input requires grad the output
has no graph (and a warning says so). torch refuses torch.autograd.grad through this
form (RuntimeError); ember lets it run, returning the inputs' gradients, while the
parameters used inside still get theirs accumulated into .grad: use
use_reentrant=False with autograd.grad.

use_reentrant=False in torch packs saved tensors through
torch.autograd.graph.saved_tensors_hooks, which ember does not have. ember implements
its semantics with the same recompute-in-backward Function, so the differences that
users see in torch are kept:
- keyword arguments are accepted, outputs may be any nesting of tensors and other
  values (only the tensors carry gradients), inputs need not require grad;
- the tensors `function` uses besides its arguments (the parameters of a module passed
  as `function`, of a module bound method, or of modules and tensors that a function
  closes over or names as globals) become inputs of the checkpoint node, so their
  gradients flow through the ordinary graph: torch.autograd.grad(loss, params) returns
  them instead of accumulating into .grad. A tensor that `function` reaches in any other
  way (an attribute of an object that is not a module) still gets its gradient, but
  accumulated into .grad during backward, as the reentrant form does.
- which outputs require grad: the forward runs without a graph, so every floating
  output tensor of the checkpoint requires grad when any of its inputs (captured ones
  included) does, even one that does not depend on them (its gradient is then zero);
  torch knows the real dependencies. Integer and bool outputs never require grad.
- determinism_check="default" compares the shapes, dtypes and devices of the
  recomputed outputs (torch compares every saved tensor) and raises CheckpointError.
What is not available: context_fn other than the default (torch uses it for selective
checkpointing through dispatch modes), and debug=True (torch's operator traces); both
raise ValueError rather than being ignored. The whole function is always recomputed
(early_stop has nothing to stop).
"""
import contextlib
import functools
import types
import warnings

import ember

from ..autograd.function import Function
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "detach_variable",
           "check_backward_validity", "noop_context_fn", "get_device_states", "set_device_states"]

_DEFAULT_DETERMINISM_MODE = "default"
_ALLOWED_DETERMINISM_CHECKS = ("default", "none")


class CheckpointError(RuntimeError):
    """The recomputation in backward did not reproduce the forward."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """The tuple `inputs` with each tensor detached, keeping its requires_grad."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, ember.Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, ember.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def get_device_states(*args):
    """(CUDA device indices of the tensor arguments, their generators' states)."""
    devices = []
    for arg in tree_flatten(args)[0]:
        if isinstance(arg, ember.Tensor) and arg.device.type == "cuda":
            index = arg.device.index if arg.device.index is not None else ember.cuda.current_device()
            if index not in devices:
                devices.append(index)
    return devices, [ember.cuda.get_rng_state(device) for device in devices]


def set_device_states(devices, states, *, device_type=None):
    for device, state in zip(devices, states):
        ember.cuda.set_rng_state(state, device)


class _RngStash:
    """The generator states at the forward, put back around the recomputation."""

    def __init__(self, preserve, tensors):
        self.preserve = preserve
        if preserve:
            self.cpu_state = ember.get_rng_state()
            self.devices, self.device_states = get_device_states(*tensors)

    @contextlib.contextmanager
    def replay(self):
        if not self.preserve:
            yield
            return
        with ember.random.fork_rng(devices=self.devices):
            ember.set_rng_state(self.cpu_state)
            set_device_states(self.devices, self.device_states)
            yield


class CheckpointFunction(Function):
    """The reentrant checkpoint (torch's CheckpointFunction)."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng = _RngStash(preserve_rng_state, args)
        # Non-tensor arguments stay in ctx; tensors are saved (placeholders None).
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, ember.Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with ember.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *args):
        inputs = list(ctx.inputs)
        for i, idx in enumerate(ctx.tensor_indices):
            inputs[idx] = ctx.saved_tensors[i]
        with ctx.rng.replay():
            detached_inputs = detach_variable(tuple(inputs))
            with ember.enable_grad():
                outputs = ctx.run_function(*detached_inputs)
        if isinstance(outputs, ember.Tensor):
            outputs = (outputs,)
        outputs_with_grad = []
        args_with_grad = []
        for i in range(len(outputs)):
            if isinstance(outputs[i], ember.Tensor) and outputs[i].requires_grad and args[i] is not None:
                outputs_with_grad.append(outputs[i])
                args_with_grad.append(args[i])
        if len(outputs_with_grad) == 0:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        ember.autograd.backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if isinstance(inp, ember.Tensor) else None for inp in detached_inputs)
        return (None, None) + grads


def _captured_tensors(function):
    """The tensors `function` uses besides its arguments, as far as they can be seen: the
    parameters of modules it is, is bound to, closes over or names as globals, and tensors
    it closes over or names as globals (functools.partial, lists and tuples are looked
    through). A superset is harmless: unused ones get no gradient."""
    found = []
    seen_ids = set()
    visited = set()

    def add_tensor(t):
        if id(t) not in seen_ids:
            seen_ids.add(id(t))
            found.append(t)

    def add_value(value, depth):
        if isinstance(value, ember.nn.Module):
            for p in value.parameters():
                add_tensor(p)
        elif isinstance(value, ember.Tensor):
            add_tensor(value)
        elif isinstance(value, (list, tuple)) and depth < 3:
            for item in value:
                add_value(item, depth + 1)
        elif callable(value) and depth < 3:
            visit(value, depth + 1)

    def visit(fn, depth):
        if id(fn) in visited:
            return
        visited.add(id(fn))
        if isinstance(fn, ember.nn.Module):
            add_value(fn, depth)
        elif isinstance(fn, functools.partial):
            visit(fn.func, depth)
            for value in list(fn.args) + list(fn.keywords.values()):
                add_value(value, depth)
        elif isinstance(fn, types.MethodType):
            add_value(fn.__self__, depth)
            visit(fn.__func__, depth)
        elif isinstance(fn, types.FunctionType):
            for cell in fn.__closure__ or ():
                try:
                    add_value(cell.cell_contents, depth)
                except ValueError:  # an empty cell
                    continue
            for name in fn.__code__.co_names:
                value = fn.__globals__.get(name)
                if isinstance(value, (ember.nn.Module, ember.Tensor)):
                    add_value(value, depth)

    visit(function, 0)
    return [t for t in found if t.requires_grad]


def _accumulator(leaf):
    """The AccumulateGrad node of a leaf tensor (the one its graphs end in)."""
    with ember.enable_grad():
        return leaf.view_as(leaf).grad_fn.next_functions[0][0]


def _reaches_other_leaves(outputs, targets):
    """Whether outputs' graphs end in a leaf (AccumulateGrad node) that is not a target:
    a tensor `function` used that _captured_tensors could not see."""
    # A target's node ends the walk: a non-leaf target's history is not the checkpoint's.
    known = {_accumulator(t) if t.is_leaf else t.grad_fn for t in targets}
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)  # (keeps the wrapper alive, so identity is stable)
        if node in known:
            continue
        if type(node).__name__ == "AccumulateGrad":
            return True
        for next_node, _ in node.next_functions:
            stack.append(next_node)
    return False


def _grads_through_nested_backward(outs, grads, targets):
    """The reentrant way: backward through the recomputed graph accumulates into every leaf
    it reaches, unseen ones included; the targets' share is taken out of their .grad
    (which is put back as it was) and returned through the checkpoint node instead."""
    stashed = [t.grad for t in targets]
    for t in targets:
        t.grad = None
    try:
        ember.autograd.backward(list(outs), list(grads))
        return [t.grad for t in targets]
    finally:
        for t, old in zip(targets, stashed):
            t.grad = old


class _NonReentrantCheckpoint(Function):
    """forward(ctx, plan, *tensors): plan rebuilds the call from the tensors (the flattened
    arguments, then the captured tensors) and records the output structure."""

    @staticmethod
    def forward(ctx, plan, *tensors):
        ctx.plan = plan
        ctx.save_for_backward(*tensors)
        with ember.no_grad():
            out_tensors = plan.run(tensors, record=True)
        # Integer and bool outputs carry no gradient (as in torch).
        non_differentiable = [t for t in out_tensors if not (t.is_floating_point() or t.is_complex())]
        if non_differentiable:
            ctx.mark_non_differentiable(*non_differentiable)
        return tuple(out_tensors)

    @staticmethod
    def backward(ctx, *grad_outputs):
        # Grad mode is on in a backward only under create_graph=True: then the recomputation
        # runs on the saved tensors themselves, so the gradients it returns have a graph
        # back to the inputs (double backward works, as through torch's checkpoint).
        create_graph = ember.is_grad_enabled()
        first = _NonReentrantCheckpoint._recompute(ctx, grad_outputs, detach=not create_graph)
        if first is None:
            return (None,) + tuple(None for _ in ctx.saved_tensors)
        arg_tensors, captured, outs, grads, targets = first
        if not _reaches_other_leaves(outs, targets):
            target_grads = ember.autograd.grad(list(outs), targets, list(grads), allow_unused=True,
                                               create_graph=create_graph)
        else:
            if create_graph:  # the nested backward needs fresh leaves to read .grad from
                arg_tensors, captured, outs, grads, targets = _NonReentrantCheckpoint._recompute(
                    ctx, grad_outputs, detach=True)
            target_grads = _grads_through_nested_backward(outs, grads, targets)
        by_id = {id(t): g for t, g in zip(targets, target_grads)}
        return (None,) + tuple(by_id.get(id(t)) for t in arg_tensors + tuple(captured))

    @staticmethod
    def _recompute(ctx, grad_outputs, detach):
        """Run the function again as in the forward; None when no gradient is needed."""
        plan = ctx.plan
        saved = ctx.saved_tensors
        n_args = plan.n_arg_tensors
        if detach:
            arg_tensors = tuple(t.detach().requires_grad_(t.requires_grad) for t in saved[:n_args])
        else:
            arg_tensors = tuple(saved[:n_args])
        captured = tuple(saved[n_args:])
        with plan.rng.replay(), ember.enable_grad():
            outputs = plan.run(arg_tensors + captured, record=False)
        plan.check_determinism(outputs)
        pairs = [(out, grad) for out, grad in zip(outputs, grad_outputs)
                 if grad is not None and out.requires_grad]
        targets = [t for t in arg_tensors + captured if t.requires_grad]
        if not pairs or not targets:
            return None
        outs, grads = zip(*pairs)
        return arg_tensors, captured, outs, grads, targets


class _CallPlan:
    """How to call `function` from a flat tuple of tensors, and the output's structure."""

    def __init__(self, function, args, kwargs, preserve_rng_state, determinism_check):
        self.function = function
        leaves, self.in_spec = tree_flatten((args, kwargs))
        self.tensor_positions = [i for i, x in enumerate(leaves) if isinstance(x, ember.Tensor)]
        self.n_arg_tensors = len(self.tensor_positions)
        self.arg_tensors = [leaves[i] for i in self.tensor_positions]
        # The plan outlives the forward (it is ctx's): it keeps the non-tensor leaves only;
        # the tensors travel through save_for_backward.
        self.in_leaves = [None if isinstance(x, ember.Tensor) else x for x in leaves]
        self.determinism_check = determinism_check
        self.rng = _RngStash(preserve_rng_state, self.arg_tensors)
        self.out_spec = None
        self.out_leaves = None
        self.out_tensor_positions = None
        self.out_metadata = None

    def run(self, tensors, record):
        leaves = list(self.in_leaves)
        for position, tensor in zip(self.tensor_positions, tensors[:self.n_arg_tensors]):
            leaves[position] = tensor
        args, kwargs = tree_unflatten(leaves, self.in_spec)
        result = self.function(*args, **kwargs)
        out_leaves, out_spec = tree_flatten(result)
        out_positions = [i for i, x in enumerate(out_leaves) if isinstance(x, ember.Tensor)]
        out_tensors = [out_leaves[i] for i in out_positions]
        if record:
            # Only the structure and the non-tensor outputs: holding the output tensors here
            # would keep them alive as long as the graph.
            self.out_spec, self.out_tensor_positions = out_spec, out_positions
            self.out_leaves = [None if isinstance(x, ember.Tensor) else x for x in out_leaves]
            self.out_metadata = [(t.shape, t.dtype, t.device) for t in out_tensors]
        return out_tensors

    def check_determinism(self, outputs):
        if self.determinism_check == "none":
            return
        metadata = [(t.shape, t.dtype, t.device) for t in outputs]
        if metadata != self.out_metadata:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata "
                "than during the forward pass.\n"
                f"forward: {self.out_metadata}\nrecomputation: {metadata}\n"
                "The function must compute the same shapes, dtypes and devices when it is run again.")

    def rebuild(self, out_tensors):
        leaves = list(self.out_leaves)
        for position, tensor in zip(self.out_tensor_positions, out_tensors):
            leaves[position] = tensor
        return tree_unflatten(leaves, self.out_spec)


def _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state, determinism_check):
    plan = _CallPlan(function, args, kwargs, preserve_rng_state, determinism_check)
    tensors = plan.arg_tensors
    plan.arg_tensors = None
    arg_ids = {id(t) for t in tensors}
    # Leaves only: a captured non-leaf would need its own history cut; it is reached by
    # the nested backward instead (see _reaches_other_leaves).
    captured = [t for t in _captured_tensors(function) if id(t) not in arg_ids and t.is_leaf]
    outputs = _NonReentrantCheckpoint.apply(plan, *tensors, *captured)
    return plan.rebuild(outputs)


def checkpoint(function=None, *args, use_reentrant=None, preserve_rng_state=True, context_fn=noop_context_fn,
               determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False, early_stop=True, **kwargs):
    """Run function(*args, **kwargs) without keeping its activations; backward recomputes it.

    checkpoint(use_reentrant=False) (no function) returns a decorator. See the module
    docstring for the two forms and what ember's use_reentrant=False differs in.
    """
    if function is None and not args:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

        def decorate(fn):
            @functools.wraps(fn)
            def wrapper(*a, **kw):
                return checkpoint(fn, *a, use_reentrant=use_reentrant, preserve_rng_state=preserve_rng_state,
                                  context_fn=context_fn, determinism_check=determinism_check, debug=debug,
                                  early_stop=early_stop, **kw)
            return wrapper
        return decorate

    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In a "
                      "future release, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` "
                             "is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if determinism_check not in _ALLOWED_DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_ALLOWED_DETERMINISM_CHECKS)}, "
                         f"but got {determinism_check}")
    if context_fn is not noop_context_fn:
        raise ValueError("checkpoint: context_fn (selective activation checkpointing) needs torch's dispatch "
                         "modes, which ember does not have")
    if debug:
        raise ValueError("checkpoint: debug=True (operator traces of the forward and the recomputation) is "
                         "not available in ember")
    return _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state, determinism_check)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of modules/functions (or an nn.Sequential) in `segments` chunks, each
    checkpointed except the last, which runs normally."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
                      "passed explicitly. In a future release, we will raise an exception if use_reentrant is "
                      "not passed. use_reentrant=False is recommended, but if you need to preserve the current "
                      "default behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    stages = list(functions.children()) if isinstance(functions, ember.nn.Sequential) else list(functions)

    def chain(part):
        def run(value):
            for stage in part:
                value = stage(value)
            return value
        return run

    # segments - 1 checkpointed chunks of len // segments stages each; the rest (the
    # remainder included) runs normally, as torch splits them.
    per_chunk = len(stages) // segments
    if per_chunk == 0:  # torch fails here too (a ValueError from its range step)
        raise ValueError(f"checkpoint_sequential: {segments} segments for {len(stages)} functions; "
                         "each segment needs at least one")
    done = 0
    for _ in range(segments - 1):
        input = checkpoint(chain(stages[done:done + per_chunk]), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
        done += per_chunk
    return chain(stages[done:])(input)
