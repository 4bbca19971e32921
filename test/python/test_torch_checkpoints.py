"""ember.save / ember.load and PyTorch's checkpoint formats, against the installed torch:
ember's files read by torch.load(weights_only=True), torch's files (zip and legacy)
read by ember, map_location, paths, file objects and atomic writes.
(test_checkpoint_safety.py has the restricted unpickler, its allowlist and damaged
files; test_serialization.py the safetensors files.)"""
import collections
import io
import os
import pickle
import struct
import sys
import zipfile

import numpy as np
import pytest

import ember
from _checkpoint_helpers import (DTYPES, assert_same, ember_load, np_of, repack, saved, torch_load,
                                 torch_saved, zip_checkpoint)
from ember.serialization import safe_globals

torch = pytest.importorskip("torch")

# ---- ember's files, read by torch -------------------------------------------------------------

def ember_modules():
    ember.manual_seed(0)
    return {
        "linear": (ember.nn.Linear(4, 3), torch.nn.Linear(4, 3)),
        "conv_bn": (ember.nn.Sequential(ember.nn.Conv2d(2, 3, 3), ember.nn.BatchNorm2d(3)),
                    torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.BatchNorm2d(3))),
        "lstm": (ember.nn.LSTM(3, 4), torch.nn.LSTM(3, 4)),
        "embedding_norm": (ember.nn.Sequential(ember.nn.Embedding(10, 4), ember.nn.LayerNorm(4)),
                           torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.LayerNorm(4))),
    }


@pytest.mark.parametrize("name", list(ember_modules()))
def test_state_dicts_of_ember_modules_load_in_torch(name):
    ours, theirs = ember_modules()[name]
    with ember.no_grad():
        for p in ours.parameters():
            p.add_(1.0)  # values that torch's own initialization would not give
    sd = ours.state_dict()
    loaded = torch_load(saved(sd))
    assert type(loaded) is collections.OrderedDict
    assert list(loaded) == list(sd)
    for key, value in sd.items():
        assert type(loaded[key]) is torch.Tensor
        assert_same(value, loaded[key])
    theirs.load_state_dict(loaded)  # strict: the same names, shapes and dtypes
    # ... and back: torch's save of it loads in ember with the same values.
    back = ember_load(torch_saved(theirs.state_dict()))
    for key, value in sd.items():
        assert_same(value, theirs.state_dict()[key])
        np.testing.assert_array_equal(np_of(back[key]), np_of(value))


@pytest.mark.parametrize("dtype, value", DTYPES, ids=[d for d, _ in DTYPES])
def test_every_dtype_both_ways(dtype, value):
    e = (ember.arange(6).to(getattr(ember, dtype)) * 0 + value).to(getattr(ember, dtype))
    e = e.reshape(2, 3)
    t = torch_load(saved({"x": e, "xt": e.t()}))
    assert_same(e, t["x"])
    assert_same(e.t(), t["xt"])
    assert t["x"].untyped_storage().data_ptr() == t["xt"].untyped_storage().data_ptr()
    back = ember_load(torch_saved(t))
    assert_same(back["x"], t["x"])
    assert back["x"].dtype == getattr(ember, dtype)


def test_views_share_one_storage_in_torch_and_in_ember():
    x = ember.arange(24.0).reshape(4, 6)
    views = {"x": x, "t": x.t(), "row": x[1], "col": x[:, 2], "corner": x[1:, 2::2],
             "flat": x.reshape(-1)[5:11]}
    data = saved(views)
    t = torch_load(data)
    base = t["x"].untyped_storage().data_ptr()
    for name, v in views.items():
        assert_same(v, t[name])
        assert t[name].untyped_storage().data_ptr() == base, name
        assert t[name].stride() == v.stride() and t[name].storage_offset() == v.storage_offset()
    # With one storage, a write through one view shows in the others.
    t["x"][1, 2] = -1
    assert t["row"][2] == -1 and t["col"][1] == -1 and t["t"][2, 1] == -1
    e = ember_load(data)
    with ember.no_grad():
        e["x"][1, 2] = -1
    assert e["row"][2].item() == -1 and e["col"][1].item() == -1 and e["t"][2, 1].item() == -1
    assert e["corner"].stride() == (6, 2) and not e["corner"].is_contiguous()
    # The file holds the storage once: 24 floats.
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert [n for n in z.namelist() if "/data/" in n] == ["archive/data/0"]
        assert z.getinfo("archive/data/0").file_size == 24 * 4


def test_a_view_of_part_of_a_tensor_saves_only_what_it_reaches():
    big = ember.arange(1000.0)
    data = saved({"part": big[10:14]})
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.getinfo("archive/data/0").file_size == 4 * 4
    t = torch_load(data)["part"]
    np.testing.assert_array_equal(t.numpy(), [10, 11, 12, 13])
    assert t.storage_offset() == 0


def test_zero_dim_and_empty_tensors():
    objs = {"scalar": ember.tensor(3.5), "int_scalar": ember.tensor(7), "empty": ember.zeros(0),
            "empty_2d": ember.zeros(2, 0, 3), "empty_view": ember.arange(5.0)[5:],
            "bool_scalar": ember.tensor(True)}
    t = torch_load(saved(objs))
    for name, e in objs.items():
        assert_same(e, t[name])
    back = ember_load(saved(objs))
    for name, e in objs.items():
        assert back[name].shape == e.shape and back[name].dtype == e.dtype
        np.testing.assert_array_equal(np_of(back[name]), np_of(e))


def test_parameters_and_requires_grad():
    p = ember.nn.Parameter(ember.ones(2, 3))
    frozen = ember.nn.Parameter(ember.zeros(2), requires_grad=False)
    leaf = ember.ones(3, requires_grad=True)
    obj = {"p": p, "frozen": frozen, "leaf": leaf, "plain": ember.ones(1), "computed": leaf * 2}
    t = torch_load(saved(obj))
    assert isinstance(t["p"], torch.nn.Parameter) and t["p"].requires_grad
    assert isinstance(t["frozen"], torch.nn.Parameter) and not t["frozen"].requires_grad
    assert t["leaf"].requires_grad and t["computed"].requires_grad and not t["plain"].requires_grad
    e = ember_load(saved(obj))
    assert isinstance(e["p"], ember.nn.Parameter) and e["p"].requires_grad
    assert isinstance(e["frozen"], ember.nn.Parameter) and not e["frozen"].requires_grad
    assert e["leaf"].requires_grad and e["leaf"].is_leaf and e["computed"].grad_fn is None
    assert not e["plain"].requires_grad
    # torch's parameters come back as ember's.
    tp = torch.nn.Parameter(torch.ones(2))
    assert isinstance(ember_load(torch_saved({"p": tp}))["p"], ember.nn.Parameter)


def test_uninitialized_parameters_pickle_as_torch_s():
    cls = getattr(ember.nn.parameter, "UninitializedParameter", None)
    if cls is None:
        pytest.skip("ember has no UninitializedParameter")
    data = saved({"lazy": cls(requires_grad=False)})
    t = torch.load(io.BytesIO(data), weights_only=False)["lazy"]
    assert type(t) is torch.nn.parameter.UninitializedParameter and not t.requires_grad
    e = ember_load(data, weights_only=False)["lazy"]
    assert type(e) is cls and not e.requires_grad
    back = ember_load(torch_saved({"lazy": torch.nn.parameter.UninitializedParameter()}),
                      weights_only=False)["lazy"]
    assert type(back) is cls and back.requires_grad


def plain_values():
    return {
        "int": 3, "big": 2 ** 70, "neg": -2 ** 63, "float": 2.5, "inf": float("inf"),
        "str": "naïve ✓", "none": None, "true": True, "list": [1, [2, (3, "x")]],
        "tuple": (1.5, None), "int_keys": {0: "a", 7: "b"}, "tuple_key": {(1, 2): 3},
        "bytes": b"\x00\xffab", "empty_bytes": b"", "bytearray": bytearray(b"xy"), "set": {1, 2},
        "frozenset": frozenset({"a"}), "complex": 1 + 2j,
        "ordered": collections.OrderedDict(b=1, a=2), "counter": collections.Counter("aab"),
    }


def test_plain_values_and_containers_both_ways():
    obj = plain_values()
    assert ember_load(saved(obj)) == obj
    assert torch.load(io.BytesIO(saved(obj)), weights_only=False) == obj
    # torch's weights_only loads refuse frozenset and bytes() (b''); ember's allow them.
    allowed_by_torch = {k: v for k, v in obj.items() if k not in ("frozenset", "empty_bytes")}
    assert torch_load(saved(allowed_by_torch)) == allowed_by_torch
    assert ember_load(torch_saved(obj)) == obj
    nan = ember_load(saved({"nan": float("nan")}))["nan"]
    assert nan != nan


def test_ember_dtypes_devices_and_sizes_are_torch_s_in_the_file():
    obj = {"dtype": ember.bfloat16, "dtypes": [ember.float32, ember.int64, ember.bool],
           "device": ember.device("cpu"), "cuda": ember.device("cuda", 1),
           "size": ember.Size([2, 3]), "shape": ember.zeros(4, 5).shape, "layout": ember.strided,
           "format": ember.channels_last}
    t = torch.load(io.BytesIO(saved(obj)), weights_only=False)
    assert t["dtype"] is torch.bfloat16 and t["dtypes"] == [torch.float32, torch.int64, torch.bool]
    assert t["device"] == torch.device("cpu") and t["cuda"] == torch.device("cuda", 1)
    assert type(t["size"]) is torch.Size and t["size"] == (2, 3) and t["shape"] == (4, 5)
    assert t["layout"] is torch.strided and t["format"] is torch.channels_last
    e = ember_load(saved(obj))
    assert e["dtype"] == ember.bfloat16 and e["dtypes"] == obj["dtypes"]
    assert e["device"] == ember.device("cpu") and e["cuda"] == ember.device("cuda", 1)
    assert type(e["size"]) is ember.Size and e["size"] == (2, 3)
    assert e["layout"] is ember.strided and e["format"] is ember.channels_last
    # weights_only=True reads all but the memory format, as torch's does.
    obj.pop("format")
    assert torch_load(saved(obj))["size"] == (2, 3)
    assert ember_load(saved(obj))["cuda"] == ember.device("cuda", 1)


def test_the_pickle_and_the_archive_are_byte_for_byte_torch_s(tmp_path):
    tt = torch.arange(6.0).reshape(2, 3)
    theirs = collections.OrderedDict([
        ("w", tt), ("wt", tt.t()), ("b", torch.ones(3, dtype=torch.float64)),
        ("n", torch.tensor(7)), ("p", torch.nn.Parameter(torch.zeros(2)))])
    et = ember.arange(6.0).reshape(2, 3)
    ours = collections.OrderedDict([
        ("w", et), ("wt", et.t()), ("b", ember.ones(3, dtype=ember.float64)),
        ("n", ember.tensor(7)), ("p", ember.nn.Parameter(ember.zeros(2)))])
    torch.save(theirs, tmp_path / "model.pt")
    ember.save(ours, tmp_path / "ember.pt")
    zt, ze = zipfile.ZipFile(tmp_path / "model.pt"), zipfile.ZipFile(tmp_path / "ember.pt")
    # torch names the archive after the file: model.pt -> model/.
    names_t = [n.split("/", 1)[1] for n in zt.namelist()]
    names_e = [n.split("/", 1)[1] for n in ze.namelist()]
    assert ze.namelist()[0].startswith("ember/") and names_e == names_t
    assert [(i.header_offset, i.file_size) for i in ze.infolist()] == \
           [(i.header_offset, i.file_size) for i in zt.infolist()]
    for name in names_t:
        if name != ".data/serialization_id":
            assert ze.read("ember/" + name) == zt.read("model/" + name), name
    assert ze.read("ember/version") == b"3\n" and ze.read("ember/byteorder") == b"little"
    assert ze.read("ember/.data/serialization_id").isdigit()
    assert len(ze.read("ember/.data/serialization_id")) == 40
    # Each record's data starts on a 64-byte boundary (so that torch can map it).
    raw = (tmp_path / "ember.pt").read_bytes()
    for info in ze.infolist():
        at = info.header_offset
        name_len, extra_len = struct.unpack("<HH", raw[at + 26:at + 30])
        assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0
    assert (tmp_path / "ember.pt").stat().st_size == (tmp_path / "model.pt").stat().st_size
    assert ze.testzip() is None


def test_a_file_object_gets_the_archive_name_archive():
    with zipfile.ZipFile(io.BytesIO(saved({"x": ember.ones(1)}))) as z:
        assert z.namelist()[0] == "archive/data.pkl"


def test_the_legacy_format_both_ways():
    x = ember.arange(12.0).reshape(3, 4)
    obj = {"x": x, "t": x.t(), "h": ember.ones(2, dtype=ember.float16), "n": [1, "a"]}
    data = saved(obj, _use_new_zipfile_serialization=False)
    assert data[:2] == b"\x80\x02"
    t = torch_load(data)
    assert_same(obj["x"], t["x"])
    assert_same(obj["t"], t["t"])
    assert t["t"].untyped_storage().data_ptr() == t["x"].untyped_storage().data_ptr()
    # torch's legacy files, in ember: shared storages stay shared.
    tt = torch.arange(12.0).reshape(3, 4)
    theirs = {"x": tt, "t": tt.t(), "corner": tt[1:, 1:], "bf": tt.bfloat16(),
              "p": torch.nn.Parameter(tt[0])}
    e = ember_load(torch_saved(theirs, _use_new_zipfile_serialization=False))
    for name, value in theirs.items():
        assert_same(e[name], value)
    with ember.no_grad():
        e["x"][1, 1] = -1
    assert e["t"][1, 1].item() == -1 and e["corner"][0, 0].item() == -1
    assert isinstance(e["p"], ember.nn.Parameter)


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_pickle_protocols(protocol):
    obj = {"x": ember.arange(4.0), "plain": plain_values()}
    data = saved(obj, pickle_protocol=protocol)
    back = ember_load(data)
    assert back["plain"] == obj["plain"]
    np.testing.assert_array_equal(back["x"].numpy(), [0, 1, 2, 3])
    t = torch.load(io.BytesIO(data), weights_only=False)
    assert t["plain"] == obj["plain"]
    theirs = ember_load(torch_saved({"x": torch.arange(3), "s": "s"}, pickle_protocol=protocol))
    assert theirs["s"] == "s" and theirs["x"].tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="pickle_protocol"):
        ember.save(obj, io.BytesIO(), pickle_protocol=1)


def test_numpy_arrays_are_pickled_as_numpy_pickles_them():
    arr = np.arange(6.0).reshape(2, 3)
    data = saved({"a": arr, "t": ember.ones(2)})
    t = torch.load(io.BytesIO(data), weights_only=False)
    np.testing.assert_array_equal(t["a"], arr)
    np.testing.assert_array_equal(ember_load(data, weights_only=False)["a"], arr)
    with pytest.raises(pickle.UnpicklingError, match="multiarray._reconstruct"):
        ember_load(data)  # numpy's globals are not allowed by default, as in torch


def test_a_numpy_array_saved_by_torch():
    arr = np.arange(5, dtype=np.int32)
    data = torch_saved({"a": arr})
    np.testing.assert_array_equal(ember_load(data, weights_only=False)["a"], arr)
    with pytest.raises(pickle.UnpicklingError, match="was not an allowed global by default"):
        ember_load(data)
    reconstruct = type(arr).__reduce__(arr)[0]  # numpy's _reconstruct, wherever it lives
    with safe_globals([reconstruct, np.ndarray, np.dtype, type(arr.dtype)]):
        np.testing.assert_array_equal(ember_load(data)["a"], arr)


def test_whole_modules_need_weights_only_false():
    ember.manual_seed(1)
    model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.ReLU(), ember.nn.Linear(4, 2))
    data = saved(model)
    with pytest.raises(pickle.UnpicklingError) as info:
        ember_load(data)
    assert "ember.nn.modules.container.Sequential" in str(info.value)
    assert "weights_only" in str(info.value) and "add_safe_globals" in str(info.value)
    back = ember_load(data, weights_only=False)
    x = ember.randn(5, 3)
    np.testing.assert_array_equal(back(x).detach().numpy(), model(x).detach().numpy())
    with safe_globals([ember.nn.Sequential, ember.nn.Linear, ember.nn.ReLU]):
        again = ember_load(data)
    np.testing.assert_array_equal(again(x).detach().numpy(), model(x).detach().numpy())


def test_a_whole_torch_module_loads_as_ember_s_with_weights_only_false():
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    data = torch_saved(theirs)
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.container.Sequential"):
        ember_load(data)
    ours = ember_load(data, weights_only=False)
    assert type(ours) is ember.nn.Sequential and type(ours[0]) is ember.nn.Linear
    x = np.random.default_rng(0).random((5, 3), dtype=np.float32)
    np.testing.assert_allclose(ours(ember.from_numpy(x)).detach().numpy(),
                               theirs(torch.from_numpy(x)).detach().numpy(), rtol=1e-6)
    ours.train(False)
    ours.register_forward_hook(lambda m, i, o: None)  # ember's Module attributes are there
    assert "torch" not in {type(m).__module__.split(".")[0] for m in ours.modules()}


def test_ember_reads_torch_files_without_importing_torch(monkeypatch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
    files = [torch_saved(model.state_dict()),
             torch_saved({"t": torch.arange(3)}, _use_new_zipfile_serialization=False),
             torch_saved(model)]
    monkeypatch.setitem(sys.modules, "torch", None)  # any import of torch now fails
    assert list(ember_load(files[0])) == ["0.weight", "0.bias"]
    assert ember_load(files[1])["t"].tolist() == [0, 1, 2]
    assert type(ember_load(files[2], weights_only=False)[0]) is ember.nn.Linear
    assert ember_load(saved({"x": ember.ones(1)}))["x"].tolist() == [1.0]


def test_torch_names_without_an_ember_equivalent_are_refused_even_when_trusted():
    # ember never imports torch: a torch name it cannot map is an error, not an import.
    for name in [b"torch.nn.modules.made_up\nNoSuchModule", b"torch._made_up\nthing"]:
        data = zip_checkpoint(b"\x80\x02c" + name + b"\n)\x81.")
        with pytest.raises(pickle.UnpicklingError, match=name.replace(b"\n", b".").decode()):
            ember_load(data, weights_only=False)


# ---- torch's files, read by ember ------------------------------------------------------------

def test_torch_state_dict_loads_into_the_same_ember_model():
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2), torch.nn.ReLU(),
                                 torch.nn.Flatten(), torch.nn.Linear(8, 3))
    theirs(torch.randn(4, 1, 4, 4))  # running stats
    theirs.eval()
    ours = ember.nn.Sequential(ember.nn.Conv2d(1, 2, 3), ember.nn.BatchNorm2d(2), ember.nn.ReLU(),
                               ember.nn.Flatten(), ember.nn.Linear(8, 3))
    sd = ember_load(torch_saved(theirs.state_dict()))
    assert list(sd) == list(theirs.state_dict())
    ours.load_state_dict(sd)
    ours.eval()
    x = np.random.default_rng(1).standard_normal((2, 1, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(ours(ember.from_numpy(x)).detach().numpy(),
                               theirs(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def adam_pair(seed=0):
    torch.manual_seed(seed)
    theirs = torch.nn.Linear(3, 2)
    ours = ember.nn.Linear(3, 2)
    with ember.no_grad():
        ours.weight.copy_(ember.from_numpy(theirs.weight.detach().numpy().copy()))
        ours.bias.copy_(ember.from_numpy(theirs.bias.detach().numpy().copy()))
    return ours, theirs


X = np.random.default_rng(2).random((4, 3), dtype=np.float32)


def step_both(ours, our_opt, theirs, their_opt, n):
    for _ in range(n):
        their_opt.zero_grad()
        theirs(torch.from_numpy(X)).pow(2).sum().backward()
        their_opt.step()
        our_opt.zero_grad()
        ours(ember.from_numpy(X)).pow(2).sum().backward()
        our_opt.step()


def test_torch_adam_state_loads_into_ember_adam():
    ours, theirs = adam_pair()
    their_opt = torch.optim.Adam(theirs.parameters(), lr=0.1)
    for _ in range(3):
        their_opt.zero_grad()
        theirs(torch.from_numpy(X)).pow(2).sum().backward()
        their_opt.step()
    ckpt = ember_load(torch_saved({"model": theirs.state_dict(), "opt": their_opt.state_dict()}))
    state = ckpt["opt"]
    assert state["param_groups"] == their_opt.state_dict()["param_groups"]
    for i, s in their_opt.state_dict()["state"].items():
        for k, v in s.items():
            assert_same(state["state"][i][k], v)
    ours.load_state_dict(ckpt["model"])
    our_opt = ember.optim.Adam(ours.parameters(), lr=0.1)
    our_opt.load_state_dict(state)
    step_both(ours, our_opt, theirs, their_opt, 2)
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_ember_optimizer_state_round_trips_and_loads_in_torch():
    ours, theirs = adam_pair(3)
    our_opt = ember.optim.Adam(ours.parameters(), lr=0.1)
    for _ in range(3):
        our_opt.zero_grad()
        ours(ember.from_numpy(X)).pow(2).sum().backward()
        our_opt.step()
    data = saved({"model": ours.state_dict(), "opt": our_opt.state_dict()})
    # In ember: a fresh optimizer continues where the saved one stopped.
    back = ember_load(data)
    fresh, _ = adam_pair(3)
    fresh.load_state_dict(back["model"])
    fresh_opt = ember.optim.Adam(fresh.parameters(), lr=0.1)
    fresh_opt.load_state_dict(back["opt"])
    # In torch: the same.
    t = torch_load(data)
    theirs.load_state_dict(t["model"])
    their_opt = torch.optim.Adam(theirs.parameters(), lr=0.1)
    their_opt.load_state_dict(t["opt"])
    step_both(ours, our_opt, theirs, their_opt, 2)
    for _ in range(2):
        fresh_opt.zero_grad()
        fresh(ember.from_numpy(X)).pow(2).sum().backward()
        fresh_opt.step()
    np.testing.assert_array_equal(fresh.weight.detach().numpy(), ours.weight.detach().numpy())
    np.testing.assert_allclose(theirs.weight.detach().numpy(), ours.weight.detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_torch_nested_dict_of_plain_values():
    obj = {"epoch": 12, "loss": 0.25, "name": "run-7", "history": [1.0, 0.5, 0.25],
           "config": {"layers": [4, 8], "act": "relu", "dropout": None, "flags": (True, False)},
           "weights": {"w": torch.ones(2, 2)}}
    e = ember_load(torch_saved(obj))
    assert {k: v for k, v in e.items() if k != "weights"} == \
           {k: v for k, v in obj.items() if k != "weights"}
    assert_same(e["weights"]["w"], obj["weights"]["w"])


def test_torch_views_and_tensor_subclass_attributes():
    tt = torch.arange(10.0)
    p = torch.nn.Parameter(torch.ones(2))
    p.note = "hello"  # a parameter with Python state: _rebuild_parameter_with_state
    e = ember_load(torch_saved({"a": tt, "b": tt[2:5], "c": tt[::3], "p": p}))
    with ember.no_grad():
        e["a"][3] = 100
    assert e["b"][1].item() == 100 and e["c"][1].item() == 100
    assert isinstance(e["p"], ember.nn.Parameter) and e["p"].note == "hello"


def test_a_storage_pickled_on_its_own():
    # pickle.dumps of a torch tensor holds its storage as torch.storage._load_from_bytes
    # of a legacy checkpoint; a zip checkpoint can carry such a pickle.
    tt = torch.arange(6.0).reshape(2, 3)
    data = zip_checkpoint(pickle.dumps({"t": tt}, protocol=2))
    assert torch.load(io.BytesIO(data), weights_only=False)["t"].equal(tt)
    assert_same(ember_load(data)["t"], tt)


def test_dtypes_ember_lacks_are_named():
    with pytest.raises((RuntimeError, pickle.UnpicklingError), match="complex64"):
        ember_load(torch_saved({"c": torch.ones(2, dtype=torch.complex64)}))
    with pytest.raises((RuntimeError, pickle.UnpicklingError), match="uint16"):
        ember_load(torch_saved({"u": torch.ones(2, dtype=torch.uint16)}))


def test_torchscript_archives_are_refused():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), buf)
    with pytest.raises(RuntimeError, match="TorchScript"):
        ember_load(buf.getvalue())


def test_big_endian_checkpoints_are_byte_swapped():
    x, i = ember.tensor([1.0, -2.0]), ember.tensor([1, 256], dtype=ember.int16)
    data = repack(saved({"x": x, "i": i}),
                  lambda r: r.update({
                      "archive/byteorder": b"big",
                      "archive/data/0": struct.pack(">2f", 1.0, -2.0),
                      "archive/data/1": struct.pack(">2h", 1, 256)}))
    e = ember_load(data)
    assert e["x"].tolist() == [1.0, -2.0] and e["i"].tolist() == [1, 256]


# ---- map_location -------------------------------------------------------------------------------

def on_cuda(data):
    """data (a zip checkpoint of ember's) with its storages tagged as saved on cuda:0."""
    def edit(records):
        pkl = records["archive/data.pkl"]
        records["archive/data.pkl"] = pkl.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    return repack(data, edit)


def test_map_location_kinds():
    data = saved({"x": ember.arange(3.0), "y": ember.ones(2, dtype=ember.int64)})
    for loc in [None, "cpu", ember.device("cpu"), {"cpu": "cpu"}, {"cuda:0": "cpu"},
                lambda storage, loc: storage, lambda storage, loc: None]:
        out = ember_load(data, map_location=loc)
        assert out["x"].tolist() == [0, 1, 2] and out["x"].device.type == "cpu"
    calls = []

    def record(storage, location):
        calls.append((storage.dtype, tuple(storage.shape), location))
        return storage * 10 if storage.dtype == ember.float32 else None
    out = ember_load(data, map_location=record)
    assert out["x"].tolist() == [0, 10, 20] and out["y"].tolist() == [1, 1]
    assert calls == [(ember.float32, (3,), "cpu"), (ember.int64, (2,), "cpu")]
    with pytest.raises(TypeError, match="map_location must be"):
        ember_load(data, map_location=3)
    with pytest.raises(TypeError, match="returned int, not a tensor"):
        ember_load(data, map_location=lambda s, loc: 3)
    with pytest.raises(RuntimeError, match="map_location returned a tensor of 1 elements"):
        ember_load(data, map_location=lambda s, loc: s[:1])


def test_map_location_for_tensors_saved_on_a_gpu():
    data = on_cuda(saved({"x": ember.arange(3.0), "v": ember.arange(3.0)}))
    seen = []
    for loc in ["cpu", {"cuda:0": "cpu"}, ember.device("cpu"),
                lambda s, loc: seen.append(loc) or s.cpu()]:
        assert ember_load(data, map_location=loc)["x"].device.type == "cpu"
    assert seen == ["cuda:0", "cuda:0"]  # once per storage
    assert torch_load(data, map_location="cpu")["x"].tolist() == [0, 1, 2]
    if ember.cuda.is_available():
        assert ember_load(data)["x"].device.type == "cuda"
    else:
        with pytest.raises(RuntimeError, match="cannot load the tensors onto cuda:0.*map_location='cpu'"):
            ember_load(data)
    with pytest.raises(RuntimeError, match="don't know how to restore a storage saved on 'mps'"):
        ember_load(data, map_location={"cuda:0": "mps"})


@pytest.mark.cuda
def test_gpu_tensors_both_ways():
    x = ember.arange(6.0, device="cuda").reshape(2, 3)
    data = saved({"x": x, "t": x.t(), "c": ember.ones(2)})
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert b"cuda:0" in z.read("archive/data.pkl")
    back = ember_load(data)
    assert back["x"].device.type == "cuda" and back["c"].device.type == "cpu"
    with ember.no_grad():
        back["x"][0, 1] = -1
    assert back["t"][1, 0].item() == -1
    assert ember_load(data, map_location="cpu")["x"].device.type == "cpu"
    t = torch_load(data, map_location="cpu")
    assert t["x"].tolist() == [[0, 1, 2], [3, 4, 5]]
    moved = ember_load(saved({"c": ember.ones(2)}), map_location="cuda:0")
    assert moved["c"].device.type == "cuda"


# ---- paths, file objects, atomic writes -------------------------------------------------------

def test_paths_file_objects_and_formats(tmp_path):
    x = ember.arange(5.0)
    for target in [str(tmp_path / "a.pt"), tmp_path / "b.pth", os.fsencode(tmp_path / "c")]:
        ember.save({"x": x}, target)
        assert zipfile.is_zipfile(target)
        assert ember.load(target)["x"].tolist() == x.tolist()
        assert torch.load(os.fsdecode(target), weights_only=True)["x"].tolist() == x.tolist()
    # A .safetensors name keeps ember's safetensors format (also for a file object).
    ember.save({"x": x}, tmp_path / "d.safetensors")
    with open(tmp_path / "e.safetensors", "wb") as f:
        ember.save({"x": x}, f)
    for name in ["d.safetensors", "e.safetensors"]:
        assert not zipfile.is_zipfile(tmp_path / name)
        assert ember.load(tmp_path / name)["x"].tolist() == x.tolist()
    # Loading recognizes the format, whatever the name.
    os.rename(tmp_path / "a.pt", tmp_path / "a.safetensors")
    assert ember.load(tmp_path / "a.safetensors")["x"].tolist() == x.tolist()
    with pytest.raises(TypeError, match="binary mode"):
        ember.save(x, io.StringIO())


def test_mmap_and_other_arguments(tmp_path):
    ember.save({"x": ember.arange(3.0)}, tmp_path / "z.pt")
    assert ember.load(tmp_path / "z.pt", mmap=True)["x"].tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap"):
        ember.load(io.BytesIO((tmp_path / "z.pt").read_bytes()), mmap=True)
    ember.save({"x": ember.arange(3.0)}, tmp_path / "l.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="mmap can only be used"):
        ember.load(tmp_path / "l.pt", mmap=True)
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        ember.load(tmp_path / "z.pt", pickle_module=pickle)
    trusted = ember.load(tmp_path / "z.pt", weights_only=False, pickle_module=pickle)
    assert trusted["x"].shape == (3,)
    assert ember.load(tmp_path / "z.pt", weights_only=None)["x"].shape == (3,)
    with pytest.raises(TypeError, match="weights_only must be a bool"):
        ember.load(tmp_path / "z.pt", weights_only="yes")


def test_python2_strings_and_encoding(tmp_path):
    # A Python 2 checkpoint's str is SHORT_BINSTRING: decoded with encoding (utf-8 by default).
    data = zip_checkpoint(b"\x80\x02}U\x03keyU\x02\xc3\xa9s.")
    assert ember_load(data) == {"key": "é"}
    assert ember_load(data, encoding="latin1") == {"key": "Ã©"}
    assert ember_load(data, encoding="bytes") == {b"key": b"\xc3\xa9"}


def test_an_object_that_cannot_be_pickled_writes_nothing(tmp_path):
    target = tmp_path / "model.pt"
    target.write_bytes(b"old")
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        ember.save({"f": lambda: 1, "w": ember.ones(2)}, target)
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["model.pt"]
    buf = io.BytesIO()
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        ember.save({"w": ember.ones(2), "f": lambda: 1}, buf)
    assert buf.getvalue() == b""  # the pickle is made before anything is written
    with pytest.raises(RuntimeError, match="cannot create a temporary file"):
        ember.save({"w": ember.ones(2)}, tmp_path / "no" / "such" / "dir.pt")
