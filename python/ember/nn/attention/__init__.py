"""ember.nn.attention: torch.nn.attention's backend selection for scaled_dot_product_attention.

    from ember.nn.attention import SDPBackend, sdpa_kernel

    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        F.scaled_dot_product_attention(q, k, v)
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH], set_priority=True):
        ...

PyTorch has several kernels for scaled_dot_product_attention (math, flash, memory
efficient, cuDNN) and sdpa_kernel chooses which of them may run. ember has one kernel
per device that implements all of them: it computes what every PyTorch backend computes
(softmax(q k^T * scale + mask) v, with the same masking, causal and GQA rules). So the
selection is validated and kept, not used to pick among kernels: sdpa_kernel checks its
argument as PyTorch does, records the enabled backends (and, with set_priority, their
order) for the duration of the block, and restores the previous selection exactly on
exit, also when the block raises and when blocks nest (PyTorch restores the enabled
backends but can leave the priority order changed after nested set_priority blocks).
_cur_sdpa_kernel_backends() reads it back as torch's function of that name does.
ember's kernel runs whichever backends are selected, even none (PyTorch raises
"No viable backend" when none of the selected ones applies to the inputs).

The selection is process-wide, as PyTorch's flags are (not per thread).

torch.nn.attention.bias (CausalBias) is not provided: PyTorch's CausalBias is an empty
tensor subclass that takes over scaled_dot_product_attention through __torch_function__,
which ember's tensors do not have.
"""
import contextlib
import enum
from contextvars import ContextVar

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.Enum):
    """The backends of scaled_dot_product_attention, with PyTorch's names and values.

    ERROR: no backend could be determined; MATH: the reference composition of ops;
    FLASH_ATTENTION, EFFICIENT_ATTENTION, CUDNN_ATTENTION: PyTorch's fused kernels;
    OVERRIDEABLE: a backend provided by an extension. Used with sdpa_kernel.
    Like torch's, the members convert to int (int(SDPBackend.MATH) == 0) but do not
    compare equal to ints.
    """

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    def __index__(self):
        return self.value

    def __hash__(self):
        return hash(self.value)


# The switchable backends in the order torch's _cur_sdpa_kernel_backends lists them
# (ERROR is never a switch: selecting it enables nothing).
_SWITCHABLE = (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION,
               SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH, SDPBackend.OVERRIDEABLE)

# PyTorch's default priority order (torch._C._get_sdp_priority_order()), as ints.
_DEFAULT_PRIORITY = (1, 2, 0, 3, 4)

_enabled = {backend: True for backend in _SWITCHABLE}
_priority = list(_DEFAULT_PRIORITY)
_uses_priority = ContextVar("sdpa_kernel_uses_priority", default=False)


def _is_sdp_priority_order_active():
    """Whether an enclosing sdpa_kernel block set the backends' priority."""
    return _uses_priority.get()


def _get_sdp_priority_order():
    """The backends' priority order, as ints (torch._C._get_sdp_priority_order)."""
    return list(_priority)


def _cur_sdpa_kernel_backends(with_priority=False):
    """The enabled backends, in torch's listing order or, with_priority, by priority."""
    backends = [backend for backend in _SWITCHABLE if _enabled[backend]]
    if with_priority:
        backends.sort(key=lambda backend: _priority.index(int(backend)))
    return backends


def _sdpa_kernel(backends, set_priority=False):
    """Enable exactly the backends in `backends` (other entries are ignored, as torch
    ignores them); with set_priority, put them first in the priority order."""
    for backend in _SWITCHABLE:
        _enabled[backend] = backend in backends
    if set_priority:
        # int() of every entry, so a foreign one raises as in torch; ERROR (-1) is no
        # backend and takes no place in the order (torch writes it in, out of bounds).
        order = [value for value in (int(backend) for backend in backends) if value != -1]
        order += [value for value in _priority if value not in order]
        _priority[:] = order


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Select the scaled_dot_product_attention backends for the duration of a block.

    Args:
        backends (SDPBackend or list of SDPBackend): the backends to enable; all others
            are disabled inside the block.
        set_priority (bool): also make the list's order the backends' priority order.

    Usable as `with sdpa_kernel(...):` or as a decorator. The previous selection comes back
    on exit. ember's one kernel serves every backend (see the module's docstring).
    """
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend "
                             f"instances, got {type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))

    previous = _cur_sdpa_kernel_backends()
    previous_priority = list(_priority)
    token = _uses_priority.set(set_priority or _uses_priority.get())
    try:
        _sdpa_kernel(backends, set_priority)
        yield {}
    finally:
        _uses_priority.reset(token)
        # Exactly the state of entry. (torch re-applies the previous backends as a
        # priority list, which leaves the order changed after nested set_priority blocks.)
        _sdpa_kernel(previous)
        _priority[:] = previous_priority


# The variadic form (torch keeps it for graph capture): sdpa_kernel(list(backends)).
@contextlib.contextmanager
def _sdpa_kernel_variadic(*backends):
    with sdpa_kernel(list(backends)):
        yield
