"""ember.linalg: torch.linalg's functions that need no matrix decomposition.

vector_norm, matrix_norm, multi_dot, cross and vecdot are the C++ functions of
include/ember/ops/linalg_extra.h (ember._C._linalg); norm only picks one of the two
norms from its arguments, as torch.linalg.norm does. Decompositions (det, inv, solve,
svd, qr, the nuclear and 2-norms of matrices) are not provided.
"""
from ._C import _linalg as _impl
from ._C import matmul, diagonal as _diagonal  # noqa: F401

vector_norm = _impl.vector_norm
matrix_norm = _impl.matrix_norm
multi_dot = _impl.multi_dot
cross = _impl.cross
vecdot = _impl.vecdot

__all__ = ["vector_norm", "matrix_norm", "norm", "multi_dot", "cross", "vecdot", "matmul", "diagonal"]


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal of the last two dims (a view), as torch.linalg.diagonal."""
    return _diagonal(A, offset=offset, dim1=dim1, dim2=dim2)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
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
        return matrix_norm(A, ord, dim if dim is not None else (0, 1), keepdim, dtype=dtype)
    if ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and A.dim() == 2)):
        return matrix_norm(A, ord, dim if dim is not None else (0, 1), keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
