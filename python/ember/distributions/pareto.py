"""torch.distributions.Pareto: density alpha scale^alpha / x^(alpha + 1) on x >= scale."""
import math

import ember

from . import constraints
from .distribution import Distribution, as_tensors


class Pareto(Distribution):
    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}
    has_rsample = True

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = as_tensors(scale, alpha)
        super().__init__(self.scale.size(), validate_args=validate_args)

    @property
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self):
        a = self.alpha
        return ember.where(a > 1, a * self.scale / (a - 1), ember.full_like(a, math.inf))

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha
        finite = self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))
        return ember.where(a > 2, finite, ember.full_like(a, math.inf))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = ember.rand(shape, dtype=self.scale.dtype, device=self.scale.device)
        return self.icdf(u)

    def log_prob(self, value):
        self._checked(value)
        return self.alpha.log() + self.alpha * self.scale.log() - (self.alpha + 1) * value.log()

    def cdf(self, value):
        self._checked(value)
        return 1 - (self.scale / value).pow(self.alpha)

    def icdf(self, value):
        # (1 - u)^(-1 / alpha) in log space: exp(-log1p(-u) / alpha).
        return self.scale * ((-value).log1p() / -self.alpha).exp()

    def entropy(self):
        return (self.scale / self.alpha).log() + 1 / self.alpha + 1

    def __repr__(self):
        return "Pareto()"  # torch's (a transformed Exponential) shows no parameters
