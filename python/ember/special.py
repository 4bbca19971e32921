"""ember.special: torch.special's names for the special functions ember has.

Most are the ember functions themselves (torch.special.gammaln is torch.lgamma, ...);
ndtr and entr are written from them here, as they are small compositions. The
Bessel, normal-distribution, incomplete-gamma, zeta and polynomial functions are
kernels (ember._C.special_*), given torch.special's names and its out= here."""
import math as _math

from . import _C

expit = _C.sigmoid
logit = _C.logit
erf = _C.erf
erfc = _C.erfc
erfinv = _C.erfinv
gammaln = _C.lgamma
digamma = _C.digamma
psi = _C.digamma
polygamma = _C.polygamma
xlogy = _C.xlogy
exp2 = _C.exp2
expm1 = _C.expm1
log1p = _C.log1p
sinc = _C.sinc
i0 = _C.i0
i1 = _C._special_i1
logsumexp = _C.logsumexp
round = _C.round


def softmax(input, dim, *, dtype=None):
    """softmax(input, dim, *, dtype=None), as torch.special.softmax."""
    return _C.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """log_softmax(input, dim, *, dtype=None), as torch.special.log_softmax."""
    return _C.log_softmax(input, dim, dtype=dtype)


_SQRT1_2 = 1.0 / _math.sqrt(2.0)


def ndtr(input):
    """The standard normal CDF, 0.5 erfc(-x / sqrt 2) (no cancellation in the left tail)."""
    return _C.erfc(input * -_SQRT1_2) * 0.5


def entr(input):
    """-x log x for x > 0, 0 at 0, -inf for x < 0 (nan stays nan)."""
    r = -_C.xlogy(input, input)
    return _C.where(input < 0, float("-inf"), r)


# ---- out= ----------------------------------------------------------------------------------

def _check_out(op, out, inputs):
    """torch's checks of an out= argument that can be made before computing (so a refused
    call writes nothing): a tensor, and no autograd through it."""
    from ._out_variants import check_out_argument
    check_out_argument(op, out, inputs)


def _write_out(op, result, out):
    """result into out as torch's out= variants write it (ember/_out_variants.py)."""
    from ._out_variants import write_outputs
    return write_outputs(op, result, out, exact=False, inputs=())


def _unary(name, fn, doc):
    def special_function(input, *, out=None):  # noqa: A002
        if out is not None:
            _check_out(f"special_{name}", out, (input,))
            return _write_out(f"special_{name}", fn(input), out)
        return fn(input)
    special_function.__name__ = special_function.__qualname__ = name
    special_function.__doc__ = f"{name}(input, *, out=None) -> Tensor: {doc}"
    return special_function


def _binary(name, fn, first, second, doc):
    def special_function(*args, out=None, **kwargs):
        names = (first, second)
        if len(args) > 2:
            raise TypeError(f"special_{name}() takes 2 positional arguments but {len(args)} were given")
        values = list(args)
        for key in names[len(args):]:
            if key not in kwargs:
                raise TypeError(f"special_{name}() missing required argument '{key}'")
            values.append(kwargs.pop(key))
        if kwargs:
            raise TypeError(f"special_{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if out is not None:
            _check_out(f"special_{name}", out, values)
            return _write_out(f"special_{name}", fn(*values), out)
        return fn(*values)
    special_function.__name__ = special_function.__qualname__ = name
    special_function.__doc__ = f"{name}({first}, {second}, *, out=None) -> Tensor: {doc}"
    return special_function


# ---- kernels: Bessel, Airy, normal distribution ------------------------------------------------

airy_ai = _unary("airy_ai", _C.special_airy_ai, "the Airy function Ai.")
bessel_j0 = _unary("bessel_j0", _C.special_bessel_j0, "Bessel function of the first kind of order 0.")
bessel_j1 = _unary("bessel_j1", _C.special_bessel_j1, "Bessel function of the first kind of order 1.")
bessel_y0 = _unary("bessel_y0", _C.special_bessel_y0, "Bessel function of the second kind of order 0.")
bessel_y1 = _unary("bessel_y1", _C.special_bessel_y1, "Bessel function of the second kind of order 1.")
modified_bessel_i0 = _unary("modified_bessel_i0", _C.special_modified_bessel_i0,
                            "modified Bessel function of the first kind of order 0.")
modified_bessel_i1 = _unary("modified_bessel_i1", _C.special_modified_bessel_i1,
                            "modified Bessel function of the first kind of order 1.")
modified_bessel_k0 = _unary("modified_bessel_k0", _C.special_modified_bessel_k0,
                            "modified Bessel function of the second kind of order 0.")
modified_bessel_k1 = _unary("modified_bessel_k1", _C.special_modified_bessel_k1,
                            "modified Bessel function of the second kind of order 1.")
scaled_modified_bessel_k0 = _unary("scaled_modified_bessel_k0", _C.special_scaled_modified_bessel_k0,
                                   "e^x K0(x), the scaled modified Bessel function of order 0.")
scaled_modified_bessel_k1 = _unary("scaled_modified_bessel_k1", _C.special_scaled_modified_bessel_k1,
                                   "e^x K1(x), the scaled modified Bessel function of order 1.")
spherical_bessel_j0 = _unary("spherical_bessel_j0", _C.special_spherical_bessel_j0,
                             "spherical Bessel function of the first kind of order 0.")
i0e = _unary("i0e", _C.special_i0e, "e^-|x| I0(x), the exponentially scaled Bessel function I0.")
i1e = _unary("i1e", _C.special_i1e, "e^-|x| I1(x), the exponentially scaled Bessel function I1.")
erfcx = _unary("erfcx", _C.special_erfcx, "the scaled complementary error function e^(x^2) erfc(x).")
ndtri = _unary("ndtri", _C.special_ndtri, "the inverse of the standard normal CDF.")
log_ndtr = _unary("log_ndtr", _C.special_log_ndtr, "the log of the standard normal CDF.")

# ---- kernels: two arguments --------------------------------------------------------------------

gammainc = _binary("gammainc", _C.igamma, "input", "other",
                   "the regularized lower incomplete gamma function P(input, other).")
gammaincc = _binary("gammaincc", _C.igammac, "input", "other",
                    "the regularized upper incomplete gamma function Q(input, other).")
zeta = _binary("zeta", _C.special_zeta, "input", "other", "the Hurwitz zeta function.")
xlog1py = _binary("xlog1py", _C.special_xlog1py, "input", "other",
                  "input * log1p(other), 0 where input is 0 (unless other is nan).")
chebyshev_polynomial_t = _binary("chebyshev_polynomial_t", _C.special_chebyshev_polynomial_t, "x", "n",
                                 "Chebyshev polynomial of the first kind T_n(x).")
chebyshev_polynomial_u = _binary("chebyshev_polynomial_u", _C.special_chebyshev_polynomial_u, "x", "n",
                                 "Chebyshev polynomial of the second kind U_n(x).")
chebyshev_polynomial_v = _binary("chebyshev_polynomial_v", _C.special_chebyshev_polynomial_v, "x", "n",
                                 "Chebyshev polynomial of the third kind V_n(x).")
chebyshev_polynomial_w = _binary("chebyshev_polynomial_w", _C.special_chebyshev_polynomial_w, "x", "n",
                                 "Chebyshev polynomial of the fourth kind W_n(x).")
shifted_chebyshev_polynomial_t = _binary(
    "shifted_chebyshev_polynomial_t", _C.special_shifted_chebyshev_polynomial_t, "x", "n",
    "shifted Chebyshev polynomial of the first kind T_n(2x - 1).")
shifted_chebyshev_polynomial_u = _binary(
    "shifted_chebyshev_polynomial_u", _C.special_shifted_chebyshev_polynomial_u, "x", "n",
    "shifted Chebyshev polynomial of the second kind U_n(2x - 1).")
shifted_chebyshev_polynomial_v = _binary(
    "shifted_chebyshev_polynomial_v", _C.special_shifted_chebyshev_polynomial_v, "x", "n",
    "shifted Chebyshev polynomial of the third kind V_n(2x - 1).")
shifted_chebyshev_polynomial_w = _binary(
    "shifted_chebyshev_polynomial_w", _C.special_shifted_chebyshev_polynomial_w, "x", "n",
    "shifted Chebyshev polynomial of the fourth kind W_n(2x - 1).")
hermite_polynomial_h = _binary("hermite_polynomial_h", _C.special_hermite_polynomial_h, "x", "n",
                               "physicists' Hermite polynomial H_n(x).")
hermite_polynomial_he = _binary("hermite_polynomial_he", _C.special_hermite_polynomial_he, "x", "n",
                                "probabilists' Hermite polynomial He_n(x).")
laguerre_polynomial_l = _binary("laguerre_polynomial_l", _C.special_laguerre_polynomial_l, "x", "n",
                                "Laguerre polynomial L_n(x).")
legendre_polynomial_p = _binary("legendre_polynomial_p", _C.special_legendre_polynomial_p, "x", "n",
                                "Legendre polynomial P_n(x).")


def multigammaln(input, p, *, out=None):  # noqa: A002
    """multigammaln(input, p, *, out=None): the multivariate log-gamma of dimension p
    (torch.mvlgamma)."""
    if out is not None:
        _check_out("special_multigammaln", out, (input,))
        return _write_out("special_multigammaln", _C.mvlgamma(input, p), out)
    return _C.mvlgamma(input, p)
