"""torch's *_copy functions (view_copy, permute_copy, t_copy, ...): the view op's result
as a new contiguous tensor that shares nothing with its input. Gradients flow through
them as through the view; each takes out= (ember/__init__.py installs it)."""
from . import _C
from ._layout import contiguous_format


def _copy(t):
    return t.clone(memory_format=contiguous_format)


def alias_copy(input):
    return _copy(input)


def as_strided_copy(input, size, stride, storage_offset=None):
    return _copy(_C.as_strided(input, size, stride, storage_offset))


def detach_copy(input):
    return _copy(input.detach())


def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    return _copy(_C.diagonal(input, offset, dim1, dim2))


def expand_copy(input, size, *, implicit=False):
    return _copy(input.expand(size))


def permute_copy(input, dims):
    return _copy(_C.permute(input, dims))


def select_copy(input, dim, index):
    return _copy(_C.select(input, dim, index))


def slice_copy(input, dim=0, start=None, end=None, step=1):
    index = [slice(None)] * input.dim()
    if not -input.dim() <= dim < max(input.dim(), 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {dim})")
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    index[dim] = slice(start, end, step)
    return _copy(input[tuple(index)])


def split_copy(tensor, split_size, dim=0):
    return tuple(_copy(t) for t in _C.split(tensor, split_size, dim))


def split_with_sizes_copy(input, split_sizes, dim=0):
    return tuple(_copy(t) for t in _C.split(input, list(split_sizes), dim))


def squeeze_copy(input, dim=None):
    return _copy(input.squeeze() if dim is None else input.squeeze(dim))


def t_copy(input):
    return _copy(_C.t(input))


def transpose_copy(input, dim0, dim1):
    return _copy(_C.transpose(input, dim0, dim1))


def unbind_copy(input, dim=0):
    return tuple(_copy(t) for t in _C.unbind(input, dim))


def unfold_copy(input, dimension, size, step):
    return _copy(input.unfold(dimension, size, step))


def unsqueeze_copy(input, dim):
    return _copy(_C.unsqueeze(input, dim))


def view_copy(input, size):
    """input.view(size) (a shape or a dtype) as a new contiguous tensor."""
    return _copy(input.view(size))


__all__ = ["alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy",
           "permute_copy", "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy",
           "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy", "unfold_copy",
           "unsqueeze_copy", "view_copy"]
