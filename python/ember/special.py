"""ember.special: torch.special's names for the special functions ember has.

Most are the ember functions themselves (torch.special.gammaln is torch.lgamma, ...);
ndtr and entr are written from them here, as they are small compositions."""
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
