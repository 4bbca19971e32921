"""torch.distributions.HalfCauchy: |X| for X ~ Cauchy(0, scale)."""
import math

import ember

from . import constraints
from .cauchy import Cauchy
from .distribution import Distribution, as_tensors


class HalfCauchy(Distribution):
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        (self.scale,) = as_tensors(scale)
        super().__init__(self.scale.size(), validate_args=validate_args)

    def _cauchy(self):
        return Cauchy(ember.zeros_like(self.scale), self.scale, validate_args=False)

    @property
    def mean(self):
        return ember.full_like(self.scale, math.inf)

    @property
    def mode(self):
        return ember.zeros_like(self.scale)

    @property
    def variance(self):
        return ember.full_like(self.scale, math.inf)

    def rsample(self, sample_shape=()):
        return self._cauchy().rsample(sample_shape).abs()

    def log_prob(self, value):
        self._checked(value)
        lp = self._cauchy().log_prob(value) + math.log(2)
        return ember.where(value >= 0, lp, ember.full_like(lp, -math.inf))

    def cdf(self, value):
        self._checked(value)
        return 2 * self._cauchy().cdf(value) - 1

    def icdf(self, value):
        return self._cauchy().icdf((value + 1) / 2)

    def entropy(self):
        return self._cauchy().entropy() - math.log(2)

    def __repr__(self):
        return "HalfCauchy()"  # torch's (a transformed Cauchy) shows no parameters
