"""torch.multinomial and the in-place samplers of other distributions (exponential_,
cauchy_, log_normal_, geometric_): the errors PyTorch raises (type and message), self
unchanged after a bad call, and the distributions themselves (frequencies and moments
of many draws). Reproducibility under a seeded generator is in test_random.py."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def raises_like_torch(ember_call, torch_call):
    with pytest.raises(Exception) as expected:
        torch_call()
    with pytest.raises(type(expected.value)) as got:
        ember_call()
    # The words up to the first quoted name (dtype names are spelled differently).
    words = str(expected.value).split("\n")[0].split('"')[0].split("'")[0][:40]
    assert str(got.value).startswith(words), (str(got.value), str(expected.value))


MULTINOMIAL_BAD = {
    "integer weights": (lambda m: m.tensor([1, 2]), 1, False),
    "negative weight": (lambda m: m.tensor([-1.0, 2.0]), 1, False),
    "all zero": (lambda m: m.tensor([0.0, 0.0]), 1, False),
    "nan": (lambda m: m.tensor([float("nan"), 1.0]), 1, False),
    "inf with replacement": (lambda m: m.tensor([float("inf"), 1.0]), 1, True),
    "3-d": (lambda m: m.ones(2, 2, 2), 1, False),
    "0-d": (lambda m: m.tensor(1.0), 1, False),
    "zero samples": (lambda m: m.ones(3), 0, False),
    "too many without replacement": (lambda m: m.ones(3), 4, False),
    "a zero row among rows": (lambda m: m.tensor([[0.2, 0.0], [0.0, 0.0]]), 1, True),
}


@pytest.mark.parametrize("case", sorted(MULTINOMIAL_BAD))
def test_multinomial_bad_input_raises_like_torch_and_changes_nothing(case):
    make, n, replacement = MULTINOMIAL_BAD[case]
    weights = make(ember)
    before = weights.clone()
    raises_like_torch(lambda: ember.multinomial(weights, n, replacement),
                      lambda: torch.multinomial(make(torch), n, replacement))
    assert ember.equal(weights, before) or weights.isnan().any()


@pytest.mark.parametrize("replacement", [False, True])
def test_multinomial_frequencies_follow_the_weights(replacement):
    weights = np.array([0.1, 0.0, 0.6, 0.3])
    g = ember.Generator().manual_seed(0)
    rows = ember.tensor(np.tile(weights * 7.0, (4000, 1)))  # unnormalized weights
    draws = ember.multinomial(rows, 1, replacement, generator=g).numpy().ravel()
    assert draws.dtype == np.int64
    counts = np.bincount(draws, minlength=4) / draws.size
    np.testing.assert_allclose(counts, weights, atol=0.025)
    assert counts[1] == 0.0  # a zero weight is never drawn first


def test_multinomial_with_replacement_many_samples_of_one_row():
    weights = ember.tensor([1.0, 3.0, 0.0, 6.0], dtype=ember.float32)
    draws = weights.multinomial(20000, replacement=True).numpy()
    assert draws.shape == (20000,)
    np.testing.assert_allclose(np.bincount(draws, minlength=4) / 20000, [0.1, 0.3, 0.0, 0.6],
                               atol=0.015)


def test_multinomial_without_replacement_draws_distinct_categories_zero_weights_last():
    weights = ember.tensor([[0.5, 0.0, 0.2, 0.3], [0.0, 1.0, 0.0, 0.0]])
    for _ in range(50):
        draws = ember.multinomial(weights, 4).numpy()
        for row in draws:
            assert sorted(row) == [0, 1, 2, 3]
        assert set(draws[0, :3]) == {0, 2, 3}  # the zero weight comes last
        assert draws[1, 0] == 1


def test_multinomial_second_draw_without_replacement_follows_sequential_sampling():
    # P(second = j | first = i) = w_j / (1 - w_i): here P(second = 0) = sum_i w_i w_0 / (1 - w_i).
    w = np.array([0.5, 0.3, 0.2])
    expected = sum(w[i] * w[0] / (1 - w[i]) for i in (1, 2))
    rows = ember.tensor(np.tile(w, (20000, 1)))
    second = ember.multinomial(rows, 2, generator=ember.Generator().manual_seed(3))[:, 1].numpy()
    assert abs((second == 0).mean() - expected) < 0.015


def test_multinomial_shapes_and_empty_batch_match_torch():
    for shape, n, replacement in [((5,), 3, False), ((2, 5), 7, True), ((0, 3), 2, False)]:
        got = ember.multinomial(ember.ones(shape), n, replacement)
        want = torch.multinomial(torch.ones(shape), n, replacement)
        assert tuple(got.shape) == tuple(want.shape) and got.dtype == ember.int64


def test_multinomial_reads_non_contiguous_weights():
    base = ember.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    weights = base.t()  # rows [1, 0, 0] and [0, 1, 0]
    assert ember.multinomial(weights, 1).numpy().ravel().tolist() == [0, 1]


SAMPLER_BAD = {
    "exponential_ lambda 0": (lambda m: m.empty(3).exponential_(0)),
    "exponential_ lambda < 0": (lambda m: m.empty(3).exponential_(-1)),
    "exponential_ integer": (lambda m: m.zeros(3, dtype=m.int64).exponential_()),
    "geometric_ p = 1": (lambda m: m.empty(3).geometric_(1)),
    "geometric_ p = 0": (lambda m: m.empty(3).geometric_(0)),
    "log_normal_ std 0": (lambda m: m.empty(3).log_normal_(1, 0)),
    "cauchy_ sigma 0": (lambda m: m.empty(3).cauchy_(0, 0)),
    "cauchy_ integer": (lambda m: m.zeros(3, dtype=m.int64).cauchy_()),
    "log_normal_ integer": (lambda m: m.zeros(3, dtype=m.int64).log_normal_()),
}


@pytest.mark.parametrize("case", sorted(SAMPLER_BAD))
def test_sampler_bad_arguments_raise_like_torch(case):
    raises_like_torch(lambda: SAMPLER_BAD[case](ember), lambda: SAMPLER_BAD[case](torch))


def test_sampler_error_leaves_self_unchanged():
    x = ember.arange(4.0)
    with pytest.raises(RuntimeError):
        x.exponential_(-1.0)
    with pytest.raises(RuntimeError):
        x.geometric_(2.0)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_sampler_moments():
    n = 200000
    g = ember.Generator().manual_seed(1)
    e = ember.empty(n, dtype=ember.float64).exponential_(2.0, generator=g).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.01 and abs(e.std() - 0.5) < 0.01
    geo = ember.empty(n, dtype=ember.int64).geometric_(0.25, generator=g).numpy()
    assert geo.min() >= 1 and abs(geo.mean() - 4.0) < 0.05
    assert abs((geo == 1).mean() - 0.25) < 0.005
    ln = ember.empty(n, dtype=ember.float64).log_normal_(0.5, 0.25, generator=g).numpy()
    assert ln.min() > 0 and abs(np.log(ln).mean() - 0.5) < 0.005
    assert abs(np.log(ln).std() - 0.25) < 0.005
    c = ember.empty(n, dtype=ember.float64).cauchy_(1.0, 2.0, generator=g).numpy()
    assert abs(np.median(c) - 1.0) < 0.05
    # The interquartile range of Cauchy(m, s) is 2s.
    q1, q3 = np.quantile(c, [0.25, 0.75])
    assert abs((q3 - q1) - 4.0) < 0.1


def test_samplers_write_non_contiguous_self_and_keep_dtype():
    x = ember.zeros(4, 6, dtype=ember.float32).t()
    x.exponential_()
    assert x.dtype == ember.float32 and (x.numpy() >= 0).all() and (x.numpy() > 0).any()
    y = ember.zeros(3, 4, dtype=ember.int32)[:, ::2]
    y.geometric_(0.5)
    assert (y.numpy() >= 1).all()
    h = ember.empty(1000, dtype=ember.float16).log_normal_(0.0, 0.5)
    assert h.dtype == ember.float16 and (h.float().numpy() > 0).all()
