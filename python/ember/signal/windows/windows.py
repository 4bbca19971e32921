"""The windows of torch.signal.windows, computed as torch computes them (a linspace of
sample positions, then the window's formula), so values match torch's to rounding.

Every window takes M (the length) and the keywords sym (True: symmetric, for filter
design; False: periodic, for spectral analysis), dtype (float32 or float64; default
the default dtype), layout (strided only), device and requires_grad.
"""
import math
from collections.abc import Iterable

import ember

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _window_function_checks(function_name, M, dtype, layout):
    """torch's argument checks, done before anything is computed."""
    if M < 0:
        raise ValueError(f"{function_name} requires non-negative window length, got M={M}")
    if layout is not ember.strided:
        raise ValueError(f"{function_name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (ember.float32, ember.float64):
        raise ValueError(f"{function_name} expects float32 or float64 dtypes, got: {dtype}")


def _empty(dtype, device, requires_grad):
    return ember.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)


def _ones(dtype, device, requires_grad):
    return ember.ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)


def _linspace(start, end, M, dtype, device, requires_grad):
    return ember.linspace(start, end, M, dtype=dtype, device=device, requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=ember.strided, device=None,
                requires_grad=False):
    """w_n = exp(-|n - center| / tau); center defaults to (M - 1) / 2 (sym) or M / 2."""
    dtype = dtype or ember.get_default_dtype()
    _window_function_checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _empty(dtype, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    k = _linspace(-center * constant, (-center + (M - 1)) * constant, M, dtype, device, requires_grad)
    return ember.exp(-ember.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """The sine window: w_n = sin(pi (n + 1/2) / M)."""
    dtype = dtype or ember.get_default_dtype()
    _window_function_checks("cosine", M, dtype, layout)
    if M == 0:
        return _empty(dtype, device, requires_grad)
    start = 0.5
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = _linspace(start * constant, (start + (M - 1)) * constant, M, dtype, device, requires_grad)
    return ember.sin(k)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """w_n = exp(-(n - (M - 1)/2)^2 / (2 std^2))."""
    dtype = dtype or ember.get_default_dtype()
    _window_function_checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _empty(dtype, device, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = _linspace(start * constant, (start + (M - 1)) * constant, M, dtype, device, requires_grad)
    return ember.exp(-(k ** 2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """w_n = I0(beta sqrt(1 - (2n/(M-1) - 1)^2)) / I0(beta)."""
    dtype = dtype or ember.get_default_dtype()
    _window_function_checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M == 0:
        return _empty(dtype, device, requires_grad)
    if M == 1:
        return _ones(dtype, device, requires_grad)
    # torch does this arithmetic on `dtype` scalars; so do we, for the same rounding.
    beta = ember.tensor(beta, dtype=dtype, device=device)
    start = -beta
    constant = 2.0 * beta / (M if not sym else M - 1)
    end = ember.minimum(beta, start + (M - 1) * constant)
    k = _linspace(start.item(), end.item(), M, dtype, device, requires_grad)
    return ember.i0(ember.sqrt(beta * beta - ember.pow(k, 2))) / ember.i0(beta)


def general_cosine(M, *, a, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """w_n = sum_i (-1)^i a_i cos(2 pi i n / (M - 1)) (M, not M - 1, when sym=False)."""
    dtype = dtype or ember.get_default_dtype()
    _window_function_checks("general_cosine", M, dtype, layout)
    if M == 0:
        return _empty(dtype, device, requires_grad)
    if M == 1:
        return _ones(dtype, device, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = _linspace(0, (M - 1) * constant, M, dtype, device, requires_grad)
    a_i = ember.tensor([(-1) ** i * w for i, w in enumerate(a)], device=device, dtype=dtype,
                       requires_grad=requires_grad)
    i = ember.arange(a_i.shape[0], dtype=a_i.dtype, device=a_i.device, requires_grad=a_i.requires_grad)
    return (a_i.unsqueeze(-1) * ember.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=ember.strided, device=None,
                    requires_grad=False):
    """w_n = alpha - (1 - alpha) cos(2 pi n / (M - 1))."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """general_hamming with alpha = 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """general_hamming with alpha = 0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """general_cosine with a = [0.42, 0.5, 0.08]."""
    dtype = dtype or ember.get_default_dtype()
    _window_function_checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """The triangular window: w_n = 1 - |2n / (M - 1) - 1|."""
    dtype = dtype or ember.get_default_dtype()
    _window_function_checks("bartlett", M, dtype, layout)
    if M == 0:
        return _empty(dtype, device, requires_grad)
    if M == 1:
        return _ones(dtype, device, requires_grad)
    start = -1
    constant = 2 / (M if not sym else M - 1)
    k = _linspace(start, start + (M - 1) * constant, M, dtype, device, requires_grad)
    return 1 - ember.abs(k)


def nuttall(M, *, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """general_cosine with Nuttall's four coefficients."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
                          layout=layout, device=device, requires_grad=requires_grad)
