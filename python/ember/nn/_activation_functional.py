"""torch.nn.functional's activations over ember._C's ops (csrc/activation.cpp).

The ops compute everything; these functions only add torch.nn.functional's
signatures: the `inplace=` flag (which picks the op's in-place form) and
softmin's optional dim.
"""
import warnings

from .. import _C

__all__ = [
    "softmax", "log_softmax", "relu", "relu_", "relu6", "elu", "elu_", "selu", "selu_", "celu", "celu_", "leaky_relu",
    "leaky_relu_", "hardtanh", "hardtanh_", "hardsigmoid", "hardswish", "silu", "mish",
    "logsigmoid", "softsign", "softplus", "softshrink", "hardshrink", "tanhshrink", "threshold",
    "threshold_", "glu", "prelu", "rrelu", "rrelu_", "softmin",
]

# No inplace flag: the op itself is torch.nn.functional's.
logsigmoid = _C.logsigmoid
softsign = _C.softsign
softplus = _C.softplus
softshrink = _C.softshrink
hardshrink = _C.hardshrink
tanhshrink = _C.tanhshrink
glu = _C.glu
prelu = _C.prelu
relu_ = _C.relu_
selu_ = _C.selu_
leaky_relu_ = _C.leaky_relu_
hardtanh_ = _C.hardtanh_
threshold_ = _C.threshold_
rrelu_ = _C.rrelu_


def relu(input, inplace=False):
    """relu(input, inplace=False): max(input, 0)."""
    return _C.relu_(input) if inplace else _C.relu(input)


def relu6(input, inplace=False):
    """relu6(input, inplace=False): hardtanh(input, 0, 6)."""
    return _C.relu6_(input) if inplace else _C.relu6(input)


def elu(input, alpha=1.0, inplace=False):
    """elu(input, alpha=1.0, inplace=False): x if x > 0 else alpha * (exp(x) - 1)."""
    return _C.elu_(input, alpha) if inplace else _C.elu(input, alpha)


def elu_(input, alpha=1.0):
    """elu_(input, alpha=1.0): elu in place."""
    return _C.elu_(input, alpha)


def selu(input, inplace=False):
    """selu(input, inplace=False): scale * elu(input, alpha) with torch's constants."""
    return _C.selu_(input) if inplace else _C.selu(input)


def celu(input, alpha=1.0, inplace=False):
    """celu(input, alpha=1.0, inplace=False): max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    return _C.celu_(input, alpha) if inplace else _C.celu(input, alpha)


def celu_(input, alpha=1.0):
    """celu_(input, alpha=1.0): celu in place."""
    return _C.celu_(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """leaky_relu(input, negative_slope=0.01, inplace=False)."""
    return _C.leaky_relu_(input, negative_slope) if inplace else _C.leaky_relu(input, negative_slope)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False): input clamped to [min_val, max_val]."""
    return _C.hardtanh_(input, min_val, max_val) if inplace else _C.hardtanh(input, min_val, max_val)


def hardsigmoid(input, inplace=False):
    """hardsigmoid(input, inplace=False): relu6(x + 3) / 6."""
    return _C.hardsigmoid_(input) if inplace else _C.hardsigmoid(input)


def hardswish(input, inplace=False):
    """hardswish(input, inplace=False): x * relu6(x + 3) / 6."""
    return _C.hardswish_(input) if inplace else _C.hardswish(input)


def silu(input, inplace=False):
    """silu(input, inplace=False): x * sigmoid(x)."""
    return _C.silu_(input) if inplace else _C.silu(input)


def mish(input, inplace=False):
    """mish(input, inplace=False): x * tanh(softplus(x))."""
    return _C.mish_(input) if inplace else _C.mish(input)


def threshold(input, threshold, value, inplace=False):
    """threshold(input, threshold, value, inplace=False): x if x > threshold else value."""
    return _C.threshold_(input, threshold, value) if inplace else _C.threshold(input, threshold, value)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """rrelu(input, lower=1/8, upper=1/3, training=False, inplace=False): leaky relu with a
    random slope in [lower, upper] per element when training, (lower + upper) / 2 otherwise."""
    if inplace:
        return _C.rrelu_(input, lower, upper, training)
    return _C.rrelu(input, lower, upper, training)


def _implicit_softmax_dim(name, ndim, stacklevel):
    """torch's legacy choice of dim for softmax-like functions called without one."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002 (torch's name)
    """softmax(input, dim=None, dtype=None): exp(input) / sum(exp(input)) along dim."""
    if dim is None:
        dim = _implicit_softmax_dim("softmax", input.dim(), _stacklevel)
    return _C.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    """log_softmax(input, dim=None, dtype=None): input - logsumexp(input) along dim."""
    if dim is None:
        dim = _implicit_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _C.log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmin(input, dim=None, dtype=None): softmax(-input, dim)."""
    if dim is None:
        dim = _implicit_softmax_dim("softmin", input.dim(), _stacklevel)
    return _C.softmin(input, dim, dtype=dtype)
