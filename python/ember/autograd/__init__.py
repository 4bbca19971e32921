"""ember.autograd: gradients of tensor computations (torch.autograd's API)."""
from .. import _C
from .function import Function, FunctionCtx  # noqa: F401
from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: F401
from .grad_mode import is_inference_mode_enabled  # noqa: F401
from .grad_mode import is_multithreading_enabled, set_multithreading_enabled  # noqa: F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from .gradcheck import gradcheck, gradgradcheck  # noqa: F401
from . import profiler  # noqa: F401  (ember.autograd.profiler: the legacy profiler API)
from . import graph  # noqa: F401  (ember.autograd.graph: saved-tensor hooks)


def _tensors(x):
    if x is None:
        return None
    return (x,) if isinstance(x, _C.Tensor) else tuple(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of tensors into the .grad of the leaves (or of inputs)."""
    _C._backward(_tensors(tensors), _tensors(grad_tensors), retain_graph, create_graph, _tensors(inputs))


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    outs = _tensors(outputs)
    gouts = _tensors(grad_outputs) or ()
    if len(gouts) != len(outs) or any(g is None for g in gouts):
        raise RuntimeError("grad: is_grads_batched=True needs a batched grad_output (a tensor) for "
                           f"every output; got {len(gouts)} for {len(outs)} outputs")
    batch = {g.shape[0] if g.dim() > 0 else None for g in gouts}
    if None in batch or len(batch) != 1:
        raise RuntimeError("grad: with is_grads_batched=True every grad_output must have the same "
                           f"batch size in its first dimension; got shapes {[tuple(g.shape) for g in gouts]}")
    (size,) = batch
    rows = []
    for b in range(size):
        keep = True if b < size - 1 else retain_graph
        rows.append(grad(outs, inputs, [g[b] for g in gouts], retain_graph=keep, create_graph=create_graph,
                         allow_unused=allow_unused, materialize_grads=materialize_grads))
    n_inputs = len(_tensors(inputs))
    if size == 0:
        return tuple(_C.zeros((0,) + tuple(i.shape), dtype=i.dtype, device=i.device)
                     for i in _tensors(inputs))
    return tuple(None if rows[0][k] is None else _C.stack([r[k] for r in rows]) for k in range(n_inputs))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of outputs with respect to inputs, as a tuple (torch.autograd.grad).

    only_inputs is accepted and ignored, as PyTorch ignores it (deprecated there).
    is_grads_batched=True: the first dim of every grad_output is a batch; the result is
    each input's gradient for every row, stacked (one backward pass per row, where
    PyTorch batches them with vmap: the same values)."""
    del only_inputs
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    single = isinstance(inputs, _C.Tensor)
    result = _C._grad(_tensors(outputs), _tensors(inputs), _tensors(grad_outputs), retain_graph,
                      create_graph, bool(allow_unused) or materialize_grads)
    if materialize_grads:
        ins = _tensors(inputs)
        result = tuple(_C.zeros_like(i) if g is None else g for g, i in zip(result, ins))
    return result if not single else result


class RemovableHandle:
    """What Tensor.register_hook returns: .remove() unregisters the hook."""

    def __init__(self, tensor, hook_id):
        self._tensor, self._id = tensor, hook_id

    def remove(self):
        if self._tensor is not None:
            self._tensor._remove_hook(self._id)
            self._tensor = None


def _register_hook(self, hook):
    """hook(grad) runs when the gradient of this tensor is computed; it may return a new gradient."""
    return RemovableHandle(self, self._register_hook(hook))


_C.Tensor.register_hook = _register_hook


class _PostAccumulateGradHookHandle:
    """What register_post_accumulate_grad_hook returns: .remove() unregisters the hook."""

    def __init__(self, tensor, hook_id):
        self._tensor, self._id = tensor, hook_id

    def remove(self):
        if self._tensor is not None:
            _C._remove_post_accumulate_grad_hook(self._tensor, self._id)
            self._tensor = None


def _register_post_accumulate_grad_hook(self, hook):
    """hook(tensor) runs after this leaf's gradient was accumulated into .grad; it must
    return None."""
    return _PostAccumulateGradHookHandle(self, _C._register_post_accumulate_grad_hook(self, hook))


_C.Tensor.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook
from . import functional  # noqa: F401,E402
from . import forward_ad  # noqa: F401,E402  (dual tensors through the double-backward trick)
from .variable import Variable  # noqa: F401,E402  (legacy torch.autograd.Variable)
