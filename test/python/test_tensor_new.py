"""Tensor.new (the legacy constructor older PyTorch programs use: weight.new(b, h).zero_())
against torch's: sizes, data, another tensor, no argument, and the bad calls."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

CALLS = [
    lambda lib, x: x.new(),
    lambda lib, x: x.new(2, 3),
    lambda lib, x: x.new(3),
    lambda lib, x: x.new(lib.Size([4, 1])),
    lambda lib, x: x.new((2, 3)),          # a tuple is data, not a size
    lambda lib, x: x.new([1, 2]),
    lambda lib, x: x.new([[1.5], [2.5]]),
    lambda lib, x: x.new(range(3)),
    lambda lib, x: x.new(np.array([1, 2])),
]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("dtype", ["float64", "int32", "float32"])
def test_new_matches_torch(call, dtype):
    e = call(ember, ember.zeros(2, dtype=getattr(ember, dtype)))
    t = call(torch, torch.zeros(2, dtype=getattr(torch, dtype)))
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    if t.numel() and call not in (CALLS[1], CALLS[2], CALLS[3]):  # sized ones are uninitialized
        np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_new_of_a_tensor_shares_its_memory():
    for lib in (ember, torch):
        x = lib.zeros(2, dtype=lib.float64)
        other = lib.ones(3, dtype=lib.float64)
        assert x.new(other).data_ptr() == other.data_ptr()


@pytest.mark.parametrize("bad,error", [
    (lambda lib, x: x.new("a"), TypeError),
    (lambda lib, x: x.new(2.5), TypeError),
    (lambda lib, x: x.new(-1), RuntimeError),
    (lambda lib, x: x.new(lib.ones(2, dtype=lib.float32)), TypeError),
])
def test_new_bad_calls_as_torch(bad, error):
    for lib in (ember, torch):
        with pytest.raises(error):
            bad(lib, lib.zeros(2, dtype=lib.float64))
