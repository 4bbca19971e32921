"""A call that raises leaves its inputs, the module and the optimizer bit-identical to
what they were: checked before anything is written. Each case puts the bad element
last, where a check made while writing would already have written the rest (PyTorch
itself loses state in most of these cases). The exception types are PyTorch's."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def snapshot(*tensors):
    return [t.detach().clone().numpy().tobytes() for t in tensors]


def raises_like_torch(ember_call, torch_call):
    with pytest.raises(Exception) as expected:
        torch_call()
    with pytest.raises(type(expected.value)):
        ember_call()


# ---- in-place index writes with one bad index at the end ------------------------------------

INDEX_WRITES = {
    "scatter_": lambda m, x: x.scatter_(0, m.tensor([0, 1, 9]), m.ones(3)),
    "scatter_ value": lambda m, x: x.scatter_(0, m.tensor([0, 1, 9]), 2.0),
    "scatter_ negative": lambda m, x: x.scatter_(0, m.tensor([0, 1, -1]), m.ones(3)),
    "scatter_ reduce": lambda m, x: x.scatter_(0, m.tensor([0, 9]), m.ones(2), reduce="add"),
    "scatter_add_": lambda m, x: x.scatter_add_(0, m.tensor([0, 1, 9]), m.ones(3)),
    "index_add_": lambda m, x: x.index_add_(0, m.tensor([0, 1, 9]), m.ones(3)),
    "index_add_ negative": lambda m, x: x.index_add_(0, m.tensor([0, -1]), m.ones(2)),
    "index_copy_": lambda m, x: x.index_copy_(0, m.tensor([0, 1, 9]), m.ones(3)),
    "index_fill_": lambda m, x: x.index_fill_(0, m.tensor([0, 1, 9]), 1.0),
    "index_fill_ below -size": lambda m, x: x.index_fill_(0, m.tensor([0, -9]), 1.0),
    "index_put_": lambda m, x: x.index_put_((m.tensor([0, 1, 9]),), m.ones(3)),
    "index_put_ accumulate": lambda m, x: x.index_put_((m.tensor([0, 9]),), m.ones(2),
                                                       accumulate=True),
    "setitem": lambda m, x: x.__setitem__(m.tensor([0, 1, 9]), 1.0),
    "put_": lambda m, x: x.put_(m.tensor([0, 9]), m.ones(2)),
    "scatter_ along dim 1": lambda m, x: x.view(1, 5).scatter_(1, m.tensor([[0, 9]]),
                                                               m.ones(1, 2)),
}


@pytest.mark.parametrize("name", sorted(INDEX_WRITES))
def test_index_write_with_a_bad_index_leaves_self_unchanged(name):
    op = INDEX_WRITES[name]
    x = ember.arange(5.0)
    before = snapshot(x)
    raises_like_torch(lambda: op(ember, x), lambda: op(torch, torch.arange(5.0)))
    assert snapshot(x) == before


# ---- integer division by zero ---------------------------------------------------------------

DIVISIONS = {
    "div_ trunc": lambda x, d: x.div_(d, rounding_mode="trunc"),
    "div_ floor": lambda x, d: x.div_(d, rounding_mode="floor"),
    "floor_divide_": lambda x, d: x.floor_divide_(d),
    "remainder_": lambda x, d: x.remainder_(d),
    "fmod_": lambda x, d: x.fmod_(d),
    "%= ": lambda x, d: x.__imod__(d),
    "//=": lambda x, d: x.__ifloordiv__(d),
}


@pytest.mark.parametrize("name", sorted(DIVISIONS))
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_integer_division_by_zero_raises_before_writing(name, dtype):
    op = DIVISIONS[name]
    x = ember.arange(1, 7).to(getattr(ember, dtype))
    divisor = ember.tensor([1, 2, 1, 3, 1, 0]).to(getattr(ember, dtype))
    before = snapshot(x)
    raises_like_torch(lambda: op(x, divisor),
                      lambda: op(torch.arange(1, 7).to(getattr(torch, dtype)),
                                 torch.tensor([1, 2, 1, 3, 1, 0]).to(getattr(torch, dtype))))
    assert snapshot(x) == before


def test_floating_division_by_zero_still_gives_inf():
    x = ember.tensor([1.0, -1.0])
    x.div_(ember.tensor([0.0, 0.0]))
    assert x.tolist() == [float("inf"), float("-inf")]


# ---- writes into tensors whose elements overlap -----------------------------------------------

def test_copy_into_an_expanded_tensor_raises_like_torch_and_writes_nothing():
    base = ember.tensor([3.0])
    raises_like_torch(lambda: base.expand(4).copy_(ember.arange(4.0)),
                      lambda: torch.tensor([3.0]).expand(4).copy_(torch.arange(4.0)))
    assert base.tolist() == [3.0]


# ---- load_state_dict -------------------------------------------------------------------------

def make_model():
    ember.manual_seed(0)
    return ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4),
                               ember.nn.Linear(4, 2))


def model_state(model):
    return snapshot(*model.parameters(), *model.buffers())


BAD_STATE_DICTS = {
    "a wrong shape at the end (strict)": (True, lambda sd: sd.__setitem__("2.bias", ember.zeros(5))),
    "a wrong shape at the end (not strict)": (False,
                                              lambda sd: sd.__setitem__("2.bias", ember.zeros(5))),
    "a missing key (strict)": (True, lambda sd: sd.pop("2.bias")),
    "an unexpected key (strict)": (True, lambda sd: sd.__setitem__("3.weight", ember.zeros(1))),
    "a value that is not a tensor": (False, lambda sd: sd.__setitem__("2.bias", [0.0, 0.0])),
}


@pytest.mark.parametrize("case", sorted(BAD_STATE_DICTS))
def test_load_state_dict_that_raises_changes_no_parameter_or_buffer(case):
    strict, spoil = BAD_STATE_DICTS[case]
    model = make_model()
    before = model_state(model)
    state = {k: v + 1 for k, v in model.state_dict().items()}  # every value differs
    spoil(state)
    with pytest.raises(RuntimeError, match="Error\\(s\\) in loading state_dict"):
        model.load_state_dict(state, strict=strict)
    assert model_state(model) == before


def test_load_state_dict_that_succeeds_still_loads_everything():
    model, other = make_model(), make_model()
    state = {k: v + 1 for k, v in other.state_dict().items()}
    result = model.load_state_dict(state)
    assert not result.missing_keys and not result.unexpected_keys
    for key, value in model.state_dict().items():
        assert ember.equal(value, state[key]), key
    partial = {"0.weight": ember.zeros(4, 3)}
    result = model.load_state_dict(partial, strict=False)
    assert "2.bias" in result.missing_keys and model[0].weight.abs().sum().item() == 0


def test_load_state_dict_with_assign_is_also_all_or_nothing():
    model = make_model()
    weight = model[0].weight
    state = {k: v + 1 for k, v in model.state_dict().items()}
    state["2.bias"] = ember.zeros(5)
    with pytest.raises(RuntimeError):
        model.load_state_dict(state, assign=True)
    assert model[0].weight is weight


def test_extra_state_is_set_only_when_the_load_succeeds():
    class WithExtra(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = ember.nn.Linear(2, 2)
            self.extra = "original"

        def get_extra_state(self):
            return self.extra

        def set_extra_state(self, state):
            self.extra = state

    model = WithExtra()
    state = model.state_dict()
    state["_extra_state"] = "loaded"
    state["lin.bias"] = ember.zeros(3)
    with pytest.raises(RuntimeError):
        model.load_state_dict(state)
    assert model.extra == "original"
    state["lin.bias"] = ember.zeros(2)
    model.load_state_dict(state)
    assert model.extra == "loaded"


# ---- optimizer steps ------------------------------------------------------------------------

OPTIMIZERS = {
    "SGD momentum": lambda p: ember.optim.SGD(p, lr=0.1, momentum=0.9),
    "Adam": lambda p: ember.optim.Adam(p, lr=0.1),
    "AdamW amsgrad": lambda p: ember.optim.AdamW(p, lr=0.1, amsgrad=True),
    "RMSprop": lambda p: ember.optim.RMSprop(p, lr=0.1, momentum=0.5),
    "Adagrad": lambda p: ember.optim.Adagrad(p, lr=0.1),
    "Adadelta": lambda p: ember.optim.Adadelta(p),
    "Adamax": lambda p: ember.optim.Adamax(p),
    "NAdam": lambda p: ember.optim.NAdam(p),
    "RAdam": lambda p: ember.optim.RAdam(p),
    "ASGD": lambda p: ember.optim.ASGD(p),
    "Rprop": lambda p: ember.optim.Rprop(p),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_step_with_mismatched_state_changes_nothing(name):
    make = OPTIMIZERS[name]
    # State from an optimizer over parameters of other shapes, loaded into this one: the
    # mismatch is in the last parameter, after ones whose state fits.
    params = [ember.nn.Parameter(ember.ones(3)), ember.nn.Parameter(ember.ones(2, 2))]
    donor = [ember.nn.Parameter(ember.ones(3)), ember.nn.Parameter(ember.ones(4))]
    for group in (params, donor):
        for p in group:
            p.grad = ember.ones_like(p)
    donor_opt = make(donor)
    donor_opt.step()
    opt = make(params)
    opt.load_state_dict(donor_opt.state_dict())
    before = snapshot(*params) + [snapshot(v) for s in opt.state.values()
                                  for v in s.values() if isinstance(v, ember.Tensor)]
    with pytest.raises(RuntimeError, match="state"):
        opt.step()
    after = snapshot(*params) + [snapshot(v) for s in opt.state.values()
                                 for v in s.values() if isinstance(v, ember.Tensor)]
    assert after == before
