"""torch.distributions.RelaxedBernoulli (binary Concrete): a differentiable stand-in for a
coin flip, sigmoid((logits + L) / temperature) with L standard logistic noise."""
import ember

from . import constraints
from ._coin_parameter import CoinParameter, probs_or_logits
from .distribution import Distribution, as_tensors
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform


class LogitRelaxedBernoulli(CoinParameter, Distribution):
    """The relaxed coin before the sigmoid: (logits + L) / temperature."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        (param,) = as_tensors(probs_or_logits(probs, logits))
        if not isinstance(temperature, ember.Tensor):
            temperature = ember.tensor(float(temperature), dtype=param.dtype, device=param.device)
        self.temperature = temperature
        self._keep_parameter(param, probs is not None)
        super().__init__(param.size(), validate_args=validate_args)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        finfo = ember.finfo(self._param.dtype)
        u = ember.rand(shape, dtype=self._param.dtype, device=self._param.device)
        u = u.clamp(min=finfo.tiny, max=1 - finfo.eps)
        noise = u.log() - (-u).log1p()  # standard logistic
        return (self.logits + noise) / self.temperature

    def log_prob(self, value):
        self._checked(value)
        t = self.temperature
        shifted = self.logits - value * t
        # Density of a logistic variable with location logits / t and scale 1 / t.
        return t.log() + shifted - 2 * ember.nn.functional.softplus(shifted)


class RelaxedBernoulli(TransformedDistribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def probs(self):
        return self.base_dist.probs

    @property
    def logits(self):
        return self.base_dist.logits
