"""torch.distributions.Categorical: a distribution over {0, ..., K-1} per batch entry."""
import math

from .distribution import Distribution, _ember


def _logits_to_probs(logits):
    return _ember().nn.functional.softmax(logits, dim=-1)


def _probs_to_logits(probs):
    # torch clamps to [eps, 1 - eps] before the log, so a zero probability gives a
    # large negative logit rather than -inf.
    eps = _ember().finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps).log()


class Categorical(Distribution):
    has_enumerate_support = True
    _constraint_names = {"probs": "Simplex()", "logits": "IndependentConstraint(Real(), 1)"}

    def __init__(self, probs=None, logits=None, validate_args=None):
        ember = _ember()
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self._param = self.logits
        self._is_probs = probs is not None
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else ember.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def _parameter_checks(self):
        ember = _ember()
        if self._is_probs:
            return {"probs": lambda p: ember.all(p >= 0, dim=-1) & ((p.sum(-1) - 1).abs() < 1e-6)}
        return {"logits": lambda v: (v == v).all(-1)}

    def __getattr__(self, name):
        # probs and logits are computed from each other on first use, as torch's lazy_property.
        if name == "probs" and "logits" in self.__dict__:
            self.probs = _logits_to_probs(self.__dict__["logits"])
            return self.probs
        if name == "logits" and "probs" in self.__dict__:
            self.logits = _probs_to_logits(self.__dict__["probs"])
            return self.logits
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        ember = _ember()
        return ember.full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return self.mean

    def sample(self, sample_shape=()):
        ember = _ember()
        if not isinstance(sample_shape, ember.Size):
            sample_shape = ember.Size(sample_shape)
        with ember.no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            samples_2d = ember.multinomial(probs_2d, sample_shape.numel(), True).T
            return samples_2d.reshape(self._extended_shape(sample_shape))

    def _validate_sample(self, value):
        super()._validate_sample(value)
        ember = _ember()
        valid = (value % 1 == 0) & (value >= 0) & (value <= self._num_events - 1)
        if not bool(valid.all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) "
                             f"to be within the support (IntegerInterval(lower_bound=0, upper_bound="
                             f"{self._num_events - 1})) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def log_prob(self, value):
        ember = _ember()
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = ember.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        ember = _ember()
        min_real = ember.finfo(self.logits.dtype).min
        logits = ember.clamp(self.logits, min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand=True):
        ember = _ember()
        values = ember.arange(self._num_events, dtype=ember.long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
