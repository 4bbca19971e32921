"""Activations: ReLU, LeakyReLU, GELU, SiLU, Sigmoid, Tanh, Softmax, LogSoftmax."""
import warnings

from .. import functional as F
from .module import Module

__all__ = ["ReLU", "LeakyReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax"]


class _InplaceActivation(Module):
    """An activation whose only option is inplace=False (ReLU, SiLU)."""

    _fn = None  # the F function

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class ReLU(_InplaceActivation):
    """ReLU(inplace=False): max(x, 0)."""

    _fn = staticmethod(F.relu)


class LeakyReLU(Module):
    """LeakyReLU(negative_slope=0.01, inplace=False)."""

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, inplace=self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """GELU(approximate='none'): exact (erf) or 'tanh' approximation."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class SiLU(_InplaceActivation):
    """SiLU(inplace=False): x * sigmoid(x)."""

    _fn = staticmethod(F.silu)


class Sigmoid(Module):
    def forward(self, input):
        return input.sigmoid()


class Tanh(Module):
    def forward(self, input):
        return input.tanh()


def _softmax_dim(name, ndim):
    """torch's legacy choice of dim when Softmax(dim=None) is called."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


class _SoftmaxBase(Module):
    """Softmax / LogSoftmax(dim=None): the subclass names its F function."""

    _fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        fn = type(self)._fn
        dim = self.dim if self.dim is not None else _softmax_dim(fn.__name__, input.dim())
        return fn(input, dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    """Softmax(dim=None): exp(x) / sum(exp(x)) along dim."""

    _fn = staticmethod(F.softmax)


class LogSoftmax(_SoftmaxBase):
    """LogSoftmax(dim=None): log(softmax(x)) along dim, computed stably."""

    _fn = staticmethod(F.log_softmax)


# PyTorch's torch.nn.modules.activation holds every activation module and
# MultiheadAttention; ember keeps them in two more files, re-exported here so that
# programs importing from this path find them.
from .activation_extra import *  # noqa: E402,F401,F403
from .activation_extra import __all__ as _extra_all  # noqa: E402
from .attention import MultiheadAttention  # noqa: E402,F401

__all__ = __all__ + list(_extra_all) + ["MultiheadAttention"]
