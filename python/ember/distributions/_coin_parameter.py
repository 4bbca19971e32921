"""The parameter of the distributions built on a coin (Bernoulli, Binomial, the relaxed
Bernoulli): given as `probs` or as `logits`, the other derived on first use."""
import ember

from ._lazy import cached_attribute


def binary_logits(probs):
    """log(p / (1 - p)), with p kept eps away from 0 and 1 so the logit stays finite."""
    eps = ember.finfo(probs.dtype).eps
    p = probs.clamp(min=eps, max=1 - eps)
    return p.log() - (-p).log1p()


def probs_or_logits(probs, logits):
    """The one of probs and logits that was given (torch's error for none or both)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return probs if probs is not None else logits


class CoinParameter:
    """Mixed in before Distribution: keeps the given parameter, derives the other."""

    def _keep_parameter(self, param, given_probs):
        if given_probs:
            self.probs = param
        else:
            self.logits = param
        self._param = param

    @cached_attribute
    def probs(self):
        return ember.sigmoid(self.logits)

    @cached_attribute
    def logits(self):
        return binary_logits(self.probs)

    @property
    def param_shape(self):
        return self._param.size()
