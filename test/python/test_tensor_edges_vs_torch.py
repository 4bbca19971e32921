"""Edges found by probing a few hundred calls against PyTorch (2026-11-29): each case
behaves, or fails, as PyTorch's does."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("call", ["size", "stride"])
@pytest.mark.parametrize("d", [0, -1])
def test_size_and_stride_of_a_0d_tensor_raise_index_error(call, d):
    for lib in (ember, torch):
        with pytest.raises(IndexError, match=f"Dimension specified as {d} but tensor has no dimensions"):
            getattr(lib.tensor(5.0), call)(d)
    assert ember.tensor(5.0).size() == () and ember.tensor(5.0).stride() == ()


def test_tensor_of_a_list_of_tensors_takes_each_as_a_number():
    for parts in ([ember.ones(1), ember.full((1, 1), 2.0)], [ember.tensor(3), ember.tensor(4.5)]):
        e = ember.tensor(parts)
        t = torch.tensor([torch.from_numpy(p.numpy()) for p in parts])
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_array_equal(e.numpy(), t.numpy())
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    nested = ember.tensor([[ember.tensor(1.0)], [ember.tensor(2.0)]])
    assert tuple(nested.shape) == (2, 1)
    for lib in (ember, torch):
        with pytest.raises(ValueError, match="only one element tensors"):
            lib.tensor([lib.ones(2), lib.ones(2)])
    # numpy arrays in a list are still rows, as in PyTorch
    assert tuple(ember.tensor([np.ones(2), np.zeros(2)]).shape) == (2, 2)


def test_H_only_on_matrices():
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="only supported on matrices"):
            lib.ones(3).H
        with pytest.raises(RuntimeError, match="only supported on matrices"):
            lib.ones(2, 2, 2).H
    np.testing.assert_array_equal(ember.arange(6.0).view(2, 3).H.numpy(), np.arange(6.0).reshape(2, 3).T)


def test_return_types_print_like_torch():
    def both(f):
        e, t = f(ember), f(torch)
        return repr(e).replace("ember", "X"), repr(t).replace("torch", "X")
    for f in (lambda m: m.arange(6.0).view(2, 3).max(1), lambda m: m.arange(6.0).view(2, 3).sort(1, descending=True),
              lambda m: m.arange(4.0).topk(2), lambda m: m.frexp(m.arange(1.0, 3.0)),
              lambda m: m.linalg.slogdet(m.eye(2)), lambda m: m.aminmax(m.arange(3.0))):
        e, t = both(f)
        assert e == t
    assert repr(ember.iinfo(ember.int32)) == repr(torch.iinfo(torch.int32))
    assert repr(ember.iinfo(ember.uint8)) == repr(torch.iinfo(torch.uint8))
