"""ember.Tensor's own Python type (csrc/tensor_object.cpp): construction as torch's
legacy constructor, subclasses, attributes, weak references, garbage collection and
memory, and the `data` setter that re-points an object in place."""
import copy
import gc
import pickle
import weakref

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("args", [(), ([1, 2],), (2, 3), ((1.5, 2),), ([[1, 2], [3, 4]],), (0,)])
def test_legacy_constructor_matches_torch(args):
    e, t = ember.Tensor(*args), torch.Tensor(*args)
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype) == str(t.dtype).replace("torch", "ember")
    if len(args) == 1 and not isinstance(args[0], int):
        np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_constructor_from_a_tensor_aliases_it():
    src = ember.arange(4, dtype=ember.int64)
    alias = ember.Tensor(src)
    assert alias.dtype == ember.int64 and alias._is_view_of(src)
    alias[0] = 7
    assert src[0].item() == 7
    assert ember.Tensor(ember.ones(2), True).requires_grad
    assert ember.Tensor(ember.ones(2), requires_grad=True).requires_grad


@pytest.mark.parametrize("bad", ["x", 2.5, None, object()])
def test_constructor_rejects_what_torch_rejects(bad):
    with pytest.raises(TypeError):
        torch.Tensor(bad)
    with pytest.raises(TypeError):
        ember.Tensor(bad)


def test_new_alone_gives_an_empty_tensor_not_a_broken_one():
    t = ember.Tensor.__new__(ember.Tensor)
    assert t.shape == (0,) and t.dtype == ember.float32
    assert t.grad is None
    assert t.sum().item() == 0.0


def test_subclasses_keep_their_class_attributes_and_behaviour():
    class Tagged(ember.Tensor):
        def double(self):
            return self * 2

    t = Tagged._make_subclass(Tagged, ember.tensor([1.0, 2.0]))
    t.note = "hello"
    assert isinstance(t, ember.Tensor) and type(t) is Tagged
    assert t.note == "hello" and t.__dict__ == {"note": "hello"}
    np.testing.assert_array_equal(t.double().numpy(), [2.0, 4.0])
    assert type(t + 1) is ember.Tensor  # results of ops are plain tensors, as in torch

    class Slotted(ember.Tensor):
        __slots__ = ("extra",)

    s = Slotted._make_subclass(Slotted, ember.ones(1))
    s.extra = 3
    assert s.extra == 3


def test_plain_tensors_take_attributes_and_weak_references():
    t = ember.ones(2)
    t.name = "w"
    assert t.name == "w"
    ref = weakref.ref(t)
    assert ref() is t
    del t
    gc.collect()
    assert ref() is None


def test_reference_cycles_through_attributes_are_collected():
    t = ember.ones(3)
    t.me = t
    ref = weakref.ref(t)
    del t
    gc.collect()
    assert ref() is None


def test_objects_do_not_leak_memory():
    x = ember.ones(1000)
    for _ in range(100):
        (x + 1).relu()[1:].sum()
    before = ember.memory_stats()["allocated_bytes"]
    for _ in range(2000):
        y = (x * 2).relu()[1:]
        y.tag = y  # a cycle, freed by the collector
    del y
    gc.collect()
    assert ember.memory_stats()["allocated_bytes"] == before


def test_pickle_and_deepcopy_keep_class_and_values():
    p = ember.nn.Parameter(ember.tensor([1.0, 2.0]))
    q = copy.deepcopy(p)
    assert type(q) is ember.nn.Parameter and q.requires_grad and not q._is_view_of(p)
    t = pickle.loads(pickle.dumps(ember.tensor([[1, 2], [3, 4]])))
    np.testing.assert_array_equal(t.numpy(), [[1, 2], [3, 4]])


def test_data_setter_repoints_the_object_everyone_holds():
    lin = ember.nn.Linear(2, 2)
    opt = ember.optim.SGD(lin.parameters(), lr=0.1)
    w = lin.weight
    w.data = ember.zeros(2, 2)
    assert lin.weight is w and float(lin.weight.abs().sum()) == 0.0
    assert opt.param_groups[0]["params"][0] is w
    assert w.requires_grad
