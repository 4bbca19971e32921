"""ember.gradient (torch.gradient): the derivative of a sampled function along each of
the chosen dims, by central differences inside and one-sided ones (first or second
order) at the two ends, as numpy.gradient. Samples are spaced by 1, by a scalar per dim,
or at given coordinates (a 1-D tensor per dim, possibly uneven)."""
import numbers

from . import _C
from ._C import Tensor

__all__ = ["gradient"]


def _dims(input, dim):
    n = input.dim()
    if dim is None:
        return list(range(n))
    dims = [dim] if isinstance(dim, int) else list(dim)
    wrapped = []
    for d in dims:
        if not isinstance(d, int) or isinstance(d, bool):
            raise TypeError(f"gradient(): dim must be an int or a sequence of ints, got {dim!r}")
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-n}, {n - 1}], but got {d})")
        d %= n
        if d in wrapped:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        wrapped.append(d)
    return wrapped


def _spacings(spacing, dims):
    """One entry per dim: a number (even spacing) or a 1-D tensor of coordinates."""
    if spacing is None:
        return [1] * len(dims)
    if isinstance(spacing, numbers.Number) and not isinstance(spacing, bool):
        return [spacing] * len(dims)
    if isinstance(spacing, Tensor):
        raise TypeError("gradient(): spacing must be a number, or a tuple of numbers or of 1-D "
                        "tensors (one per dim), not a single Tensor")
    if not isinstance(spacing, (list, tuple)):
        raise TypeError(f"gradient(): spacing must be a number or a tuple, got "
                        f"{type(spacing).__name__}")
    spacing = list(spacing)
    if len(spacing) == 1 and len(dims) != 1 and not isinstance(spacing[0], Tensor):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            "dim arguments to have the same length, but got a spacing argument of length 1 and "
            f"a dim argument of length {len(dims)}.")
    if len(spacing) != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            f"dim arguments to have the same length, but got a spacing argument of length "
            f"{len(spacing)} and a dim argument of length {len(dims)}.")
    kinds = {isinstance(s, Tensor) for s in spacing}
    if len(kinds) > 1:
        raise TypeError("gradient(): spacing must be all numbers or all tensors")
    for s in spacing:
        if isinstance(s, Tensor):
            if s.dim() != 1:
                raise RuntimeError("torch.gradient expected each element of spacing to have one "
                                   f"dimension, but got an element with {s.dim()} dimensions!")
        elif not isinstance(s, numbers.Number) or isinstance(s, bool):
            raise TypeError(f"gradient(): spacing entries must be numbers or 1-D tensors, got "
                            f"{type(s).__name__}")
    return spacing


def _along(t, d, start, stop):
    """t[start:stop] along dim d; a negative start counts from the end, stop <= 0 too."""
    n = t.size(d)
    start = n + start if start < 0 else start
    stop = n + stop if stop <= 0 else stop
    return t.narrow(d, start, stop - start)


def _even(f, d, h, edge_order):
    """d f / d x along d for samples h apart."""
    interior = (_along(f, d, 2, 0) - _along(f, d, 0, -2)) / (2 * h)
    if edge_order == 1:
        first = (_along(f, d, 1, 2) - _along(f, d, 0, 1)) / h
        last = (_along(f, d, -1, 0) - _along(f, d, -2, -1)) / h
    else:
        f0, f1, f2 = (_along(f, d, i, i + 1) for i in range(3))
        first = (-1.5 * f0 + 2.0 * f1 - 0.5 * f2) / h
        g0, g1, g2 = (_along(f, d, -3 + i, -2 + i) for i in range(3))
        last = (0.5 * g0 - 2.0 * g1 + 1.5 * g2) / h
    return _C.cat([first, interior, last], d)


def _uneven(f, d, x, edge_order):
    """d f / d x along d for samples at coordinates x (1-D, one per position)."""
    n = f.size(d)
    if x.numel() != n:
        raise RuntimeError(f"torch.gradient expected the coordinates along dim {d} to have "
                           f"{n} elements (the size of that dim), but got {x.numel()}")
    if x.device != f.device:
        raise RuntimeError(f"torch.gradient expected spacing on {f.device}, got {x.device}")
    shape = [1] * f.dim()
    shape[d] = n - 1
    dx = (x[1:] - x[:-1]).reshape(shape)
    dx1, dx2 = _along(dx, d, 0, -1), _along(dx, d, 1, 0)
    a = -dx2 / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    interior = a * _along(f, d, 0, -2) + b * _along(f, d, 1, -1) + c * _along(f, d, 2, 0)
    if edge_order == 1:
        first = (_along(f, d, 1, 2) - _along(f, d, 0, 1)) / _along(dx, d, 0, 1)
        last = (_along(f, d, -1, 0) - _along(f, d, -2, -1)) / _along(dx, d, -1, 0)
    else:
        h1, h2 = _along(dx, d, 0, 1), _along(dx, d, 1, 2)
        a = -(2.0 * h1 + h2) / (h1 * (h1 + h2))
        b = (h1 + h2) / (h1 * h2)
        c = -h1 / (h2 * (h1 + h2))
        first = a * _along(f, d, 0, 1) + b * _along(f, d, 1, 2) + c * _along(f, d, 2, 3)
        h1, h2 = _along(dx, d, -2, -1), _along(dx, d, -1, 0)
        a = h2 / (h1 * (h1 + h2))
        b = -(h2 + h1) / (h1 * h2)
        c = (2.0 * h2 + h1) / (h2 * (h1 + h2))
        last = a * _along(f, d, -3, -2) + b * _along(f, d, -2, -1) + c * _along(f, d, -1, 0)
    return _C.cat([first, interior, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):  # noqa: A002 (torch's name)
    """A tuple with the derivative of input along each dim in dim (all dims if None)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"gradient(): argument 'input' must be Tensor, not {type(input).__name__}")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _dims(input, dim)
    spacings = _spacings(spacing, dims)
    for d in dims:
        if input.size(d) < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    results = []
    for d, h in zip(dims, spacings):
        if isinstance(h, Tensor):
            results.append(_uneven(input, d, h, edge_order))
        else:
            results.append(_even(input, d, h, edge_order))
    return tuple(results)
