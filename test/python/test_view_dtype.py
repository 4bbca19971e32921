"""Tensor.view(dtype) against torch: the same bytes read as another dtype, the geometry
rescaled along the last dim for another element size, torch's refusals, and memory
shared with the source (a write through the view is seen by the source)."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool"]


def _pair(values, dtype):
    t = torch.from_numpy(values).to(getattr(torch, dtype))
    e = ember.from_numpy(values).to(getattr(ember, dtype))
    return e, t


def _bits(x):
    x = x.detach()
    return x.view(torch.uint8 if isinstance(x, torch.Tensor) else ember.uint8).numpy().tobytes()


@pytest.mark.parametrize("src", ["float32", "int16", "float64", "uint8"])
@pytest.mark.parametrize("dst", DTYPES)
def test_view_dtype_matches_torch(src, dst):
    values = np.random.default_rng(0).uniform(-50, 50, (3, 8))
    e, t = _pair(values, src)
    for ee, tt in ((e, t), (e[:, 2:6], t[:, 2:6]), (e[1:], t[1:])):
        try:
            expected = tt.view(getattr(torch, dst))
        except RuntimeError:
            with pytest.raises(RuntimeError):
                ee.view(getattr(ember, dst))
            continue
        got = ee.view(getattr(ember, dst))
        assert tuple(got.shape) == tuple(expected.shape) and got.stride() == expected.stride()
        assert str(got.dtype).split(".")[-1] == dst
        if dst != "bool":  # (bytes other than 0 and 1 read as bool are undefined in both)
            assert _bits(got.contiguous()) == _bits(expected.contiguous())


def test_view_dtype_shares_memory_and_keyword():
    e = ember.zeros(4)
    as_int = e.view(dtype=ember.int32)
    as_int[1] = 1065353216  # the bits of 1.0f
    assert e.tolist() == [0.0, 1.0, 0.0, 0.0]


def test_view_dtype_refusals_as_torch():
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="dim"):
            lib.tensor(1.0).view(lib.int16)
        with pytest.raises(RuntimeError, match="stride"):
            lib.zeros(4, 2).t().view(lib.float16)
        with pytest.raises(RuntimeError, match="divisible"):
            lib.zeros(5, dtype=lib.int16).view(lib.int32)
        x = lib.zeros(3, requires_grad=True)
        assert not x.view(lib.int32).requires_grad
