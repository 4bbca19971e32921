"""torch.distributions.Binomial: successes in `total_count` coin flips of probability `probs`."""
import ember

from . import constraints
from ._coin_parameter import CoinParameter, probs_or_logits
from .distribution import Distribution, as_tensors


class Binomial(CoinParameter, Distribution):
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        count, param = as_tensors(total_count, probs_or_logits(probs, logits))
        self.total_count = count.to(param.dtype)
        self._keep_parameter(param, probs is not None)
        super().__init__(param.size(), validate_args=validate_args)

    @property
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        self._checked(value)
        n, k, logits = ember.broadcast_tensors(self.total_count, value.to(self._param.dtype), self.logits)
        log_choose = (n + 1).lgamma() - (k + 1).lgamma() - (n - k + 1).lgamma()
        # k log p + (n - k) log(1 - p) = k * logit - n * log(1 + e^logit). Written with
        # |logit| so that neither term overflows, and a 0 * inf (k = 0 or k = n at a
        # probability of exactly 0 or 1) never appears.
        log_1p_exp = ember.nn.functional.softplus(-logits.abs()) + logits.clamp(min=0)
        both_zero = (n == 0) & (k == 0)
        return log_choose + ember.where(both_zero, ember.zeros_like(k), k * logits - n * log_1p_exp)

    def entropy(self):
        count = int(self.total_count.max())
        if not bool((self.total_count == count).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        values = self.enumerate_support(expand=False)
        log_pmf = self.log_prob(values)
        return -(log_pmf.exp() * log_pmf).sum(0)

    def enumerate_support(self, expand=True):
        count = int(self.total_count.max())
        if not bool((self.total_count == count).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = ember.arange(1 + count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
