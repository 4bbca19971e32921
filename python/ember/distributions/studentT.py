"""torch.distributions.StudentT: loc + scale * Z / sqrt(V / df), Z standard normal and
V ~ Chi2(df) independent."""
import math

import ember

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution, as_tensors


class StudentT(Distribution):
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = as_tensors(df, loc, scale)
        # The chi-square of the denominator is built (and checks df) first, as torch.
        self._base_chi2 = Chi2(self.df, validate_args=validate_args)
        super().__init__(self.df.size(), validate_args=validate_args)

    @property
    def mean(self):
        return ember.where(self.df > 1, self.loc, ember.full_like(self.loc, math.nan))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        infinite_or_undefined = ember.where(df > 1, ember.full_like(df, math.inf), ember.full_like(df, math.nan))
        return ember.where(df > 2, finite, infinite_or_undefined)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        z = ember.randn(shape, dtype=self.df.dtype, device=self.df.device)
        v = self._base_chi2.rsample(sample_shape)
        return self.loc + self.scale * z * (self.df / v).sqrt()

    def log_prob(self, value):
        self._checked(value)
        df = self.df
        y = (value - self.loc) / self.scale
        log_norm = (0.5 * (df + 1)).lgamma() - (0.5 * df).lgamma() - 0.5 * (df * math.pi).log() - self.scale.log()
        return log_norm - 0.5 * (df + 1) * (y.pow(2) / df).log1p()

    def entropy(self):
        df = self.df
        half, half_next = 0.5 * df, 0.5 * (df + 1)
        log_beta = math.lgamma(0.5) + half.lgamma() - half_next.lgamma()
        h = self.scale.log() + half_next * (half_next.digamma() - half.digamma()) + 0.5 * df.log() + log_beta
        return h
