"""torch.distributions.Dirichlet: points of the simplex, with `concentration` (..., K)."""
import ember

from . import constraints
from ._gamma_sampler import standard_gamma
from .distribution import Distribution


class Dirichlet(Distribution):
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = concentration.size()
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def rsample(self, sample_shape=()):
        # Normalized independent Gamma(c_k, 1) draws; the gamma draws carry implicit
        # reparameterization gradients, so the normalized vector does too.
        g = standard_gamma(self.concentration.expand(self._extended_shape(sample_shape)))
        tiny = ember.finfo(g.dtype).tiny
        x = g / g.sum(-1, keepdim=True)
        return x.clamp(min=tiny, max=1 - ember.finfo(g.dtype).eps)

    def log_prob(self, value):
        self._checked(value)
        c = self.concentration
        log_norm = c.sum(-1).lgamma() - c.lgamma().sum(-1)
        return ember.xlogy(c - 1, value.to(c.dtype)).sum(-1) + log_norm

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        c = self.concentration
        k = c.size(-1)
        interior = (c - 1).clamp(min=0) / ((c - 1).clamp(min=0).sum(-1, keepdim=True))
        # When every c_k < 1 the density peaks at a vertex: the largest c_k's.
        vertex = ember.nn.functional.one_hot(c.argmax(-1), k).to(c.dtype)
        return ember.where((c < 1).all(-1, keepdim=True), vertex, interior)

    @property
    def variance(self):
        c = self.concentration
        total = c.sum(-1, keepdim=True)
        return c * (total - c) / (total.pow(2) * (total + 1))

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        total = c.sum(-1)
        log_beta = c.lgamma().sum(-1) - total.lgamma()
        return log_beta + (total - k) * total.digamma() - ((c - 1) * c.digamma()).sum(-1)
