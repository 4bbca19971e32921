"""torch.distributions.Geometric: failures before the first success, success chance `probs`."""
import ember

from . import constraints
from ._coin_parameter import CoinParameter, probs_or_logits
from .distribution import Distribution, as_tensors


class Geometric(CoinParameter, Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        (param,) = as_tensors(probs_or_logits(probs, logits))
        self._keep_parameter(param, probs is not None)
        super().__init__(param.size(), validate_args=validate_args)

    def _check_parameters(self):
        super()._check_parameters()
        if "probs" in self.__dict__ and not bool((self.probs > 0).all()):
            # A zero chance of success has no distribution over the failures.
            raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                             f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found "
                             f"invalid values:\n{self.probs}")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return ember.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        tiny = ember.finfo(self.probs.dtype).tiny
        with ember.no_grad():
            u = ember.rand(shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            # P(K >= k) = (1 - p)^k, so K = floor(log U / log(1 - p)).
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        self._checked(value)
        value, p = ember.broadcast_tensors(value.to(self.probs.dtype), self.probs)
        # p = 1 puts all mass on 0: 0 * log(0) must count as 0 there.
        failures = ember.where((p == 1) & (value == 0), ember.zeros_like(p), value * (-p).log1p())
        return failures + p.log()

    def entropy(self):
        softplus = ember.nn.functional.softplus
        return (softplus(self.logits) - self.probs * self.logits) / self.probs
