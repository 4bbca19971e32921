"""ember.utils.hooks: torch.utils.hooks' RemovableHandle and the hook-serialization helpers."""
import warnings

from ..nn.modules._hooks import RemovableHandle  # noqa: F401

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


def unserializable_hook(f):
    """Mark `f` as a hook that is not expected to be saved with its tensor (silences
    warn_if_has_hooks for it)."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor):
    """Warn, as torch does before pickling, for each backward hook in `tensor._backward_hooks`
    not marked with unserializable_hook. ember's own tensors keep their hooks in C++ (no
    _backward_hooks dict), so for them there is nothing to list and nothing is warned."""
    hooks = getattr(tensor, "_backward_hooks", None)
    if hooks:
        for key in hooks:
            hook = hooks[key]
            if not hasattr(hook, "__torch_unserializable__"):
                warnings.warn(f"backward hook {repr(hook)} on tensor will not be "
                              "serialized.  If this is expected, you can "
                              "decorate the function with @torch.utils.hooks.unserializable_hook "
                              "to suppress this warning", stacklevel=2)
