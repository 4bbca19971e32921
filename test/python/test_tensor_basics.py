"""ember.tensor / as_tensor, ember.Size, and Tensor's Python protocols (iteration,
hashing, pickling, copying, requires_grad), checked against numpy and PyTorch."""
import copy
import math
import pickle

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # the torch comparisons are skipped
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

ALL_DTYPES = [ember.bool, ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64,
              ember.float16, ember.bfloat16, ember.float32, ember.float64]


# ---- ember.tensor: dtype inference -------------------------------------------------

@pytest.mark.parametrize("data, dtype", [
    (3, ember.int64), (3.5, ember.float32), (True, ember.bool),
    ([1, 2, 3], ember.int64), ([1.0, 2.0], ember.float32), ([True, False], ember.bool),
    ([1, 2.5], ember.float32), ([True, 2], ember.int64), ([True, 2.0], ember.float32),
    ([[1, 2], [3, 4]], ember.int64), ((1, 2), ember.int64), (range(4), ember.int64),
    ([], ember.float32), ([[], []], ember.float32),
    (np.float64(1.5), ember.float64), (np.int32(7), ember.int32), (np.bool_(True), ember.bool),
    ([np.float32(1), 2], ember.float32), ([np.float64(1), 2], ember.float64),
    ([np.int32(1), np.int16(2)], ember.int32), ([np.int32(1), 2], ember.int64),
    (np.arange(6, dtype=np.int16).reshape(2, 3), ember.int16),
    (np.zeros((2, 2)), ember.float64), (np.zeros(3, np.float16), ember.float16),
    ([np.array([1, 2], np.int32), np.array([3, 4], np.int32)], ember.int32),
])
def test_tensor_infers_dtype_like_torch(data, dtype):
    t = ember.tensor(data)
    assert t.dtype == dtype
    expected = np.array(data if not isinstance(data, range) else list(data))
    assert tuple(t.shape) == expected.shape
    if torch is not None:
        assert str(t.dtype).replace("ember", "torch") == str(torch.tensor(data).dtype)
        assert tuple(t.shape) == tuple(torch.tensor(data).shape)


def test_tensor_values_match_numpy():
    data = [[1.5, -2.25, 3.0], [4.0, 5.5, -6.0]]
    t = ember.tensor(data)
    np.testing.assert_array_equal(t.numpy(), np.array(data, np.float32))
    assert ember.tensor(data, dtype=ember.float64).numpy().tolist() == data


def test_tensor_scalars_are_0_dim():
    for v in (3, 2.5, False):
        t = ember.tensor(v)
        assert t.dim() == 0 and t.shape == () and t.item() == v


def test_tensor_follows_default_dtype():
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.tensor([1.5]).dtype == ember.float64
        assert ember.tensor([1, 2]).dtype == ember.int64
        assert ember.tensor([]).dtype == ember.float64
    finally:
        ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_tensor_with_explicit_dtype(dtype):
    t = ember.tensor([[0, 1], [1, 0]], dtype=dtype)
    assert t.dtype == dtype and tuple(t.shape) == (2, 2)
    assert t.tolist() == [[0, 1], [1, 0]]


def test_tensor_converts_values_like_torch():
    assert ember.tensor([1.7, -2.7], dtype=ember.int64).tolist() == [1, -2]
    assert ember.tensor([-1], dtype=ember.uint8).tolist() == [255]
    assert ember.tensor([-200], dtype=ember.uint8).tolist() == [56]
    assert ember.tensor([2, 0, -1.5], dtype=ember.bool).tolist() == [True, False, True]
    assert ember.tensor([1e40], dtype=ember.float32).tolist() == [math.inf]
    assert ember.tensor([1e6], dtype=ember.float16).tolist() == [math.inf]
    assert ember.tensor([2**62]).item() == 2**62
    half = ember.tensor([0.1], dtype=ember.float16).tolist()[0]
    assert half == float(np.float16(0.1))


@pytest.mark.parametrize("value, dtype", [
    (300, ember.uint8), (-256, ember.uint8), (-129, ember.int8), (70000, ember.int16),
    (1e10, ember.int32), (1e20, ember.int64), (float("nan"), ember.int64), (-1.5, ember.uint8),
    (256.0, ember.uint8),
])
def test_tensor_refuses_overflow(value, dtype):
    with pytest.raises(RuntimeError, match="without overflow"):
        ember.tensor([value], dtype=dtype)


def test_tensor_from_tensors():
    src = ember.tensor([1.0, 2.0])
    t = ember.tensor(src)
    assert not t._is_view_of(src)
    t.fill_(7)
    assert src.tolist() == [1.0, 2.0]
    assert ember.tensor(src, dtype=ember.int32).dtype == ember.int32
    # 0-dim tensors inside lists are numbers with their own dtype
    items = [ember.tensor(1, dtype=ember.int32), ember.tensor(2, dtype=ember.int32)]
    assert ember.tensor(items).dtype == ember.int32
    assert ember.tensor(items).tolist() == [1, 2]
    # as in PyTorch, a tensor inside a list is one number: a one-element tensor of any
    # shape is taken, one of several elements is a ValueError (ember.stack makes rows)
    assert ember.tensor([ember.ones(1), ember.full((1, 1), 2.0)]).tolist() == [1.0, 2.0]
    rows = [ember.tensor([1, 2]), ember.tensor([3, 4])]
    with pytest.raises(ValueError, match="only one element tensors"):
        ember.tensor(rows)
    assert ember.stack(rows).tolist() == [[1, 2], [3, 4]]


def test_tensor_from_numpy_copies():
    a = np.arange(6.0).reshape(2, 3)
    t = ember.tensor(a)
    a[0, 0] = 100
    assert t.tolist()[0][0] == 0.0
    assert t.dtype == ember.float64


def test_tensor_from_awkward_numpy_layouts():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert ember.tensor(a[::-1, ::2]).tolist() == a[::-1, ::2].tolist()
    b = np.arange(5, dtype=">i4")  # big-endian
    assert ember.tensor(b).tolist() == [0, 1, 2, 3, 4]
    assert ember.tensor(b).dtype == ember.int32


def test_tensor_requires_grad_and_device():
    t = ember.tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad
    assert ember.tensor([1.0], device="cpu").device == ember.device("cpu")
    assert ember.tensor([1.0], device=ember.device("cpu")).device.type == "cpu"


def test_tensor_big_nested_list():
    data = [[i, -i, i * 0.5] for i in range(2000)]
    t = ember.tensor(data)
    np.testing.assert_array_equal(t.numpy(), np.array(data, np.float32))


# ---- ember.as_tensor -------------------------------------------------------------------

def test_as_tensor_shares_when_it_can():
    a = np.arange(4.0)
    t = ember.as_tensor(a)
    a[0] = 9
    assert t.tolist()[0] == 9
    x = ember.tensor([1.0, 2.0])
    assert ember.as_tensor(x) is not None and ember.as_tensor(x)._is_view_of(x)
    assert ember.as_tensor(x, dtype=ember.float64).dtype == ember.float64
    assert ember.as_tensor([1, 2]).tolist() == [1, 2]
    assert ember.as_tensor(a, dtype=ember.float32).dtype == ember.float32
    assert ember.as_tensor(a[::-1]).tolist() == [3.0, 2.0, 1.0, 9.0]  # copied: negative strides


# ---- ember.Size ---------------------------------------------------------------------------

def test_size_is_a_tuple():
    s = ember.tensor([[1, 2, 3], [4, 5, 6]]).shape
    assert isinstance(s, ember.Size) and isinstance(s, tuple)
    assert s == (2, 3) and s[0] == 2 and s[-1] == 3 and len(s) == 2
    assert hash(s) == hash((2, 3))
    assert repr(s) == "ember.Size([2, 3])" and str(s) == "ember.Size([2, 3])"
    assert s.numel() == 6 and ember.Size([]).numel() == 1
    assert repr(ember.Size()) == "ember.Size([])"
    a, b = s
    assert (a, b) == (2, 3)


def test_size_operations_keep_the_type():
    s = ember.Size([2, 3, 4])
    for r in (s[1:], s + (5,), (1,) + s, s * 2, 2 * s, s[::-1]):
        assert type(r) is ember.Size
    assert s[1:] == (3, 4) and (1,) + s == (1, 2, 3, 4) and s * 2 == (2, 3, 4, 2, 3, 4)
    assert type(s[0]) is int


@needs_torch
def test_size_matches_torch():
    for dims in ([], [5], [2, 3], [0, 4, 1]):
        assert repr(ember.Size(dims)).replace("ember", "torch") == repr(torch.Size(dims))


def test_size_accepts_index_like_ints():
    assert ember.Size([np.int64(2), 3]) == (2, 3)
    with pytest.raises(TypeError, match="iterable of 'int'"):
        ember.Size([2.5])


def test_size_pickles():
    s = ember.Size([4, 5])
    r = pickle.loads(pickle.dumps(s))
    assert type(r) is ember.Size and r == s


def test_size_method():
    x = ember.zeros(2, 3, 4)
    assert x.size() == (2, 3, 4) and type(x.size()) is ember.Size
    assert x.size(1) == 3 and x.size(-1) == 4 and x.size(dim=0) == 2
    assert x.shape == x.size()


# ---- iteration, hashing, len ------------------------------------------------------------

def test_iteration_over_dim_0():
    x = ember.tensor([[1, 2], [3, 4], [5, 6]])
    rows = list(x)
    assert len(rows) == 3 and all(isinstance(r, ember.Tensor) for r in rows)
    assert [r.tolist() for r in rows] == [[1, 2], [3, 4], [5, 6]]
    rows[0].fill_(0)  # views
    assert x.tolist()[0] == [0, 0]
    assert [v.item() for v in ember.tensor([7, 8])] == [7, 8]
    assert list(ember.zeros(0, 3)) == []
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(ember.tensor(1.0))


def test_hash_is_identity():
    x, y = ember.zeros(2), ember.zeros(2)
    assert hash(x) == hash(x) and hash(x) != hash(y)
    d = {x: 1, y: 2}
    assert d[x] == 1 and d[y] == 2
    assert len({x, y, x}) == 2


# ---- pickling and copying -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_pickle_round_trip(dtype):
    x = ember.tensor([i % 5 for i in range(12)]).to(dtype).reshape(3, 4)
    for proto in (2, pickle.HIGHEST_PROTOCOL):
        y = pickle.loads(pickle.dumps(x, protocol=proto))
        assert y.dtype == dtype and y.shape == x.shape
        assert y.float().tolist() == x.float().tolist()
        assert not y._is_view_of(x)


def test_pickle_non_contiguous_and_special_shapes():
    x = ember.arange(12.0).reshape(3, 4).t()
    y = pickle.loads(pickle.dumps(x))
    assert y.tolist() == x.tolist() and y.is_contiguous()
    for t in (ember.tensor(2.5), ember.zeros(0, 3), ember.zeros(2, 0, 1, dtype=ember.int8)):
        r = pickle.loads(pickle.dumps(t))
        assert r.shape == t.shape and r.dtype == t.dtype and r.tolist() == t.tolist()


def test_pickle_keeps_requires_grad():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    assert pickle.loads(pickle.dumps(x)).requires_grad
    assert not pickle.loads(pickle.dumps(x.detach())).requires_grad


def test_pickled_form_is_data_only():
    fn, args = ember.tensor([1, 2], dtype=ember.int16).__reduce_ex__(2)
    assert fn is ember._rebuild_tensor
    assert args == (b"\x01\x00\x02\x00", "int16", (2,))
    assert b"ember\n_rebuild_tensor" in pickle.dumps(ember.tensor([1]), protocol=0)


def test_pickle_inside_containers():
    x = ember.tensor([1.0, 2.0])
    obj = {"a": x, "b": [x, ember.Size([1]), ember.float16, ember.device("cpu")]}
    r = pickle.loads(pickle.dumps(obj))
    assert r["a"].tolist() == [1.0, 2.0] and r["b"][1] == (1,)
    assert r["b"][2] == ember.float16 and r["b"][3] == "cpu"


def test_copy_shares_and_deepcopy_clones():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    c = copy.copy(x)
    assert c._is_view_of(x) and c.requires_grad
    d = copy.deepcopy(x)
    assert not d._is_view_of(x) and d.requires_grad and d.tolist() == [1.0, 2.0]
    both = copy.deepcopy([x, x])  # the memo keeps one copy
    assert both[0] is both[1]


# ---- requires_grad --------------------------------------------------------------------------

def test_requires_grad_flag():
    x = ember.zeros(2)
    assert x.requires_grad is False
    x.requires_grad = True
    assert x.requires_grad
    x.requires_grad = False
    assert not x.requires_grad
    assert x.requires_grad_() is x and x.requires_grad
    assert x.requires_grad_(False) is x and not x.requires_grad
    assert not x.detach().requires_grad
    i = ember.zeros(2, dtype=ember.int64)
    i.requires_grad = False  # allowed: it is already off
    with pytest.raises(RuntimeError, match="floating point"):
        i.requires_grad = True


# ---- module helpers, dtypes and devices --------------------------------------------------------

def test_module_helpers():
    x = ember.zeros(2, 3)
    assert ember.is_tensor(x) and not ember.is_tensor(np.zeros(2)) and not ember.is_tensor(3)
    assert isinstance(x, ember.Tensor)
    assert ember.is_floating_point(x) and not ember.is_floating_point(x.long())
    assert ember.numel(x) == 6


def test_dtype_aliases_and_objects():
    assert ember.float is ember.float32 or ember.float == ember.float32
    assert ember.double == ember.float64 and ember.half == ember.float16
    assert ember.long == ember.int64 and ember.int == ember.int32 and ember.short == ember.int16
    assert ember.float32 != ember.float64
    assert repr(ember.float32) == "ember.float32" and str(ember.int64) == "ember.int64"
    for dt in ALL_DTYPES:
        assert pickle.loads(pickle.dumps(dt)) == dt
        assert copy.deepcopy(dt) == dt
    assert ember.float32.is_floating_point and not ember.int8.is_floating_point
    assert {ember.float32: 1}[ember.float32] == 1


def test_devices():
    d = ember.device("cpu")
    assert d == "cpu" and d == ember.device("cpu") and d.type == "cpu"
    assert pickle.loads(pickle.dumps(d)) == d
    assert ember.zeros(1).device == "cpu"


def test_format_of_0_dim_tensors():
    assert f"{ember.tensor(3.14159):.2f}" == "3.14"
    assert f"{ember.tensor(7):>3}" == "  7"
    assert f"{ember.tensor([1, 2])}" == "tensor([1, 2])"


@needs_torch
def test_tensor_from_torch_tensors():
    src = torch.arange(6, dtype=torch.int16).reshape(2, 3)
    t = ember.tensor(src)
    assert t.dtype == ember.int16 and t.tolist() == src.tolist()
    assert ember.tensor([torch.tensor(1.5), torch.tensor(2.5)]).tolist() == [1.5, 2.5]


def test_numpy_operators_defer_to_ember():
    if not hasattr(ember.Tensor, "__radd__"):
        pytest.skip("Tensor.__radd__ comes with the elementwise ops")
    r = np.ones(2, np.float32) + ember.tensor([1.0, 2.0])
    assert isinstance(r, ember.Tensor) and r.tolist() == [2.0, 3.0]


def test_float16_conversion_rounds_like_numpy_in_bulk_and_strided():
    """The contiguous path converts eight values at a time (F16C); strided copies go
    through the scalar converter. Both must round to nearest even exactly as numpy does,
    including subnormals, overflow to inf, signed zeros and nan."""
    edge = np.array([0.0, -0.0, 1e-8, 6e-8, 2.98e-8, 3e-8, 1e-5, 65504, 65519.99, 65520, 1e6,
                     np.inf, -np.inf, 1 / 3, -2.5, 0.1, 5.960464477539063e-08], np.float32)
    rng = np.random.default_rng(0)
    a = np.concatenate([edge, rng.standard_normal(1003).astype(np.float32) * 100,
                        rng.standard_normal(101).astype(np.float32) * 1e-6])
    for src in (a, a[::2]):
        got = ember.from_numpy(src).half().numpy()
        np.testing.assert_array_equal(got.view(np.uint16), src.astype(np.float16).view(np.uint16))
        back = ember.from_numpy(got).float().numpy()
        np.testing.assert_array_equal(back, got.astype(np.float32))
    nan = ember.tensor([float("nan")] * 9).half()
    assert bool(nan.isnan().all())
