"""torch.distributions.Bernoulli: a coin per batch entry, given by `probs` or `logits`."""
import ember

from . import constraints
from ._coin_parameter import CoinParameter, probs_or_logits
from .distribution import Distribution, as_tensors


class Bernoulli(CoinParameter, Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        (param,) = as_tensors(probs_or_logits(probs, logits))
        self._keep_parameter(param, probs is not None)
        super().__init__(param.size(), validate_args=validate_args)

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
