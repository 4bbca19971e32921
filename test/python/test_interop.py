"""numpy and DLPack exchange: values, dtypes and shapes against numpy; memory
shared both ways; lifetimes (either side may go first, no leak); round trips
through numpy and torch, including non-contiguous, 0-dim and empty tensors."""
import gc
import warnings

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
# np.broadcast_to gives read-only arrays: sharing them warns, as in PyTorch.
pytestmark = [pytest.mark.filterwarnings("ignore:.*not writable"),
              pytest.mark.filterwarnings("ignore:.*read-only")]

NP_DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
             np.float16, np.float32, np.float64]
EMBER_OF = {np.dtype(np.bool_): ember.bool, np.dtype(np.uint8): ember.uint8,
            np.dtype(np.int8): ember.int8, np.dtype(np.int16): ember.int16,
            np.dtype(np.int32): ember.int32, np.dtype(np.int64): ember.int64,
            np.dtype(np.float16): ember.float16, np.dtype(np.float32): ember.float32,
            np.dtype(np.float64): ember.float64}


def sample(dtype, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 10).astype(dtype)


def layouts(a):
    """The same array in several memory layouts (all viewing a's memory)."""
    yield "contiguous", a
    if a.ndim >= 2:
        yield "transposed", a.T
        yield "sliced", a[1:, ::2]
    if a.ndim >= 1:
        yield "strided", a[::2]
    yield "broadcast", np.broadcast_to(a, (2,) + a.shape)


def allocated():
    # No gc.collect() inside the lifetime loops: refcounting frees at once, and
    # a full collection is slow with torch loaded.
    gc.collect()
    return ember.memory_stats()["allocated_bytes"]


# ---- from_numpy ----------------------------------------------------------------------------

@pytest.mark.parametrize("np_dtype", NP_DTYPES)
def test_from_numpy_values_dtype_shape(np_dtype):
    base = sample(np_dtype, (4, 6))
    for name, a in layouts(base):
        t = ember.from_numpy(a)
        assert t.dtype == EMBER_OF[a.dtype], name
        assert tuple(t.shape) == a.shape, name
        np.testing.assert_array_equal(t.numpy(), a, err_msg=name)
        assert t.tolist() == a.tolist(), name


def test_from_numpy_shares_memory_both_ways():
    a = np.zeros((3, 4), np.float32)
    t = ember.from_numpy(a)
    a[1, 2] = 5
    assert t.tolist()[1][2] == 5
    t.select(0, 0).fill_(7)
    assert (a[0] == 7).all()
    tt = ember.from_numpy(a.T)
    assert tt.stride() == (1, 4) and not tt.is_contiguous()
    tt.select(0, 3).fill_(-1)  # column 3 of a
    assert (a[:, 3] == -1).all()
    assert t.data_ptr() == a.ctypes.data


def test_from_numpy_zero_strides_and_special_shapes():
    b = np.broadcast_to(np.arange(3.0), (4, 3))
    t = ember.from_numpy(b)
    assert t.stride() == (0, 1) and t.tolist() == b.tolist()
    for a in (np.array(2.5), np.zeros((0,)), np.zeros((3, 0, 2)), np.ones((1, 1)), np.zeros((2, 0))[:, ::-1]):
        t = ember.from_numpy(a)
        assert tuple(t.shape) == a.shape and t.tolist() == a.tolist()
    assert ember.from_numpy(np.array(2.5)).item() == 2.5
    # dims of size 1 may have any stride, even a negative one
    assert ember.from_numpy(np.arange(3.0)[None, ::-1][:, :1]).tolist() == [[2.0]]


def test_from_numpy_keeps_the_array_alive():
    for _ in range(200):
        t = ember.from_numpy(np.arange(1000, dtype=np.int64) * 3)
        assert t.tolist()[999] == 2997
        del t


def test_from_numpy_releases_the_array():
    import sys
    a = np.arange(10.0)
    before = sys.getrefcount(a)
    t = ember.from_numpy(a)
    assert sys.getrefcount(a) == before + 1
    v = t.select(0, 3)  # a view shares the storage: still one reference
    del t
    assert sys.getrefcount(a) == before + 1
    assert v.item() == 3.0
    del v
    gc.collect()
    assert sys.getrefcount(a) == before


def test_from_numpy_read_only_warns():
    a = np.arange(4.0)
    a.flags.writeable = False
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        t = ember.from_numpy(a)  # shown once per process: may have been shown already
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]


# ---- Tensor.numpy() and __array__ -------------------------------------------------------------

@pytest.mark.parametrize("dtype", [d for d in EMBER_OF.values()])
def test_numpy_of_every_dtype(dtype):
    t = ember.tensor([[0, 1, 2], [3, 4, 5]]).to(dtype)
    a = t.numpy()
    assert EMBER_OF[a.dtype] == dtype and a.shape == (2, 3)
    assert a.tolist() == t.tolist()


def test_numpy_is_zero_copy_and_keeps_tensor_alive():
    t = ember.zeros(3, 4)
    a = t.numpy()
    assert a.base is t and a.flags.writeable
    a[0, 1] = 3
    assert t.tolist()[0][1] == 3
    t.fill_(2)
    assert (a == 2).all()
    v = t.t()
    av = v.numpy()
    assert av.strides == (4, 16) and av.tolist() == v.tolist()
    s = t.narrow(1, 1, 2)
    assert s.numpy().ctypes.data == s.data_ptr()


def test_numpy_lifetime_many_iterations():
    base = allocated()
    for i in range(300):
        t = ember.full([64, 64], i, dtype=ember.float32)
        a = t.numpy()
        del t
        junk = ember.full([64, 64], -7.0)  # would reuse t's memory if it had been freed
        assert a[63, 63] == i and a.sum() == 4096 * i
        del junk
        a[0, 0] = -1
        del a
    assert allocated() == base


def test_numpy_round_trip_no_leak():
    base = allocated()
    for _ in range(100):
        a = ember.ones(1000).numpy()
        t = ember.from_numpy(a)
        del a
        assert t.tolist()[999] == 1.0
        b = t.numpy()
        del t
        assert b[0] == 1.0
        del b
    assert allocated() == base


def test_numpy_of_0_dim_and_empty():
    assert ember.tensor(2.5).numpy().shape == ()
    assert ember.tensor(2.5).numpy()[()] == 2.5
    assert ember.zeros(0, 3).numpy().shape == (0, 3)


def test_numpy_force():
    t = ember.tensor([1.0, 2.0], requires_grad=True)
    a = t.numpy(force=True)
    assert a.tolist() == [1.0, 2.0]
    assert t.detach().numpy().tolist() == [1.0, 2.0]


def test_array_protocol():
    t = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    a = np.asarray(t)
    assert a.dtype == np.float32 and a.tolist() == t.tolist()
    a[0, 0] = 10  # asarray shares
    assert t.tolist()[0][0] == 10
    c = np.array(t)  # np.array copies
    c[0, 0] = -5
    assert t.tolist()[0][0] == 10
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert np.array(t, copy=False).ctypes.data == t.data_ptr()
    with pytest.raises(ValueError):
        np.array(t, dtype=np.float64, copy=False)
    assert np.asarray(ember.tensor([True, False])).dtype == np.bool_
    assert np.sum(t) == 19.0 and np.allclose(np.sin(t), np.sin(t.numpy()))


def test_array_priority():
    assert ember.Tensor.__array_priority__ == 1000


def test_tolist():
    assert ember.tensor(3.5).tolist() == 3.5 and isinstance(ember.tensor(3).tolist(), int)
    assert ember.tensor(True).tolist() is True
    assert ember.tensor([[1, 2], [3, 4]]).t().tolist() == [[1, 3], [2, 4]]
    assert ember.zeros(2, 0).tolist() == [[], []]
    h = ember.tensor([0.1, 1e5], dtype=ember.float16).tolist()
    assert all(type(v) is float for v in h) and h[0] == float(np.float16(0.1))
    b = ember.tensor([1.0, 3.0]).to(ember.bfloat16).tolist()
    assert b == [1.0, 3.0]
    ints = ember.tensor([-5, 300], dtype=ember.int16).tolist()
    assert ints == [-5, 300] and all(type(v) is int for v in ints)


# ---- DLPack ----------------------------------------------------------------------------------

def test_dlpack_device():
    assert ember.zeros(2).__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("np_dtype", NP_DTYPES)
def test_dlpack_numpy_round_trips(np_dtype):
    base = sample(np_dtype, (4, 6))
    for name, a in layouts(base):
        t = ember.from_dlpack(a)
        assert t.dtype == EMBER_OF[a.dtype] and tuple(t.shape) == a.shape, name
        assert t.tolist() == a.tolist(), name
        back = np.from_dlpack(t)
        assert back.dtype == a.dtype and back.shape == a.shape and back.strides == a.strides, name
        np.testing.assert_array_equal(back, a, err_msg=name)
        if a.size and a.strides and 0 not in a.strides:
            assert back.ctypes.data == a.ctypes.data, name  # zero-copy both ways


def test_dlpack_shares_memory():
    a = np.zeros(5, np.int32)
    t = ember.from_dlpack(a)
    t.fill_(3)
    assert (a == 3).all()
    b = np.from_dlpack(t)
    b[0] = -1
    assert t.tolist()[0] == -1 and a[0] == -1


def test_dlpack_non_contiguous_export():
    t = ember.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1).narrow(0, 1, 2)
    a = np.from_dlpack(t)
    assert a.shape == tuple(t.shape) and a.tolist() == t.tolist()
    assert a.strides == tuple(s * 4 for s in t.stride())


def test_dlpack_0_dim_and_empty():
    for t in (ember.tensor(4.5), ember.zeros(0), ember.zeros(3, 0, 2, dtype=ember.int16)):
        a = np.from_dlpack(t)
        assert a.shape == tuple(t.shape) and a.tolist() == t.tolist()
        r = ember.from_dlpack(a)
        assert r.shape == t.shape and r.dtype == t.dtype and r.tolist() == t.tolist()


def test_dlpack_capsules():
    t = ember.arange(6).reshape(2, 3)
    cap = t.__dlpack__()
    assert "dltensor" in repr(cap)
    r = ember.from_dlpack(cap)
    assert r.tolist() == t.tolist() and r.data_ptr() == t.data_ptr()
    with pytest.raises(ValueError, match="already consumed"):
        ember.from_dlpack(cap)
    v = t.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(v)
    assert ember.from_dlpack(v).tolist() == t.tolist()


def test_dlpack_unconsumed_capsules_free_their_tensor():
    base = allocated()
    for _ in range(50):
        t = ember.ones(256)
        c1, c2 = t.__dlpack__(), t.__dlpack__(max_version=(1, 0))
        del t, c1, c2
    assert allocated() == base


def test_dlpack_copy_and_device_arguments():
    t = ember.tensor([1.0, 2.0])
    r = ember.from_dlpack(t.__dlpack__(max_version=(1, 0), copy=True))
    r.fill_(0)
    assert t.tolist() == [1.0, 2.0]
    assert ember.from_dlpack(t.__dlpack__(dl_device=(1, 0))).tolist() == [1.0, 2.0]
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))


def test_dlpack_lifetime_many_iterations():
    base = allocated()
    for i in range(200):
        t = ember.full([100], i, dtype=ember.int64)
        a = np.from_dlpack(t)
        del t
        junk = ember.full([100], -7, dtype=ember.int64)  # would reuse t's memory if freed
        assert a.sum() == 100 * i
        del junk
        t2 = ember.from_dlpack(a)
        del a
        assert t2.tolist()[-1] == i
        del t2
    assert allocated() == base
    for _ in range(200):  # numpy-owned memory through ember and back
        a = np.arange(50.0)
        t = ember.from_dlpack(a)
        del a
        assert t.tolist()[49] == 49.0


def test_dlpack_bfloat16_to_torch_only():
    t = ember.tensor([1.5, -2.0]).to(ember.bfloat16)
    assert ember.from_dlpack(t).dtype == ember.bfloat16
    if torch is not None:
        tt = torch.from_dlpack(t)
        assert tt.dtype == torch.bfloat16 and tt.tolist() == [1.5, -2.0]


@needs_torch
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                   "float16", "bfloat16", "float32", "float64"])
def test_dlpack_torch_round_trips(dtype):
    src = torch.arange(24).reshape(2, 3, 4).to(getattr(torch, dtype))
    for name, tt in [("contiguous", src), ("permuted", src.permute(2, 0, 1)),
                     ("sliced", src[:, 1:, ::2]), ("expanded", src[:1].expand(3, 3, 4)),
                     ("0-dim", src[1, 2, 3]), ("empty", src[:, :0])]:
        e = ember.from_dlpack(tt)
        assert str(e.dtype) == "ember." + dtype and tuple(e.shape) == tuple(tt.shape), name
        assert e.stride() == tt.stride() or e.numel() <= 1, name
        assert e.float().tolist() == tt.float().tolist(), name
        back = torch.from_dlpack(e)
        assert back.dtype == tt.dtype and back.shape == tt.shape, name
        assert torch.equal(back, tt), name
        if tt.numel():
            assert back.data_ptr() == tt.data_ptr() and e.data_ptr() == tt.data_ptr(), name


@needs_torch
def test_dlpack_torch_shares_memory_and_capsules():
    tt = torch.zeros(4)
    e = ember.from_dlpack(tt)
    e.fill_(2)
    assert tt.tolist() == [2.0] * 4
    from torch.utils.dlpack import from_dlpack as torch_from, to_dlpack
    e2 = ember.from_dlpack(to_dlpack(tt))
    assert e2.tolist() == [2.0] * 4
    back = torch_from(e.__dlpack__())
    back[0] = 9
    assert e.tolist()[0] == 9 and tt[0] == 9


@needs_torch
def test_dlpack_torch_lifetime():
    for i in range(100):
        tt = torch.full((100,), float(i))
        e = ember.from_dlpack(tt)
        del tt
        assert e.tolist()[99] == float(i)
        back = torch.from_dlpack(e)
        del e
        assert back.sum().item() == 100.0 * i


class _FakeCudaProducer:
    """A DLPack producer that says its memory is on a CUDA device."""

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, **kwargs):
        raise AssertionError("a build that cannot use CUDA memory must refuse before asking")


@pytest.mark.skipif(ember.cuda.is_built(), reason="checks a build without the CUDA backend")
def test_dlpack_cuda_memory_needs_a_cuda_build():
    with pytest.raises(BufferError, match=r"device type 2 \(CUDA\); ember was built without"):
        ember.from_dlpack(_FakeCudaProducer())


def test_dlpack_cpu_tensor_refuses_a_stream():
    t = ember.ones(2)
    with pytest.raises(BufferError, match="stream must be None for a CPU tensor"):
        t.__dlpack__(stream=5)
    assert ember.from_dlpack(t.__dlpack__(stream=-1)).tolist() == [1.0, 1.0]


@pytest.mark.cuda
def test_dlpack_cuda_tensors_with_torch_both_ways():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    t = ember.arange(12, dtype=ember.float32, device="cuda").reshape(3, 4)[:, 1:]
    tt = torch.from_dlpack(t)  # torch passes its current stream: ours must be waited for
    assert tt.is_cuda and tt.tolist() == t.cpu().tolist()
    tt.add_(1)  # shared memory
    assert t.cpu().tolist() == tt.tolist()
    src = torch.arange(6, dtype=torch.float64, device="cuda").reshape(2, 3).t()
    e = ember.from_dlpack(src)
    assert e.device == ember.device("cuda", 0) and e.shape == (3, 2)
    assert e.cpu().tolist() == src.tolist()
    e.mul_(2)
    ember.cuda.synchronize()
    assert src.tolist() == e.cpu().tolist()
    side = ember.cuda.Stream()
    with ember.cuda.stream(side):  # a non-default current stream is handed to torch
        e2 = ember.from_dlpack(torch.ones(4, device="cuda"))
        assert (e2 * 3).sum().item() == 12.0


@pytest.mark.skipif(not ember.cuda.is_built() or ember.cuda.is_available(),
                    reason="checks a CUDA build on a machine without a GPU")
def test_dlpack_cuda_memory_without_a_gpu_says_so():
    with pytest.raises(RuntimeError, match="no CUDA GPU is available"):
        ember.from_dlpack(_FakeCudaProducer())
