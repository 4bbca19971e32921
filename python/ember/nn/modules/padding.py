"""Padding layers over F.pad: constant / zero, reflection, replication and circular,
for 1, 2 and 3 spatial dims (torch's classes, padding stored as the full tuple)."""
from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d",
           "ZeroPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
           "CircularPad2d", "CircularPad3d"]


class _PadNd(Module):
    _mode = "constant"
    _dims = 1  # spatial dims: the input is (N, C, *spatial) or (C, *spatial)

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(2 * self._dims, "_ntuple")(padding)

    def _check_input_dim(self, input):
        if input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input "
                             f"(got {input.dim()}D input)")

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """ConstantPad1d(padding, value): (left, right) filled with value."""


class ConstantPad2d(_ConstantPadNd):
    """ConstantPad2d(padding, value): (left, right, top, bottom)."""
    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """ConstantPad3d(padding, value): (left, right, top, bottom, front, back)."""
    _dims = 3


class ZeroPad1d(ConstantPad1d):
    """ZeroPad1d(padding)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """ZeroPad2d(padding)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """ZeroPad3d(padding)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """ReflectionPad1d(padding): mirrored without repeating the edge."""
    _mode = "reflect"


class ReflectionPad2d(_PadNd):
    """ReflectionPad2d(padding)."""
    _mode = "reflect"
    _dims = 2


class ReflectionPad3d(_PadNd):
    """ReflectionPad3d(padding)."""
    _mode = "reflect"
    _dims = 3


class ReplicationPad1d(_PadNd):
    """ReplicationPad1d(padding): the edge value repeated."""
    _mode = "replicate"


class ReplicationPad2d(_PadNd):
    """ReplicationPad2d(padding)."""
    _mode = "replicate"
    _dims = 2


class ReplicationPad3d(_PadNd):
    """ReplicationPad3d(padding)."""
    _mode = "replicate"
    _dims = 3


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """CircularPad1d(padding): wraps around."""


class CircularPad2d(_CircularPadNd):
    """CircularPad2d(padding)."""
    _dims = 2


class CircularPad3d(_CircularPadNd):
    """CircularPad3d(padding)."""
    _dims = 3
