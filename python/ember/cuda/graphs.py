"""CUDA graphs: capture the work of a region once, replay it with one launch.

Mirrors torch.cuda.graphs: CUDAGraph, graph (a context manager that captures),
graph_pool_handle, make_graphed_callables and is_current_stream_capturing. The C++
side is ember::cuda::CUDAGraph (include/ember/cuda_graph.h); docs/cuda.md describes
what a capture may contain.

A replay reruns the captured kernels on the same memory: refresh inputs by copying
into the tensors the capture read (static inputs) and read results from the tensors
it produced (static outputs). Random numbers on the GPU cannot be captured in ember
(every replay would repeat the draw): the capture raises instead.
"""
import gc

from .. import _C

_cuda = _C._cuda

__all__ = ["CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing",
           "make_graphed_callables"]


def is_current_stream_capturing():
    """Whether the current CUDA stream is capturing a graph (False without a GPU)."""
    return _cuda.is_current_stream_capturing()


def graph_pool_handle():
    """A new memory pool id to share between graphs: pass it as `pool` to each capture
    (their replays must then follow the order of their captures)."""
    return _cuda.graph_pool_handle()


class CUDAGraph(_cuda._CUDAGraph):
    """A CUDA graph (torch.cuda.CUDAGraph). Usually captured through `ember.cuda.graph`.

    capture_begin(pool=None, capture_error_mode="global"), capture_end(), replay(),
    reset(), pool(), enable_debug_mode(), debug_dump(path)."""

    def __init__(self, keep_graph=False):
        super().__init__(keep_graph)


def _current_stream_module():
    from . import Stream, current_stream, stream, synchronize, empty_cache
    return Stream, current_stream, stream, synchronize, empty_cache


class graph:  # noqa: N801 (torch's name)
    """with ember.cuda.graph(g): captures the region's CUDA work into the CUDAGraph g.

    The capture runs on a side stream (`stream`, or one shared by all graph() calls);
    `pool` shares memory with other graphs (graph_pool_handle() or another graph's
    pool()); capture_error_mode as CUDAGraph.capture_begin. Before capturing, the device
    is synchronized and the allocator's cache emptied, so the capture gets fresh memory.
    Warm the region up (run it a few times on the side stream) before capturing it."""

    default_capture_stream = None

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        if not isinstance(cuda_graph, _cuda._CUDAGraph):
            raise TypeError(f"ember.cuda.graph: expected a CUDAGraph, got {type(cuda_graph).__name__}")
        Stream, _, stream_ctx, _, _ = _current_stream_module()
        if stream is None:
            if graph.default_capture_stream is None:
                graph.default_capture_stream = Stream()
            stream = graph.default_capture_stream
        self.cuda_graph = cuda_graph
        self.pool = pool
        self.capture_stream = stream
        self.capture_error_mode = capture_error_mode
        self._stream_ctx = stream_ctx(stream)

    def __enter__(self):
        _, _, _, synchronize, empty_cache = _current_stream_module()
        synchronize()
        gc.collect()  # tensors only the garbage collector would free go back first
        empty_cache()
        self._stream_ctx.__enter__()
        try:
            self.cuda_graph.capture_begin(pool=self.pool, capture_error_mode=self.capture_error_mode)
        except BaseException:
            self._stream_ctx.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            self.cuda_graph.capture_end()
        except RuntimeError:
            if exc_type is None:
                raise
            # The region's own error says more than "the capture failed".
        finally:
            self._stream_ctx.__exit__(exc_type, exc, tb)
        return False


def _flatten(obj, out):
    if isinstance(obj, _C.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            _flatten(item, out)
    else:
        raise TypeError("make_graphed_callables: callables may only take and return tensors and "
                        f"(nested) tuples or lists of tensors, got {type(obj).__name__}")
    return out


def _rebuild(structure, flat):
    """`structure` with its tensors replaced, in order, by those of the iterator `flat`."""
    if isinstance(structure, _C.Tensor):
        return next(flat)
    items = [_rebuild(item, flat) for item in structure]
    return type(structure)(items) if isinstance(structure, list) else tuple(items)


def make_graphed_callables(callables, sample_args, num_warmup_iters=3, allow_unused_input=False,
                           pool=None):
    """Graphed versions of callables (functions or modules): forward and backward each
    captured once as a CUDA graph and replayed on every call (torch.cuda.make_graphed_callables).

    `callables` is one callable or a tuple of them, `sample_args` a tuple of tensors (or
    a tuple of such tuples, one per callable); calls must then pass tensors of the same
    shapes, dtypes and devices in the same positions, and a module's parameters must stay
    where they are (their values may change: the optimizer updates them in place). Modules
    must have no hooks. With several callables, they share one memory pool and must then
    run in the order given, their backwards in reverse."""
    from .. import autograd
    from .. import nn

    just_one = not isinstance(callables, tuple)
    if just_one:
        callables = (callables,)
        sample_args = (sample_args,)
    if len(callables) != len(sample_args):
        raise ValueError(f"make_graphed_callables: {len(callables)} callables but "
                         f"{len(sample_args)} sample argument tuples")
    flat_samples = []
    for c, args in zip(callables, sample_args):
        if not isinstance(args, tuple):
            raise TypeError("make_graphed_callables: sample_args must be a tuple of tensors (one "
                            "tuple per callable)")
        if isinstance(c, nn.Module):
            if (c._forward_hooks or c._forward_pre_hooks or c._backward_hooks
                    or getattr(c, "_backward_pre_hooks", None)):
                raise RuntimeError("make_graphed_callables: modules must not have hooks registered "
                                   "when they are graphed")
        flat = _flatten(args, [])
        for t in flat:
            if not t.is_cuda:
                raise ValueError("make_graphed_callables: sample arguments must be CUDA tensors, got "
                                 f"one on {t.device}")
            if t.requires_grad and not t.is_leaf:
                raise ValueError("make_graphed_callables: sample arguments that require grad must "
                                 "be leaves (detach().requires_grad_())")
        flat_samples.append(flat)

    Stream, current_stream, stream_ctx, synchronize, _ = _current_stream_module()
    mempool = graph_pool_handle() if pool is None else pool
    params = [tuple(c.parameters()) if isinstance(c, nn.Module) else () for c in callables]
    static_inputs = [tuple(flat) + p for flat, p in zip(flat_samples, params)]
    fwd_graphs = [CUDAGraph() for _ in callables]
    bwd_graphs = [CUDAGraph() for _ in callables]

    def grad_inputs_of(inputs):
        return tuple(t for t in inputs if t.requires_grad)

    # Warm up on a side stream: lazily made handles and workspaces exist before capture.
    synchronize()
    side = Stream()
    side.wait_stream(current_stream())
    with stream_ctx(side):
        for c, args, inputs in zip(callables, sample_args, static_inputs):
            for _ in range(num_warmup_iters):
                outputs = _flatten(c(*args), [])
                wanted = grad_inputs_of(inputs)
                outs = tuple(o for o in outputs if o.requires_grad)
                if outs and wanted:
                    autograd.grad(outs, wanted, grad_outputs=tuple(_C.ones_like(o) for o in outs),
                                  allow_unused=allow_unused_input)
            del outputs
    current_stream().wait_stream(side)
    synchronize()

    # Forward graphs in order, then backward graphs in reverse order, all in one pool.
    static_outputs, output_structures = [], []
    for c, args, g in zip(callables, sample_args, fwd_graphs):
        with graph(g, pool=mempool):
            result = c(*args)
        output_structures.append(result)
        static_outputs.append(tuple(_flatten(result, [])))

    static_grad_outputs, static_grad_inputs = [None] * len(callables), [None] * len(callables)
    for i in reversed(range(len(callables))):
        inputs, outputs, g = static_inputs[i], static_outputs[i], bwd_graphs[i]
        grad_outputs = tuple(_C.empty_like(o) if o.requires_grad else None for o in outputs)
        wanted = grad_inputs_of(inputs)
        needed = tuple(o for o in outputs if o.requires_grad)
        with graph(g, pool=mempool):
            grads = autograd.grad(needed, wanted,
                                  grad_outputs=tuple(go for go in grad_outputs if go is not None),
                                  only_inputs=True, allow_unused=allow_unused_input) \
                if needed and wanted else ()
        grads = iter(grads)
        static_grad_inputs[i] = tuple(next(grads) if t.requires_grad else None for t in inputs)
        static_grad_outputs[i] = grad_outputs

    def make_function(i):
        inputs, outputs = static_inputs[i], static_outputs[i]
        n_user = len(flat_samples[i])
        fwd, bwd = fwd_graphs[i], bwd_graphs[i]

        class Graphed(autograd.Function):
            @staticmethod
            def forward(ctx, *user_inputs):
                for static, new in zip(inputs[:n_user], user_inputs):
                    if static.data_ptr() != new.data_ptr():
                        static.copy_(new)
                fwd.replay()
                return tuple(o.detach() for o in outputs)

            @staticmethod
            def backward(ctx, *grads):
                for static, g in zip(static_grad_outputs[i], grads):
                    if static is not None and g is not None and static.data_ptr() != g.data_ptr():
                        static.copy_(g)
                bwd.replay()
                # Clones: the next replay overwrites the static gradients.
                return tuple(g.clone() if g is not None else None for g in static_grad_inputs[i])

        def check(user_flat):
            if len(user_flat) != n_user:
                raise TypeError(f"graphed callable: expected {n_user} tensors, got {len(user_flat)}")
            for static, new in zip(inputs[:n_user], user_flat):
                if (new.shape != static.shape or new.dtype != static.dtype or new.device != static.device):
                    raise ValueError("graphed callable: inputs must match the sample arguments' shapes, "
                                     f"dtypes and devices: got {tuple(new.shape)} {new.dtype} on "
                                     f"{new.device}, captured with {tuple(static.shape)} {static.dtype} "
                                     f"on {static.device}")

        def graphed(*user_args):
            user_flat = _flatten(user_args, [])
            check(user_flat)
            outs = Graphed.apply(*user_flat, *inputs[n_user:])
            return _rebuild(output_structures[i], iter(outs))

        return graphed

    results = []
    for i, c in enumerate(callables):
        fn = make_function(i)
        if isinstance(c, nn.Module):
            def make_forward(module, graphed_fn, eager_forward):
                def forward(*args):
                    # Graphed in training (what was captured), eager in eval mode.
                    return graphed_fn(*args) if module.training else eager_forward(*args)
                return forward
            c.forward = make_forward(c, fn, c.forward)
            results.append(c)
        else:
            results.append(fn)
    return results[0] if just_one else tuple(results)
