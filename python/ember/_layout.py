"""Layouts, memory formats and the tensor-kind flags, as PyTorch names them.

ember has one layout, strided (dense), and no sparse, quantized, nested, meta or
complex tensors, so the flags that ask for those are False and conj/resolve_conj/
resolve_neg return the tensor itself, as PyTorch does for a real dense tensor.

Memory formats are strides, not kernels: `contiguous_format` is row-major;
`channels_last` (4-d) and `channels_last_3d` (5-d) put the channels innermost (strides
of NHWC / NDHWC) and are real layouts here, made by .contiguous(memory_format=...),
.to(memory_format=...), clone and the *_like factories; ember's kernels read any
strides, so a channels-last tensor computes the same values (as fast as its kernels
read it). `preserve_format` (the default of clone, to and *_like) keeps the strides of
a dense input, and makes the result row-major otherwise, as in PyTorch.
"""
import builtins
import math

from . import _C
from ._C import Tensor

__all__ = ["layout", "strided", "memory_format", "contiguous_format", "preserve_format",
           "channels_last", "channels_last_3d", "conj", "resolve_conj", "resolve_neg",
           "is_conj", "is_neg", "conj_physical"]


class _Named:
    """A named constant that prints and pickles as ember.<name>."""
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"ember.{self._name}"

    def __reduce__(self):
        return self._name


class layout(_Named):  # noqa: N801 (torch's name)
    """A tensor layout (torch.layout); ember has one, ember.strided."""
    __slots__ = ()


class memory_format(_Named):  # noqa: N801 (torch's name)
    """How a dense tensor orders its dims in memory (torch.memory_format)."""
    __slots__ = ()


strided = layout("strided")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

_CHANNELS_LAST_RANK = {channels_last: 4, channels_last_3d: 5}


def _check_format(fmt, op):
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{op}(): argument 'memory_format' must be ember.memory_format, not "
                        f"{type(fmt).__name__}")


def _channels_last_strides(sizes, fmt, op):
    rank = _CHANNELS_LAST_RANK[fmt]
    if len(sizes) != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")
    # Channels (dim 1) innermost, then the spatial dims from last to first, then batch.
    order = [1] + list(range(rank - 1, 1, -1)) + [0]
    strides, step = [0] * rank, 1
    for d in order:
        strides[d] = step
        step *= builtins.max(sizes[d], 1)
    return strides


def _matches(tensor, strides):
    """Whether tensor has these strides, ignoring dims of size 1 (whose stride is never
    used), as PyTorch's contiguity checks do."""
    if tensor.numel() == 0:
        return True
    return all(size == 1 or have == want
               for size, have, want in zip(tensor.shape, tensor.stride(), strides))


def _dense_strides(tensor):
    """The strides of tensor if its elements fill one block without gaps or overlaps
    (a permutation of a row-major layout), else None."""
    dims = sorted(range(tensor.dim()), key=lambda d: (tensor.stride(d), -d))
    step = 1
    for d in dims:
        size = tensor.shape[d]
        if size != 1 and tensor.stride(d) != step:
            return None
        step *= size
    return list(tensor.stride())


_contiguous = Tensor.contiguous  # the C++ binding: None / contiguous_format, else _contiguous_as
_is_contiguous = Tensor.is_contiguous
_clone_method = Tensor.clone
_to = Tensor.to


def _is_contiguous_as(self, memory_format=contiguous_format):
    if memory_format is contiguous_format:
        return _is_contiguous(self)
    _check_format(memory_format, "is_contiguous")
    if memory_format is preserve_format:  # PyTorch answers as for row-major
        return _is_contiguous(self)
    if self.dim() != _CHANNELS_LAST_RANK[memory_format]:
        return False
    return _matches(self, _channels_last_strides(list(self.shape), memory_format, "is_contiguous"))


def _in_strides(self, strides):
    out = _C.empty_strided(list(self.shape), strides, dtype=self.dtype, device=self.device)
    return out.copy_(self)


def _contiguous_as(self, memory_format=contiguous_format):
    if memory_format is contiguous_format:
        return _contiguous(self)
    _check_format(memory_format, "contiguous")
    if memory_format is preserve_format:
        if _is_contiguous(self):  # PyTorch's shortcut comes before its refusal
            return self
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    strides = _channels_last_strides(list(self.shape), memory_format, "contiguous")
    return self if _matches(self, strides) else _in_strides(self, strides)


def _strides_for(self, memory_format, op):
    """The strides a new tensor like self gets under memory_format (None: row-major)."""
    if memory_format is None or memory_format is contiguous_format:
        return None
    _check_format(memory_format, op)
    if memory_format is preserve_format:
        return None if _is_contiguous(self) else _dense_strides(self)
    return _channels_last_strides(list(self.shape), memory_format, op)


def clone(input, *, memory_format=preserve_format):  # noqa: A002 (torch's name)
    """A copy of input with its own memory; preserve_format keeps a dense input's strides."""
    strides = _strides_for(input, memory_format, "clone")
    return _clone_method(input) if strides is None else _in_strides(input, strides)


def _to_as(self, *args, memory_format=None, **kwargs):
    out = _to(self, *args, **kwargs)
    if memory_format is None or memory_format is preserve_format:
        return out
    _check_format(memory_format, "to")
    if memory_format is contiguous_format:
        return _contiguous(out)
    # Unlike contiguous(), to() lays out exactly, size-1 dims included (as PyTorch).
    strides = _channels_last_strides(list(out.shape), memory_format, "to")
    return out if list(out.stride()) == strides else _in_strides(out, strides)


def _like_factory(name):
    """ember.<name>(input, ..., memory_format=...): the C++ factory, then the layout."""
    factory = getattr(_C, name)

    def like(input, *args, memory_format=preserve_format, **kwargs):  # noqa: A002
        strides = _strides_for(input, memory_format, name) if isinstance(input, Tensor) else None
        out = factory(input, *args, **kwargs)
        if strides is None or list(out.shape) != list(input.shape):
            return out
        relaid = _C.empty_strided(list(out.shape), strides, dtype=out.dtype, device=out.device)
        relaid.copy_(out)
        return relaid.requires_grad_(out.requires_grad)
    like.__name__ = like.__qualname__ = name
    like.__doc__ = factory.__doc__
    return like


LIKE_FACTORIES = ["empty_like", "zeros_like", "ones_like", "full_like", "rand_like",
                  "randn_like"]
for _name in LIKE_FACTORIES:
    globals()[_name] = _like_factory(_name)
__all__ += LIKE_FACTORIES + ["clone"]


def conj(input):  # noqa: A002
    """The complex conjugate; a real tensor is its own (returned as is)."""
    return input


def resolve_conj(input):  # noqa: A002
    return input


def resolve_neg(input):  # noqa: A002
    return input


def conj_physical(input):  # noqa: A002
    return input.clone()


def is_conj(input):  # noqa: A002
    return False


def is_neg(input):  # noqa: A002
    return False


Tensor.is_contiguous = _is_contiguous_as
Tensor.clone = lambda self, *, memory_format=preserve_format: clone(
    self, memory_format=memory_format)
Tensor.to = _to_as
for _name in ["conj", "resolve_conj", "resolve_neg", "is_conj", "is_neg"]:
    setattr(Tensor, _name, globals()[_name])
Tensor.layout = property(lambda self: strided, doc="The tensor's layout: always ember.strided.")
# The kinds of tensor PyTorch has and ember does not: each flag is False.
for _flag in ["is_sparse", "is_sparse_csr", "is_quantized", "is_meta", "is_mkldnn", "is_nested",
              "is_xpu", "is_mps", "is_ipu", "is_xla", "is_vulkan", "is_maia", "is_mtia"]:
    setattr(Tensor, _flag, property(lambda self: False))
del _name, _flag


def angle(input):  # noqa: A002
    """The argument of each element: pi for a negative real number, 0 otherwise (NaN stays
    NaN); integers give the default floating dtype."""
    x = input if input.is_floating_point() else input.to(_C.get_default_dtype())
    return _C.where(_C.isnan(x), x, (x < 0).to(x.dtype) * math.pi)


Tensor.angle = angle
__all__ += ["angle"]


def real(input):  # noqa: A002
    """The real part: a real tensor is its own (returned as is, as PyTorch)."""
    return input


def imag(input):  # noqa: A002
    """A real tensor has no imaginary part to view: TypeError, as PyTorch."""
    raise TypeError("imag is not implemented for tensors with non-complex dtypes.")


Tensor.real = property(real, doc="The real part: the tensor itself (ember's dtypes are real).")
Tensor.imag = property(imag, doc="A TypeError: ember's dtypes are real.")
__all__ += ["real", "imag"]
