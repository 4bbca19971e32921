"""torch.distributions.Multinomial: counts per category after `total_count` draws from a
Categorical(probs); each event is a length-K count vector."""
import math

import ember

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution


class Multinomial(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._base_categorical = Categorical(probs=probs, logits=logits, validate_args=validate_args)
        cat = self._base_categorical
        super().__init__(cat.batch_shape, cat.param_shape[-1:], validate_args=validate_args)

    @property
    def probs(self):
        return self._base_categorical.probs

    @property
    def logits(self):
        return self._base_categorical.logits

    @property
    def param_shape(self):
        return self._base_categorical.param_shape

    @property
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        sample_shape = tuple(sample_shape)
        n, k = self.total_count, self._event_shape[0]
        with ember.no_grad():
            # n category draws per entry, counted with a one-hot sum over the draws.
            draws = self._base_categorical.sample((n,) + sample_shape)
            counts = ember.nn.functional.one_hot(draws, k).to(self.probs.dtype).sum(0)
            return counts.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        self._checked(value)
        logits = self.logits
        value = value.to(logits.dtype)
        logits, value = ember.broadcast_tensors(logits, value)
        # A category with zero probability and zero count contributes 0, not 0 * -inf.
        weighted = ember.where(value == 0, ember.zeros_like(logits), value * logits).sum(-1)
        log_coefficient = (value.sum(-1) + 1).lgamma() - (value + 1).lgamma().sum(-1)
        return log_coefficient + weighted

    def entropy(self):
        # H = -log n! - n sum p log p + sum_k E[log X_k!], with X_k ~ Binomial(n, p_k).
        n = self.total_count
        p = self.probs
        counts = ember.arange(n + 1, dtype=p.dtype, device=p.device)
        counts = counts.reshape((n + 1,) + (1,) * p.dim())
        marginal = Binomial(n, probs=p, validate_args=False)
        pmf = marginal.log_prob(counts).exp()
        expected_log_fact = (pmf * (counts + 1).lgamma()).sum((0, -1))
        p_log_p = ember.where(p == 0, ember.zeros_like(p), p * self.logits).sum(-1)
        return -n * p_log_p - math.lgamma(n + 1) + expected_log_fact
