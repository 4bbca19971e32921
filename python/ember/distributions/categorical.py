"""torch.distributions.Categorical: one of K classes per batch entry, from `probs` (rows
normalized to sum to 1) or `logits` (normalized to log-probabilities)."""
import math

import ember

from . import constraints
from ._lazy import cached_attribute
from .distribution import Distribution


class Categorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        if given.dim() < 1:
            raise ValueError(f"`{name}` parameter must be at least one-dimensional.")
        if name == "probs":
            self.probs = given / given.sum(-1, keepdim=True)
        else:
            self.logits = given - given.logsumexp(dim=-1, keepdim=True)
        self._param = self.__dict__[name]
        super().__init__(self._param.shape[:-1], validate_args=validate_args)

    @cached_attribute
    def probs(self):
        return ember.softmax(self.logits, dim=-1)

    @cached_attribute
    def logits(self):
        # Probabilities kept eps away from 0 and 1: a zero probability becomes a very
        # negative logit rather than -inf (torch's convention).
        eps = ember.finfo(self.probs.dtype).eps
        return self.probs.clamp(min=eps, max=1 - eps).log()

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def _num_events(self):
        return self._param.shape[-1]

    @property
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        # A class index has no meaningful mean or variance: NaN, as torch.
        p = self._param
        return ember.full(self._extended_shape(), math.nan, dtype=p.dtype, device=p.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return self.mean

    def sample(self, sample_shape=()):
        sample_shape = ember.Size(sample_shape)
        with ember.no_grad():
            table = self.probs.reshape(-1, self._num_events)  # one row per batch entry
            draws = ember.multinomial(table, sample_shape.numel(), True)  # rows x draws
            return draws.T.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        self._checked(value)
        shape = tuple(ember.broadcast_shapes(value.shape, self._batch_shape))
        index = value.long().expand(shape).unsqueeze(-1)
        table = self.logits.expand(shape + (self._num_events,))
        return table.gather(-1, index).squeeze(-1)

    def entropy(self):
        # -sum p log p; a -inf logit (p = 0) is clamped so that 0 * log 0 counts as 0.
        log_p = self.logits.clamp(min=ember.finfo(self.logits.dtype).min)
        return -(self.probs * log_p).sum(-1)

    def enumerate_support(self, expand=True):
        k = self._num_events
        values = ember.arange(k, dtype=ember.long, device=self._param.device)
        values = values.reshape((k,) + (1,) * len(self._batch_shape))
        return values.expand((k,) + tuple(self._batch_shape)) if expand else values
