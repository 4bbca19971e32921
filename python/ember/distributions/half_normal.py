"""torch.distributions.HalfNormal: |X| for X ~ Normal(0, scale)."""
import math

import ember

from . import constraints
from .distribution import Distribution, as_tensors
from .normal import Normal


class HalfNormal(Distribution):
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        (self.scale,) = as_tensors(scale)
        super().__init__(self.scale.size(), validate_args=validate_args)

    def _normal(self):
        return Normal(ember.zeros_like(self.scale), self.scale, validate_args=False)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return ember.zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def rsample(self, sample_shape=()):
        return self._normal().rsample(sample_shape).abs()

    def log_prob(self, value):
        self._checked(value)
        lp = self._normal().log_prob(value) + math.log(2)
        return ember.where(value >= 0, lp, ember.full_like(lp, -math.inf))

    def cdf(self, value):
        self._checked(value)
        return 2 * self._normal().cdf(value) - 1

    def icdf(self, value):
        return self._normal().icdf((value + 1) / 2)

    def entropy(self):
        return self._normal().entropy() - math.log(2)

    def __repr__(self):
        return "HalfNormal()"  # torch's (a transformed Normal) shows no parameters
