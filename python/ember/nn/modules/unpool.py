"""MaxUnpool1d, MaxUnpool2d and MaxUnpool3d: the partial inverses of the max pools."""
from .. import functional as F
from .module import Module
from .utils import _ntuple, _pair, _single

__all__ = ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]

_triple = _ntuple(3, "_triple")


class _MaxUnpoolNd(Module):
    _ntuple = None
    _unpool = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        tup = type(self)._ntuple
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride if stride is not None else kernel_size)
        self.padding = tup(padding)

    def forward(self, input, indices, output_size=None):
        return type(self)._unpool(input, indices, self.kernel_size, self.stride, self.padding,
                                  output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """MaxUnpool1d(kernel_size, stride=None, padding=0); forward(input, indices,
    output_size=None)."""

    _ntuple = staticmethod(_single)
    _unpool = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """MaxUnpool2d(kernel_size, stride=None, padding=0); forward(input, indices,
    output_size=None)."""

    _ntuple = staticmethod(_pair)
    _unpool = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """MaxUnpool3d(kernel_size, stride=None, padding=0); forward(input, indices,
    output_size=None)."""

    _ntuple = staticmethod(_triple)
    _unpool = staticmethod(F.max_unpool3d)
