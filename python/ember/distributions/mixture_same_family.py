"""torch.distributions.MixtureSameFamily: pick component k ~ Categorical, then draw from
component k of a batch of same-family distributions (the last batch dim indexes them)."""
import ember

from . import constraints
from .categorical import Categorical
from .distribution import Distribution


class MixtureSameFamily(Distribution):
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of torch.distributions.Distribution")
        mix_batch = tuple(mixture_distribution.batch_shape)
        comp_batch = tuple(component_distribution.batch_shape)
        if len(comp_batch) < 1:
            raise ValueError("`component_distribution` must have at least one batch dimension")
        outer = comp_batch[:-1]
        for m, c in zip(reversed(mix_batch), reversed(outer)):
            if m != 1 and c != 1 and m != c:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_distribution.batch_shape}) is not "
                                 f"compatible with `component_distribution.batch_shape`"
                                 f"({ember.Size(outer)})")
        k_mix, k_comp = mixture_distribution.logits.shape[-1], comp_batch[-1]
        if k_mix != k_comp:
            raise ValueError(f"`mixture_distribution component` ({k_mix}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({k_comp})")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = k_comp
        super().__init__(outer, component_distribution.event_shape, validate_args=validate_args)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def support(self):
        return constraints.mixture_support(self._component_distribution.support, len(self._event_shape))

    def _weights(self):
        """Mixture probabilities shaped to multiply component statistics (K then event dims)."""
        p = self._mixture_distribution.probs
        return p.reshape(tuple(p.shape) + (1,) * len(self._event_shape))

    @property
    def _component_dim(self):
        return -1 - len(self._event_shape)

    @property
    def mean(self):
        return (self._weights() * self._component_distribution.mean).sum(self._component_dim)

    @property
    def variance(self):
        w, d = self._weights(), self._component_dim
        comp = self._component_distribution
        mean = self.mean.unsqueeze(d)
        # Law of total variance: E[Var | k] + Var[E | k].
        return (w * comp.variance).sum(d) + (w * (comp.mean - mean).pow(2)).sum(d)

    def _per_component(self, value):
        return value.unsqueeze(self._component_dim)

    def log_prob(self, value):
        self._checked(value)
        comp_lp = self._component_distribution.log_prob(self._per_component(value))
        log_w = ember.log_softmax(self._mixture_distribution.logits, dim=-1)
        return (comp_lp + log_w).logsumexp(-1)

    def cdf(self, value):
        self._checked(value)
        comp_cdf = self._component_distribution.cdf(self._per_component(value))
        return (comp_cdf * self._mixture_distribution.probs).sum(-1)

    def sample(self, sample_shape=()):
        with ember.no_grad():
            sample_shape = tuple(sample_shape)
            index = self._mixture_distribution.sample(sample_shape)  # sample + mixture batch
            draws = self._component_distribution.sample(sample_shape)  # sample + batch + (K,) + event
            d = len(sample_shape) + len(self._batch_shape)
            # The mixture's batch may be shorter than ours (it broadcasts): align it right.
            missing = len(self._batch_shape) - len(self._mixture_distribution.batch_shape)
            index = index.reshape(sample_shape + (1,) * missing + tuple(self._mixture_distribution.batch_shape))
            index = index.expand(sample_shape + tuple(self._batch_shape))
            index = index.reshape(tuple(index.shape) + (1,) * (1 + len(self._event_shape)))
            index = index.expand(tuple(draws.shape[:d]) + (1,) + tuple(self._event_shape))
            return draws.gather(d, index).squeeze(d)

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self._mixture_distribution!r},\n  {self._component_distribution!r})")
