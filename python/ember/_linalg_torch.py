"""The torch-level and Tensor-method spellings of the linear algebra in ember.linalg:
torch.det, logdet, slogdet, inverse, pinverse, svd (the old API: V, not Vh), qr, lu,
lu_solve, lu_unpack, cholesky (deprecated in torch, still used), cholesky_solve,
cholesky_inverse, triangular_solve (the old API), matrix_exp, matrix_power, geqrf, orgqr,
ormqr, nuclear_norm, frobenius_norm; and x.det(), x.inverse(), x.svd(), ... on Tensor."""
from . import _C, linalg
from ._C import Tensor
from ._C import _linalg_lapack as _lapack
from .linalg import _named, _write_out, _lu_unpack, _householder_q

__all__ = ["det", "logdet", "slogdet", "inverse", "pinverse", "svd", "qr", "lu", "lu_solve", "lu_unpack",
           "cholesky", "cholesky_solve", "cholesky_inverse", "triangular_solve", "matrix_exp", "matrix_power",
           "geqrf", "orgqr", "ormqr", "nuclear_norm", "frobenius_norm"]

_Svd = _named("svd", ["U", "S", "V"])
_Qr = _named("qr", ["Q", "R"])
_Slogdet = _named("slogdet", ["sign", "logabsdet"])
_LuUnpack = _named("lu_unpack", ["P", "L", "U"])
_LuWithInfo = _named("_lu_with_info", ["LU", "pivots", "info"])
_TriangularSolve = _named("triangular_solve", ["solution", "cloned_coefficient"])
_Geqrf = _named("geqrf", ["a", "tau"])


def det(input, *, out=None):  # noqa: A002 (torch's names)
    return linalg.det(input, out=out)


def logdet(input):  # noqa: A002
    """log(det(input)): nan for a negative determinant, -inf for a singular matrix."""
    return _lapack.logdet(input)


def slogdet(input, *, out=None):  # noqa: A002
    return _write_out(out, _Slogdet(*_lapack.slogdet(input)))


def inverse(input, *, out=None):  # noqa: A002
    return linalg.inv(input, out=out)


def pinverse(input, rcond=1e-15):  # noqa: A002
    return linalg.pinv(input, rtol=rcond)


def svd(input, some=True, compute_uv=True, *, out=None):  # noqa: A002
    """(U, S, V) with input = U diag(S) V^T; V, not Vh. Without compute_uv, U and V are zeros
    [m, m] and [n, n], as in PyTorch."""
    if compute_uv:
        U, S, Vh = _lapack.svd(input, not some)
        return _write_out(out, _Svd(U, S, Vh.mT))
    S = linalg.svdvals(input)
    m, n = input.shape[-2], input.shape[-1]
    batch = list(input.shape[:-2])
    U = _C.zeros(batch + [m, m], dtype=input.dtype, device=input.device)
    V = _C.zeros(batch + [n, n], dtype=input.dtype, device=input.device)
    return _write_out(out, _Svd(U, S, V))


def qr(input, some=True, *, out=None):  # noqa: A002
    return _write_out(out, _Qr(*_lapack.qr(input, "reduced" if some else "complete")))


def lu(A, pivot=True, get_infos=False, out=None):
    """(LU, pivots) or, with get_infos, (LU, pivots, infos); never raises for a singular A."""
    result = _LuWithInfo(*_lapack.lu_factor_ex(A, pivot=pivot))
    return _write_out(out, result if get_infos else (result.LU, result.pivots))


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    return _write_out(out, _lapack.lu_solve(LU_data, LU_pivots, b))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    return _write_out(out, _LuUnpack(*_lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)))


def cholesky(input, upper=False, *, out=None):  # noqa: A002
    return linalg.cholesky(input, upper=upper, out=out)


def cholesky_solve(input, input2, upper=False, *, out=None):  # noqa: A002
    """X with A X = input, A = L L^T (or U^T U) given its factor input2."""
    L = input2.mT if upper else input2
    Y = _lapack.solve_triangular(L, input, upper=False)
    return _write_out(out, _lapack.solve_triangular(L.mT, Y, upper=True), "cholesky_solve", exact=False)


def cholesky_inverse(input, upper=False, *, out=None):  # noqa: A002
    """The inverse of A = L L^T (or U^T U) from its factor."""
    if input.dim() < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"cholesky_inverse: A must be batches of square matrices, but they are "
                           f"{tuple(input.shape[-2:])} matrices")
    eye = _C.eye(input.shape[-1], dtype=input.dtype, device=input.device).expand(list(input.shape))
    return _write_out(out, cholesky_solve(eye, input, upper), "cholesky_inverse", exact=False)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """(solution of op(A) X = b, a copy of A), op(A) = A^T with transpose."""
    coefficient = A.mT if transpose else A
    X = _lapack.solve_triangular(coefficient, b, upper=upper != transpose, unitriangular=unitriangular)
    batch = list(X.shape[:-2])
    return _write_out(out, _TriangularSolve(X, A.expand(batch + list(A.shape[-2:])).clone()))


def matrix_exp(A):
    return linalg.matrix_exp(A)


def matrix_power(input, n):  # noqa: A002
    return linalg.matrix_power(input, n)


def geqrf(input, *, out=None):  # noqa: A002
    return _write_out(out, _Geqrf(*_lapack.geqrf(input)))


def orgqr(input, tau):  # noqa: A002
    return linalg.householder_product(input, tau)


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):  # noqa: A002
    """Q @ other (left) or other @ Q, Q^T with transpose, Q = H_1 ... H_k of geqrf's reflectors."""
    if input.dim() < 2 or other.dim() < 2:
        raise RuntimeError("torch.ormqr: input and other must have at least 2 dimensions.")
    if tau.shape[-1] > input.shape[-1]:
        raise RuntimeError("torch.ormqr: tau.shape[-1] must be less than or equal to input.shape[-1]")
    m = other.shape[-2] if left else other.shape[-1]
    if input.shape[-2] != m:
        raise RuntimeError(f"torch.ormqr: input.shape[-2] must be equal to other.shape[{-2 if left else -1}]")
    Q = _householder_q(input, tau)
    if transpose:
        Q = Q.mT
    return _write_out(out, linalg.matmul(Q, other) if left else linalg.matmul(other, Q))


def nuclear_norm(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    if isinstance(dim, bool):  # torch.nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    return _write_out(out, linalg.matrix_norm(input, "nuc", tuple(dim) if dim is not None else (-2, -1),
                                              keepdim, dtype=dtype), "nuclear_norm")


def frobenius_norm(input, dim=(-2, -1), keepdim=False, *, out=None):  # noqa: A002
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return _write_out(out, linalg.vector_norm(input, 2, list(dims), keepdim), "frobenius_norm")


def _method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


for _fn in (det, logdet, slogdet, inverse, pinverse, svd, qr, lu, lu_solve, cholesky, cholesky_solve,
            cholesky_inverse, triangular_solve, matrix_exp, matrix_power, geqrf, orgqr, ormqr):
    setattr(Tensor, _fn.__name__, _method(_fn))
del _fn
