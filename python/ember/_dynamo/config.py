"""torch._dynamo.config's commonly set options, with torch's defaults. ember compiles
nothing (ember._dynamo), so they are recorded, never acted on; a name torch does not have
raises AttributeError, as torch's config module does."""
import sys
import types

_DEFAULTS = {
    "suppress_errors": False,
    "cache_size_limit": 8,
    "recompile_limit": 8,
    "accumulated_cache_size_limit": 256,
    "verbose": False,
    "optimize_ddp": True,
    "capture_scalar_outputs": False,
    "capture_dynamic_output_shape_ops": False,
    "automatic_dynamic_shapes": True,
    "assume_static_by_default": True,
}


class _Config(types.ModuleType):
    """This module: its attributes are the options above and nothing else."""

    def __getattr__(self, name):
        raise AttributeError(f"{__name__.replace('ember', 'torch', 1)}.{name} does not exist")

    def __setattr__(self, name, value):
        if name.startswith("__") or name in _DEFAULTS:
            super().__setattr__(name, value)
            return
        raise AttributeError(f"{__name__.replace('ember', 'torch', 1)}.{name} does not exist")


globals().update(_DEFAULTS)
sys.modules[__name__].__class__ = _Config
