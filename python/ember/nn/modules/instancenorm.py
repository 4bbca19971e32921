"""InstanceNorm1d/2d/3d: per-sample, per-channel statistics (torch's _NormBase options,
affine and track_running_stats off by default)."""
import warnings

from .. import functional as F
from .batchnorm import _BatchNorm

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_BatchNorm):
    _no_batch_dim = 2  # dims of an unbatched input (C, *spatial)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)

    def _check_input_dim(self, input):
        if input.dim() not in (self._no_batch_dim, self._no_batch_dim + 1):
            raise ValueError(f"expected {self._no_batch_dim}D or {self._no_batch_dim + 1}D input "
                             f"(got {input.dim()}D input)")

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features"
                                 f" ({self.num_features}), but got: {input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. "
                          "You can silence this warning by not passing in num_features, "
                          "which is not used because affine=False", stacklevel=2)
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """InstanceNorm1d(num_features, eps=1e-5, momentum=0.1, affine=False,
    track_running_stats=False) over (N, C, L) or (C, L)."""


class InstanceNorm2d(_InstanceNorm):
    """InstanceNorm2d(num_features, ...) over (N, C, H, W) or (C, H, W)."""
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """InstanceNorm3d(num_features, ...) over (N, C, D, H, W) or (C, D, H, W)."""
    _no_batch_dim = 4
