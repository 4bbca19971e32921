"""ember.autograd.graph: hooks on what autograd saves for backward (torch.autograd.graph).

`saved_tensors_hooks(pack_hook, unpack_hook)`: inside the context, every tensor an op
saves for its backward is passed to pack_hook and what it returns is kept instead;
backward calls unpack_hook on it to get the tensor back (lib/autograd/saved_tensor.cpp).
`save_on_cpu` keeps saved tensors in CPU memory and moves them back for backward.
`disable_saved_tensors_hooks(message)` makes any use of these hooks an error inside it.
"""
from __future__ import annotations

import contextlib

from .. import _C

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]


class saved_tensors_hooks(_C._SavedTensorsHooks):  # noqa: N801 (torch's name)
    """Context manager: pack_hook(tensor) -> anything, unpack_hook(anything) -> tensor,
    for the tensors saved for backward inside it (nested contexts: the innermost packs).
    The pack hook must not modify its input in place (RuntimeError)."""

    def __init__(self, pack_hook, unpack_hook):
        super().__init__(pack_hook, unpack_hook)
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        super().__enter__()
        return self

    def __exit__(self, *exc):
        super().__exit__(*exc)
        return False


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """Saved tensors are kept on the CPU (in pinned memory with pin_memory=True, for a
    fast copy back) and returned to their device for backward."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            packed = tensor.cpu()
            if pin_memory and tensor.device.type != "cpu":  # pinned: a fast copy back
                packed = packed.pin_memory()
            return tensor.device, packed

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Inside, installing saved-tensor hooks, or saving a tensor while hooks are
    installed, raises RuntimeError(error_message)."""
    with _C._DisableSavedTensorsHooks(error_message):
        yield
