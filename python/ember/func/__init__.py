"""ember.func: PyTorch's torch.func function transforms.

grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd, hessian, vmap,
functional_call, stack_module_state, replace_all_batch_norm_modules_, functionalize,
debug_unwrap, with torch.func's signatures. They compose (vmap(grad(f)) gives
per-sample gradients, hessian is jacfwd(jacrev(f))). ember has reverse-mode autograd
only: forward-mode products (jvp, linearize, jacfwd) use the double-backward trick, and
vmap runs the function once per slice (a loop, not batching rules). docs/func.md lists
the differences from torch.
"""
from .batch_norm_replacement import replace_all_batch_norm_modules_
from .functional_call import functional_call, stack_module_state
from .functionalize import debug_unwrap, functionalize
from .grad import grad, grad_and_value
from .jacobians import hessian, jacfwd, jacrev
from .jvp import jvp, linearize
from .vjp import vjp
from .vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state", "replace_all_batch_norm_modules_", "functionalize",
           "debug_unwrap"]
