"""ember.cpu.amp: torch.cpu.amp's older spellings of CPU autocast and GradScaler, with the
FutureWarning PyTorch gives for them."""
import warnings

from ..amp import GradScaler as _GradScaler
from ..amp.autocast_mode import autocast as _autocast

__all__ = ["autocast", "GradScaler"]


class autocast(_autocast):
    """torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16, cache_enabled=True)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        from .. import bfloat16
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", dtype=bfloat16 if dtype is None else dtype, enabled=enabled,
                         cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """torch.cpu.amp.GradScaler: the CPU gradient scaler (deprecated spelling)."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)
