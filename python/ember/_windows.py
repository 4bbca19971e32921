"""The window functions of spectral analysis (torch.hann_window, ...): each a 1-d tensor
of window_length samples. periodic=True gives the window for spectral use (the first
window_length samples of a symmetric window one longer), as in PyTorch.
"""
import math

from . import _C

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


def _positions(name, window_length, periodic, dtype, device, requires_grad):
    """(n, N): the sample indices 0..window_length-1 as floats and the symmetric window's
    denominator N, or the finished window for lengths 0 and 1."""
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    dtype = dtype if dtype is not None else _C.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length <= 1:
        done = _C.ones(window_length, dtype=dtype, device=device)
        return None, done.requires_grad_(requires_grad)
    n = _C.arange(window_length, dtype=_C.float64, device=device)
    return n, window_length if periodic else window_length - 1


def _finish(window, dtype, requires_grad):
    dtype = dtype if dtype is not None else _C.get_default_dtype()
    return window.to(dtype).requires_grad_(requires_grad)


def _cosine_sum(name, window_length, periodic, coefficients, dtype, device, requires_grad):
    """sum_k (-1)^k a_k cos(2 pi k n / N): the Hann, Hamming and Blackman family."""
    n, denominator = _positions(name, window_length, periodic, dtype, device, requires_grad)
    if n is None:
        return denominator
    window = _C.zeros_like(n)
    for k, a in enumerate(coefficients):
        window = window + ((-1) ** k) * a * _C.cos(n * (2 * math.pi * k / denominator))
    return _finish(window, dtype, requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    return _cosine_sum("hann_window", window_length, periodic, (0.5, 0.5), dtype, device,
                       requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    return _cosine_sum("hamming_window", window_length, periodic, (alpha, beta), dtype, device,
                       requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    return _cosine_sum("blackman_window", window_length, periodic, (0.42, 0.5, 0.08), dtype,
                       device, requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The triangle 1 - |2n / N - 1|."""
    n, denominator = _positions("bartlett_window", window_length, periodic, dtype, device,
                                requires_grad)
    if n is None:
        return denominator
    window = 1 - _C.abs(n * (2.0 / denominator) - 1)
    return _finish(window, dtype, requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """I0(beta sqrt(1 - (2n / N - 1)^2)) / I0(beta)."""
    n, denominator = _positions("kaiser_window", window_length, periodic, dtype, device,
                                requires_grad)
    if n is None:
        return denominator
    ratio = n * (2.0 / denominator) - 1
    window = _C.i0(beta * _C.sqrt(_C.clamp(1 - ratio * ratio, min=0))) / _C.i0(
        _C.tensor(beta, dtype=_C.float64, device=n.device))
    return _finish(window, dtype, requires_grad)
