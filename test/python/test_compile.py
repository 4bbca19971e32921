"""ember.compile against torch.compile: the same arguments accepted and refused, the same
wrapper structure for a module (state_dict keys prefixed `_orig_mod.`), and results
equal to the eager call (ember runs eagerly: python/ember/_compile.py)."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _keep_torch_distribution_validation():
    """torch.compile imports torch._dynamo, which turns off torch.distributions' default
    argument validation for the whole process; other tests in this worker compare
    with torch's validation, so it is put back."""
    before = torch.distributions.Distribution._validate_args
    yield
    torch.distributions.Distribution.set_default_validate_args(before)


def _models():
    ember.manual_seed(0)
    e = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(), ember.nn.Linear(8, 2))
    t = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    t.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in e.state_dict().items()})
    return e, t


def test_module_wrapper_matches_torch():
    e, t = _models()
    ce, ct = ember.compile(e), torch.compile(t)
    assert type(ce).__name__ == type(ct).__name__ == "OptimizedModule"
    assert list(ce.state_dict()) == list(ct.state_dict())
    e.custom = 5
    assert ce._orig_mod is e and ce.custom == 5  # attribute reads reach the module
    assert isinstance(ce, ember.nn.Module)
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_array_equal(ce(ember.tensor(x)).detach().numpy(), e(ember.tensor(x)).detach().numpy())
    ce.eval()
    assert not e.training and not ce.training


def test_training_through_the_wrapper_updates_the_module():
    e, _ = _models()
    ce = ember.compile(e, mode="max-autotune", fullgraph=True, dynamic=False)
    opt = ember.optim.SGD(ce.parameters(), lr=0.1)
    before = e[0].weight.detach().clone()
    loss = ce(ember.ones(2, 4)).sum()
    loss.backward()
    opt.step()
    assert not ember.equal(e[0].weight.detach(), before)


def test_checkpoint_of_a_compiled_model_loads_on_both_sides():
    e, t = _models()
    ce, ct = ember.compile(e), torch.compile(t)
    e_sd = {k: torch.tensor(v.detach().numpy()) for k, v in ce.state_dict().items()}
    ct.load_state_dict(e_sd)
    ce.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in ct.state_dict().items()})


def test_functions_and_decorators():
    def f(x):
        return x * 2 + 1

    assert ember.compile(f)(ember.ones(2)).tolist() == [3.0, 3.0]

    @ember.compile
    def g(x):
        return x - 1

    @ember.compile(mode="reduce-overhead", backend="inductor")
    def h(x):
        return x + 1

    assert g(ember.ones(1)).tolist() == [0.0] and h(ember.ones(1)).tolist() == [2.0]
    assert ember.compiler.is_compiling() is False and ember.compiler.disable(f) is f


@pytest.mark.parametrize("kwargs,error", [
    ({"mode": "foo"}, RuntimeError),
    ({"mode": "default", "options": {"a": 1}}, RuntimeError),
])
def test_bad_arguments_as_torch(kwargs, error):
    e, t = _models()
    for lib, m in ((torch, t), (ember, e)):
        with pytest.raises(error):
            lib.compile(m, **kwargs)


def test_not_callable_as_torch():
    for lib in (torch, ember):
        with pytest.raises(AssertionError):
            lib.compile(3)


def test_dynamo_reset_and_config_as_compile_tutorials_use_them():
    # torch._dynamo.reset() between benchmarks and config options set before compiling.
    import ember._dynamo
    assert ember._dynamo.reset() is None and torch._dynamo.reset() is None
    for name in ("suppress_errors", "cache_size_limit", "verbose", "optimize_ddp",
                 "capture_scalar_outputs", "automatic_dynamic_shapes"):
        assert getattr(ember._dynamo.config, name) == getattr(torch._dynamo.config, name), name
    saved = ember._dynamo.config.cache_size_limit
    ember._dynamo.config.cache_size_limit = 64
    assert ember._dynamo.config.cache_size_limit == 64
    ember._dynamo.config.cache_size_limit = saved
    for lib in (ember, torch):
        with pytest.raises(AttributeError, match="does not exist"):
            lib._dynamo.config.no_such_option = 1
        with pytest.raises(AttributeError, match="does not exist"):
            lib._dynamo.config.no_such_option
    model = ember.nn.Linear(2, 2)
    x = ember.ones(1, 2)
    assert ember.equal(ember.compile(model)(x), model(x))
