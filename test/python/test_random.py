"""ember.Generator, the default generator's seeds and state, and generator= in
every random function: reproducibility, independence, state round trips,
ranges and rough distributions, and errors."""
import copy
import pickle

import numpy as np
import pytest

import ember


def gen(seed):
    return ember.Generator().manual_seed(seed)


# Each entry draws a tensor from the given generator.
SAMPLERS = {
    "rand": lambda g: ember.rand(3, 4, generator=g),
    "randn": lambda g: ember.randn((5,), generator=g),
    "randint": lambda g: ember.randint(0, 10, (6,), generator=g),
    "randint_high": lambda g: ember.randint(7, size=(6,), generator=g),
    "randperm": lambda g: ember.randperm(20, generator=g),
    "uniform_": lambda g: ember.empty(8).uniform_(-2, 3, generator=g),
    "normal_": lambda g: ember.empty(8, dtype=ember.float64).normal_(1, 2, generator=g),
    "random_": lambda g: ember.empty(8, dtype=ember.int64).random_(generator=g),
    "random_to": lambda g: ember.empty(8, dtype=ember.int32).random_(100, generator=g),
    "bernoulli_": lambda g: ember.empty(16).bernoulli_(0.5, generator=g),
    "bernoulli_tensor_p": lambda g: ember.empty(16).bernoulli_(ember.full((16,), 0.5), generator=g),
    "bernoulli": lambda g: ember.bernoulli(ember.full((16,), 0.5), generator=g),
    "bernoulli_p": lambda g: ember.full((16,), 0.0).bernoulli(0.5, generator=g),
    "normal_tensors": lambda g: ember.normal(ember.zeros(6), ember.ones(6), generator=g),
    "normal_mean_tensor": lambda g: ember.normal(ember.zeros(6), 2.0, generator=g),
    "normal_std_tensor": lambda g: ember.normal(1.0, ember.ones(6), generator=g),
    "normal_size": lambda g: ember.normal(0.0, 1.0, (6,), generator=g),
    "multinomial": lambda g: ember.multinomial(ember.arange(1.0, 11.0), 6, generator=g),
    "multinomial_replacement": lambda g: ember.arange(1.0, 16.0).view(3, 5).multinomial(
        8, True, generator=g),
    "exponential_": lambda g: ember.empty(8).exponential_(2.0, generator=g),
    "cauchy_": lambda g: ember.empty(8).cauchy_(1.0, 2.0, generator=g),
    "log_normal_": lambda g: ember.empty(8, dtype=ember.float64).log_normal_(0.5, 0.5, generator=g),
    "geometric_": lambda g: ember.empty(8, dtype=ember.int64).geometric_(0.3, generator=g),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_same_seed_same_values(name):
    draw = SAMPLERS[name]
    a, b = draw(gen(123)), draw(gen(123))
    assert a.tolist() == b.tolist()
    # ... and the generator moves on: a second draw differs (for all but tiny ranges)
    g = gen(123)
    first, second = draw(g), draw(g)
    assert first.tolist() != second.tolist()
    assert draw(gen(124)).tolist() != a.tolist()


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_default_generator_is_used_without_generator_and_is_not_touched_with_one(name):
    draw = SAMPLERS[name]
    ember.manual_seed(7)
    expected = ember.rand(4).tolist()
    ember.manual_seed(7)
    draw(gen(1))  # an explicit generator: the default one does not move
    assert ember.rand(4).tolist() == expected
    # generator=None is the default generator
    ember.manual_seed(7)
    a = draw(None)
    ember.manual_seed(7)
    assert draw(ember.default_generator).tolist() == a.tolist()


def test_independent_generators():
    g1, g2 = gen(5), gen(5)
    a1 = ember.rand(10, generator=g1)
    ember.rand(100, generator=g1)  # g1 moves on, g2 does not
    a2 = ember.rand(10, generator=g2)
    assert a1.tolist() == a2.tolist()
    assert ember.rand(10, generator=g1).tolist() != ember.rand(10, generator=g2).tolist()


def test_manual_seed_returns_the_generator_and_seed_accessors():
    g = ember.Generator()
    assert g.manual_seed(42) is g
    assert g.initial_seed() == 42
    assert ember.Generator().initial_seed() == 67280421310721  # PyTorch's default seed
    assert ember.manual_seed(3) is ember.default_generator
    assert ember.initial_seed() == 3
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    s2 = ember.seed()
    assert ember.initial_seed() == s2
    g.manual_seed(-1)  # negative seeds wrap around as in PyTorch
    assert g.initial_seed() == 2**64 - 1
    g.manual_seed(2**64 - 1)
    assert g.initial_seed() == 2**64 - 1
    with pytest.raises(RuntimeError):
        g.manual_seed(2**64)
    assert g.manual_seed(np.int64(8)).initial_seed() == 8
    with pytest.raises(RuntimeError, match="manual_seed expected a long"):  # as torch's Generator
        g.manual_seed(1.5)
    assert ember.manual_seed(1.5).initial_seed() == 1  # torch.manual_seed converts with int()
    with pytest.raises(ValueError):
        ember.manual_seed("a")
    assert g.device == ember.device("cpu")
    assert ember.Generator(device="cpu").device.type == "cpu"


def test_state_round_trip():
    g = gen(11)
    ember.rand(3, generator=g)
    state = g.get_state()
    assert state.dtype == ember.uint8 and state.shape == (16,)
    a = ember.randn(7, generator=g)
    assert g.set_state(state) is g
    assert ember.randn(7, generator=g).tolist() == a.tolist()
    # another generator takes the state over
    h = ember.Generator().set_state(state)
    assert ember.randn(7, generator=h).tolist() == a.tolist()
    # the returned state is a copy, not a live view
    before = state.tolist()
    ember.rand(5, generator=g)
    assert state.tolist() == before


def test_default_rng_state_round_trip():
    ember.manual_seed(0)
    ember.rand(2)
    state = ember.get_rng_state()
    a = ember.rand(6)
    ember.rand(6)
    ember.set_rng_state(state)
    assert ember.rand(6).tolist() == a.tolist()


def test_pickle_and_deepcopy_keep_the_state():
    g = gen(9)
    ember.rand(4, generator=g)
    for h in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert h is not g
        assert h.initial_seed() == 9
        assert ember.rand(5, generator=h).tolist() == ember.rand(5, generator=copy.deepcopy(g)).tolist()


def test_set_state_errors():
    g = ember.Generator()
    with pytest.raises(TypeError):
        g.set_state(ember.zeros(16))
    with pytest.raises(RuntimeError):
        g.set_state(ember.zeros(3, dtype=ember.uint8))


def test_generator_argument_errors():
    with pytest.raises(TypeError):
        ember.rand(3, generator=5)
    with pytest.raises(TypeError):
        ember.empty(3).uniform_(generator="seed")
    with pytest.raises(TypeError):  # factories that are not random take no generator
        ember.zeros(3, generator=ember.Generator())
    if ember.cuda.is_built():  # the same Philox stream, for CUDA tensors
        g = ember.Generator(device="cuda")
        assert g.device.type == "cuda"
        with pytest.raises(RuntimeError, match="generator"):  # not for a CPU tensor
            ember.randn(3, generator=g)
    else:
        with pytest.raises(RuntimeError):  # no CUDA backend: no CUDA generators
            ember.Generator(device="cuda")


def test_random_ranges():
    g = gen(0)
    x = ember.empty(4000, dtype=ember.int8).random_(generator=g)
    assert 0 <= x.min().item() and x.max().item() <= 127 and x.max().item() > 120
    x = ember.empty(4000, dtype=ember.float32).random_(generator=g)
    assert 0 <= x.min().item() and x.max().item() <= 2**24 and x.max().item() > 2**23
    x = ember.empty(4000, dtype=ember.int64).random_(generator=g)
    assert x.min().item() >= 0 and x.max().item() > 2**62
    x = ember.empty(1000, dtype=ember.int64).random_(5, generator=g)
    assert sorted(set(x.tolist())) == [0, 1, 2, 3, 4]
    x = ember.empty(1000, dtype=ember.int16).random_(-3, 2, generator=g)
    assert sorted(set(x.tolist())) == [-3, -2, -1, 0, 1]
    x = ember.empty(2000, dtype=ember.int8).random_(-3, None, generator=g)
    assert x.min().item() == -3 and x.max().item() == 127
    x = ember.empty(1000, dtype=ember.int64).random_(**{"from": 10, "to": 13}, generator=g)
    assert sorted(set(x.tolist())) == [10, 11, 12]
    x = ember.empty(1000, dtype=ember.bool).random_(generator=g)
    assert sorted(set(x.tolist())) == [False, True]
    x = ember.empty(3000, dtype=ember.int64).random_(-(2**63), None, generator=g)  # the whole int64 range
    assert x.min().item() < -(2**61) and x.max().item() > 2**61
    x = ember.randint(-5, 5, (1000,), dtype=ember.int8, generator=g)
    assert x.dtype == ember.int8 and sorted(set(x.tolist())) == list(range(-5, 5))


def test_random_errors():
    with pytest.raises(RuntimeError):
        ember.empty(3, dtype=ember.int64).random_(5, 2)
    with pytest.raises(RuntimeError):
        ember.empty(3, dtype=ember.int8).random_(0, 300)
    with pytest.raises(RuntimeError):
        ember.empty(3, dtype=ember.uint8).random_(-1, 5)
    with pytest.raises(RuntimeError):
        ember.randint(5, 5, (2,))
    with pytest.raises(RuntimeError):
        ember.empty(3).uniform_(2, 1)
    with pytest.raises(RuntimeError):
        ember.empty(3).normal_(0, -1)
    with pytest.raises(RuntimeError):
        ember.empty(3).bernoulli_(1.5)
    with pytest.raises(RuntimeError):
        ember.empty(3).bernoulli_(ember.tensor([0.5, 2.0, 0.1]))
    with pytest.raises(RuntimeError):
        ember.empty(3, dtype=ember.int64).uniform_()
    with pytest.raises(RuntimeError):
        ember.bernoulli(ember.tensor([1, 0]))
    with pytest.raises(RuntimeError):
        ember.normal(ember.zeros(2), ember.tensor([1.0, -1.0]))
    with pytest.raises(TypeError):
        ember.empty(3).random_(1, 2, 3)


def test_distributions_roughly_right():
    g = gen(2024)
    n = 200_000
    u = ember.empty(n, dtype=ember.float64).uniform_(-1, 3, generator=g).numpy()
    assert u.min() >= -1 and u.max() < 3
    assert abs(u.mean() - 1) < 0.02 and abs(u.var() - 16 / 12) < 0.02
    z = ember.randn(n, dtype=ember.float64, generator=g).numpy()
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.01
    z = ember.empty(n, dtype=ember.float64).normal_(3, 0.5, generator=g).numpy()
    assert abs(z.mean() - 3) < 0.01 and abs(z.std() - 0.5) < 0.01
    b = ember.empty(n).bernoulli_(0.3, generator=g).numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.01
    p = ember.tensor([0.0, 1.0, 0.25]).expand(n // 3, 3).contiguous()
    b = ember.bernoulli(p, generator=g).numpy()
    assert (b[:, 0] == 0).all() and (b[:, 1] == 1).all() and abs(b[:, 2].mean() - 0.25) < 0.01
    assert ember.bernoulli(p).dtype == ember.float32
    r = ember.normal(ember.tensor([[0.0], [10.0]]), ember.tensor([1.0, 0.1, 0.0]), generator=g)
    assert r.shape == (2, 3)
    assert r[1, 2].item() == 10.0 and r[0, 2].item() == 0.0
    perm = ember.randperm(1000, generator=g).tolist()
    assert sorted(perm) == list(range(1000)) and perm != list(range(1000))
    k = ember.randint(3, 8, (n,), generator=g).numpy()
    assert set(np.unique(k)) == {3, 4, 5, 6, 7}
    assert abs(np.bincount(k)[3:].mean() - n / 5) < 0.02 * n / 5


def test_random_factories_keep_options_and_in_place_ops_return_self_values():
    x = ember.rand(2, 3, dtype=ember.float64, requires_grad=True, generator=gen(0))
    assert x.requires_grad and x.dtype == ember.float64 and x.is_leaf
    y = ember.empty(4)
    r = y.uniform_(generator=gen(1))
    assert r.tolist() == y.tolist()
    assert ember.randn(size=(2,), generator=gen(3)).tolist() == ember.randn(2, generator=gen(3)).tolist()
    # a non-contiguous tensor is filled through its view, in row-major order
    base = ember.zeros(4, 6, dtype=ember.float64)
    base.t().uniform_(generator=gen(4))
    expected = ember.empty(6, 4, dtype=ember.float64).uniform_(generator=gen(4))
    assert base.t().tolist() == expected.tolist()


def test_normal_and_bernoulli_take_no_gradient_through_the_sample():
    mean = ember.zeros(3, requires_grad=True)
    out = ember.normal(mean, 1.0, generator=gen(0))
    assert not out.requires_grad


def test_set_num_threads():
    n = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        assert ember.get_num_threads() == 1
    finally:
        ember.set_num_threads(n)
    with pytest.raises(RuntimeError, match="positive"):  # torch's type
        ember.set_num_threads(0)
