"""Conv1d, Conv2d and ConvTranspose2d (torch's arguments, init and repr)."""
import math

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import _init_bias_from_fan_in, _register_optional_bias
from .module import Module
from .utils import _factory_kwargs, _pair, _reverse_repeat_tuple, _single

__all__ = ["Conv1d", "Conv2d", "ConvTranspose2d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """What the convolutions share: checks, parameters, init, extra_repr."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device, dtype):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._padding_for_pad(padding)
        kw = _factory_kwargs(device, dtype)
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(_C.empty(*shape, **kw))
        _register_optional_bias(self, bias, out_channels, kw)
        self.reset_parameters()

    def _padding_for_pad(self, padding):
        """F.pad's padding list for padding_mode != 'zeros' ('same' split as torch)."""
        if not isinstance(padding, str):
            return _reverse_repeat_tuple(padding, 2)
        result = []
        if padding == "same":
            for d, k in zip(reversed(self.dilation), reversed(self.kernel_size)):
                total = d * (k - 1)
                left = total // 2
                result += [left, total - left]
        else:
            result = [0] * (2 * len(self.kernel_size))
        return tuple(result)

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            _init_bias_from_fan_in(self.bias, self.weight)

    def _padded(self, input):
        """The input padded for a non-'zeros' padding_mode, and the conv's own padding."""
        if self.padding_mode == "zeros":
            return input, self.padding
        return (F.pad(input, list(self._reversed_padding_repeated_twice), mode=self.padding_mode),
                (0,) * len(self.kernel_size))

    def extra_repr(self):
        n = len(self.kernel_size)
        s = ("{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
             .format(**self.__dict__))
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    """Conv1d / Conv2d: the subclass names its tuple helper and functional op."""

    _ntuple = None  # _single or _pair
    _conv = None  # F.conv1d or F.conv2d

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        tup = type(self)._ntuple
        padding = padding if isinstance(padding, str) else tup(padding)
        super().__init__(in_channels, out_channels, tup(kernel_size), tup(stride), padding,
                         tup(dilation), False, tup(0), groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        input, padding = self._padded(input)
        return type(self)._conv(input, self.weight, self.bias, self.stride, padding,
                                self.dilation, self.groups)


class Conv1d(_Conv):
    """Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
    groups=1, bias=True, padding_mode='zeros', device=None, dtype=None) on (N, C, L)."""

    _ntuple = staticmethod(_single)
    _conv = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
    groups=1, bias=True, padding_mode='zeros', device=None, dtype=None) on (N, C, H, W)."""

    _ntuple = staticmethod(_pair)
    _conv = staticmethod(F.conv2d)


class ConvTranspose2d(_ConvNd):
    """ConvTranspose2d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros', device=None,
    dtype=None); forward(input, output_size=None)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if isinstance(padding, str):
            raise ValueError(f"{type(self).__name__} does not support string padding")
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride),
                         _pair(padding), _pair(dilation), True, _pair(output_padding), groups,
                         bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size):
        """output_padding that makes the output output_size (torch's rule)."""
        if output_size is None:
            return self.output_padding
        output_size = list(output_size)
        k = len(self.kernel_size)
        if len(output_size) == k + 2:
            output_size = output_size[2:]
        if len(output_size) != k:
            raise ValueError(f"ConvTranspose{k}D: for {input.dim()}D input, output_size must "
                             f"have {k} or {k + 2} elements (got {len(output_size)})")
        result = []
        for d in range(k):
            size_d = input.shape[input.dim() - k + d]
            min_size = ((size_d - 1) * self.stride[d] - 2 * self.padding[d]
                        + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            max_size = min_size + self.stride[d] - 1
            if not min_size <= output_size[d] <= max_size:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {min_size} to {max_size} (for an input of "
                                 f"{list(input.shape[2:])})")
            result.append(output_size[d] - min_size)
        return tuple(result)

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)
