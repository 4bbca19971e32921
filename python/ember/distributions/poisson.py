"""torch.distributions.Poisson: counts with mean `rate`."""
import ember

from . import constraints
from .distribution import Distribution, as_tensors


class Poisson(Distribution):
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = as_tensors(rate)
        super().__init__(self.rate.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        with ember.no_grad():
            return ember.poisson(self.rate.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        self._checked(value)
        rate, value = ember.broadcast_tensors(self.rate, value.to(self.rate.dtype))
        return ember.xlogy(value, rate) - rate - (value + 1).lgamma()
