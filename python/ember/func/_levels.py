"""The autograd "levels" that grad, vjp, jvp, jacrev and jacfwd run their function in.

torch.func gives each transform its own level: the function sees fresh differentiable
inputs, and the result is a plain value for the caller: connected to the caller's
autograd graph only where it depends on tensors that the caller's graph tracks (an
input that requires grad, a closed-over parameter, the input of an enclosing
transform). ember has one tape, so a level here is:

- inputs that do not require grad become new leaves of the level (registered by their
  AccumulateGrad node); inputs that do are passed through a view, so gradients still
  reach the caller's graph;
- after the function ran, its output graph is walked: if it reaches a leaf the level
  does not own, the gradients are taken with create_graph=True (the caller may
  differentiate them again: nested transforms, or backward through the result) and each
  result that turns out to depend only on the level's own leaves is detached;
  otherwise plain (create_graph=False) gradients are taken, as cheap as autograd.grad.

Leaves made by an inner level that finished are handed to the enclosing level, so an
inner result that stayed connected does not count as "outside" for the outer one.
"""
import threading

from .. import _C
from ..autograd import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad

_state = threading.local()


def _stack():
    if not hasattr(_state, "levels"):
        _state.levels = []
    return _state.levels


def _graph_root(tensor):
    """The node the tensor's gradient flows into first (a leaf's is its AccumulateGrad)."""
    if tensor.grad_fn is not None:
        return tensor.grad_fn
    with enable_grad():  # the caller may be under no_grad
        return tensor.view_as(tensor).grad_fn.next_functions[0][0]


class GradLevel:
    """One transform call's own leaves, and whether the caller records gradients."""

    def __init__(self):
        self.own_nodes = set()
        # The caller's grad mode: under no_grad the results never join the caller's graph.
        self.caller_grad_enabled = _C.is_grad_enabled()

    def __enter__(self):
        _stack().append(self)
        self._grad_mode = enable_grad()
        self._grad_mode.__enter__()
        return self

    def __exit__(self, *exc):
        self._grad_mode.__exit__(*exc)
        stack = _stack()
        stack.pop()
        if stack:
            stack[-1].own_nodes |= self.own_nodes
        return False

    def new_leaf(self, like, requires_grad=True):
        """A zero leaf shaped like `like`, owned by this level (the double-backward trick's u)."""
        leaf = _C.zeros_like(like).requires_grad_(requires_grad)
        self.own_nodes.add(_graph_root(leaf))
        return leaf

    def wrap_input(self, tensor):
        """The tensor as a differentiable input of this level."""
        if tensor.requires_grad:
            return tensor.view_as(tensor)
        leaf = tensor.detach().requires_grad_(True)
        self.own_nodes.add(_graph_root(leaf))
        return leaf

    def reaches_outside(self, tensors):
        """Whether the caller records gradients and the graph of any of tensors reaches a
        leaf this level does not own: then the results must stay in the caller's graph."""
        return self.caller_grad_enabled and self.graph_reaches_outside(tensors)

    def graph_reaches_outside(self, tensors):
        """Whether the autograd graph of any of tensors reaches a leaf this level does not own."""
        stack = [_graph_root(t) for t in tensors if isinstance(t, _C.Tensor) and t.requires_grad]
        seen, keep_alive = set(), []
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            keep_alive.append(node)  # so that id() stays unique during the walk
            nexts = node.next_functions
            if not nexts and node.name() == "AccumulateGrad":
                if node not in self.own_nodes:
                    return True
                continue
            stack.extend(nxt for nxt, _ in nexts if nxt is not None)
        return False

    def release(self, tensor, connected):
        """The tensor as the caller sees it: detached unless it depends on outside tensors."""
        if not isinstance(tensor, _C.Tensor) or not tensor.requires_grad:
            return tensor
        if connected and self.graph_reaches_outside([tensor]):
            return tensor
        return tensor.detach()

    def gradients(self, outputs, inputs, grad_outputs, create_graph):
        """autograd.grad of the outputs that require grad, zeros for unreached inputs."""
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
        if not pairs:
            return [_C.zeros_like(i) for i in inputs]
        grads = _autograd_grad(tuple(o for o, _ in pairs), tuple(inputs), tuple(g for _, g in pairs),
                               retain_graph=True, create_graph=create_graph, allow_unused=True)
        return [_C.zeros_like(i) if g is None else g for g, i in zip(grads, inputs)]
