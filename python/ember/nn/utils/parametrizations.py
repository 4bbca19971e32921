"""ember.nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal as
parametrizations (torch.nn.utils.parametrizations), built on ember.nn.utils.parametrize.

ember has no matrix_exp, linalg.solve, linalg.householder_product or geqrf ops, so
orthogonal's maps compose them here from matmul, cat and elementwise ops (autograd
differentiates through the composition):

- matrix exponential: scaling and squaring of a degree-18 Taylor polynomial (the
  scaled matrix has 1-norm <= 1/2, which puts the truncation error below float64's
  rounding);
- solve: Gauss-Jordan elimination without pivoting, used for the Cayley map's I - A/2
  with A skew-symmetric, whose symmetric part is I (no pivot vanishes: no pivoting
  needed);
- Householder product and QR (geqrf, LAPACK's conventions: beta = -sign(alpha) * norm,
  tau = 0 where the column below the diagonal is zero), the latter only under no_grad
  (right_inverse).
"""
import math
from enum import Enum, auto

from ... import _C
from ..._C import Tensor
from ..._type_info import finfo
from ...autograd import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .weight_norm import _norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---- linear algebra composed from ember's ops ---------------------------------------------
def _eye_like(x, n, k=None):
    return _C.eye(n, n if k is None else k, dtype=x.dtype, device=x.device)


def _matrix_exp(a):
    """exp(a) for a (..., n, n): Taylor polynomial of a / 2^s, squared s times."""
    n = a.shape[-1]
    with no_grad():
        norm = float(a.detach().abs().sum(-2).amax()) if a.numel() else 0.0
    s = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0
    x = a / (2.0 ** s) if s else a
    eye = _eye_like(a, n)
    e = eye
    for k in range(18, 0, -1):  # Horner: I + x (I + x/2 (I + x/3 (...)))
        e = eye + x.matmul(e) / k
    for _ in range(s):
        e = e.matmul(e)
    return e


def _solve(m, b):
    """m^-1 b by Gauss-Jordan elimination without pivoting, for an m (..., n, n) whose
    symmetric part is positive definite (then so is every leading block, and no pivot
    vanishes): the Cayley map's I - A/2 (A skew-symmetric), and the Gram matrices of the
    legacy spectral_norm's state_dict conversion."""
    n = m.shape[-1]
    aug = _C.cat([m, b], -1)
    eye = _eye_like(m, n)
    for k in range(n):
        pivot_row = aug[..., k:k + 1, :] / aug[..., k:k + 1, k:k + 1]
        # every row i loses aug[i, k] * pivot_row; row k becomes pivot_row itself
        aug = aug - (aug[..., :, k:k + 1] - eye[:, k:k + 1]) * pivot_row
    return aug[..., :, n:]


def _householder_product(a, tau):
    """linalg.householder_product: the first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T,
    v_i = (0, ..., 0, 1, a[i+1:, i]) for a (..., n, k), tau (..., k)."""
    n, k = a.shape[-2], a.shape[-1]
    vs = a.tril(-1) + _eye_like(a, n, k)
    q = _eye_like(a, n)
    for i in range(k):
        v = vs[..., :, i:i + 1]
        q = q - q.matmul(v).matmul((tau[..., i:i + 1].unsqueeze(-1) * v).mT)
    return q[..., :, :k]


def _geqrf(a):
    """geqrf's (reflectors below R, tau) for a (..., m, n), by unblocked Householder QR."""
    with no_grad():
        a = a.clone()
        m, n = a.shape[-2], a.shape[-1]
        taus = []
        for j in range(min(m, n)):
            alpha = a[..., j, j]
            below = a[..., j + 1:, j]
            xnorm = (below * below).sum(-1).sqrt() if m - j > 1 else _C.zeros_like(alpha)
            norm = (alpha * alpha + xnorm * xnorm).sqrt()
            beta = _C.where(alpha >= 0, -norm, norm)
            trivial = xnorm == 0
            safe_beta = _C.where(trivial, _C.ones_like(beta), beta)
            safe_denominator = _C.where(trivial, _C.ones_like(beta), alpha - beta)
            tau = _C.where(trivial, _C.zeros_like(beta), (beta - alpha) / safe_beta)
            v_below = below / safe_denominator.unsqueeze(-1)
            v = _C.cat([_C.ones_like(alpha).unsqueeze(-1), v_below], -1)
            if j + 1 < n:
                rest = a[..., j:, j + 1:]
                w = v.unsqueeze(-2).matmul(rest)
                a[..., j:, j + 1:] = rest - tau.unsqueeze(-1).unsqueeze(-1) * v.unsqueeze(-1) * w
            a[..., j + 1:, j] = v_below
            a[..., j, j] = _C.where(trivial, alpha, beta)
            taus.append(tau)
        tau = _C.stack(taus, -1) if taus else a.new_zeros(*a.shape[:-2], 0)
    return a, tau


def _is_orthogonal(q):
    n, k = q.shape[-2], q.shape[-1]
    eps = 10.0 * n * finfo(q.dtype).eps
    return _C.allclose(q.mH.matmul(q), _eye_like(q, k), atol=eps)


def _make_orthogonal(a):
    """The Q of a tall a = QR with diag(R) >= 0."""
    x, tau = _geqrf(a)
    q = _householder_product(x, tau)
    return q * x.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


# ---- orthogonal ---------------------------------------------------------------------------
class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x):
        n, k = x.shape[-2], x.shape[-1]
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            x = x.tril()
            if n != k:
                x = _C.cat([x, x.new_zeros(n, n - k).expand(*x.shape[:-2], -1, -1)], -1)
            a = x - x.mH  # skew-symmetric
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = _matrix_exp(a)
            else:  # Cayley: (I - A/2)^-1 (I + A/2)
                eye = _eye_like(a, n)
                q = _solve(eye - 0.5 * a, eye + 0.5 * a)
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(-1)
            tau = 2.0 / (1.0 + (a * a).sum(dim=-2))
            q = _householder_product(a, tau)
            # x's diagonal holds the signs (+-1) of Q's columns; not differentiated
            q = q * x.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            q = self.base.matmul(q)
        if transposed:
            q = q.mT
        return q

    def right_inverse(self, q):
        with no_grad():
            if q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {q.shape}.")
            q_init = q
            n, k = q.shape[-2], q.shape[-1]
            transpose = n < k
            if transpose:
                q = q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False.")
                # Householder: the reflectors of q's QR, with the signs of R's diagonal on it
                # (a reflector that LAPACK skips, tau == 0, flips the sign).
                a, tau = _geqrf(q)
                diag = a.diagonal(dim1=-2, dim2=-1)
                signs = diag.sign()
                diag.copy_(_C.where(tau == 0.0, -signs, signs))
                return a.mT if transpose else a
            if n == k:
                q = q.clone() if _is_orthogonal(q) else _make_orthogonal(q)
            else:  # complete q to an n x n orthogonal matrix
                extra = _C.randn(*(tuple(q.shape[:-2]) + (n, n - k)), dtype=q.dtype,
                                 device=q.device)
                q = _make_orthogonal(_C.cat([q, extra], -1))
            self.base = q
            # -Id: householder(zeros) is then eye(m, n)
            neg_id = _C.zeros_like(q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Parametrizes module.<name> (a matrix or batch of matrices (..., m, n)) as an
    orthogonal one: Q^T Q = I for m >= n, Q Q^T = I otherwise.

    orthogonal_map: "matrix_exp", "cayley" or "householder" (default: "matrix_exp" for
    square matrices, else "householder"). use_trivialization=True keeps the orthogonal
    `base` buffer (module.parametrizations.<name>[0].base) that the map multiplies.
    Returns module.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.shape[-2] == weight.shape[-1] or weight.is_complex()
                          else "householder")
    orth_enum = _OrthMaps.__members__.get(orthogonal_map) if isinstance(orthogonal_map, str) else None
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ---- weight_norm --------------------------------------------------------------------------
class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Parametrizes module.<name> as g * v / ||v|| (norm over every dim but dim; over the
    whole tensor for dim=None): original0 is g, original1 is v. A state_dict of the legacy
    weight_norm (<name>_g, <name>_v) still loads. Returns module."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(mod, state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    module.register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# ---- spectral_norm ------------------------------------------------------------------------
class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            # (a vector is just normalized: nothing to estimate)
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # Start from reasonable singular vectors.
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # u and v are updated in place (they are buffers); forward clones them before use
        # so that a graph built by an earlier forward keeps its values.
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(_C.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(_C.mv(weight_mat.H, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = _C.vdot(u, _C.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def _transposed_conv_types():
    from .. import modules
    return tuple(getattr(modules, n) for n in ("ConvTranspose1d", "ConvTranspose2d",
                                               "ConvTranspose3d") if hasattr(modules, n))


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Parametrizes module.<name> as W / sigma(W), sigma estimated by n_power_iterations
    steps of the power method (buffers _u and _v of module.parametrizations.<name>[0]) at
    every access in training mode. dim: the output dim (default 0; 1 for ConvTranspose).
    Returns module."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, _transposed_conv_types()) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
