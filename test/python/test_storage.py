"""ember.UntypedStorage / TypedStorage / the legacy storage classes, Tensor.storage(),
untyped_storage(), set_, is_shared / share_memory_, compared with torch's."""
import copy
import os
import pickle
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool"]


def pair(values, dtype="float32"):
    return (ember.tensor(values, dtype=getattr(ember, dtype)),
            torch.tensor(values, dtype=getattr(torch, dtype)))


def raises_like(ember_call, torch_call):
    with pytest.raises(Exception) as torch_error:
        torch_call()
    with pytest.raises(type(torch_error.value)):
        ember_call()


# ---- untyped storages ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_untyped_storage_bytes_match_torch(dtype):
    values = [[0, 1, 2], [3, 4, 5]] if dtype != "bool" else [[True, False, True]]
    e, t = pair(values, dtype)
    es, ts = e.untyped_storage(), t.untyped_storage()
    assert es.nbytes() == ts.nbytes() == len(es) == es.size()
    assert es.tolist() == ts.tolist()
    assert list(es) == list(ts)
    assert es.element_size() == ts.element_size() == 1
    assert es.device.type == "cpu" and es.get_device() == ts.get_device()
    assert not es.is_cuda and es.resizable()
    assert es[0] == ts[0] and es[-1] == ts[-1]


def test_untyped_storage_is_the_same_object_and_aliases_the_tensor():
    e = ember.zeros(4)
    s = e.untyped_storage()
    assert e.untyped_storage() is s
    assert s.data_ptr() == e.data_ptr()
    s[0:4] = 0x3F  # bytes of a float32 write through to the tensor
    t = torch.zeros(4)
    t.untyped_storage()[0:4] = 0x3F
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    e.fill_(2.5)
    t.fill_(2.5)
    assert s.tolist() == t.untyped_storage().tolist()


def test_views_share_the_storage_of_their_base():
    base = ember.arange(12.).reshape(3, 4)
    view = base.t()[1]
    assert view.untyped_storage() is base.untyped_storage()
    assert view.untyped_storage().nbytes() == 48
    assert view.storage().size() == 12


def test_untyped_storage_construction():
    for args in [(), (5,), ([1, 2, 255],), ([],)]:
        e, t = ember.UntypedStorage(*args), torch.UntypedStorage(*args)
        assert e.nbytes() == t.nbytes()
        if args and isinstance(args[0], list):
            assert e.tolist() == t.tolist()
    assert ember.UntypedStorage([300, -1]).tolist() == torch.UntypedStorage([300, -1]).tolist()
    raises_like(lambda: ember.UntypedStorage(2.5), lambda: torch.UntypedStorage(2.5))
    raises_like(lambda: ember.UntypedStorage([1.5]), lambda: torch.UntypedStorage([1.5]))
    raises_like(lambda: ember.UntypedStorage(2, 3), lambda: torch.UntypedStorage(2, 3))
    with pytest.raises(RuntimeError):
        ember.UntypedStorage(-1)


def test_untyped_storage_indexing_and_errors():
    e, t = ember.UntypedStorage([1, 2, 3, 4]), torch.UntypedStorage([1, 2, 3, 4])
    for i in [0, 3, -1, -4]:
        assert e[i] == t[i]
    for i in [4, -5, 100]:
        raises_like(lambda: e[i], lambda: t[i])
    raises_like(lambda: e["a"], lambda: t["a"])
    raises_like(lambda: e[1.0], lambda: t[1.0])
    raises_like(lambda: e[::2], lambda: t[::2])
    raises_like(lambda: e.__setitem__("a", 1), lambda: t.__setitem__("a", 1))
    for key in [slice(1, 3), slice(2, 100), slice(3, 1), slice(None)]:
        assert e[key].tolist() == t[key].tolist()
        assert e[key].nbytes() == t[key].nbytes()
    e[1] = 300
    t[1] = 300
    e[2:4] = 9
    t[2:4] = 9
    assert e.tolist() == t.tolist()


def test_untyped_storage_slices_alias_and_do_not_resize():
    e = ember.UntypedStorage([1, 2, 3, 4, 5])
    part = e[1:3]
    part[0] = 9
    assert e.tolist() == [1, 9, 3, 4, 5]
    assert part.data_ptr() == e.data_ptr() + 1
    assert not part.resizable()
    raises_like(lambda: part.resize_(5), lambda: torch.UntypedStorage(3)[0:2].resize_(5))


def test_untyped_storage_fill_copy_clone():
    e, t = ember.UntypedStorage(6), torch.UntypedStorage(6)
    e.fill_(7)
    t.fill_(7)
    assert e.tolist() == t.tolist()
    src_e, src_t = ember.UntypedStorage([1, 2, 3, 4, 5, 6]), torch.UntypedStorage([1, 2, 3, 4, 5, 6])
    assert e.copy_(src_e) is e
    t.copy_(src_t)
    assert e.tolist() == t.tolist()
    raises_like(lambda: e.copy_(ember.UntypedStorage(3)), lambda: t.copy_(torch.UntypedStorage(3)))
    c = e.clone()
    assert c.tolist() == e.tolist() and c.data_ptr() != e.data_ptr()
    c[0] = 0
    assert e[0] == 1
    assert copy.copy(e).tolist() == e.tolist()
    d = copy.deepcopy(e)
    assert d.tolist() == e.tolist() and d.data_ptr() != e.data_ptr()
    assert e.cpu() is e
    assert e.to(device="cpu") is e


def test_untyped_storage_resize():
    e, t = ember.UntypedStorage([1, 2, 3]), torch.UntypedStorage([1, 2, 3])
    e.resize_(6)
    t.resize_(6)
    assert e.nbytes() == t.nbytes() == 6
    assert e.tolist()[:3] == [1, 2, 3]
    e.resize_(2)
    t.resize_(2)
    assert e.tolist() == t.tolist()
    # Growing keeps tensors that view the storage valid and aliased.
    x = ember.tensor([1.0, 2.0])
    s = x.untyped_storage()
    s.resize_(16)
    assert s.nbytes() == 16
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
    x.add_(1)
    assert s.data_ptr() == x.data_ptr()
    # ember refuses to shrink memory that a tensor still views (it checks no bounds).
    with pytest.raises(RuntimeError, match="shrink"):
        s.resize_(4)
    with pytest.raises(RuntimeError):
        e.resize_(-1)


def test_untyped_storage_conversions():
    e, t = ember.UntypedStorage([1, 2, 3, 200]), torch.UntypedStorage([1, 2, 3, 200])
    for name in ["float", "double", "half", "long", "int", "short", "char", "byte", "bool",
                 "bfloat16"]:
        es, ts = getattr(e, name)(), getattr(t, name)()
        assert isinstance(es, ember.TypedStorage)
        assert str(es.dtype).split(".")[-1] == str(ts.dtype).split(".")[-1]
        assert es.tolist() == ts.tolist()
    assert e.byte().data_ptr() != e.data_ptr()  # always a copy
    assert e.type() == "ember.UntypedStorage"
    raises_like(lambda: e.type("ember.FloatStorage"), lambda: t.type("torch.FloatStorage"))
    assert e.type("ember.ByteStorage").tolist() == t.type("torch.ByteStorage").tolist()
    assert e.type("ember.UntypedStorage") is e


def test_untyped_storage_repr_and_pickle():
    e, t = ember.UntypedStorage([1, 2]), torch.UntypedStorage([1, 2])
    assert repr(e) == repr(t).replace("torch.storage.UntypedStorage", "ember.UntypedStorage")
    back = pickle.loads(pickle.dumps(e))
    assert isinstance(back, ember.UntypedStorage) and back.tolist() == [1, 2]


def test_untyped_storage_byteswap():
    e = ember.tensor([1, 256], dtype=ember.int16)
    t = torch.tensor([1, 256], dtype=torch.int16)
    e.untyped_storage().byteswap(ember.int16)
    t.untyped_storage().byteswap(torch.int16)
    assert e.tolist() == t.tolist()


# ---- typed storages ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_storage_matches_torch(dtype):
    values = [1, 0, 3, 4, 5, 6] if dtype != "bool" else [True, False, True]
    e, t = pair(values, dtype)
    es, ts = e.storage(), t.storage()
    assert isinstance(es, ember.TypedStorage)
    assert es.tolist() == ts.tolist()
    assert len(es) == len(ts) and es.size() == ts.size()
    assert es.nbytes() == ts.nbytes() and es.element_size() == ts.element_size()
    assert str(es.dtype) == str(ts.dtype).replace("torch", "ember")
    assert es.type() == ts.type().replace("torch", "ember")
    assert es.pickle_storage_type() == ts.pickle_storage_type()
    assert es.data_ptr() == e.data_ptr()
    assert es.get_device() == ts.get_device() and not es.is_cuda
    assert repr(es) == repr(ts).replace("torch.storage.TypedStorage", "ember.TypedStorage") \
        .replace("torch.", "ember.")


def test_storage_warns_once_like_torch():
    from ember import _storage
    _storage._reset_warn_typed_storage_removal()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ember.zeros(2).storage()
        ember.zeros(2).storage()
    found = [w for w in caught if "TypedStorage is deprecated" in str(w.message)]
    assert len(found) == 1
    assert found[0].filename == __file__  # points at the caller
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ember.zeros(2).untyped_storage()
    assert not caught


def test_typed_storage_writes_reach_the_tensor():
    e, t = pair([1.0, 2.0, 3.0])
    es, ts = e.storage(), t.storage()
    es[0] = 7
    ts[0] = 7
    es[1:3] = -1
    ts[1:3] = -1
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    es.fill_(3.5)
    ts.fill_(3.5)
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    assert es.copy_(ember.tensor([4.0, 5.0, 6.0]).storage()) is es
    np.testing.assert_array_equal(e.numpy(), [4.0, 5.0, 6.0])


def test_typed_storage_index_errors():
    e, t = pair([1, 2], "int32")
    es, ts = e.storage(), t.storage()
    for bad in [2, -3]:
        raises_like(lambda: es[bad], lambda: ts[bad])
    raises_like(lambda: es[0:1], lambda: ts[0:1])
    raises_like(lambda: es[1.0], lambda: ts[1.0])
    raises_like(lambda: es.__setitem__("a", 1), lambda: ts.__setitem__("a", 1))
    raises_like(lambda: es.__setitem__(0, es), lambda: ts.__setitem__(0, ts))
    raises_like(lambda: es.__setitem__(5, 1), lambda: ts.__setitem__(5, 1))
    assert e.tolist() == [1, 2]


def test_typed_storage_constructors():
    for args, kwargs in [((3,), {"dtype": "int64"}), (([1, 2],), {"dtype": "float64"}),
                         ((), {"dtype": "int16"}), (([True, False],), {"dtype": "bool"})]:
        es = ember.TypedStorage(*args, dtype=getattr(ember, kwargs["dtype"]))
        ts = torch.TypedStorage(*args, dtype=getattr(torch, kwargs["dtype"]))
        assert es.size() == ts.size() and es.nbytes() == ts.nbytes()
        if args and isinstance(args[0], list):
            assert es.tolist() == ts.tolist()
    assert ember.TypedStorage(2).dtype == ember.get_default_dtype()
    wrapped = ember.TypedStorage(wrap_storage=ember.UntypedStorage(7), dtype=ember.float32)
    assert wrapped.size() == torch.TypedStorage(wrap_storage=torch.UntypedStorage(7),
                                                dtype=torch.float32).size() == 1
    raises_like(lambda: ember.TypedStorage(wrap_storage=ember.UntypedStorage(8)),
                lambda: torch.TypedStorage(wrap_storage=torch.UntypedStorage(8)))
    raises_like(lambda: ember.TypedStorage(wrap_storage=ember.UntypedStorage(8), dtype="x"),
                lambda: torch.TypedStorage(wrap_storage=torch.UntypedStorage(8), dtype="x"))
    raises_like(lambda: ember.TypedStorage(1, 2), lambda: torch.TypedStorage(1, 2))
    raises_like(lambda: ember.TypedStorage(2.5), lambda: torch.TypedStorage(2.5))


NAMES = ["FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage", "LongStorage",
         "IntStorage", "ShortStorage", "CharStorage", "ByteStorage", "BoolStorage"]


@pytest.mark.parametrize("name", NAMES)
def test_legacy_storage_classes(name):
    ecls, tcls = getattr(ember, name), getattr(torch, name)
    es, ts = ecls(3), tcls(3)
    assert type(es) is ember.TypedStorage and type(ts) is torch.TypedStorage
    assert isinstance(es, ecls) and not isinstance(es, ember.UntypedStorage)
    other = ember.DoubleStorage if name != "DoubleStorage" else ember.FloatStorage
    assert not isinstance(es, other)
    assert es.size() == ts.size() and es.nbytes() == ts.nbytes()
    assert str(ecls.dtype) == str(tcls.dtype).replace("torch", "ember")
    assert es.type() == f"ember.{name}"
    values = [1, 0, 1]
    assert ecls(values).tolist() == tcls(values).tolist()
    assert ecls(wrap_storage=ember.UntypedStorage(8)).size() == tcls(
        wrap_storage=torch.UntypedStorage(8)).size()
    assert isinstance(ember.cuda.__dict__[name], type)
    raises_like(lambda: ecls(2.5), lambda: tcls(2.5))
    raises_like(lambda: ecls(1, 2), lambda: tcls(1, 2))
    raises_like(lambda: ecls(3, device="cpu"), lambda: tcls(3, device="cpu"))
    raises_like(lambda: ecls(3, dtype=ember.float32), lambda: tcls(3, dtype=torch.float32))
    raises_like(lambda: ecls(wrap_storage=[1]), lambda: tcls(wrap_storage=[1]))


def test_storage_aliases_and_is_storage():
    assert ember.Storage is ember.FloatStorage
    assert issubclass(ember.UntypedStorage, ember.StorageBase)
    assert ember.is_storage(ember.zeros(1).untyped_storage())
    assert ember.is_storage(ember.zeros(1).storage())
    assert not ember.is_storage(ember.zeros(1)) and not ember.is_storage([1])


def test_typed_storage_conversions_and_resize():
    e, t = pair([1.5, -2.0, 3.25])
    for name in ["double", "half", "long", "int", "bool", "byte", "bfloat16"]:
        assert getattr(e.storage(), name)().tolist() == getattr(t.storage(), name)().tolist()
    assert e.storage().float().data_ptr() != e.data_ptr()  # a copy even for the same dtype
    raises_like(lambda: e.storage().type(ember.DoubleStorage),
                lambda: t.storage().type(torch.DoubleStorage))
    s = ember.FloatStorage(2)
    s.resize_(5)
    assert s.size() == 5 and s.nbytes() == 20
    assert s.clone().size() == 5 and s.cpu().size() == 5
    assert isinstance(copy.deepcopy(ember.LongStorage([1, 2])), ember.LongStorage)
    assert pickle.loads(pickle.dumps(ember.LongStorage([1, 2]))).tolist() == [1, 2]


# ---- Tensor.set_ -------------------------------------------------------------------------------

def test_set_whole_storages():
    src_e, src_t = pair([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    e, t = ember.tensor([9.0]), torch.tensor([9.0])
    assert e.set_(src_e.storage()) is e
    t.set_(src_t.storage())
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    src_e[0, 0] = 100
    assert e[0].item() == 100  # aliases
    i_e, i_t = ember.tensor([], dtype=ember.int32), torch.tensor([], dtype=torch.int32)
    i_e.set_(src_e.untyped_storage())
    i_t.set_(src_t.untyped_storage())
    src_t[0, 0] = 100
    i_t.set_(src_t.untyped_storage())
    assert i_e.tolist() == i_t.tolist()


def test_set_with_geometry():
    base_e, base_t = pair(list(range(12)), "float64")
    for offset, size, stride in [(1, (2,), (3,)), (0, (3, 4), None), (2, (2, 2), (1, 4)),
                                 (0, (0,), None), (11, (), ())]:
        e = ember.empty(0, dtype=ember.float64).set_(base_e.storage(), offset, size, stride)
        t = torch.empty(0, dtype=torch.float64).set_(base_t.storage(), offset, size, stride)
        assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride()
        assert e.storage_offset() == t.storage_offset()
        np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_set_grows_a_small_storage_like_torch():
    e, t = ember.zeros(2), torch.zeros(2)
    es, ts = e.untyped_storage(), t.untyped_storage()
    y_e = ember.tensor([]).set_(es, 0, (4,))
    y_t = torch.tensor([]).set_(ts, 0, (4,))
    assert es.nbytes() == ts.nbytes() == 16
    assert y_e.shape == (4,) and y_t.shape == (4,)
    np.testing.assert_array_equal(y_e[:2].numpy(), [0.0, 0.0])


def test_set_tensor_and_empty():
    a_e, a_t = pair([1.0, 2.0, 3.0])
    b_e, b_t = ember.tensor([0.0]), torch.tensor([0.0])
    b_e.set_(a_e[1:])
    b_t.set_(a_t[1:])
    np.testing.assert_array_equal(b_e.numpy(), b_t.numpy())
    assert b_e.storage_offset() == b_t.storage_offset() == 1
    version = b_e._version
    a_e[1] = 50
    assert b_e[0].item() == 50 and b_e._version > version - 1
    b_e.set_()
    b_t.set_()
    assert b_e.shape == b_t.shape == (0,)


def test_set_errors_match_torch():
    a_e, a_t = pair([1.0, 2.0])
    raises_like(lambda: a_e.set_(ember.tensor([1, 2])), lambda: a_t.set_(torch.tensor([1, 2])))
    raises_like(lambda: a_e.set_(ember.tensor([1, 2]).storage()),
                lambda: a_t.set_(torch.tensor([1, 2]).storage()))
    raises_like(lambda: a_e.set_(a_e.storage(), -1, (1,)), lambda: a_t.set_(a_t.storage(), -1, (1,)))
    raises_like(lambda: a_e.set_(a_e.storage(), 0, (2,), (1, 2)),
                lambda: a_t.set_(a_t.storage(), 0, (2,), (1, 2)))
    raises_like(lambda: a_e.set_(5), lambda: a_t.set_(5))
    leaf_e = ember.ones(2, requires_grad=True)
    leaf_t = torch.ones(2, requires_grad=True)
    raises_like(lambda: leaf_e.set_(ember.zeros(2)), lambda: leaf_t.set_(torch.zeros(2)))
    np.testing.assert_array_equal(leaf_e.detach().numpy(), [1.0, 1.0])
    with ember.no_grad():
        leaf_e.set_(ember.zeros(3))
    assert leaf_e.shape == (3,) and leaf_e.requires_grad


# ---- shared memory ----------------------------------------------------------------------------

def test_share_memory_and_is_shared():
    e, t = ember.arange(4.0), torch.arange(4.0)
    assert e.is_shared() == t.is_shared() is False
    ptr_before = e.data_ptr()
    assert e.share_memory_() is e
    t.share_memory_()
    assert e.is_shared() and t.is_shared()
    assert e.untyped_storage().is_shared() and e.storage().is_shared()
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    assert e.data_ptr() != ptr_before  # moved into the shared block
    e.share_memory_()  # a second call changes nothing
    assert e.is_shared()
    s = ember.UntypedStorage(0).share_memory_()
    assert s.is_shared() and s.nbytes() == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_shared_memory_is_seen_by_a_forked_child():
    e = ember.zeros(3).share_memory_()
    pid = os.fork()
    if pid == 0:  # the child writes, the parent reads
        try:
            e.fill_(5.0)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    np.testing.assert_array_equal(e.numpy(), [5.0, 5.0, 5.0])


# ---- checkpoints still read and write storages their own way ----------------------------------

def test_save_load_unchanged_by_storages(tmp_path):
    x = ember.arange(6.0).reshape(2, 3)
    x.untyped_storage()  # a cached storage object must not disturb saving
    path = tmp_path / "x.pt"
    ember.save({"x": x, "view": x[1]}, path)
    back = ember.load(path)
    np.testing.assert_array_equal(back["x"].numpy(), x.numpy())
    assert back["view"].untyped_storage() is back["x"].untyped_storage()
    loaded_by_torch = torch.load(path, weights_only=True)
    np.testing.assert_array_equal(loaded_by_torch["x"].numpy(), x.numpy())
