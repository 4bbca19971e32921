"""torch.distributions.Gamma: shape `concentration`, inverse scale `rate`."""
import ember

from . import constraints
from ._gamma_sampler import standard_gamma
from .distribution import Distribution, as_tensors


class Gamma(Distribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = as_tensors(concentration, rate)
        super().__init__(self.concentration.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return x.clamp(min=ember.finfo(x.dtype).tiny)

    def log_prob(self, value):
        self._checked(value)
        a, b = self.concentration, self.rate
        value = value.to(a.dtype)
        return ember.xlogy(a, b) + ember.xlogy(a - 1, value) - b * value - a.lgamma()

    def cdf(self, value):
        self._checked(value)
        return ember.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        a = self.concentration
        return a - self.rate.log() + a.lgamma() + (1 - a) * a.digamma()
