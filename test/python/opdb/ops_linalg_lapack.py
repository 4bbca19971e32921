"""The op database's entries for the LAPACK rows of linalg.toml (the matrix
decompositions): each called through its public ember.linalg function. Decompositions
whose vectors have no unique sign (eigh, svd) are compared through invariants
(eigenvalues and V diag(c) V^T; S and U diag(c) Vh); inputs are shifted to be
well-conditioned (or positive-definite) inside the call, so gradients are finite."""
import numpy as np

from .opinfo import FLOAT, ErrorCase, OpInfo, Sample, T, layouts

SQUARE = [[(3, 3)], [(2, 4, 4)], [(0, 3, 3)]]
RECT = [[(4, 3)], [(3, 4)], [(2, 3, 3)], [(0, 2, 3)]]


def _samples(shapes, **kwargs):
    def make(dtype, rng):
        return [Sample(args, dict(kwargs)) for args in layouts(rng, shapes, dtype)]
    return make


def _well(m, x):
    """x with a dominant diagonal: far from singular."""
    return x + 8 * m.eye(x.shape[-1], dtype=x.dtype)


def _spd(m, x):
    return x @ x.mT + x.shape[-1] * m.eye(x.shape[-1], dtype=x.dtype)


def _eigh(m, x, UPLO="L"):
    L, V = m.linalg.eigh(x + x.mT, UPLO)
    c = m.arange(1, x.shape[-1] + 1, dtype=x.dtype)
    return L, (V * c) @ V.mT


def _svd(m, x, full_matrices=False):
    U, S, Vh = m.linalg.svd(x, full_matrices=full_matrices)
    k = S.shape[-1]
    c = m.arange(1, k + 1, dtype=x.dtype)
    return S, (U[..., :, :k] * c) @ Vh[..., :k, :]


def _bad_dtype(rng):
    return [ErrorCase(Sample((T(np.ones((2, 2)), "int64"),)), NotImplementedError),
            ErrorCase(Sample((T(np.ones((3,)), "float32"),)), RuntimeError)]


def _triangular_samples(dtype, rng):
    out = []
    for shapes, left in (([(3, 3), (3, 2)], True), ([(2, 1, 3, 3), (4, 2, 3)], False), ([(3, 3), (3, 0)], True)):
        for args in layouts(rng, [shapes], dtype):
            for upper in (True, False):
                out.append(Sample(args, dict(upper=upper, left=left)))
    return out


OPS = [
    OpInfo("linalg_lu_factor_ex", lambda m, x: tuple(m.linalg.lu_factor_ex(_well(m, x)))[:2], _samples(SQUARE),
           dtypes=FLOAT),
    OpInfo("linalg_det", lambda m, x: m.linalg.det(x), _samples(SQUARE), dtypes=FLOAT, errors=_bad_dtype,
           tol={"float32": (1e-4, 1e-4)}),
    OpInfo("linalg_solve_triangular",
           lambda m, a, b, **kw: m.linalg.solve_triangular(_well(m, a), b, **kw), _triangular_samples, dtypes=FLOAT,
           tol={"float32": (1e-5, 1e-5)}),
    OpInfo("linalg_cholesky_ex", lambda m, x, **kw: m.linalg.cholesky_ex(_spd(m, x), **kw)[0], _samples(SQUARE),
           dtypes=FLOAT, tol={"float32": (1e-5, 1e-5)}),
    OpInfo("linalg_cholesky_ex", lambda m, x: m.linalg.cholesky(_spd(m, x), upper=True), _samples(SQUARE),
           dtypes=FLOAT, variant="upper", tol={"float32": (1e-5, 1e-5)}),
    OpInfo("linalg_qr", lambda m, x, **kw: tuple(m.linalg.qr(x, **kw)), _samples(RECT[:1] + RECT[2:]), dtypes=FLOAT,
           tol={"float32": (1e-5, 1e-5)}, errors=_bad_dtype),
    OpInfo("linalg_qr", lambda m, x: tuple(m.linalg.qr(x, mode="complete")), _samples([[(3, 4)], [(3, 3)]]),
           dtypes=FLOAT, variant="complete", tol={"float32": (1e-5, 1e-5)}),
    OpInfo("linalg_eigh", _eigh, _samples(SQUARE), dtypes=FLOAT, tol={"float32": (1e-4, 1e-4)}, gradgrad=False,
           errors=_bad_dtype),
    OpInfo("linalg_svd", _svd, _samples(RECT), dtypes=FLOAT, tol={"float32": (1e-4, 1e-4)}, gradgrad=False,
           errors=_bad_dtype),
    OpInfo("geqrf", lambda m, x: tuple(m.geqrf(x)), _samples(RECT), dtypes=FLOAT, grad=False,
           tol={"float32": (1e-5, 1e-5)}),
]
