"""torch.distributions.MultivariateNormal: a Gaussian vector with mean `loc` and one of
covariance_matrix, precision_matrix or scale_tril (the covariance's Cholesky factor L).
Everything is computed from L: log|Sigma| = 2 sum log diag L, and Mahalanobis distances
by a triangular solve, never an explicit inverse."""
import math

import ember

from . import constraints
from ._lazy import cached_attribute
from .distribution import Distribution


def _mahalanobis_sq(scale_tril, diff):
    """|L^-1 diff|^2 for L (..., n, n) and diff (..., n), broadcasting their batch dims."""
    batch = ember.broadcast_shapes(scale_tril.shape[:-2], diff.shape[:-1])
    n = diff.size(-1)
    L = scale_tril.expand(tuple(batch) + (n, n))
    d = diff.expand(tuple(batch) + (n,)).unsqueeze(-1)
    z = ember.linalg.solve_triangular(L, d, upper=False)
    return z.squeeze(-1).pow(2).sum(-1)


def _half_log_det(scale_tril):
    return scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


class MultivariateNormal(Distribution):
    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [(k, m) for k, m in (("covariance_matrix", covariance_matrix),
                                     ("precision_matrix", precision_matrix), ("scale_tril", scale_tril))
                 if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name, matrix = given[0]
        self._given = name
        if matrix.dim() < 2:
            raise ValueError(f"{name} matrix must be at least two-dimensional, with optional leading batch dimensions")
        batch = ember.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        n = loc.size(-1)
        # Expanded only when needed: the caller's own tensors keep no node of ours
        # between them and the loss, so one object can be backpropagated through twice.
        self.loc = loc if tuple(loc.shape[:-1]) == tuple(batch) else loc.expand(tuple(batch) + (n,))
        if tuple(matrix.shape[:-2]) != tuple(batch):
            matrix = matrix.expand(tuple(batch) + (n, n))
        setattr(self, name, matrix)
        # Checked (by the base) before any factorization, so a bad matrix is a ValueError.
        super().__init__(batch, (n,), validate_args=validate_args)
        if name == "covariance_matrix":
            self.scale_tril = ember.linalg.cholesky(self.covariance_matrix)
        elif name == "precision_matrix":
            self.scale_tril = ember.linalg.cholesky(ember.linalg.inv(self.precision_matrix))

    @cached_attribute
    def covariance_matrix(self):
        return self.scale_tril @ self.scale_tril.mT

    @cached_attribute
    def precision_matrix(self):
        return ember.cholesky_inverse(self.scale_tril)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self.scale_tril.pow(2).sum(-1)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = ember.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self.scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        self._checked(value)
        n = self._event_shape[0]
        m = _mahalanobis_sq(self.scale_tril, value - self.loc)
        return -0.5 * (n * math.log(2 * math.pi) + m) - _half_log_det(self.scale_tril)

    def entropy(self):
        n = self._event_shape[0]
        h = 0.5 * n * (1.0 + math.log(2 * math.pi)) + _half_log_det(self.scale_tril)
        return h.expand(self._batch_shape) if len(self._batch_shape) else h

    def __repr__(self):
        loc = self.loc.size() if self.loc.numel() > 1 else self.loc
        return f"MultivariateNormal(loc: {loc}, {self._given}: {self.__dict__[self._given].size()})"
