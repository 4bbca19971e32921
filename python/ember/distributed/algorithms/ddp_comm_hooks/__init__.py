"""DDP communication hooks: DistributedDataParallel.register_comm_hook(state, hook)."""
from enum import Enum

from . import debugging_hooks, default_hooks  # noqa: F401


class DDPCommHookType(Enum):
    """The built-in hooks, for DistributedDataParallel._register_builtin_comm_hook."""
    ALLREDUCE = "allreduce"
    FP16_COMPRESS = "fp16_compress"
    BF16_COMPRESS = "bf16_compress"


__all__ = ["DDPCommHookType", "default_hooks", "debugging_hooks"]
