"""torch.distributions.Weibull: cdf 1 - exp(-(x / scale)^concentration) on x > 0."""
import ember

from . import constraints
from .distribution import Distribution, as_tensors

_EULER_GAMMA = 0.57721566490153286060


class Weibull(Distribution):
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = as_tensors(scale, concentration)
        super().__init__(self.scale.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * (1 + 1 / self.concentration).lgamma().exp()

    @property
    def mode(self):
        k = self.concentration
        peak = self.scale * ((k - 1) / k).pow(1 / k)
        return ember.where(k > 1, peak, ember.zeros_like(peak))

    @property
    def variance(self):
        k = self.concentration
        g1 = (1 + 1 / k).lgamma().exp()
        g2 = (1 + 2 / k).lgamma().exp()
        return self.scale.pow(2) * (g2 - g1.pow(2))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = ember.rand(shape, dtype=self.scale.dtype, device=self.scale.device)
        return self.icdf(u)

    def log_prob(self, value):
        self._checked(value)
        k = self.concentration
        z = value / self.scale
        return (k / self.scale).log() + (k - 1) * z.log() - z.pow(k)

    def cdf(self, value):
        self._checked(value)
        return -ember.expm1(-(value / self.scale).pow(self.concentration))

    def icdf(self, value):
        return self.scale * (-(-value).log1p()).pow(1 / self.concentration)

    def entropy(self):
        k = self.concentration
        return _EULER_GAMMA * (1 - 1 / k) + (self.scale / k).log() + 1

    def __repr__(self):
        return "Weibull()"  # torch's (a transformed Exponential) shows no parameters
