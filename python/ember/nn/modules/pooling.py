"""MaxPool2d, AvgPool2d and AdaptiveAvgPool2d."""
from .. import functional as F
from .module import Module

__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d"]


class _MaxPoolNd(Module):
    """The max pools' options (torch's _MaxPoolNd); forward calls F.<_function>."""
    _function = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return getattr(F, self._function)(input, self.kernel_size, self.stride, self.padding,
                                          self.dilation, ceil_mode=self.ceil_mode,
                                          return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class _AvgPoolNd(Module):
    """The 2-d and 3-d average pools' options; forward calls F.<_function>."""
    _function = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return getattr(F, self._function)(input, self.kernel_size, self.stride, self.padding,
                                          self.ceil_mode, self.count_include_pad,
                                          self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool2d(_MaxPoolNd):
    """MaxPool2d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
    ceil_mode=False); stride defaults to kernel_size."""
    _function = "max_pool2d"


class AvgPool2d(_AvgPoolNd):
    """AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)."""
    _function = "avg_pool2d"


class AdaptiveAvgPool2d(Module):
    """AdaptiveAvgPool2d(output_size): int, pair, or None in a pair for 'keep'."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


# PyTorch's torch.nn.modules.pooling holds every pooling module; ember keeps some in
# pooling_extra.py, re-exported here so that programs importing from this path find them.
from .pooling_extra import *  # noqa: E402,F401,F403
from .pooling_extra import __all__ as _extra_all  # noqa: E402

__all__ = __all__ + list(_extra_all)
