"""torch.distributions.OneHotCategorical: Categorical with samples as one-hot vectors."""
import ember

from . import constraints
from .categorical import Categorical
from .distribution import Distribution


class OneHotCategorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._base_categorical = Categorical(probs, logits, validate_args=validate_args)
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
    def _num_events(self):
        return self._event_shape[0]

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        return ember.nn.functional.one_hot(self.probs.argmax(-1), self._num_events).to(self.probs.dtype)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        index = self._base_categorical.sample(sample_shape)
        return ember.nn.functional.one_hot(index, self._num_events).to(self.probs.dtype)

    def log_prob(self, value):
        self._checked(value)
        return self._base_categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._base_categorical.entropy()

    def enumerate_support(self, expand=True):
        k = self._num_events
        values = ember.eye(k, dtype=self.probs.dtype, device=self.probs.device)
        values = values.view((k,) + (1,) * len(self._batch_shape) + (k,))
        return values.expand((k,) + tuple(self._batch_shape) + (k,)) if expand else values
