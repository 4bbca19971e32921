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

use_reentrant=False is torch's non-reentrant form: the forward runs normally under
ember.autograd.graph.saved_tensors_hooks whose pack hook keeps nothing (a slot number);
the first unpack in backward recomputes the function (the RNG state restored) and hands
out its saved tensors, each placed back in the original graph. Keyword arguments,
inputs that do not require grad, any nesting of outputs, torch.autograd.grad and double
backward work as in torch; determinism_check="default" compares the shapes, dtypes and
devices of every recomputed saved tensor with the forward's (CheckpointError).
What is not available: context_fn other than the default (torch uses it for selective
checkpointing through dispatch modes), and debug=True (torch's operator traces); both
raise ValueError rather than being ignored. The whole function is always recomputed
(early_stop has nothing to stop).
"""
import contextlib
import functools
import warnings

import ember
from ember.autograd.graph import saved_tensors_hooks

from ..autograd.function import Function
from ._pytree import tree_flatten

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


class _Recomputation:
    """The tensors one checkpointed call saved for backward: not kept in the forward
    (the pack hook hands out a slot number instead), recomputed all at once the first
    time backward asks for one (ember.autograd.graph.saved_tensors_hooks).

    The forward itself runs normally, so the graph is the ordinary one: every tensor
    the function uses (its arguments, a module's parameters, globals) gets its gradient
    through it, and torch.autograd.grad works. An unpacked tensor takes its place in
    that graph (lib/autograd/saved_tensor.cpp), so double backward works too."""

    def __init__(self, function, args, kwargs, rng, determinism_check):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng = rng
        self.determinism_check = determinism_check
        self.forward_metadata = []  # (shape, dtype, device) of each slot, for the check
        self.values = None

    def pack(self, tensor):
        self.forward_metadata.append((tuple(tensor.shape), tensor.dtype, tensor.device))
        return len(self.forward_metadata) - 1

    def unpack(self, slot):
        if self.values is None:
            self.values = self._recompute()
        return self.values[slot]

    def _recompute(self):
        values = []

        def keep(tensor):
            # Without its history: the recomputation's graph is not needed (an unpacked
            # value takes its place in the original graph), and a history here would make
            # a cycle through the C++ graph (values -> node -> its saved tensor's unpack
            # hook -> values) that Python's collector cannot see: the values would leak.
            values.append(tensor.detach())
            return len(values) - 1

        def detached(value):
            if not isinstance(value, ember.Tensor):
                return value
            copy = value.detach()
            copy.requires_grad_(value.requires_grad)
            return copy

        args = tuple(detached(a) for a in self.args)
        kwargs = {k: detached(v) for k, v in self.kwargs.items()}
        with self.rng.replay(), ember.enable_grad(), saved_tensors_hooks(keep, values.__getitem__):
            self.function(*args, **kwargs)
        metadata = [(tuple(t.shape), t.dtype, t.device) for t in values]
        if self.determinism_check != "none" and metadata != self.forward_metadata:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata "
                "than during the forward pass.\n"
                f"forward: {self.forward_metadata}\nrecomputation: {metadata}\n"
                "The function must compute the same shapes, dtypes and devices when it is run again.")
        if len(values) < len(self.forward_metadata):
            raise CheckpointError("torch.utils.checkpoint: the recomputation saved fewer tensors "
                                  f"({len(values)}) than the forward ({len(self.forward_metadata)})")
        self.args = self.kwargs = None  # what the recomputation needed
        return values


def _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state, determinism_check):
    tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, ember.Tensor)]
    frame = _Recomputation(function, args, kwargs, _RngStash(preserve_rng_state, tensors),
                           determinism_check)
    with saved_tensors_hooks(frame.pack, frame.unpack):
        return function(*args, **kwargs)


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
