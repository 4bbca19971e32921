"""torch.distributions.Beta: density x^(a-1) (1-x)^(b-1) / B(a, b) on [0, 1], the
two-category Dirichlet seen through its first coordinate."""
from numbers import Number

import ember

from . import constraints
from ._gamma_sampler import standard_gamma
from .dirichlet import Dirichlet
from .distribution import Distribution, as_tensors


def _log_beta_function(a, b):
    return a.lgamma() + b.lgamma() - (a + b).lgamma()


class Beta(Distribution):
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = as_tensors(concentration1, concentration0)
        super().__init__(self.concentration1.size(), validate_args=validate_args)

    def _check_parameters(self):
        # torch checks the pair as a Dirichlet's concentration, and its message says so.
        with ember.no_grad():
            Dirichlet(self._as_pair(), validate_args=True)

    def _as_pair(self):
        return ember.stack([self.concentration1, self.concentration0], -1)

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        # The Dirichlet's rule, which handles concentrations below 1 (peaks at 0 or 1).
        return Dirichlet(self._as_pair(), validate_args=False).mode[..., 0]

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        total = a + b
        return a * b / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        # X / (X + Y) for independent X ~ Gamma(a), Y ~ Gamma(b); both reparameterized.
        x = standard_gamma(self.concentration1.expand(shape))
        y = standard_gamma(self.concentration0.expand(shape))
        finfo = ember.finfo(x.dtype)
        return (x / (x + y)).clamp(min=finfo.tiny, max=1 - finfo.eps)

    def log_prob(self, value):
        self._checked(value)
        if isinstance(value, Number):
            value = ember.tensor(float(value))
        a, b = self.concentration1, self.concentration0
        value = value.to(a.dtype)
        return ember.xlogy(a - 1, value) + ember.xlogy(b - 1, 1 - value) - _log_beta_function(a, b)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        return (_log_beta_function(a, b) - (a - 1) * a.digamma() - (b - 1) * b.digamma()
                + (a + b - 2) * (a + b).digamma())

    def __repr__(self):
        return "Beta()"  # torch's shows no parameters (they are properties there)
