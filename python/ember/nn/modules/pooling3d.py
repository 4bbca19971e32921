"""3-d pooling layers: MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d and
LPPool3d (torch's arguments, defaults and reprs) over the ember.nn.functional composites."""
from .. import functional as F
from .pooling import _AvgPoolNd, _MaxPoolNd
from .pooling_extra import _AdaptivePool, _LPPoolNd

__all__ = ["MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d"]


class MaxPool3d(_MaxPoolNd):
    """MaxPool3d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
    ceil_mode=False); stride defaults to kernel_size."""
    _function = "max_pool3d"


class AvgPool3d(_AvgPoolNd):
    """AvgPool3d(kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)."""
    _function = "avg_pool3d"

    def __setstate__(self, state):
        super().__setstate__(state)
        self.__dict__.setdefault("padding", 0)
        self.__dict__.setdefault("ceil_mode", False)
        self.__dict__.setdefault("count_include_pad", True)


class AdaptiveAvgPool3d(_AdaptivePool):
    """AdaptiveAvgPool3d(output_size): an int or 3 sizes, None keeping the input's size."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptivePool):
    """AdaptiveMaxPool3d(output_size, return_indices=False)."""

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class LPPool3d(_LPPoolNd):
    """LPPool3d(norm_type, kernel_size, stride=None, ceil_mode=False): (sum x^p)^(1/p) over
    each (kD, kH, kW) window; norm_type 0 is refused."""

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        if norm_type == 0:
            raise ValueError(f"norm_type must be a non-zero value, but got {norm_type}")
        super().__init__(norm_type, kernel_size, stride, ceil_mode)

    def forward(self, input):
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)
