"""skip_init (torch.nn.utils.init.skip_init): a module whose parameters and buffers are
left uninitialized.

torch builds the module on its "meta" device (no memory, no computation) and then
allocates empty storage with to_empty(). ember has no meta device: the module is built
on the target device (its initializers run) and to_empty() then swaps every parameter
and buffer for uninitialized memory of the same shape and dtype. The result is the same
(values as from ember.empty); the initialization time is not saved.
"""
import inspect

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) with its parameters and buffers uninitialized.
    module_cls must take a `device` argument (RuntimeError otherwise)."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = final_device
    return module_cls(*args, **kwargs).to_empty(device=final_device)
