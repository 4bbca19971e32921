"""kl_divergence(p, q) = E_p[log p - log q] in closed form, looked up by the classes of
p and q in a registry that `register_kl` fills (torch's API). A pair matches every
registered (P, Q) with p an instance of P and q of Q; the most specific wins."""
import math

import ember

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .cauchy import Cauchy
from .categorical import Categorical
from .dirichlet import Dirichlet
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import _EULER_GAMMA, Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal, _half_log_det
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

_KL_REGISTRY = {}
_KL_MEMOIZE = {}


def register_kl(type_p, type_q):
    """Decorator: use the decorated function for kl_divergence(P-instance, Q-instance)."""
    if not isinstance(type_p, type) or not isinstance(type_q, type):
        raise TypeError(f"Expected type_p and type_q to be classes, got {type_p} and {type_q}")

    def register(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        _KL_MEMOIZE.clear()
        return fn
    return register


def _lookup(type_p, type_q):
    key = (type_p, type_q)
    if key not in _KL_MEMOIZE:
        best, best_rank = None, None
        for (p, q), fn in _KL_REGISTRY.items():
            if issubclass(type_p, p) and issubclass(type_q, q):
                rank = (type_p.__mro__.index(p), type_q.__mro__.index(q))
                if best_rank is None or rank < best_rank:
                    best, best_rank = fn, rank
        _KL_MEMOIZE[key] = best
    return _KL_MEMOIZE[key]


def kl_divergence(p, q):
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} "
                                  f"and q type {type(q).__name__}")
    return fn(p, q)


def _softplus(x):
    return ember.nn.functional.softplus(x)


@register_kl(Normal, Normal)
def _normal_normal(p, q):
    ratio_sq = (p.scale / q.scale).pow(2)
    shift_sq = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (ratio_sq + shift_sq - 1 - ratio_sq.log())


@register_kl(Bernoulli, Bernoulli)
def _bernoulli_bernoulli(p, q):
    # log sigmoid(l) = -softplus(-l) and log(1 - sigmoid(l)) = -softplus(l).
    lp, lq, pp = p.logits, q.logits, p.probs
    return pp * (_softplus(-lq) - _softplus(-lp)) + (1 - pp) * (_softplus(lq) - _softplus(lp))


@register_kl(Categorical, Categorical)
def _categorical_categorical(p, q):
    pp, qp = ember.broadcast_tensors(p.probs, q.probs)
    terms = pp * (p.logits - q.logits)
    # 0 log 0 = 0, and mass where q has none makes the divergence infinite.
    terms = ember.where(pp == 0, ember.zeros_like(terms), terms)
    terms = ember.where((qp == 0) & (pp > 0), ember.full_like(terms, math.inf), terms)
    return terms.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _one_hot_one_hot(p, q):
    return _categorical_categorical(p._base_categorical, q._base_categorical)


@register_kl(Dirichlet, Dirichlet)
def _dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    a0, b0 = a.sum(-1), b.sum(-1)
    log_norms = a0.lgamma() - b0.lgamma() - (a.lgamma() - b.lgamma()).sum(-1)
    return log_norms + ((a - b) * (a.digamma() - a0.digamma().unsqueeze(-1))).sum(-1)


@register_kl(Beta, Beta)
def _beta_beta(p, q):
    pair = lambda d: Dirichlet(d._as_pair(), validate_args=False)  # noqa: E731
    return _dirichlet_dirichlet(pair(p), pair(q))


@register_kl(Gamma, Gamma)
def _gamma_gamma(p, q):
    ap, bp, aq, bq = p.concentration, p.rate, q.concentration, q.rate
    return ((ap - aq) * ap.digamma() - ap.lgamma() + aq.lgamma()
            + aq * (bp.log() - bq.log()) + ap * (bq - bp) / bp)


@register_kl(Exponential, Exponential)
def _exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - ratio.log() - 1


@register_kl(Uniform, Uniform)
def _uniform_uniform(p, q):
    kl = ((q.high - q.low) / (p.high - p.low)).log()
    uncovered = (q.low > p.low) | (q.high < p.high)
    return ember.where(uncovered, ember.full_like(kl, math.inf), kl)


@register_kl(Laplace, Laplace)
def _laplace_laplace(p, q):
    ratio = p.scale / q.scale
    dist = (p.loc - q.loc).abs()
    return -ratio.log() + dist / q.scale + ratio * (-dist / p.scale).exp() - 1


@register_kl(Poisson, Poisson)
def _poisson_poisson(p, q):
    return ember.xlogy(p.rate, p.rate) - ember.xlogy(p.rate, q.rate) - (p.rate - q.rate)


@register_kl(MultivariateNormal, MultivariateNormal)
def _mvn_mvn(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes "
                         "cannot be computed")
    n = p.event_shape[0]
    batch = ember.broadcast_shapes(p.batch_shape, q.batch_shape)
    lp = p.scale_tril.expand(tuple(batch) + (n, n))
    lq = q.scale_tril.expand(tuple(batch) + (n, n))
    # tr(Sigma_q^-1 Sigma_p) = |Lq^-1 Lp|_F^2, Mahalanobis term = |Lq^-1 (mu_q - mu_p)|^2.
    trace = ember.linalg.solve_triangular(lq, lp, upper=False).pow(2).sum((-2, -1))
    shift = (q.loc - p.loc).expand(tuple(batch) + (n,)).unsqueeze(-1)
    maha = ember.linalg.solve_triangular(lq, shift, upper=False).pow(2).sum((-2, -1))
    return _half_log_det(lq) - _half_log_det(lp) + 0.5 * (trace + maha - n)


@register_kl(Independent, Independent)
def _independent_independent(p, q):
    n = p.reinterpreted_batch_ndims
    if n != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    kl = kl_divergence(p.base_dist, q.base_dist)
    return kl.sum(tuple(range(-n, 0))) if n > 0 else kl


@register_kl(Binomial, Binomial)
def _binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    # n independent coins: n times the Bernoulli divergence; where p can count past q's
    # total, p has mass outside q's support and the divergence is infinite.
    lp, lq, pp = p.logits, q.logits, p.probs
    per_coin = pp * (_softplus(-lq) - _softplus(-lp)) + (1 - pp) * (_softplus(lq) - _softplus(lp))
    kl = p.total_count * per_coin
    return ember.where(p.total_count > q.total_count, ember.full_like(kl, math.inf), kl)


@register_kl(Geometric, Geometric)
def _geometric_geometric(p, q):
    # E_p[log q(K)] = log q + E_p[K] log(1 - q), with E_p[K] = 1/p - 1.
    cross = q.probs.log() + (1 / p.probs - 1) * (-q.probs).log1p()
    return -p.entropy() - cross


@register_kl(Gumbel, Gumbel)
def _gumbel_gumbel(p, q):
    ratio = p.scale / q.scale
    shift = (p.loc - q.loc) / q.scale
    # E_p[exp(-(X - loc_q) / scale_q)] = exp(-shift) Gamma(1 + ratio).
    tail = (ember.lgamma(1 + ratio) - shift).exp()
    return -ratio.log() + _EULER_GAMMA * (ratio - 1) + shift + tail - 1


@register_kl(HalfNormal, HalfNormal)
def _half_normal_half_normal(p, q):
    ratio_sq = (p.scale / q.scale).pow(2)
    return 0.5 * (ratio_sq - 1 - ratio_sq.log())


@register_kl(Cauchy, Cauchy)
def _cauchy_cauchy(p, q):
    # Closed form of Chyzak and Nielsen (2019).
    num = (p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)
    return (num / (4 * p.scale * q.scale)).log()


@register_kl(TransformedDistribution, TransformedDistribution)
def _transformed_transformed(p, q):
    # A shared bijection leaves the divergence unchanged: compare the bases.
    if p.transforms != q.transforms:
        raise NotImplementedError("KL between TransformedDistributions needs the same transforms")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("KL between TransformedDistributions needs the same event shape")
    return kl_divergence(p.base_dist, q.base_dist)
