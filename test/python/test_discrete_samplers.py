"""ember.poisson and ember.binomial: the distributions (moments and chi-square tests
against scipy's probabilities, over small and large means, where the samplers switch
algorithm), shapes, dtypes, generators, and bad calls against PyTorch's errors."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
stats = pytest.importorskip("scipy.stats")

N = 40_000


def _gen(seed):
    g = ember.Generator()
    g.manual_seed(seed)
    return g


def _chi_square_p(samples, pmf, support):
    observed = np.array([(samples == k).sum() for k in support], dtype=np.float64)
    expected = pmf(support) * len(samples)
    keep = expected >= 5  # the test's validity condition
    observed, expected = observed[keep], expected[keep]
    return stats.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue


@pytest.mark.parametrize("rate", [0.3, 4.0, 9.5, 10.0, 37.0, 500.0])
def test_poisson_matches_the_distribution(rate):
    x = ember.poisson(ember.full((N,), rate, dtype=ember.float64), generator=_gen(int(rate * 10))).numpy()
    assert np.all(x == np.floor(x)) and x.min() >= 0
    assert abs(x.mean() - rate) < 5 * np.sqrt(rate / N)
    lo, hi = max(0, int(rate - 5 * np.sqrt(rate)) - 2), int(rate + 5 * np.sqrt(rate)) + 3
    assert _chi_square_p(x, lambda k: stats.poisson.pmf(k, rate), np.arange(lo, hi)) > 1e-4


@pytest.mark.parametrize("n,p", [(10, 0.3), (60, 0.1), (200, 0.3), (200, 0.8), (3000, 0.55), (1, 0.5)])
def test_binomial_matches_the_distribution(n, p):
    x = ember.binomial(ember.full((N,), float(n)), ember.full((N,), p), generator=_gen(n)).numpy()
    assert np.all(x == np.floor(x)) and x.min() >= 0 and x.max() <= n
    sd = np.sqrt(n * p * (1 - p))
    assert abs(x.mean() - n * p) < 5 * sd / np.sqrt(N)
    support = np.arange(max(0, int(n * p - 6 * sd) - 2), min(n, int(n * p + 6 * sd) + 2) + 1)
    assert _chi_square_p(x, lambda k: stats.binom.pmf(k, n, p), support) > 1e-4


def test_edges_and_mixed_rates_in_one_tensor():
    rates = ember.tensor([[0.0, 2.0, float("inf")], [15.0, 0.0, 1e4]])
    x = ember.poisson(rates, generator=_gen(1))
    assert x.shape == (2, 3) and x.dtype == ember.float32
    assert x[0, 0].item() == 0 and x[1, 1].item() == 0 and x[0, 2].item() == float("inf")
    assert abs(x[1, 2].item() - 1e4) < 600
    # Binomial: prob clamped to [0, 1], counts floored, negative counts draw 0, NaN stays NaN.
    count = ember.tensor([10.0, 10.0, -3.0, 7.9, float("nan"), 5.0])
    prob = ember.tensor([1.5, -0.2, 0.5, 1.0, 0.5, float("nan")])
    y = ember.binomial(count, prob, generator=_gen(2)).tolist()
    assert y[:4] == [10.0, 0.0, 0.0, 7.0]
    assert np.isnan(y[4]) and np.isnan(y[5])


def test_shapes_dtypes_broadcast_and_empty():
    for dtype in (ember.float16, ember.bfloat16, ember.float32, ember.float64):
        x = ember.poisson(ember.full((3, 4), 2.0, dtype=dtype))
        assert x.dtype == dtype and x.shape == (3, 4)
    assert ember.poisson(ember.tensor(3.0)).shape == ()
    assert ember.poisson(ember.zeros(0, 5)).shape == (0, 5)
    y = ember.binomial(ember.tensor([[10.0], [20.0]]), ember.tensor([0.1, 0.5, 0.9]))
    t = torch.binomial(torch.tensor([[10.0], [20.0]]), torch.tensor([0.1, 0.5, 0.9]))
    assert tuple(y.shape) == tuple(t.shape) == (2, 3) and y.dtype == ember.float32
    assert ember.binomial(ember.zeros(0), ember.zeros(0)).shape == (0,)


def test_non_contiguous_input():
    rates = ember.full((6, 4), 3.0).t()
    assert ember.poisson(rates).shape == (4, 6)


def test_generator_makes_draws_repeatable():
    rates = ember.linspace(0, 40, 50)
    a = ember.poisson(rates, generator=_gen(7))
    b = ember.poisson(rates, generator=_gen(7))
    assert ember.equal(a, b)
    c = ember.binomial(ember.full((50,), 30.0), ember.linspace(0, 1, 50), generator=_gen(7))
    d = ember.binomial(ember.full((50,), 30.0), ember.linspace(0, 1, 50), generator=_gen(7))
    assert ember.equal(c, d)
    ember.manual_seed(3)
    e = ember.poisson(rates)
    ember.manual_seed(3)
    assert ember.equal(e, ember.poisson(rates))


def test_poisson_gradient_is_zero_like_torch():
    for lib in (ember, torch):
        r = lib.tensor([1.0, 20.0], requires_grad=True)
        x = lib.poisson(r)
        assert x.requires_grad
        x.sum().backward()
        assert r.grad.tolist() == [0.0, 0.0]


def test_bad_calls_raise_like_torch():
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="invalid Poisson rate, expected rate to be non-negative"):
            lib.poisson(lib.tensor([1.0, -1.0]))
        with pytest.raises(RuntimeError, match="invalid Poisson rate"):
            lib.poisson(lib.tensor([float("nan")]))
        with pytest.raises(NotImplementedError):
            lib.poisson(lib.tensor([1, 2]))
        with pytest.raises(ValueError, match="binomial only supports floating-point dtypes for count"):
            lib.binomial(lib.tensor([10, 3]), lib.tensor([0.3, 0.2]))
        with pytest.raises(RuntimeError):
            lib.binomial(lib.tensor([10.0]), lib.tensor([0.3], dtype=lib.float64))
        with pytest.raises(TypeError):
            lib.poisson([1.0, 2.0])
