"""torch.distributions.RelaxedOneHotCategorical (Concrete / Gumbel-softmax): a
differentiable stand-in for a one-hot draw, softmax((logits + G) / temperature) with G
i.i.d. standard Gumbel noise. ExpRelaxedCategorical is the same point in log space."""
import ember

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform


class ExpRelaxedCategorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._base_categorical = Categorical(probs, logits, validate_args=validate_args)
        if not isinstance(temperature, ember.Tensor):
            temperature = ember.tensor(float(temperature), dtype=self.logits.dtype, device=self.logits.device)
        self.temperature = temperature
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

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        finfo = ember.finfo(self.logits.dtype)
        u = ember.rand(shape, dtype=self.logits.dtype, device=self.logits.device)
        gumbel = -(-u.clamp(min=finfo.tiny, max=1 - finfo.eps).log()).log()
        scores = (self.logits + gumbel) / self.temperature
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value):
        self._checked(value)
        k = self._event_shape[0]
        t = self.temperature
        # Concrete density of Maddison et al. (2017), in log coordinates:
        # (k-1)! t^(k-1) prod(pi_i e^(-t x_i)) / (sum_i pi_i e^(-t x_i))^k.
        shifted = self.logits - value * t
        log_terms = (shifted - shifted.logsumexp(-1, keepdim=True)).sum(-1)
        log_norm = ember.lgamma(ember.full_like(t, float(k))) + (k - 1) * t.log()
        return log_terms + log_norm


class RelaxedOneHotCategorical(TransformedDistribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def probs(self):
        return self.base_dist.probs

    @property
    def logits(self):
        return self.base_dist.logits
