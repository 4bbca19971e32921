"""torch.distributions.Normal: independent Gaussians with mean `loc`, deviation `scale`."""
import math
from numbers import Number

from .distribution import Distribution, _ember


class Normal(Distribution):
    has_rsample = True
    _constraint_names = {"loc": "Real()", "scale": "GreaterThan(lower_bound=0.0)"}

    def __init__(self, loc, scale, validate_args=None):
        ember = _ember()
        if isinstance(loc, Number) and isinstance(scale, Number):
            batch_shape = ember.Size()
            loc = ember.tensor(float(loc))
            scale = ember.tensor(float(scale))
        else:
            if isinstance(loc, Number):
                loc = ember.tensor(float(loc), dtype=scale.dtype, device=scale.device)
            if isinstance(scale, Number):
                scale = ember.tensor(float(scale), dtype=loc.dtype, device=loc.device)
            loc, scale = ember.broadcast_tensors(loc, scale)
            batch_shape = loc.size()
        self.loc, self.scale = loc, scale
        super().__init__(batch_shape, validate_args=validate_args)

    def _parameter_checks(self):
        return {"loc": lambda v: v == v, "scale": lambda v: v > 0}

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def sample(self, sample_shape=()):
        ember = _ember()
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=()):
        ember = _ember()
        shape = self._extended_shape(sample_shape)
        eps = ember.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def _validate_sample(self, value):
        super()._validate_sample(value)
        ember = _ember()
        if not bool((value == value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) "
                             f"to be within the support (Real()) of the distribution {self!r}, but found "
                             f"invalid values:\n{value}")

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        ember = _ember()
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ember.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        ember = _ember()
        return self.loc + self.scale * ember.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
