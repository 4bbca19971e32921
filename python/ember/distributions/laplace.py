"""torch.distributions.Laplace: density exp(-|x - loc| / scale) / (2 scale)."""
import math

import ember

from . import constraints
from .distribution import Distribution, as_tensors


class Laplace(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = as_tensors(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = ember.finfo(self.loc.dtype).eps
        # u uniform on (-1, 1): the open lower end keeps log1p(-|u|) finite.
        u = (2 * ember.rand(shape, dtype=self.loc.dtype, device=self.loc.device) - 1).clamp(min=eps - 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        self._checked(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        self._checked(value)
        z = value - self.loc
        return 0.5 - 0.5 * z.sign() * ember.expm1(-z.abs() / self.scale)

    def icdf(self, value):
        centered = value - 0.5
        return self.loc - self.scale * centered.sign() * (-2 * centered.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()
