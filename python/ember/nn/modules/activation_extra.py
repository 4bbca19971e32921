"""More activations, as torch.nn has them: ELU, SELU, CELU, Hardtanh, ReLU6,
Hardsigmoid, Hardswish, Mish, LogSigmoid, Softsign, Softshrink, Hardshrink,
Tanhshrink, Threshold, GLU, PReLU, RReLU, Softmin, Softmax2d, Softplus.

Each forward is one ember.nn.functional call; reprs are torch's (extra_repr).
"""
import warnings

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from .utils import _factory_kwargs

__all__ = ["ELU", "SELU", "CELU", "Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish", "Mish",
           "LogSigmoid", "Softsign", "Softshrink", "Hardshrink", "Tanhshrink", "Threshold", "GLU",
           "PReLU", "RReLU", "Softmin", "Softmax2d", "Softplus"]


def _inplace_suffix(inplace):
    return ", inplace=True" if inplace else ""


class ELU(Module):
    """ELU(alpha=1.0, inplace=False)."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class CELU(ELU):
    """CELU(alpha=1.0, inplace=False)."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class _InplaceOnly(Module):
    """An activation whose only option is inplace (its F function is _fn)."""

    _fn = None
    _show_inplace = True  # torch's Hardsigmoid and Hardswish leave it out of the repr

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace and self._show_inplace else ""


class SELU(_InplaceOnly):
    """SELU(inplace=False)."""

    _fn = staticmethod(F.selu)


class Mish(_InplaceOnly):
    """Mish(inplace=False)."""

    _fn = staticmethod(F.mish)


class Hardsigmoid(_InplaceOnly):
    """Hardsigmoid(inplace=False)."""

    _fn = staticmethod(F.hardsigmoid)
    _show_inplace = False


class Hardswish(_InplaceOnly):
    """Hardswish(inplace=False)."""

    _fn = staticmethod(F.hardswish)
    _show_inplace = False


class Hardtanh(Module):
    """Hardtanh(min_val=-1.0, max_val=1.0, inplace=False); min_value/max_value are deprecated."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_suffix(self.inplace)}"


class ReLU6(Hardtanh):
    """ReLU6(inplace=False): Hardtanh(0.0, 6.0)."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class _Stateless(Module):
    """An activation without options (its F function is _fn)."""

    _fn = None

    def forward(self, input):
        return type(self)._fn(input)


class LogSigmoid(_Stateless):
    _fn = staticmethod(F.logsigmoid)


class Softsign(_Stateless):
    _fn = staticmethod(F.softsign)


class Tanhshrink(_Stateless):
    _fn = staticmethod(F.tanhshrink)


class Softshrink(Module):
    """Softshrink(lambd=0.5)."""

    _fn = staticmethod(F.softshrink)

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return type(self)._fn(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Softshrink):
    """Hardshrink(lambd=0.5)."""

    _fn = staticmethod(F.hardshrink)


class Threshold(Module):
    """Threshold(threshold, value, inplace=False): x if x > threshold else value."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self.inplace)}"


class GLU(Module):
    """GLU(dim=-1): a * sigmoid(b) over the halves of the input along dim."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class PReLU(Module):
    """PReLU(num_parameters=1, init=0.25, device=None, dtype=None): a learned slope per channel."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(_C.empty(num_parameters, **_factory_kwargs(device, dtype)))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """RReLU(lower=1/8, upper=1/3, inplace=False): random slopes when training."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_suffix(self.inplace)}"


class Softmin(Module):
    """Softmin(dim=None): softmax(-x) along dim."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax2d(): softmax over the channels of a (N, )C, H, W input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3)


class Softplus(Module):
    """Softplus(beta=1.0, threshold=20.0)."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"
