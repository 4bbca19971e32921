"""ember.cuda.amp: PyTorch's older path to the CUDA gradient scaler. GradScaler(...) here is
ember.amp.GradScaler("cuda", ...), with the FutureWarning PyTorch gives for this spelling.
autocast is not here yet (mixed precision, issue 18)."""
import warnings

from ..amp import GradScaler as _GradScaler

__all__ = ["GradScaler"]


class GradScaler(_GradScaler):
    """torch.cuda.amp.GradScaler: the CUDA gradient scaler (deprecated spelling)."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)


# ---- autocast (torch.cuda.amp's deprecated spellings) -------------------------------------
from .. import amp as _amp  # noqa: E402
from ..amp.autocast_mode import autocast as _autocast  # noqa: E402

__all__ += ["autocast", "custom_fwd", "custom_bwd"]


class autocast(_autocast):
    """torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        from .. import float16
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", dtype=float16 if dtype is None else dtype, enabled=enabled,
                         cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """torch.cuda.amp.custom_fwd: ember.amp.custom_fwd(device_type='cuda') (deprecated spelling)."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """torch.cuda.amp.custom_bwd: ember.amp.custom_bwd(device_type='cuda') (deprecated spelling)."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return _amp.custom_bwd(bwd, device_type="cuda")
