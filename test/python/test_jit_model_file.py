"""Model files from Python: traced.save / ember.jit.load round trips, the file is
plain safetensors (its tensors are the named parameters), and malformed or
hostile files raise clear errors, never crash."""
import json
import struct

import numpy as np
import pytest

import ember
from ember import nn
from _helpers import to_numpy


def make_mlp():
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).eval()


@pytest.fixture
def saved(tmp_path):
    """(model, input, path of its saved trace)."""
    model = make_mlp()
    x = ember.randn(4, 6)
    path = tmp_path / "mlp.ember"
    ember.jit.trace(model, (x,)).save(path)
    return model, x, path


def split(data):
    """A safetensors file's header (a dict) and data section."""
    (n,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8:8 + n]), data[8 + n:]


def join(header, rest):
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + rest


def edited(path, edit_graph=None, edit_metadata=None):
    """The bytes of the model file at path with its graph JSON or metadata edited."""
    header, rest = split(path.read_bytes())
    metadata = header["__metadata__"]
    if edit_graph:
        graph = json.loads(metadata["graph"])
        edit_graph(graph)
        metadata["graph"] = json.dumps(graph)
    if edit_metadata:
        edit_metadata(metadata)
    return join(header, rest)


def load_error(tmp_path, data, kind=RuntimeError):
    bad = tmp_path / "bad.ember"
    bad.write_bytes(data)
    with pytest.raises(kind) as info:
        ember.jit.load(bad)
    return str(info.value)


def test_save_load_gives_the_same_outputs(saved):
    model, x, path = saved
    loaded = ember.jit.load(path)
    expected = to_numpy(model(x))
    np.testing.assert_array_equal(to_numpy(loaded(x)), expected)
    other = ember.randn(2, 6)
    np.testing.assert_array_equal(to_numpy(loaded(other)), to_numpy(model(other)))
    cpu = ember.jit.load(str(path), map_location="cpu")
    np.testing.assert_array_equal(to_numpy(cpu(x)), expected)
    assert str(loaded.graph) == str(ember.jit.load(path).graph)


def test_save_and_load_through_file_like_objects(saved, tmp_path):
    # torch.jit.save(m, buffer) / torch.jit.load(buffer) with io.BytesIO or an open file,
    # written at the buffer's position (a checkpoint in memory, a model inside a bundle).
    import io
    model, x, path = saved
    traced = ember.jit.load(path)
    buffer = io.BytesIO(b"head")
    buffer.seek(4)
    ember.jit.save(traced, buffer)
    assert buffer.getvalue()[4:] == path.read_bytes()
    buffer.seek(4)
    assert ember.equal(ember.jit.load(buffer)(x), model(x))
    with open(path, "rb") as f:
        assert ember.equal(ember.jit.load(f)(x), model(x))
    with open(tmp_path / "again.ember", "wb") as f:
        ember.jit.save(traced, f)
    assert (tmp_path / "again.ember").read_bytes() == path.read_bytes()
    with pytest.raises(TypeError):
        ember.jit.load(12.5)


def test_a_loaded_model_trains_like_the_module(saved):
    model, x, path = saved
    loaded = ember.jit.load(path)
    params = dict(loaded.named_parameters())
    assert all(p.requires_grad for p in params.values())
    loaded(x).square().sum().backward()
    model(x).square().sum().backward()
    for name, p in model.named_parameters():
        np.testing.assert_allclose(to_numpy(params[name].grad), to_numpy(p.grad), rtol=1e-5,
                                   atol=1e-6)


def test_buffers_do_not_require_grad(tmp_path):
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)).eval()
    ember.jit.trace(model, (ember.randn(5, 3),)).save(tmp_path / "bn.ember")
    loaded = dict(ember.jit.load(tmp_path / "bn.ember").named_parameters())
    assert loaded["1.weight"].requires_grad and loaded["0.bias"].requires_grad
    assert not loaded["1.running_mean"].requires_grad and not loaded["1.running_var"].requires_grad


def test_nested_outputs_and_constants_round_trip(tmp_path):
    w = ember.randn(3)

    def fn(x, y):
        s = x * w + 2.5  # a closure constant and a wrapped number
        return s, (y.int() * 3, [x.sum()])

    x, y = ember.randn(3), ember.arange(3.0)
    traced = ember.jit.trace(fn, (x, y))
    traced.save(tmp_path / "f.ember")
    loaded = ember.jit.load(tmp_path / "f.ember")
    got, want = loaded(x, y), fn(x, y)
    np.testing.assert_array_equal(to_numpy(got[0]), to_numpy(want[0]))
    assert got[1][0].dtype == ember.int32  # int tensor * 3 stays int32 after the reload
    np.testing.assert_array_equal(to_numpy(got[1][0]), to_numpy(want[1][0]))
    np.testing.assert_allclose(to_numpy(got[1][1][0]), to_numpy(want[1][1][0]), rtol=1e-6)


def test_the_file_is_safetensors_holding_the_named_parameters(saved):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    from safetensors import safe_open

    model, _, path = saved
    tensors = safetensors_numpy.load_file(str(path))
    expected = dict(model.named_parameters())
    assert set(tensors) == set(expected)
    for name, t in expected.items():
        np.testing.assert_array_equal(tensors[name], to_numpy(t))
    with safe_open(str(path), "np") as f:
        metadata = f.metadata()
    assert metadata["format"] == "ember.jit" and metadata["format_version"] == "2"
    graph = json.loads(metadata["graph"])
    assert [n["op"] for n in graph["nodes"]] == [n.op for n in ember.jit.load(path).graph.nodes()]


def test_save_is_atomic(tmp_path):
    target = tmp_path / "m.ember"
    target.write_bytes(b"old")
    traced = ember.jit.trace(make_mlp(), (ember.randn(1, 6),))
    with pytest.raises(Exception):
        traced.save(tmp_path / "missing_dir" / "m.ember")
    traced.save(target)
    assert ember.jit.load(target) is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.ember"]


def test_truncated_files_raise(saved, tmp_path):
    data = saved[2].read_bytes()
    for n in sorted({0, 7, 8, 9, 20, len(data) // 2, len(data) - 1}):
        assert "bad.ember" in load_error(tmp_path, data[:n])


@pytest.mark.parametrize("edit, message", [
    (lambda g: g["nodes"][0].__setitem__("op", "conv9d"), "unknown op 'conv9d'"),
    (lambda g: g["nodes"][0].__setitem__("op", "threshold_backward"),
     "not supported in model files"),
    (lambda g: g["nodes"][0]["inputs"].__setitem__(0, 999), "which does not exist"),
    (lambda g: g["nodes"][0]["inputs"].__setitem__(0, len(g["values"]) - 1),
     "forward reference"),
    (lambda g: g["values"][0].__setitem__("dtype", "float33"), "unknown dtype 'float33'"),
    (lambda g: g["values"][-1].__setitem__("sizes", [2 ** 40, 2 ** 40]), "huge shape"),
    (lambda g: g.__setitem__("output_structure", "[7]"), "output structure"),
    (lambda g: g["nodes"][0]["attrs"].append(["lambda", "os.system"]), "unknown kind 'lambda'"),
])
def test_malformed_graphs_raise(saved, tmp_path, edit, message):
    assert message in load_error(tmp_path, edited(saved[2], edit_graph=edit))


def test_wrong_format_version_and_plain_files(saved, tmp_path):
    newer = edited(saved[2], edit_metadata=lambda m: m.__setitem__("format_version", "3"))
    assert "newer than version 2" in load_error(tmp_path, newer)
    plain = tmp_path / "plain.safetensors"
    ember.save({"w": ember.ones(2)}, plain)
    with pytest.raises(RuntimeError, match="not an ember model file"):
        ember.jit.load(plain)
    header, rest = split(saved[2].read_bytes())
    name = next(k for k in header if k != "__metadata__")
    header[name]["data_offsets"] = [0, 4]
    assert "data_offsets" in load_error(tmp_path, join(header, rest))
    with pytest.raises(ValueError, match="does not exist"):  # torch.jit.load's error
        ember.jit.load(tmp_path / "nothing_here.ember")
