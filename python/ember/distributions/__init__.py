"""ember.distributions: the torch.distributions classes that training programs use
most (policy-gradient agents sample actions from Categorical; VAEs and Gaussian
policies use Normal). Same parameters, shapes, sampling shapes, log-probabilities,
entropies and argument validation as torch.distributions; others are not here yet.
"""
from .distribution import Distribution  # noqa: F401
from .categorical import Categorical  # noqa: F401
from .normal import Normal  # noqa: F401

__all__ = ["Distribution", "Categorical", "Normal"]
