"""ember.distributions against torch.distributions: every distribution built from the
same float64 parameters, compared on log_prob, cdf/icdf, entropy, moments, mode,
support, enumerate_support, expand, shapes and log_prob gradients; samples checked by
shape, dtype, support and moments (20,000 draws within 6 standard errors, fixed seed,
since ember's random stream differs from torch's); rsample gradients checked against
the gradient of the analytic mean; validation errors, constraints, transforms and
kl_divergence against torch. Covers what ember.distributions implements (see
docs/distributions.md)."""
import math

import numpy as np
import pytest

import ember
import ember.distributions as ED

torch = pytest.importorskip("torch")
TD = torch.distributions

RTOL, ATOL = 1e-7, 1e-9


def to_np(x):
    if isinstance(x, (tuple, list)):
        return type(x)(to_np(v) for v in x)
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    if isinstance(x, ember.Tensor):
        return x.detach().numpy()
    return np.asarray(x)


def close(e, t, rtol=RTOL, atol=ATOL):
    e, t = to_np(e), to_np(t)
    assert e.shape == t.shape, (e.shape, t.shape)
    np.testing.assert_allclose(e.astype(np.float64), t.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)


def to_ember(t):
    return ember.tensor(t.detach().cpu().numpy())


def rnd(rng, *shape, low=0.5, high=2.0):
    return rng.uniform(low, high, size=shape)


def spd(rng, *batch, n=3):
    a = rng.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def simplex(rng, *shape):
    p = rng.uniform(0.1, 1.0, size=shape)
    return p / p.sum(-1, keepdims=True)


# (id, parameters from a numpy Generator, builder(lib, params as lib tensors))
SPECS = [
    ("Normal", lambda r: dict(loc=r.normal(size=3), scale=rnd(r, 3)), lambda D, p: D.Normal(**p)),
    ("Bernoulli_probs", lambda r: dict(probs=r.uniform(0.1, 0.9, 3)), lambda D, p: D.Bernoulli(**p)),
    ("Bernoulli_logits", lambda r: dict(logits=r.normal(size=(2, 3))), lambda D, p: D.Bernoulli(**p)),
    ("Beta", lambda r: dict(concentration1=rnd(r, 3), concentration0=rnd(r, 3) + 1), lambda D, p: D.Beta(**p)),
    ("Categorical_probs", lambda r: dict(probs=simplex(r, 2, 4)), lambda D, p: D.Categorical(**p)),
    ("Categorical_logits", lambda r: dict(logits=r.normal(size=(2, 4))), lambda D, p: D.Categorical(**p)),
    ("Dirichlet", lambda r: dict(concentration=rnd(r, 2, 4)), lambda D, p: D.Dirichlet(**p)),
    ("Exponential", lambda r: dict(rate=rnd(r, 3)), lambda D, p: D.Exponential(**p)),
    ("Gamma", lambda r: dict(concentration=rnd(r, 3, low=0.3, high=4), rate=rnd(r, 3)), lambda D, p: D.Gamma(**p)),
    ("Independent", lambda r: dict(loc=r.normal(size=(2, 3)), scale=rnd(r, 2, 3)),
     lambda D, p: D.Independent(D.Normal(**p), 1)),
    ("Laplace", lambda r: dict(loc=r.normal(size=3), scale=rnd(r, 3)), lambda D, p: D.Laplace(**p)),
    ("LogNormal", lambda r: dict(loc=r.normal(size=3) * 0.3, scale=rnd(r, 3, low=0.2, high=0.5)),
     lambda D, p: D.LogNormal(**p)),
    ("MultivariateNormal_scale_tril", lambda r: dict(loc=r.normal(size=(2, 3)), scale_tril=np.linalg.cholesky(spd(r, 2))),
     lambda D, p: D.MultivariateNormal(**p)),
    ("MultivariateNormal_covariance", lambda r: dict(loc=r.normal(size=(2, 3)), covariance_matrix=spd(r, 2)),
     lambda D, p: D.MultivariateNormal(**p)),
    ("MultivariateNormal_precision", lambda r: dict(loc=r.normal(size=3), precision_matrix=spd(r)),
     lambda D, p: D.MultivariateNormal(**p)),
    ("OneHotCategorical", lambda r: dict(probs=simplex(r, 2, 4)), lambda D, p: D.OneHotCategorical(**p)),
    ("Poisson", lambda r: dict(rate=rnd(r, 3, low=0.5, high=5)), lambda D, p: D.Poisson(**p)),
    ("TransformedDistribution", lambda r: dict(loc=r.normal(size=3), scale=rnd(r, 3, low=0.2, high=0.5)),
     lambda D, p: D.TransformedDistribution(D.Normal(**p), [D.AffineTransform(1.0, 2.0), D.ExpTransform()])),
    ("Uniform", lambda r: dict(low=r.normal(size=3), high=r.normal(size=3) + 3), lambda D, p: D.Uniform(**p)),
    ("Binomial", lambda r: dict(probs=r.uniform(0.1, 0.9, 3)), lambda D, p: D.Binomial(10, **p)),
    ("Binomial_tensor_count", lambda r: dict(total_count=np.array([3.0, 5.0, 7.0]), logits=r.normal(size=3)),
     lambda D, p: D.Binomial(**p)),
    ("Cauchy", lambda r: dict(loc=r.normal(size=3), scale=rnd(r, 3)), lambda D, p: D.Cauchy(**p)),
    ("Chi2", lambda r: dict(df=rnd(r, 3, low=2.5, high=6)), lambda D, p: D.Chi2(**p)),
    ("Geometric", lambda r: dict(probs=r.uniform(0.2, 0.9, 3)), lambda D, p: D.Geometric(**p)),
    ("Gumbel", lambda r: dict(loc=r.normal(size=3), scale=rnd(r, 3)), lambda D, p: D.Gumbel(**p)),
    ("HalfNormal", lambda r: dict(scale=rnd(r, 3)), lambda D, p: D.HalfNormal(**p)),
    ("MixtureSameFamily", lambda r: dict(logits=r.normal(size=(2, 3)), loc=r.normal(size=(2, 3)), scale=rnd(r, 2, 3)),
     lambda D, p: D.MixtureSameFamily(D.Categorical(logits=p["logits"]), D.Normal(p["loc"], p["scale"]))),
    ("RelaxedBernoulli", lambda r: dict(temperature=np.array(0.7), probs=r.uniform(0.1, 0.9, 3)),
     lambda D, p: D.RelaxedBernoulli(**p)),
    ("StudentT", lambda r: dict(df=rnd(r, 3, low=5, high=8), loc=r.normal(size=3), scale=rnd(r, 3)),
     lambda D, p: D.StudentT(**p)),
    ("Multinomial", lambda r: dict(probs=simplex(r, 2, 4)), lambda D, p: D.Multinomial(5, **p)),
    ("RelaxedOneHotCategorical", lambda r: dict(temperature=np.array(0.7), probs=simplex(r, 2, 4)),
     lambda D, p: D.RelaxedOneHotCategorical(**p)),
    ("HalfCauchy", lambda r: dict(scale=rnd(r, 3)), lambda D, p: D.HalfCauchy(**p)),
    ("Pareto", lambda r: dict(scale=rnd(r, 3), alpha=rnd(r, 3, low=4.5, high=6)), lambda D, p: D.Pareto(**p)),
    ("Weibull", lambda r: dict(scale=rnd(r, 3), concentration=rnd(r, 3, low=1, high=3)), lambda D, p: D.Weibull(**p)),
]
IDS = [s[0] for s in SPECS]
# Means/variances that a sample of 20,000 cannot check (infinite or undefined).
# Finite variance but a 4th moment too large for a 10% check of the sample variance.
HEAVY_TAILS = {"StudentT", "Pareto", "LogNormal", "TransformedDistribution"}
NO_MOMENTS = {"Cauchy", "HalfCauchy", "MixtureSameFamily"}


def build(spec, seed=0, requires_grad=False):
    name, params, builder = spec
    p = params(np.random.default_rng(seed))
    tp = {k: torch.tensor(v, dtype=torch.float64, requires_grad=requires_grad) for k, v in p.items()}
    ep = {k: ember.tensor(v, dtype=ember.float64, requires_grad=requires_grad) for k, v in p.items()}
    return builder(ED, ep), builder(TD, tp), ep, tp


def both(fn_e, fn_t):
    """Run fn on each side; if torch raises, ember must raise the same type."""
    try:
        t = fn_t()
    except (NotImplementedError, ValueError, RuntimeError, IndexError) as exc:
        with pytest.raises(type(exc)):
            fn_e()
        return None, None
    return fn_e(), t


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_shapes_properties_and_moments(spec):
    e, t, _, _ = build(spec)
    assert tuple(e.batch_shape) == tuple(t.batch_shape)
    assert tuple(e.event_shape) == tuple(t.event_shape)
    assert e.has_rsample == t.has_rsample
    assert e.has_enumerate_support == t.has_enumerate_support
    for name in ("mean", "variance", "stddev", "mode"):
        ev, tv = both(lambda: getattr(e, name), lambda: getattr(t, name))
        if tv is not None:
            close(ev, tv)
    ev, tv = both(e.entropy, t.entropy)
    if tv is not None:
        close(ev, tv, rtol=1e-6)
    assert repr(e).replace("ember.", "torch.") == repr(t) or type(e).__name__ in repr(e)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_log_prob_cdf_icdf(spec):
    e, t, _, _ = build(spec)
    torch.manual_seed(0)
    value = t.sample((5,))
    close(e.log_prob(to_ember(value)), t.log_prob(value), rtol=1e-6)
    ev, tv = both(lambda: e.cdf(to_ember(value)), lambda: t.cdf(value))
    if tv is not None:
        close(ev, tv, rtol=1e-6)
    u = torch.rand((5,) + tuple(t.batch_shape), dtype=torch.float64) * 0.98 + 0.01
    ev, tv = both(lambda: e.icdf(to_ember(u)), lambda: t.icdf(u))
    if tv is not None:
        close(ev, tv, rtol=1e-6)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_log_prob_gradients(spec):
    e, t, ep, tp = build(spec, requires_grad=True)
    torch.manual_seed(1)
    with torch.no_grad():
        value = t.sample((4,))
    t.log_prob(value).sum().backward()
    e.log_prob(to_ember(value)).sum().backward()
    for k in tp:
        if tp[k].grad is None:
            continue
        assert ep[k].grad is not None, k
        close(ep[k].grad, tp[k].grad, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_enumerate_support_expand_and_support(spec):
    e, t, _, _ = build(spec)
    if t.has_enumerate_support:
        for expand in (True, False):
            ev, tv = both(lambda: e.enumerate_support(expand), lambda: t.enumerate_support(expand))
            if tv is not None:
                close(ev, tv)
    else:
        with pytest.raises(NotImplementedError):
            e.enumerate_support()
    new_batch = (4,) + tuple(t.batch_shape)
    ee, te = e.expand(new_batch), t.expand(new_batch)
    assert tuple(ee.batch_shape) == new_batch
    torch.manual_seed(2)
    value = te.sample()
    close(ee.log_prob(to_ember(value)), te.log_prob(value), rtol=1e-6)
    assert str(e.support).replace("ember.", "torch.") == str(t.support)
    close(e.support.check(to_ember(value)), t.support.check(value))


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_sample_shape_dtype_support_and_moments(spec):
    name = spec[0]
    e, t, _, _ = build(spec)
    ember.manual_seed(123)
    n = 20000
    x = e.sample((n,))
    tx = t.sample((2,))
    assert tuple(x.shape) == (n,) + tuple(t.batch_shape) + tuple(t.event_shape)
    assert str(x.dtype).split(".")[-1] == str(tx.dtype).split(".")[-1]
    assert bool(t.support.check(torch.from_numpy(to_np(x))).all())
    assert tuple(e.sample().shape) == tuple(t.sample().shape)
    if name in NO_MOMENTS:
        return
    try:
        mean, var = to_np(t.mean), to_np(t.variance)
    except NotImplementedError:  # no closed form (LogisticNormal, ...): torch's own moments
        mean, var = None, None
    if mean is None or not np.all(np.isfinite(mean)):
        return
    xs = to_np(x).astype(np.float64)
    se = np.sqrt(var / n)
    assert np.all(np.abs(xs.mean(0) - mean) <= 6 * se + 1e-12), (xs.mean(0), mean, se)
    if name not in HEAVY_TAILS:
        # The sample variance's standard error needs the 4th moment; 10% is far beyond
        # 6 standard errors of it for these light-tailed parameters at n = 20,000.
        np.testing.assert_allclose(xs.var(0), var, rtol=0.1, atol=1e-9)


RSAMPLE_SPECS = [s for s in SPECS if s[0] not in {"Cauchy", "HalfCauchy"}]


def _chunked_grads(dist, params, w, seed, chunks=20, m=1000):
    """Per-chunk gradients of mean(w * x) over rsample draws, for each parameter."""
    lib = ember if isinstance(w, ember.Tensor) else torch
    lib.manual_seed(seed)
    grads = {k: [] for k in params}
    for _ in range(chunks):
        x = dist.rsample((m,))
        loss = (x * w).sum() / m
        gs = lib.autograd.grad(loss, list(params.values()), allow_unused=True, retain_graph=True)
        for k, g in zip(grads, gs):
            grads[k].append(to_np(g) if g is not None else np.zeros(tuple(params[k].shape)))
    return {k: np.stack(v) for k, v in grads.items()}


def _symmetrized(name, g):
    # A symmetric-matrix parameter's gradient is defined up to its antisymmetric part.
    return (g + np.swapaxes(g, -1, -2)) / 2 if name in {"covariance_matrix", "precision_matrix"} else g


@pytest.mark.parametrize("spec", RSAMPLE_SPECS, ids=[s[0] for s in RSAMPLE_SPECS])
def test_rsample_pathwise_gradient_matches_gradient_of_the_mean(spec):
    e, t, ep, tp = build(spec, requires_grad=True)
    if not t.has_rsample:
        with pytest.raises(NotImplementedError):
            e.rsample()
        return
    shape = tuple(t.batch_shape) + tuple(t.event_shape)
    w = np.random.default_rng(5).uniform(0.5, 1.5, size=shape)
    wanted = [k for k in tp if tp[k].dtype.is_floating_point]
    mine = _chunked_grads(e, {k: ep[k] for k in wanted}, ember.tensor(w), seed=7)
    try:
        (torch.from_numpy(w) * t.mean).sum().backward()
        reference = {k: (tp[k].grad.numpy() if tp[k].grad is not None else np.zeros(tuple(tp[k].shape)), 0.0)
                     for k in wanted}
    except NotImplementedError:
        # No closed-form mean: torch's own pathwise estimate is the reference.
        g = _chunked_grads(t, {k: tp[k] for k in wanted}, torch.from_numpy(w), seed=8)
        reference = {k: (g[k].mean(0), g[k].std(0, ddof=1) / math.sqrt(len(g[k]))) for k in wanted}
    for k in wanted:
        g = mine[k]
        est, se = g.mean(0), g.std(0, ddof=1) / math.sqrt(len(g))
        ref, ref_se = reference[k]
        est, ref = _symmetrized(k, est), _symmetrized(k, ref)
        tol = 6 * np.sqrt(se ** 2 + np.asarray(ref_se) ** 2) + 1e-6
        assert np.all(np.abs(est - ref) <= tol), (k, est, ref, se)


def test_standard_gamma_implicit_gradient():
    """-dF/da / p(x) against mpmath at 30 digits (tight) and torch's approximation
    (which is itself only good to about 1e-4)."""
    mpmath = pytest.importorskip("mpmath")
    from ember.distributions._gamma_sampler import standard_gamma_grad
    alpha = [0.2, 0.7, 1.0, 2.5, 10.0, 150.0]
    x = [0.05, 0.4, 1.3, 2.0, 11.0, 140.0]
    mpmath.mp.dps = 30
    exact = []
    for a, v in zip(alpha, x):
        dcdf = mpmath.diff(lambda aa: mpmath.gammainc(aa, 0, v, regularized=True), a)
        pdf = mpmath.exp((a - 1) * mpmath.log(v) - v - mpmath.loggamma(a))
        exact.append(float(-dcdf / pdf))
    ta, tx = torch.tensor(alpha, dtype=torch.float64), torch.tensor(x, dtype=torch.float64)
    got = standard_gamma_grad(to_ember(ta), to_ember(tx))
    close(got, np.array(exact), rtol=1e-6)
    close(got, torch._standard_gamma_grad(ta, tx), rtol=1e-3)
    # Tiny shapes put samples next to 0, where the density leaves float64's range.
    ta = torch.tensor([0.01, 0.01, 0.05, 0.001], dtype=torch.float64)
    tx = torch.tensor([1e-30, 1e-200, 1e-10, 1e-300], dtype=torch.float64)
    close(standard_gamma_grad(to_ember(ta), to_ember(tx)), torch._standard_gamma_grad(ta, tx), rtol=1e-6, atol=0)


def test_gamma_rsample_float32_and_small_shapes():
    ember.manual_seed(0)
    a = ember.tensor([0.01, 0.1, 0.5], requires_grad=True)
    x = ED.Gamma(a, ember.ones(3)).rsample((5000,))
    assert x.dtype == ember.float32 and bool((x > 0).all()) and bool(ember.isfinite(x).all())
    x.sum().backward()
    assert bool(ember.isfinite(a.grad).all())


# ----------------------------------------------------------------- validation
INVALID = [
    lambda D, L: D.Normal(L.zeros(2), L.tensor([1.0, -1.0])),
    lambda D, L: D.Bernoulli(probs=L.tensor([0.5, 1.5])),
    lambda D, L: D.Bernoulli(probs=L.tensor([0.5]), logits=L.tensor([0.0])),
    lambda D, L: D.Beta(L.tensor([-1.0]), L.tensor([1.0])),
    lambda D, L: D.Gamma(L.tensor([0.0]), L.tensor([1.0])),
    lambda D, L: D.Dirichlet(L.tensor([1.0, -1.0])),
    lambda D, L: D.Uniform(L.tensor([1.0]), L.tensor([0.0])),
    lambda D, L: D.Poisson(L.tensor([-1.0])),
    lambda D, L: D.Exponential(L.tensor([-1.0])),
    lambda D, L: D.Binomial(L.tensor([-1.0]), L.tensor([0.5])),
    lambda D, L: D.StudentT(L.tensor([-1.0])),
    lambda D, L: D.Chi2(L.tensor([-1.0])),
    lambda D, L: D.Geometric(L.tensor([0.0, 0.5])),
    lambda D, L: D.RelaxedBernoulli(L.tensor(0.5), probs=L.tensor([1.5])),
    lambda D, L: D.MixtureSameFamily(D.Categorical(L.ones(3)), D.Normal(L.zeros(2), L.ones(2))),
    lambda D, L: D.MixtureSameFamily(D.Categorical(L.ones(2, 3)), D.Normal(L.zeros(3, 3), L.ones(3, 3))),
    lambda D, L: D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(L.zeros(3), L.ones(3))),
    lambda D, L: D.Binomial(10, L.tensor([0.5])).log_prob(L.tensor([11.0])),
    lambda D, L: D.Multinomial(5, probs=L.tensor([0.2, -0.3, 0.5])),
    lambda D, L: D.Multinomial(L.tensor(5), probs=L.tensor([0.2, 0.3, 0.5])),
    lambda D, L: D.Multinomial(5, probs=L.tensor([0.2, 0.3, 0.5])).log_prob(L.tensor([1.0, 5.0, 1.0])),
    lambda D, L: D.RelaxedOneHotCategorical(L.tensor(0.5), probs=L.tensor([0.5, 0.5])).log_prob(L.tensor([0.5, 0.6])),
    lambda D, L: D.Geometric(L.tensor([0.5])).log_prob(L.tensor([-1.0])),
    lambda D, L: D.HalfNormal(L.tensor([1.0])).log_prob(L.tensor([-1.0])),
    lambda D, L: D.MultivariateNormal(L.zeros(2), L.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda D, L: D.MultivariateNormal(L.zeros(2)),
    lambda D, L: D.Categorical(probs=L.tensor([0.5, -0.1, 0.6])),
    lambda D, L: D.Laplace(L.tensor([0.0]), L.tensor([0.0])),
    lambda D, L: D.Bernoulli(probs=L.tensor([0.5])).log_prob(L.tensor([0.5])),
    lambda D, L: D.Gamma(L.tensor([1.0]), L.tensor([1.0])).log_prob(L.tensor([-1.0])),
    lambda D, L: D.Beta(L.tensor([1.0]), L.tensor([1.0])).log_prob(L.tensor([1.5])),
    lambda D, L: D.Dirichlet(L.tensor([1.0, 1.0])).log_prob(L.tensor([0.3, 0.3])),
    lambda D, L: D.Poisson(L.tensor([1.0])).log_prob(L.tensor([1.5])),
    lambda D, L: D.Categorical(logits=L.zeros(3)).log_prob(L.tensor(5)),
    lambda D, L: D.Normal(L.zeros(2, 3), L.ones(2, 3)).log_prob(L.zeros(4, 3)),
    lambda D, L: D.Normal(0.0, 1.0).log_prob(1.0),
    lambda D, L: D.MultivariateNormal(L.zeros(2), L.eye(2)).log_prob(L.zeros(3)),
    lambda D, L: D.Uniform(L.tensor([0.0]), L.tensor([1.0])).log_prob(L.tensor([2.0])),
    lambda D, L: D.OneHotCategorical(probs=L.tensor([0.5, 0.5])).log_prob(L.tensor([0.5, 0.5])),
    lambda D, L: D.Independent(D.Normal(L.zeros(2), L.ones(2)), 2),
    lambda D, L: D.LogNormal(L.zeros(1), L.ones(1)).log_prob(L.tensor([-1.0])),
]


@pytest.mark.parametrize("make", INVALID, ids=[f"invalid{i}" for i in range(len(INVALID))])
def test_validation_errors_match_torch(make):
    with pytest.raises(Exception) as texc:
        make(TD, torch)
    with pytest.raises(type(texc.value)) as eexc:
        make(ED, ember)
    first = str(texc.value).splitlines()[0] if str(texc.value) else ""
    assert str(eexc.value).splitlines()[0].replace("ember.", "torch.") == first if first else True


def test_set_default_validate_args():
    try:
        ED.Distribution.set_default_validate_args(False)
        ED.Normal(ember.zeros(1), ember.tensor([-1.0]))  # no error without validation
    finally:
        ED.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        ED.Normal(ember.zeros(1), ember.tensor([-1.0]))
    with pytest.raises(ValueError):
        ED.Distribution.set_default_validate_args("yes")


# ------------------------------------------------------------------ constraints
CONSTRAINTS = [
    ("real", lambda C: C.real), ("positive", lambda C: C.positive), ("nonnegative", lambda C: C.nonnegative),
    ("unit_interval", lambda C: C.unit_interval), ("simplex", lambda C: C.simplex),
    ("interval", lambda C: C.interval(-0.5, 0.5)), ("half_open", lambda C: C.half_open_interval(-0.5, 0.5)),
    ("greater_than", lambda C: C.greater_than(0.3)), ("less_than", lambda C: C.less_than(0.3)),
    ("integer_interval", lambda C: C.integer_interval(0, 2)), ("boolean", lambda C: C.boolean),
    ("nonnegative_integer", lambda C: C.nonnegative_integer), ("lower_cholesky", lambda C: C.lower_cholesky),
    ("lower_triangular", lambda C: C.lower_triangular), ("positive_definite", lambda C: C.positive_definite),
 ("real_vector", lambda C: C.real_vector),
    ("independent", lambda C: C.independent(C.positive, 1)),
]


@pytest.mark.parametrize("name,make", CONSTRAINTS, ids=[c[0] for c in CONSTRAINTS])
def test_constraints_check(name, make):
    rng = np.random.default_rng(3)
    values = [rng.normal(size=(2, 3, 3)), np.abs(rng.normal(size=(2, 3, 3))), np.round(rng.normal(size=(2, 3, 3))),
              spd(rng, 2), np.linalg.cholesky(spd(rng, 2)), np.tril(rng.normal(size=(2, 3, 3))),
              simplex(rng, 2, 3, 3), np.eye(3)[None].repeat(2, 0)]
    for v in values:
        close(make(ED.constraints).check(ember.tensor(v)), make(TD.constraints).check(torch.tensor(v)))
    c = make(ED.constraints)
    assert c.is_discrete == make(TD.constraints).is_discrete
    assert c.event_dim == make(TD.constraints).event_dim


# ------------------------------------------------------------------ transforms
TRANSFORMS = [
    ("Exp", lambda T: T.ExpTransform(), (2, 3)),
    ("Affine", lambda T: T.AffineTransform(0.5, 2.0), (2, 3)),
    ("Affine_event", lambda T: T.AffineTransform(0.5, 2.0, event_dim=1), (2, 3)),
    ("Sigmoid", lambda T: T.SigmoidTransform(), (2, 3)),
    ("Tanh", lambda T: T.TanhTransform(), (2, 3)),
    ("Compose", lambda T: T.ComposeTransform([T.AffineTransform(1.0, 2.0), T.ExpTransform()]), (2, 3)),
    ("Softmax", lambda T: T.SoftmaxTransform(), (2, 3)),
    ("Power", lambda T: T.PowerTransform(3.0), (2, 3)),
    ("Abs", lambda T: T.AbsTransform(), (2, 3)),
    ("Independent", lambda T: T.IndependentTransform(T.ExpTransform(), 1), (2, 3)),
    ("Softplus", lambda T: T.SoftplusTransform(), (2, 3)),
]


@pytest.mark.parametrize("name,make,shape", TRANSFORMS, ids=[t[0] for t in TRANSFORMS])
def test_transforms_against_torch(name, make, shape):
    x = torch.tensor(np.random.default_rng(4).normal(size=shape) * 0.7, requires_grad=True)
    xe = ember.tensor(to_np(x), requires_grad=True)
    tt, et = make(TD.transforms), make(ED.transforms)
    ty, ey = tt(x), et(xe)
    close(ey, ty)
    close(et.inv(ey), tt.inv(ty), rtol=1e-6, atol=1e-8)
    ej, tj = both(lambda: et.log_abs_det_jacobian(xe, ey), lambda: tt.log_abs_det_jacobian(x, ty))
    if tj is not None:
        close(ej, tj, rtol=1e-6)
        (tj.sum() + ty.sum()).backward()
        (ej.sum() + ey.sum()).backward()
        close(xe.grad, x.grad, rtol=1e-6, atol=1e-8)
    assert et.bijective == tt.bijective and et.sign == tt.sign if name in {"Exp", "Sigmoid", "Tanh"} else True
    assert str(et.domain).replace("ember.", "torch.") == str(tt.domain)
    assert str(et.codomain).replace("ember.", "torch.") == str(tt.codomain)
    assert tuple(et.forward_shape(shape)) == tuple(tt.forward_shape(shape))


def test_transform_caching_and_inverse_identity():
    t = ED.ExpTransform(cache_size=1)
    x = ember.randn(3)
    y = t(x)
    assert t.inv(y) is x  # the cached pair, not a recomputation
    assert t.inv.inv is t
    with pytest.raises(ValueError):
        ED.ExpTransform(cache_size=2)


@pytest.mark.parametrize("name,make", [c for c in CONSTRAINTS if c[0] not in
                                       {"lower_triangular", "lower_cholesky", "positive_definite", "corr_cholesky", "cat", "stack"}],
                         ids=[c[0] for c in CONSTRAINTS if c[0] not in
                              {"lower_triangular", "lower_cholesky", "positive_definite", "corr_cholesky", "cat", "stack"}])
def test_biject_to_and_transform_to(name, make):
    for reg_e, reg_t in ((ED.biject_to, TD.biject_to), (ED.transform_to, TD.transform_to)):
        if name == "simplex" and reg_e is ED.biject_to:
            continue  # StickBreakingTransform is not implemented (docs/distributions.md)
        try:
            tt = reg_t(make(TD.constraints))
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                reg_e(make(ED.constraints))
            continue
        et = reg_e(make(ED.constraints))
        assert type(et).__name__ == type(tt).__name__
        shape = (2, 6) if name in {"lower_cholesky", "positive_definite", "corr_cholesky"} else (2, 3)
        if name in {"lower_cholesky", "positive_definite"}:
            shape = (2, 3, 3)
        x = torch.tensor(np.random.default_rng(6).normal(size=shape)) * 0.5
        if name == "corr_cholesky":
            x = x[..., :3]
        close(et(to_ember(x)), tt(x), rtol=1e-6)
        assert bool(make(TD.constraints).check(tt(x)).all())


# ------------------------------------------------------------------ kl_divergence
def _pair(spec_name, seed):
    spec = next(s for s in SPECS if s[0] == spec_name)
    e, t, _, _ = build(spec, seed=seed)
    return e, t


KL_PAIRS = [("Normal", "Normal"), ("Categorical_probs", "Categorical_logits"), ("Bernoulli_probs", "Bernoulli_probs"),
            ("Bernoulli_logits", "Bernoulli_logits"), ("Beta", "Beta"), ("Gamma", "Gamma"), ("Dirichlet", "Dirichlet"),
            ("Exponential", "Exponential"), ("Laplace", "Laplace"), ("Poisson", "Poisson"),
            ("Independent", "Independent"), ("MultivariateNormal_scale_tril", "MultivariateNormal_covariance"),
            ("MultivariateNormal_precision", "MultivariateNormal_scale_tril"), ("OneHotCategorical", "OneHotCategorical"),
            ("Uniform", "Uniform"), ("Binomial", "Binomial"), ("Binomial", "Binomial_tensor_count"),
            ("Geometric", "Geometric"), ("Gumbel", "Gumbel"), ("HalfNormal", "HalfNormal"), ("Cauchy", "Cauchy"),
            ("LogNormal", "LogNormal"), ("TransformedDistribution", "TransformedDistribution"),
            ("Chi2", "Chi2"), ("Chi2", "Gamma")]


@pytest.mark.parametrize("p_name,q_name", KL_PAIRS, ids=[f"{a}-{b}" for a, b in KL_PAIRS])
def test_kl_divergence_against_torch(p_name, q_name):
    pe, pt = _pair(p_name, 10)
    qe, qt = _pair(q_name, 11)
    ev, tv = both(lambda: ED.kl_divergence(pe, qe), lambda: TD.kl_divergence(pt, qt))
    if tv is not None:
        close(ev, tv, rtol=1e-6, atol=1e-8)


def test_kl_uniform_uniform_and_register_kl():
    p = (ED.Uniform(ember.tensor([0.0]), ember.tensor([1.0])), TD.Uniform(torch.tensor([0.0]), torch.tensor([1.0])))
    q = (ED.Uniform(ember.tensor([-1.0]), ember.tensor([2.0])), TD.Uniform(torch.tensor([-1.0]), torch.tensor([2.0])))
    close(ED.kl_divergence(p[0], q[0]), TD.kl_divergence(p[1], q[1]))
    close(ED.kl_divergence(q[0], p[0]), TD.kl_divergence(q[1], p[1]))

    class MyNormal(ED.Normal):
        pass

    @ED.register_kl(MyNormal, MyNormal)
    def _kl(p, q):
        return ember.zeros(p.batch_shape) + 42.0

    try:
        assert float(ED.kl_divergence(MyNormal(0.0, 1.0), MyNormal(1.0, 2.0))) == 42.0
    finally:
        ED.kl._KL_REGISTRY.pop((MyNormal, MyNormal))
        ED.kl._KL_MEMOIZE.clear()
    with pytest.raises(NotImplementedError):
        ED.kl_divergence(ED.Poisson(ember.ones(1)), ED.Normal(0.0, 1.0))


# ------------------------------------------------------------------ misc API
def test_sample_n_perplexity_and_namespace():
    d = ED.Normal(ember.zeros(2), ember.ones(2))
    assert tuple(d.sample_n(3).shape) == (3, 2)
    close(ED.Categorical(logits=ember.zeros(4)).perplexity(), torch.tensor(4.0))
    # Every name ember exports is torch's.
    assert [n for n in ED.__all__ if not hasattr(TD, n)] == []


def test_float32_parameters_give_float32():
    d = ED.Gamma(ember.tensor([1.5, 2.0]), ember.tensor([1.0, 3.0]))
    assert d.sample((4,)).dtype == ember.float32
    assert d.log_prob(ember.tensor([1.0, 2.0])).dtype == ember.float32
    close(d.log_prob(ember.tensor([1.0, 2.0])),
          TD.Gamma(torch.tensor([1.5, 2.0]), torch.tensor([1.0, 3.0])).log_prob(torch.tensor([1.0, 2.0])), rtol=1e-5)


def test_noncontiguous_and_broadcast_parameters():
    loc = np.random.default_rng(8).normal(size=(3, 4))
    el, tl = ember.tensor(loc).t(), torch.tensor(loc).t()
    e, t = ED.Normal(el, ember.tensor(2.0, dtype=ember.float64)), TD.Normal(tl, torch.tensor(2.0, dtype=torch.float64))
    assert tuple(e.batch_shape) == (4, 3)
    v = torch.tensor(np.random.default_rng(9).normal(size=(4, 3)))
    close(e.log_prob(to_ember(v)), t.log_prob(v))
    close(e.cdf(to_ember(v)), t.cdf(v))


def test_empty_batch():
    e = ED.Normal(ember.zeros(0, dtype=ember.float64), ember.ones(0, dtype=ember.float64))
    assert tuple(e.sample((3,)).shape) == (3, 0)
    assert tuple(e.log_prob(ember.zeros(0, dtype=ember.float64)).shape) == (0,)


SCALAR_CASES = [
    lambda D: D.Normal(0.5, 2.0), lambda D: D.Gamma(2.0, 3.0), lambda D: D.Beta(2.0, 3.0),
    lambda D: D.Exponential(1.5), lambda D: D.Uniform(-1.0, 2.0), lambda D: D.Poisson(3.0),
    lambda D: D.Bernoulli(0.3), lambda D: D.Laplace(0.0, 1.0), lambda D: D.StudentT(4.0),
    lambda D: D.LogNormal(0.0, 0.5), lambda D: D.Geometric(0.25), lambda D: D.Chi2(3.0),
]


@pytest.mark.parametrize("make", SCALAR_CASES, ids=[f"scalar{i}" for i in range(len(SCALAR_CASES))])
def test_python_number_parameters_give_0dim_default_dtype(make):
    e, t = make(ED), make(TD)
    assert tuple(e.batch_shape) == tuple(t.batch_shape) == ()
    value = t.sample((6,))
    ev = to_ember(value)
    close(e.log_prob(ev), t.log_prob(value), rtol=1e-5, atol=1e-6)
    assert e.log_prob(ev).dtype == ember.float32
    close(e.mean, t.mean, rtol=1e-6)
    x = e.sample((3, 2))
    assert tuple(x.shape) == (3, 2) and str(x.dtype).split(".")[-1] == str(t.sample().dtype).split(".")[-1]


def test_mixture_of_multivariate_normals_and_independent_reinterpretation():
    rng = np.random.default_rng(13)
    logits, loc, tril = rng.normal(size=(2, 3)), rng.normal(size=(2, 3, 2)), np.linalg.cholesky(spd(rng, 2, 3, n=2))

    def make(D, L):
        return D.MixtureSameFamily(D.Categorical(logits=L.tensor(logits)),
                                   D.MultivariateNormal(L.tensor(loc), scale_tril=L.tensor(tril)))
    e, t = make(ED, ember), make(TD, torch)
    assert tuple(e.event_shape) == (2,) and tuple(e.batch_shape) == (2,)
    value = t.sample((4,))
    close(e.log_prob(to_ember(value)), t.log_prob(value), rtol=1e-6)
    close(e.mean, t.mean)
    close(e.variance, t.variance)
    ei, ti = ED.Independent(e, 1), TD.Independent(t, 1)
    close(ei.log_prob(to_ember(value)), ti.log_prob(value), rtol=1e-6)


def test_tanh_squashed_gaussian_policy_as_sac():
    """SAC's policy: Normal -> TanhTransform, log_prob of the squashed rsample."""
    mu = np.random.default_rng(14).normal(size=(5, 2))
    em, tm = ember.tensor(mu, requires_grad=True), torch.tensor(mu, requires_grad=True)
    e = ED.TransformedDistribution(ED.Normal(em, ember.ones(5, 2, dtype=ember.float64) * 0.5),
                                   [ED.TanhTransform(cache_size=1)])
    t = TD.TransformedDistribution(TD.Normal(tm, torch.ones(5, 2, dtype=torch.float64) * 0.5),
                                   [TD.TanhTransform(cache_size=1)])
    torch.manual_seed(0)
    a = t.rsample()
    ea = to_ember(a)
    close(e.log_prob(ea), t.log_prob(a), rtol=1e-6)
    e.log_prob(ea).sum().backward()
    t.log_prob(a.detach()).sum().backward()
    close(em.grad, tm.grad, rtol=1e-6)
    ember.manual_seed(0)
    x = e.rsample()
    assert bool((x.abs() < 1).all())
    assert tuple(e.log_prob(x).shape) == (5, 2)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_out_of_support_values_raise_as_torch(spec):
    e, t, _, _ = build(spec)
    torch.manual_seed(3)
    shape = tuple(t.sample().shape)
    for fill in (-0.5, 0.5, 1.5, 2.0, float("nan")):
        value = torch.full(shape, fill, dtype=torch.float64)
        ev, tv = both(lambda: e.log_prob(to_ember(value)), lambda: t.log_prob(value))
        if tv is not None:
            close(ev, tv, rtol=1e-6)
    bad_shape = torch.zeros((7,) + shape[:-1] + (shape[-1] + 1,) if shape else (7, 2), dtype=torch.float64)
    both(lambda: e.log_prob(to_ember(bad_shape)), lambda: t.log_prob(bad_shape))


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_float32_parameters(spec):
    name, params, builder = spec
    p = params(np.random.default_rng(0))
    t = builder(TD, {k: torch.tensor(v, dtype=torch.float32) for k, v in p.items()})
    e = builder(ED, {k: ember.tensor(v, dtype=ember.float32) for k, v in p.items()})
    torch.manual_seed(4)
    value = t.sample((3,))
    el, tl = e.log_prob(to_ember(value)), t.log_prob(value)
    assert str(el.dtype).split(".")[-1] == str(tl.dtype).split(".")[-1]
    close(el, tl, rtol=1e-4, atol=1e-4)
    ember.manual_seed(4)
    assert str(e.sample().dtype).split(".")[-1] == str(value.dtype).split(".")[-1]


def _registered_kl_pairs():
    """Every (p, q) class pair in torch's KL registry that SPECS can build both of."""
    by_class = {}
    for spec in SPECS:
        by_class.setdefault(type(build(spec)[1]).__name__, spec[0])
    pairs = []
    ember_pairs = {(p.__name__, q.__name__) for p, q in ED.kl._KL_REGISTRY}
    for p_cls, q_cls in TD.kl._KL_REGISTRY:
        if (p_cls.__name__, q_cls.__name__) in ember_pairs and p_cls.__name__ in by_class and q_cls.__name__ in by_class:
            pairs.append((by_class[p_cls.__name__], by_class[q_cls.__name__]))
    return sorted(set(pairs))


ALL_KL_PAIRS = _registered_kl_pairs()


@pytest.mark.parametrize("p_name,q_name", ALL_KL_PAIRS, ids=[f"{a}-{b}" for a, b in ALL_KL_PAIRS])
def test_every_registered_kl_pair_against_torch(p_name, q_name):
    pe, pt = _pair(p_name, 20)
    qe, qt = _pair(q_name, 21)
    try:
        tv = TD.kl_divergence(pt, qt)
    except (NotImplementedError, ValueError, RuntimeError) as exc:
        with pytest.raises(type(exc)):
            ED.kl_divergence(pe, qe)
        return
    close(ED.kl_divergence(pe, qe), tv, rtol=1e-6, atol=1e-8)


def test_kl_registry_pairs_are_torch_pairs():
    names = lambda reg: {(p.__name__, q.__name__) for p, q in reg}  # noqa: E731
    assert names(ED.kl._KL_REGISTRY) <= names(TD.kl._KL_REGISTRY)
    assert len(ED.kl._KL_REGISTRY) == 19


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_empty_expanded_batch(spec):
    e, t, _, _ = build(spec)
    empty = (0,) + tuple(t.batch_shape)
    ee, te = e.expand(empty), t.expand(empty)
    ember.manual_seed(5)
    # torch itself cannot sample some empty batches (a reshape with -1 of 0 elements,
    # or a max over an empty dim); ember must then raise the same exception type.
    if spec[0] == "MixtureSameFamily":
        # torch's sampler reshapes with -1 and fails on 0 elements; ember samples.
        assert tuple(ee.sample((2,)).shape) == (2,) + empty
        assert tuple(ee.log_prob(ember.zeros(empty, dtype=ember.float64)).shape) == empty
        return
    x, tx = both(lambda: ee.sample((2,)), lambda: te.sample((2,)))
    if tx is None:
        return
    assert tuple(x.shape) == tuple(tx.shape)
    value = te.sample()
    if spec[0] == "Independent":
        # torch's Independent.log_prob reshapes with -1 and fails on 0 elements; ember
        # sums the reinterpreted dims and returns the empty batch.
        assert tuple(ee.log_prob(to_ember(value)).shape) == empty
        return
    try:
        tl_shape = tuple(te.log_prob(value).shape)
    except RuntimeError:
        # torch's vector-event checks reshape with -1, which fails on 0 elements;
        # ember reduces dim by dim and returns the empty batch.
        tl_shape = empty
    assert tuple(ee.log_prob(to_ember(value)).shape) == tl_shape


# ------------------------------------------------------------------ ember-specific
def test_kl_poisson_zero_rate_and_binomial_counts():
    # KL(Poisson(0) || Poisson(r)) = r (0 log 0 = 0); torch gives NaN here.
    kl = ED.kl_divergence(ED.Poisson(ember.tensor([0.0, 2.0])), ED.Poisson(ember.tensor([1.5, 2.0])))
    close(kl, np.array([1.5, 0.0]))
    p = ED.Binomial(ember.tensor([5.0, 3.0]), ember.tensor([0.3, 0.3]))
    q = ED.Binomial(ember.tensor([5.0, 2.0]), ember.tensor([0.4, 0.4]))
    kl = to_np(ED.kl_divergence(p, q))
    assert np.isfinite(kl[0]) and kl[1] == np.inf
    with pytest.raises(NotImplementedError):
        ED.kl_divergence(q, p)


def test_dirichlet_mode_below_one_is_a_vertex():
    mode = ED.Dirichlet(ember.tensor([[0.5, 0.3, 0.9], [2.0, 3.0, 0.5]])).mode
    close(mode, np.array([[0.0, 0.0, 1.0], [1 / 3, 2 / 3, 0.0]]), rtol=1e-6)


def test_distribution_reused_for_two_backward_passes():
    """A distribution built once (parameters already batch-shaped) can feed two losses."""
    loc = ember.zeros(3, dtype=ember.float64, requires_grad=True)
    scale = ember.ones(3, dtype=ember.float64, requires_grad=True)
    w = ember.tensor([0.5, 1.0, 2.0], dtype=ember.float64)
    for d in (ED.Normal(loc, scale), ED.Laplace(loc, scale), ED.Beta(scale, scale),
              ED.MultivariateNormal(loc, scale_tril=ember.eye(3, dtype=ember.float64).requires_grad_())):
        for _ in range(2):
            (d.rsample() * w).sum().backward()
    assert bool(ember.isfinite(loc.grad).all()) and bool(ember.isfinite(scale.grad).all())


def test_transform_equality_and_transformed_kl():
    assert ED.ExpTransform() == ED.ExpTransform() and ED.ExpTransform() != ED.SigmoidTransform()
    assert ED.AffineTransform(1.0, 2.0) == ED.AffineTransform(1.0, 2.0)
    assert ED.AffineTransform(1.0, 2.0) != ED.AffineTransform(1.0, 3.0)
    assert ED.ExpTransform().inv == ED.ExpTransform().inv
    p = ED.TransformedDistribution(ED.Normal(0.0, 1.0), [ED.ExpTransform()])
    q = ED.TransformedDistribution(ED.Normal(0.0, 1.0), [ED.SigmoidTransform()])
    with pytest.raises(NotImplementedError):
        ED.kl_divergence(p, q)


def test_mixture_support_is_union_of_components():
    mix = ED.MixtureSameFamily(ED.Categorical(logits=ember.zeros(2)),
                               ED.Uniform(ember.tensor([0.0, 2.0]), ember.tensor([1.0, 3.0])))
    got = mix.support.check(ember.tensor([0.5, 1.5, 2.5]))
    assert got.tolist() == [True, False, True]
    assert str(mix.support) == "MixtureSameFamilyConstraint(Interval(lower_bound=tensor([0., 2.]), " \
                               "upper_bound=tensor([1., 3.])))"


def test_validate_args_false_skips_checks():
    d = ED.Gamma(ember.tensor([-1.0]), ember.tensor([1.0]), validate_args=False)
    assert tuple(d.batch_shape) == (1,)
    lp = ED.Poisson(ember.tensor([1.0]), validate_args=False).log_prob(ember.tensor([1.5]))
    close(lp, TD.Poisson(torch.tensor([1.0]), validate_args=False).log_prob(torch.tensor([1.5])), rtol=1e-6)
