"""torch.distributions.Bernoulli: a coin per batch entry, given by `probs` or `logits`."""
import ember

from . import constraints
from ._lazy import cached_attribute
from .distribution import Distribution, as_tensors


def binary_logits(probs):
    """log(p / (1 - p)), with p kept eps away from 0 and 1 so the logit stays finite."""
    eps = ember.finfo(probs.dtype).eps
    p = probs.clamp(min=eps, max=1 - eps)
    return p.log() - (-p).log1p()


class Bernoulli(Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        (param,) = as_tensors(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        super().__init__(param.size(), validate_args=validate_args)

    @cached_attribute
    def probs(self):
        return ember.sigmoid(self.logits)

    @cached_attribute
    def logits(self):
        return binary_logits(self.probs)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        p = self.probs
        # A fair coin has no single mode: NaN, as torch.
        return ember.where(p == 0.5, ember.full_like(p, float("nan")), (p > 0.5).to(p.dtype))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        with ember.no_grad():
            return ember.bernoulli(self.probs.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        self._checked(value)
        logits, value = ember.broadcast_tensors(self.logits, value.to(self.logits.dtype))
        # log p(v) = v * log sigmoid(l) + (1 - v) * log sigmoid(-l) = -(softplus(l) - v * l)
        return value * logits - ember.nn.functional.softplus(logits)

    def entropy(self):
        logits, p = self.logits, self.probs
        return ember.nn.functional.softplus(logits) - p * logits

    def enumerate_support(self, expand=True):
        values = ember.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
