"""Op database entries of torch.special's Bessel, Airy, normal-distribution,
incomplete-gamma, zeta, xlog1py and orthogonal-polynomial rows
(lib/dispatch/schema/elementwise.toml, the special_* rows and igamma / igammac).
Each is called through torch.special's name (ember.special.bessel_j0 ...). Their
edge values, out= and errors are tested in test_special_functions_extra.py."""
import numpy as np

from .opinfo import (BINARY_SHAPES, FLOAT, TOLERANCES, ErrorCase, OpInfo, Sample, T, layouts,
                     make_values, unary_samples)

F32_TOL = TOLERANCES["float32"]
DTYPES = FLOAT + ("int64",)  # integer inputs compute and return float32, as torch
INT_TOL = {"int64": F32_TOL}


def _special(name, low, high, grad=True, row=None):
    return OpInfo(row or f"special_{name}", lambda m, x: getattr(m.special, name)(x),
                  unary_samples(low, high), dtypes=DTYPES, grad=grad, tol=dict(INT_TOL))


def _pairs(low, high, low2, high2, integer_second=False, grad_first=True):
    """Binary samples (BINARY_SHAPES, each contiguous and strided) with self in
    [low, high) and other in [low2, high2) (integers there: a polynomial's degree);
    grad_first=False keeps self out of gradient checks (torch has no gradient for it)."""
    def make(dtype, rng):
        out = []
        for args in layouts(rng, BINARY_SHAPES, dtype, low, high):
            a, b = args
            if integer_second:
                values = rng.integers(int(low2), int(high2), size=b.values.shape).astype(np.float64)
            else:
                values = make_values(rng, b.values.shape, dtype, low2, high2)
            out.append(Sample((T(a.values, dtype, a.noncontig, grad=grad_first),
                               T(values, dtype, b.noncontig))))
        return out
    return make


def _int_operands(rng):
    return ErrorCase(Sample((T(rng.integers(1, 4, (3,)).astype(np.int64), "int64"),
                             T(rng.integers(1, 4, (3,)).astype(np.int64), "int64"))), NotImplementedError)


UNARY = [
    _special("airy_ai", -4, 4, grad=False),
    _special("bessel_j0", -8, 8),
    _special("bessel_j1", -8, 8),
    _special("bessel_y0", 0.2, 8),
    _special("bessel_y1", 0.2, 8),
    _special("modified_bessel_i0", -4, 4),
    _special("modified_bessel_i1", -4, 4),
    _special("modified_bessel_k0", 0.2, 6),
    _special("modified_bessel_k1", 0.2, 6),
    _special("scaled_modified_bessel_k0", 0.2, 6, grad=False),
    _special("scaled_modified_bessel_k1", 0.2, 6, grad=False),
    _special("spherical_bessel_j0", -6, 6, grad=False),
    _special("i0e", -5, 5),
    _special("i1e", -5, 5),
    _special("erfcx", -2, 6),
    _special("ndtri", 0.02, 0.98),
    _special("log_ndtr", -6, 4),
]

BINARY = [
    OpInfo("igamma", lambda m, a, x: m.igamma(a, x), _pairs(0.2, 5, 0.05, 6, grad_first=False),
           inplace=lambda m, a, x: a.igamma_(x), errors=lambda rng: [_int_operands(rng)]),
    OpInfo("igamma", lambda m, a, x: m.special.gammainc(a, x), _pairs(0.2, 5, 0.05, 6, grad_first=False),
           variant="special", grad=False),
    OpInfo("igammac", lambda m, a, x: a.igammac(x), _pairs(0.2, 5, 0.05, 6, grad_first=False),
           inplace=lambda m, a, x: a.igammac_(x), errors=lambda rng: [_int_operands(rng)]),
    OpInfo("special_zeta", lambda m, s, q: m.special.zeta(s, q), _pairs(1.5, 5, 0.5, 4, grad_first=False),
           dtypes=DTYPES, tol=dict(INT_TOL)),
    OpInfo("special_xlog1py", lambda m, x, y: m.special.xlog1py(x, y), _pairs(-3, 3, -0.9, 3),
           dtypes=DTYPES, tol=dict(INT_TOL)),
]

POLYNOMIALS = [
    OpInfo(f"special_{name}", lambda m, x, n, name=name: getattr(m.special, name)(x, n),
           _pairs(low, high, -1, 9, integer_second=True), grad=False, tol={"float32": (1e-4, 1e-3)})
    for name, low, high in [
        ("chebyshev_polynomial_t", -1.2, 1.2), ("chebyshev_polynomial_u", -1.2, 1.2),
        ("chebyshev_polynomial_v", -1.2, 1.2), ("chebyshev_polynomial_w", -1.2, 1.2),
        ("shifted_chebyshev_polynomial_t", -0.1, 1.1), ("shifted_chebyshev_polynomial_u", -0.1, 1.1),
        ("shifted_chebyshev_polynomial_v", -0.1, 1.1), ("shifted_chebyshev_polynomial_w", -0.1, 1.1),
        ("hermite_polynomial_h", -2, 2), ("hermite_polynomial_he", -2, 2),
        ("laguerre_polynomial_l", -2, 5), ("legendre_polynomial_p", -1.2, 1.2)]
]

OPS = UNARY + BINARY + POLYNOMIALS
