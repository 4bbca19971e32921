"""ember.nn.init: torch.nn.init's weight initializations.

Each function fills its tensor in place under no_grad with ember's random
ops (which take generator=, as torch's do) and returns it.
"""
import math
import warnings

from .. import _C
from ..autograd import no_grad

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_",
    "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
    "orthogonal_", "sparse_",
    # deprecated aliases (FutureWarning, as torch)
    "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
    "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse",
]

_LINEAR_GAIN = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                "conv_transpose2d", "conv_transpose3d", "sigmoid"]


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (torch.nn.init.calculate_gain)."""
    if nonlinearity in _LINEAR_GAIN:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than "
                         "2 dimensions")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills tensor with U(a, b)."""
    with no_grad():
        tensor.uniform_(a, b, generator=generator)
    return tensor


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills tensor with N(mean, std^2)."""
    with no_grad():
        tensor.normal_(mean, std, generator=generator)
    return tensor


def _standard_normal_mass(lo, hi):
    """P(lo <= Z <= hi) for a standard normal Z."""
    return 0.5 * (math.erf(hi / math.sqrt(2.0)) - math.erf(lo / math.sqrt(2.0)))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills tensor with N(mean, std^2) truncated to [a, b].

    Exact rejection sampling (torch uses the inverse CDF, which needs erfinv):
    candidates come from the normal itself, or, when [a, b] holds little of its
    mass, uniformly from [a, b] accepted with probability density / max density.
    So unlike torch it stays exact (and silent) when mean is far outside [a, b].
    """
    # torch's sampler only uses std squared: a negative std acts as its absolute value.
    std = abs(std)
    lo, hi = (a - mean) / std, (b - mean) / std
    mass = _standard_normal_mass(lo, hi)
    z_nearest = 0.0 if lo <= 0.0 <= hi else min(abs(lo), abs(hi))
    uniform_rate = mass * math.sqrt(2 * math.pi) / ((hi - lo) * math.exp(-z_nearest ** 2 / 2))
    use_uniform = uniform_rate > mass
    rate = max(mass, uniform_rate)
    n = tensor.numel()
    accepted, count = [], 0
    with no_grad():
        while count < n:
            draw = int((n - count) / rate * 1.1) + 16
            if use_uniform:
                z = _C.empty(draw, dtype=_C.float64).uniform_(lo, hi, generator=generator)
                u = _C.empty(draw, dtype=_C.float64).uniform_(0.0, 1.0, generator=generator)
                keep = u < ((z * z - z_nearest ** 2) * -0.5).exp()
            else:
                z = _C.empty(draw, dtype=_C.float64).normal_(0.0, 1.0, generator=generator)
                keep = (z >= lo) & (z <= hi)
            z = z[keep]
            accepted.append(z)
            count += z.numel()
        values = (_C.cat(accepted)[:n] * std + mean).clamp(a, b)
        tensor.copy_(values.reshape(tensor.shape))
    return tensor


def constant_(tensor, val):
    """Fills tensor with val."""
    with no_grad():
        tensor.fill_(val)
    return tensor


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    with no_grad():
        tensor.zero_()
    return tensor


def eye_(tensor):
    """Fills a 2-D tensor with the identity matrix."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(_C.eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype))
    return tensor


def dirac_(tensor, groups=1):
    """Fills a 3-, 4- or 5-D convolution weight with the Dirac delta: each output channel
    d of each of the `groups` groups takes input channel d at the kernel's centre, so the
    convolution passes its first min(out_channels / groups, in_channels) channels through."""
    dimensions = tensor.dim()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    centre = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * out_chans_per_grp + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: U(-bound, bound) with bound = gain * sqrt(3 / fan)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std^2) with std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fills tensor (>= 2-D, flattened to rows x cols) with a (semi-)orthogonal matrix.

    As torch: the Q of a Gaussian matrix's QR decomposition with R's diagonal made
    positive, which is Haar-distributed. Q comes from modified Gram-Schmidt (applied
    twice for accuracy), whose R has a positive diagonal by construction.
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = _C.empty(rows, cols, dtype=_C.float64).normal_(0.0, 1.0, generator=generator)
        if rows < cols:
            flat = flat.t()
        q = _orthonormal_columns(flat)
        if rows < cols:
            q = q.t()
        tensor.copy_((q * gain).reshape(tensor.shape))
    return tensor


def _orthonormal_columns(m):
    """Gram-Schmidt on the columns of a tall matrix m (rows >= cols)."""
    columns = []
    for j in range(m.shape[1]):
        v = m[:, j:j + 1]
        if columns:
            q = _C.cat(columns, 1)
            for _ in range(2):
                v = v - q.matmul(q.t().matmul(v))
        columns.append(v / v.norm())
    return _C.cat(columns, 1)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fills a 2-D tensor with N(0, std^2) values and then zeroes ceil(sparsity * rows)
    randomly chosen entries of each column (a dense tensor, as torch's)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):
            zero_indices = _C.randperm(rows, generator=generator)[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


def _deprecated_alias(in_place):
    """The old spelling without the trailing underscore: warns (FutureWarning, as torch)
    and calls the in-place initializer."""
    current = in_place.__name__
    old = current.rstrip("_")

    def alias(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{current}`.",
                      FutureWarning, stacklevel=2)
        return in_place(*args, **kwargs)

    alias.__name__, alias.__qualname__ = old, old
    alias.__doc__ = f"{old}(...): deprecated, use {current}."
    return alias


for _initializer in (uniform_, normal_, constant_, eye_, dirac_, xavier_uniform_, xavier_normal_,
                     kaiming_uniform_, kaiming_normal_, orthogonal_, sparse_):
    globals()[_initializer.__name__.rstrip("_")] = _deprecated_alias(_initializer)
del _initializer
