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
