"""ember.linalg: torch.linalg's functions.

vector_norm, matrix_norm, multi_dot, cross and vecdot are the C++ functions of
include/ember/ops/linalg_extra.h (ember._C._linalg). The decompositions (lu_factor,
cholesky, qr, eigh, svd, solve_triangular, geqrf) and the solvers, inverse and
determinants built on the LU (solve, inv, lu_solve, det, slogdet) are the C++ functions of
include/ember/ops/linalg_decompositions.h (ember._C._linalg_lapack, LAPACK from OpenBLAS).
The rest (pinv, matrix_rank, cond, matrix_power, matrix_exp, lstsq, householder_product,
tensorinv, tensorsolve, vander, the nuclear and spectral norms) is written here from those,
so autograd and tracing need nothing more. float32 and float64 only; CUDA tensors are
computed on the host (docs/linalg.md).
"""
import math as _math

from . import _C
from ._return_types import named_tuple
from ._type_info import finfo as _finfo
from ._C import _linalg as _impl
from ._C import _linalg_lapack as _lapack
from ._C import matmul, diagonal as _diagonal  # noqa: F401

vector_norm = _impl.vector_norm
multi_dot = _impl.multi_dot
cross = _impl.cross
vecdot = _impl.vecdot
_matrix_norm = _impl.matrix_norm

LinAlgError = _lapack.LinAlgError
LinAlgError.__module__ = "ember.linalg"

__all__ = ["vector_norm", "matrix_norm", "norm", "multi_dot", "cross", "vecdot", "matmul", "diagonal",
           "LinAlgError", "det", "slogdet", "inv", "inv_ex", "solve", "solve_ex", "cholesky", "cholesky_ex",
           "lu_factor", "lu_factor_ex", "lu", "lu_solve", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv",
           "matrix_rank", "cond", "matrix_power", "matrix_exp", "lstsq", "solve_triangular",
           "householder_product", "tensorinv", "tensorsolve", "vander"]


# ---- named tuples (torch.return_types) ----------------------------------------------------------

def _named(name, fields):
    return named_tuple(name, fields)


_Slogdet = _named("linalg_slogdet", ["sign", "logabsdet"])
_InvEx = _named("linalg_inv_ex", ["inverse", "info"])
_SolveEx = _named("linalg_solve_ex", ["result", "info"])
_CholeskyEx = _named("linalg_cholesky_ex", ["L", "info"])
_LuFactor = _named("linalg_lu_factor", ["LU", "pivots"])
_LuFactorEx = _named("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_Lu = _named("linalg_lu", ["P", "L", "U"])
_Qr = _named("linalg_qr", ["Q", "R"])
_Eigh = _named("linalg_eigh", ["eigenvalues", "eigenvectors"])
_Svd = _named("linalg_svd", ["U", "S", "Vh"])
_Lstsq = _named("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


def _write_out(out, result, op="linalg", exact=None):
    """out=: checks, resizes and fills the given tensor(s) as torch does, and returns them
    (ember/_out_variants.py's rules; linalg's outs must have the result's dtype)."""
    if out is None:
        return result
    from ._out_variants import write_outputs
    return write_outputs(op, result, out, exact=(op not in ("cholesky_solve", "cholesky_inverse"))
                         if exact is None else exact)


def _grad_needed(*tensors):
    from . import is_grad_enabled
    return is_grad_enabled() and any(t.requires_grad for t in tensors)


def _check_float(api, A, error=NotImplementedError):
    """float32 or float64 input. PyTorch raises NotImplementedError for most ops, but
    RuntimeError for pinv, matrix_rank and lstsq (their own checks run first)."""
    if not A.dtype.is_floating_point:
        raise error(f"{api}: Expected a floating point or complex tensor as input. Got "
                    f"{_type_name(A.dtype)}")
    if A.dtype not in (_C.float32, _C.float64):
        raise error(f"{api}: Low precision dtypes not supported. Got {_type_name(A.dtype)}")


def _check_matrix(api, A, name="A"):
    if A.dim() < 2:
        raise RuntimeError(f"{api}: The input tensor {name} must have at least 2 dimensions.")


def _check_square(api, A, name="A"):
    _check_matrix(api, A, name)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{api}: {name} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


_TYPE_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
               "int8": "Char", "uint8": "Byte", "int16": "Short", "int32": "Int", "int64": "Long", "bool": "Bool"}


def _type_name(dtype):
    return _TYPE_NAMES.get(str(dtype).replace("ember.", ""), str(dtype))


def _eye(n, like):
    return _C.eye(n, dtype=like.dtype, device=like.device)


# ---- LU, determinants, solvers -------------------------------------------------------------------

def det(A, *, out=None):
    """The determinant of square matrices [..., n, n] (from the LU)."""
    return _write_out(out, _lapack.det(A))


def slogdet(A, *, out=None):
    """(sign, logabsdet): det = sign * exp(logabsdet); (0, -inf) for a singular matrix."""
    return _write_out(out, _Slogdet(*_lapack.slogdet(A)))


def inv_ex(A, *, check_errors=False, out=None):
    return _write_out(out, _InvEx(*_lapack.inv_ex(A, check_errors=check_errors)))


def inv(A, *, out=None):
    """The inverse of square matrices; LinAlgError for a singular one."""
    return _write_out(out, _lapack.inv(A))


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    return _write_out(out, _SolveEx(*_lapack.solve_ex(A, B, left=left, check_errors=check_errors)))


def solve(A, B, *, left=True, out=None):
    """X with A X = B (left) or X A = B; batch dims broadcast; B may be a (batch of) vector(s)."""
    return _write_out(out, _lapack.solve(A, B, left=left))


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    return _write_out(out, _LuFactorEx(*_lapack.lu_factor_ex(A, pivot=pivot, check_errors=check_errors)))


def lu_factor(A, *, pivot=True, out=None):
    """(LU, pivots) of A = P L U (LAPACK's getrf); pivots are 1-based int32."""
    return _write_out(out, _LuFactor(*_lapack.lu_factor(A, pivot=pivot)))


def _lu_unpack(LU, pivots, unpack_data=True, unpack_pivots=True):
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    empty = _C.empty(0, dtype=LU.dtype, device=LU.device)
    P = L = U = empty
    if unpack_data:
        L = _C.tril(LU, -1)[..., :, :k] + _C.eye(m, k, dtype=LU.dtype, device=LU.device)
        U = _C.triu(LU)[..., :k, :]
    if unpack_pivots:
        if pivots.dtype != _C.int32:
            raise RuntimeError(f"lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype. "
                               f"Note: this function is intended to be used with the output produced by "
                               f"torch.linalg.lu_factor, got {pivots.dtype}")
        perm = _lapack.lu_pivots_to_permutation(pivots, m)
        rows = _C.arange(m, device=LU.device)
        P = (perm.unsqueeze(-2) == rows.unsqueeze(-1)).to(LU.dtype)  # P[perm[i], i] = 1
    return _Lu(P, L, U)


def lu(A, *, pivot=True, out=None):
    """(P, L, U) with A = P L U."""
    LU, pivots, _ = _lapack.lu_factor_ex(A, pivot=pivot)
    return _write_out(out, _lu_unpack(LU, pivots))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with A X = B (or A^T X = B, or X A = B) from lu_factor's (LU, pivots)."""
    return _write_out(out, _lapack.lu_solve(LU, pivots, B, left=left, adjoint=adjoint))


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with A X = B (left) or X A = B, A triangular (only that triangle is read)."""
    return _write_out(out, _lapack.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular))


# ---- Cholesky, QR, eigh, SVD ----------------------------------------------------------------------

def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    return _write_out(out, _CholeskyEx(*_lapack.cholesky_ex(A, upper=upper, check_errors=check_errors)))


def cholesky(A, *, upper=False, out=None):
    """L with A = L L^T (or U with A = U^T U); LinAlgError if A is not positive-definite."""
    return _write_out(out, _lapack.cholesky(A, upper=upper))


def qr(A, mode="reduced", *, out=None):
    """(Q, R) with A = Q R; mode "reduced", "complete" or "r" (Q empty)."""
    return _write_out(out, _Qr(*_lapack.qr(A, mode)))


def eigh(A, UPLO="L", *, out=None):
    """(eigenvalues ascending, eigenvectors as columns) of symmetric A (its UPLO triangle)."""
    return _write_out(out, _Eigh(*_lapack.eigh(A, UPLO)))


def eigvalsh(A, UPLO="L", *, out=None):
    return _write_out(out, _lapack.eigh(A, UPLO)[0])


def svd(A, full_matrices=True, *, driver=None, out=None):
    """(U, S, Vh) with A = U diag(S) Vh, S descending (LAPACK's gesdd; driver is for CUDA only)."""
    _check_driver(driver)
    return _write_out(out, _Svd(*_lapack.svd(A, full_matrices)))


def svdvals(A, *, driver=None, out=None):
    """The singular values, descending."""
    _check_driver(driver)
    # The derivative needs the singular vectors: compute them when a gradient may flow.
    S = _lapack.svd(A, False, compute_uv=_grad_needed(A))[1]
    return _write_out(out, S)


def _check_driver(driver):
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")


# ---- built from the decompositions ---------------------------------------------------------------

def _tolerance(values_max, atol, rtol, m, n, dtype):
    """max(atol, rtol * largest singular value), with PyTorch's default rtol."""
    eps = _finfo(dtype).eps
    if rtol is None:
        if atol is None:
            rtol = eps * max(m, n)
        elif isinstance(atol, (int, float)):
            rtol = 0.0 if atol > 0 else eps * max(m, n)
        else:
            rtol = _C.where(atol > 0, 0.0, eps * max(m, n))
    tol = rtol * values_max
    if atol is not None:
        tol = _C.maximum(_as_tensor(atol, values_max), tol if hasattr(tol, "dim") else _as_tensor(tol, values_max))
    return tol


def _as_tensor(x, like):
    if hasattr(x, "dim"):
        return x.to(like.dtype)
    return _C.full([], float(x), dtype=like.dtype, device=like.device)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse [..., n, m], from the SVD (eigh when hermitian)."""
    _check_matrix("linalg.pinv", A)
    _check_float("linalg.pinv", A, RuntimeError)
    m, n = A.shape[-2], A.shape[-1]
    if A.numel() == 0:
        return _write_out(out, _C.zeros(list(A.shape[:-2]) + [n, m], dtype=A.dtype, device=A.device))
    if hermitian:
        L, V = _lapack.eigh(A, "L")
        absL = L.abs()
        tol = _tolerance(absL.amax(-1, keepdim=True), _unsq(atol), _unsq(rtol), m, n, A.dtype)
        inv_vals = _C.where(absL > tol, L.reciprocal(), 0.0)
        return _write_out(out, matmul(V * inv_vals.unsqueeze(-2), V.mT))
    U, S, Vh = _lapack.svd(A, False)
    tol = _tolerance(S[..., :1], _unsq(atol), _unsq(rtol), m, n, A.dtype)
    inv_vals = _C.where(S > tol, S.reciprocal(), 0.0)
    return _write_out(out, matmul(Vh.mT * inv_vals.unsqueeze(-2), U.mT))


def _unsq(tol):
    """A tolerance tensor of batch shape [...] compared with values [..., k]."""
    return tol.unsqueeze(-1) if hasattr(tol, "dim") and tol.dim() > 0 else tol


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None, out=None):
    """The number of singular values above max(atol, rtol * the largest), as int64."""
    _check_matrix("linalg.matrix_rank", A)
    _check_float("linalg.matrix_rank", A, RuntimeError)
    if tol is not None:
        atol, rtol = tol, 0.0
    m, n = A.shape[-2], A.shape[-1]
    if A.numel() == 0:
        return _write_out(out, _C.zeros(list(A.shape[:-2]), dtype=_C.int64, device=A.device))
    S = _lapack.eigh(A, "L")[0].abs() if hermitian else _lapack.svd(A, False, compute_uv=False)[1]
    if hermitian:
        S = S.sort(-1, descending=True)[0]
    limit = _tolerance(S[..., :1], _unsq(atol), _unsq(rtol), m, n, A.dtype)
    return _write_out(out, (S > limit).sum(-1))


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norms: "fro", "nuc", inf, -inf, 1, -1, 2, -2 over two dims."""
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    if ord in ("nuc", 2, -2, 2.0, -2.0):
        _check_matrix("linalg.matrix_norm", A)
        if dtype is not None:
            A = A.to(dtype)
        _check_float("linalg.matrix_norm", A)
        d0, d1 = (d % A.dim() for d in dim)
        if d0 == d1:
            raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
        moved = _C.movedim(A, (d0, d1), (-2, -1))
        S = svdvals(moved)
        value = S.sum(-1) if ord == "nuc" else (S.amax(-1) if ord > 0 else S.amin(-1))
        if keepdim:
            for d in sorted((d0, d1)):
                value = value.unsqueeze(d)
        return _write_out(out, value)
    return _write_out(out, _matrix_norm(A, ord, list(dim), keepdim, dtype=dtype))


def cond(A, p=None, *, out=None):
    """The condition number in norm p (2 when None: the ratio of extreme singular values)."""
    _check_matrix("linalg.cond", A)
    _check_float("linalg.cond", A)
    if p is None or p in (2, -2):
        S = svdvals(A)
        ratio = S[..., 0] / S[..., -1] if p != -2 else S[..., -1] / S[..., 0]
        return _write_out(out, ratio)
    _check_square("linalg.cond", A)
    inverse, info = _lapack.inv_ex(A)
    value = matrix_norm(A, p) * matrix_norm(inverse, p)
    # A singular matrix has an infinite condition number.
    return _write_out(out, _C.where(info > 0, float("inf"), value))


def matrix_power(A, n, *, out=None):
    """A^n by repeated squaring; a negative n uses the inverse."""
    _check_square("linalg.matrix_power", A)
    if n < 0:
        A = inv(A)
        n = -n
    return _write_out(out, _C.matrix_power(A, n))


# Padé approximant of degree 13 (Higham, "The scaling and squaring method for the matrix
# exponential revisited", 2005): its coefficients and the 1-norm up to which it is accurate.
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def matrix_exp(A):
    """exp(A) by scaling and squaring with a degree-13 Padé approximant."""
    _check_square("linalg.matrix_exp", A)
    _check_float("linalg.matrix_exp", A)
    if A.numel() == 0:
        return A.clone()
    n = A.shape[-1]
    norm1 = float(A.detach().abs().sum(-2).amax())  # the largest 1-norm in the batch
    s = max(0, int(_math.ceil(_math.log2(norm1 / _THETA13)))) if norm1 > _THETA13 else 0
    X = A / (2.0 ** s) if s else A
    b = _PADE13
    I = _eye(n, A)
    X2 = matmul(X, X)
    X4 = matmul(X2, X2)
    X6 = matmul(X4, X2)
    U = matmul(X, matmul(X6, b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * I)
    V = matmul(X6, b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * I
    R = _lapack.solve(V - U, V + U)
    for _ in range(s):
        R = matmul(R, R)
    return R


def lstsq(A, B, rcond=None, *, driver=None):
    """The minimum-norm least-squares solution of A X = B, as PyTorch's default gelsy driver
    (solution, residuals, rank, singular_values); residuals and singular values as the driver
    computes them (gelsd/gelss: singular values; gelsd/gelss/gels: residuals for m > n and
    full rank)."""
    _check_matrix("torch.linalg.lstsq", A)
    _check_float("torch.linalg.lstsq", A, RuntimeError)
    if driver is not None and driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    driver = driver or "gelsy"
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected B to have the same dtype as A, but got "
                           f"{B.dtype} and {A.dtype}")
    vector = B.dim() == A.dim() - 1
    rhs = B.unsqueeze(-1) if vector else B
    if rhs.dim() < 2:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    m, n = A.shape[-2], A.shape[-1]
    if rhs.shape[-2] != m:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2). Got "
                           f"{m} and {rhs.shape[-2]}")
    eps = _finfo(A.dtype).eps
    if rcond is None or rcond < 0:
        rcond = eps * max(m, n)
    k = min(m, n)
    batch = list(A.shape[:-2])
    empty = _C.empty(0, dtype=A.dtype, device=A.device)
    if k == 0:
        shape = list(_C.broadcast_shapes(tuple(batch), tuple(rhs.shape[:-2]))) + [n, rhs.shape[-1]]
        X = _C.zeros(shape, dtype=A.dtype, device=A.device)
        rank = _C.zeros(batch, dtype=_C.int64, device=A.device)
        return _Lstsq(X.squeeze(-1) if vector else X, empty, rank, empty)
    U, S, Vh = _lapack.svd(A, False)
    limit = S[..., :1] * rcond
    keep = S > limit
    rank = keep.sum(-1)
    inv_vals = _C.where(keep, S.reciprocal(), 0.0)
    X = matmul(Vh.mT * inv_vals.unsqueeze(-2), matmul(U.mT, rhs))
    residuals = empty
    if driver != "gelsy" and m > n and bool((rank == n).all()):
        residuals = (matmul(A, X) - rhs).pow(2).sum(-2)
    singular_values = S if driver in ("gelsd", "gelss") else empty
    if driver == "gels":
        rank = _C.empty(0, dtype=_C.int64, device=A.device)
    # A vector B keeps its residual as a 1-element dim, as PyTorch's.
    return _Lstsq(X.squeeze(-1) if vector else X, residuals, rank, singular_values)


def householder_product(A, tau, *, out=None):
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T (LAPACK's orgqr)."""
    api = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{api}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{api}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.shape[-1] > A.shape[-1]:
        raise RuntimeError(f"{api}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau.dim() != A.dim() - 1:
        raise RuntimeError(f"{api}: Expected tau to have one dimension less than input, but got tau.ndim "
                           f"equal to {tau.dim()} and input.ndim is equal to {A.dim()}")
    if A.dtype != tau.dtype:
        raise RuntimeError(f"{api}: tau dtype {tau.dtype} does not match input dtype {A.dtype}")
    _check_float(api, A)
    n = A.shape[-1]
    return _write_out(out, _householder_q(A, tau)[..., :n])


def _householder_q(A, tau):
    """The full m x m Q = H_1 ... H_k of geqrf's reflectors (below A's diagonal) and tau."""
    m = A.shape[-2]
    k = tau.shape[-1]
    V = _C.tril(A, -1)[..., :, :k] + _C.eye(m, k, dtype=A.dtype, device=A.device)
    Q = _eye(m, A).expand(list(A.shape[:-2]) + [m, m])
    for i in range(k):
        v = V[..., :, i:i + 1]
        Q = Q - matmul(matmul(Q, v) * tau[..., i:i + 1].unsqueeze(-1), v.mT)
    return Q


def tensorinv(A, ind=2, *, out=None):
    """The inverse of A seen as a matrix prod(shape[:ind]) x prod(shape[ind:])."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows = _prod(A.shape[:ind])
    cols = _prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    result = inv(A.reshape(rows, cols)).reshape(list(A.shape[ind:]) + list(A.shape[:ind]))
    return _write_out(out, result)


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) = B."""
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        rest = [d for d in range(A.dim()) if d not in dims]
        A = A.permute(rest + dims)
    result_shape = list(A.shape[B.dim():])
    rows, cols = _prod(B.shape), _prod(result_shape)
    if _prod(A.shape) != rows * cols or rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {_prod(A.shape[:B.dim()])}")
    return _write_out(out, solve(A.reshape(rows, cols), B.reshape(rows)).reshape(result_shape))


def _prod(shape):
    p = 1
    for s in shape:
        p *= s
    return p


def vander(x, *, N=None):
    """Powers x^0, x^1, ..., x^(N-1) along a new last dim (increasing)."""
    if x.dim() < 1:
        raise RuntimeError("N must be greater than 1.")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    ones = _C.ones_like(x).unsqueeze(-1)
    powers = x.unsqueeze(-1).expand(list(x.shape) + [n - 1]).cumprod(-1)
    return _C.cat([ones, powers], -1)


# ---- norms ------------------------------------------------------------------------------------

def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal of the last two dims (a view), as torch.linalg.diagonal."""
    return _diagonal(A, offset=offset, dim1=dim1, dim2=dim2)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """A vector or matrix norm, chosen as torch.linalg.norm chooses it."""
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
        if len(dim) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    elif ord is not None and A.dim() not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.dim()}D.")
    if isinstance(ord, str):
        return matrix_norm(A, ord, dim if dim is not None else (0, 1), keepdim, dtype=dtype, out=out)
    if ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and A.dim() == 2)):
        return matrix_norm(A, ord, dim if dim is not None else (0, 1), keepdim, dtype=dtype, out=out)
    return _write_out(out, vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype))
