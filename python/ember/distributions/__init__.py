"""ember.distributions: the torch.distributions classes that training programs use most
(policy gradients sample from Categorical/Normal/Bernoulli; VAEs use Normal,
Independent and kl_divergence; SAC squashes a Normal through TanhTransform; Bayesian
models use Gamma/Beta/Dirichlet). Same parameters, shapes, sampling shapes,
log-probabilities, entropies, KL divergences and argument validation as
torch.distributions; see docs/distributions.md for what is not here.
"""
from . import constraints, transforms  # noqa: F401
from .bernoulli import Bernoulli
from .binomial import Binomial
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform, IndependentTransform,
                         PowerTransform, SigmoidTransform, SoftmaxTransform, SoftplusTransform, TanhTransform,
                         Transform)
from .uniform import Uniform
from .weibull import Weibull
from . import kl  # noqa: F401

__all__ = [
    "AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2",
    "ComposeTransform", "Dirichlet", "Distribution", "ExpTransform", "Exponential", "Gamma", "Geometric",
    "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "IndependentTransform", "Laplace", "LogNormal",
    "MixtureSameFamily", "Multinomial", "MultivariateNormal", "Normal", "OneHotCategorical", "Pareto",
    "Poisson", "PowerTransform", "RelaxedBernoulli", "RelaxedOneHotCategorical", "SigmoidTransform",
    "SoftmaxTransform", "SoftplusTransform", "StudentT", "TanhTransform", "Transform",
    "TransformedDistribution", "Uniform", "Weibull", "biject_to", "constraints", "kl_divergence", "register_kl",
    "transform_to", "transforms",
]
