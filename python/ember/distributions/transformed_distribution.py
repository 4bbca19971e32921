"""torch.distributions.TransformedDistribution: the law of f(X) for X ~ base and f a chain
of transforms, by the change of variables log p(y) = log p_X(f^-1(y)) - log|det J_f|."""
import ember

from . import constraints
from .distribution import Distribution
from .independent import Independent
from .transforms import ComposeTransform, Transform


def _sum_last(x, n):
    return x.sum(tuple(range(-n, 0))) if n > 0 else x


class TransformedDistribution(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        elif not (isinstance(transforms, list) and all(isinstance(t, Transform) for t in transforms)):
            raise ValueError(f"transforms must be a Transform or a list of Transforms, but was {transforms}")
        self.transforms = transforms
        chain = ComposeTransform(transforms)
        base_event = len(base_distribution.event_shape)
        event_dim = max(chain.codomain.event_dim, base_event)
        # A transform acting on whole vectors turns the base's batch dims into event dims.
        extra = chain.domain.event_dim - base_event
        if extra > 0:
            base_distribution = Independent(base_distribution, extra)
        self.base_dist = base_distribution
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        split = len(shape) - event_dim
        super().__init__(shape[:split], shape[split:], validate_args=validate_args)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def _event_dim(self):
        return len(self._event_shape)

    @property
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        codomain = self.transforms[-1].codomain
        extra = self._event_dim - codomain.event_dim
        return constraints.independent(codomain, extra) if extra > 0 else codomain

    def _push(self, x):
        for t in self.transforms:
            x = t(x)
        return x

    def sample(self, sample_shape=()):
        with ember.no_grad():
            return self._push(self.base_dist.sample(sample_shape))

    def rsample(self, sample_shape=()):
        return self._push(self.base_dist.rsample(sample_shape))

    def log_prob(self, value):
        self._checked(value)
        y, total = value, 0.0
        for t in reversed(self.transforms):
            x = t.inv(y)
            total = total - _sum_last(t.log_abs_det_jacobian(x, y), self._event_dim - t.event_dim)
            y = x
        base_lp = _sum_last(self.base_dist.log_prob(y), self._event_dim - len(self.base_dist.event_shape))
        return total + base_lp

    def _monotone_sign(self):
        sign = 1
        for t in self.transforms:
            s = t.sign
            if not isinstance(s, int):
                raise NotImplementedError("cdf/icdf need transforms with a known constant sign")
            sign *= s
        return sign

    def cdf(self, value):
        self._checked(value)
        sign = self._monotone_sign()
        for t in reversed(self.transforms):
            value = t.inv(value)
        c = self.base_dist.cdf(value)
        return c if sign == 1 else 1 - c

    def icdf(self, value):
        if self._monotone_sign() == -1:
            value = 1 - value
        return self._push(self.base_dist.icdf(value))

    def __repr__(self):
        return f"{type(self).__name__}()"
