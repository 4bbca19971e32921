"""ember.save / ember.load: safetensors files, interop with the safetensors package,
nests (state_dicts, optimizer state), map_location, malformed files, atomic writes.

ember.save writes a safetensors file to a path ending in ".safetensors" (and PyTorch's
zip format otherwise: test_torch_checkpoints.py); the tests of the safetensors layout
and of what it cannot hold therefore save to such paths. ember.load recognizes the
format from the file's first bytes."""
import collections
import io
import json
import math
import os
import pathlib
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember


@pytest.fixture
def st_numpy():
    """The safetensors package's numpy API (requirements-dev.txt)."""
    return pytest.importorskip("safetensors.numpy")


def file_metadata(path):
    safetensors = pytest.importorskip("safetensors")
    with safetensors.safe_open(str(path), framework="numpy") as f:
        return list(f.keys()), f.metadata()

NUMPY_DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
                np.uint8, np.bool_]


def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return np.asarray(rng.random(shape) > 0.5)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    return rng.standard_normal(shape).astype(dtype)


def raw_file(header, data=b""):
    """A safetensors file from its header (a dict, or JSON text as str/bytes) and data."""
    if isinstance(header, dict):
        header = json.dumps(header)
    if isinstance(header, str):
        header = header.encode()
    return struct.pack("<Q", len(header)) + header + data


def entry(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


def assert_same(t, expected):
    assert isinstance(t, ember.Tensor)
    np.testing.assert_array_equal(t.numpy(), expected)
    assert t.numpy().dtype == expected.dtype
    assert tuple(t.shape) == expected.shape


# ---- interop with the safetensors package ---------------------------------------------

SHAPES = [(), (0,), (0, 3), (4,), (2, 3, 2)]


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_safetensors_package_reads_what_ember_writes(st_numpy, tmp_path, dtype):
    arrays = {f"t{i}": sample(dtype, shape, i) for i, shape in enumerate(SHAPES)}
    arrays["noncontig"] = sample(dtype, (3, 5), 9).T
    tensors = {name: ember.from_numpy(a.copy(order="C")) for name, a in arrays.items()}
    tensors["noncontig"] = ember.from_numpy(arrays["noncontig"].T.copy()).t()
    assert not tensors["noncontig"].is_contiguous()
    path = tmp_path / "ember.safetensors"
    ember.save(tensors, path)
    loaded = st_numpy.load_file(str(path))
    assert set(loaded) == set(arrays)
    for name, a in arrays.items():
        np.testing.assert_array_equal(loaded[name], a)
        assert loaded[name].dtype == a.dtype and loaded[name].shape == a.shape


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_ember_reads_what_the_safetensors_package_writes(st_numpy, tmp_path, dtype):
    arrays = {f"t{i}": sample(dtype, shape, i) for i, shape in enumerate(SHAPES)}
    path = tmp_path / "st.safetensors"
    st_numpy.save_file(arrays, str(path), metadata={"source": "safetensors"})
    loaded = ember.load(path)
    assert type(loaded) is dict
    assert set(loaded) == set(arrays)
    for name, a in arrays.items():
        assert_same(loaded[name], a)
    # The same bytes from a file object and from memory.
    from_bytes = ember.load(io.BytesIO(st_numpy.save(arrays)))
    for name, a in arrays.items():
        assert_same(from_bytes[name], a)


def test_bfloat16_interop_through_torch(tmp_path):
    torch = pytest.importorskip("torch")
    st_torch = pytest.importorskip("safetensors.torch")
    x = torch.randn(3, 4).to(torch.bfloat16)
    st_torch.save_file({"x": x, "y": x.t().contiguous()}, str(tmp_path / "t.safetensors"))
    loaded = ember.load(tmp_path / "t.safetensors")
    assert loaded["x"].dtype == ember.bfloat16
    np.testing.assert_array_equal(loaded["x"].float().numpy(), x.float().numpy())
    np.testing.assert_array_equal(loaded["y"].float().numpy(), x.t().float().numpy())

    e = ember.randn(2, 5).to(ember.bfloat16)
    ember.save({"e": e, "et": e.t()}, tmp_path / "e.safetensors")
    back = st_torch.load_file(str(tmp_path / "e.safetensors"))
    assert back["e"].dtype == torch.bfloat16
    np.testing.assert_array_equal(back["e"].float().numpy(), e.float().numpy())
    np.testing.assert_array_equal(back["et"].float().numpy(), e.t().float().numpy())


def test_torch_state_dict_round_trips_through_ember(tmp_path):
    torch = pytest.importorskip("torch")
    st_torch = pytest.importorskip("safetensors.torch")
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
    sd = model.state_dict()
    st_torch.save_file(dict(sd), str(tmp_path / "torch.safetensors"))
    ours = ember.load(tmp_path / "torch.safetensors")
    assert set(ours) == set(sd)
    for k, v in sd.items():
        np.testing.assert_array_equal(ours[k].numpy(), v.numpy())
    ember.save(ours, tmp_path / "ember.safetensors")
    theirs = st_torch.load_file(str(tmp_path / "ember.safetensors"))
    model.load_state_dict(theirs)  # strict: the same names, shapes and dtypes
    for k, v in sd.items():
        assert torch.equal(theirs[k], v)


def test_file_layout_is_what_the_format_asks(tmp_path):
    ember.save({"b": ember.ones(3, dtype=ember.uint8), "a": ember.ones(2, dtype=ember.float64)},
               tmp_path / "f.safetensors")
    data = (tmp_path / "f.safetensors").read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    assert (8 + n) % 8 == 0
    header = json.loads(data[8:8 + n])
    assert header["a"] == entry("F64", [2], 0, 16)  # widest elements first: aligned
    assert header["b"] == entry("U8", [3], 16, 19)
    assert len(data) == 8 + n + 19
    assert json.loads(file_metadata(tmp_path / "f.safetensors")[1]["ember"])["format_version"] == 1


def test_a_lone_tensor_is_stored_as_ember_cpp_stores_it(tmp_path):
    # The C++ test pins the same metadata for ember::save(tensor, path).
    ember.save(ember.arange(3), tmp_path / "x.safetensors")
    assert file_metadata(tmp_path / "x.safetensors") == (
        ["tensor"], {"ember": '{"format_version":1,"structure":{"tensor":"tensor"}}'})


# ---- nests ------------------------------------------------------------------------------

def assert_nest_equal(a, b):
    assert type(a) is type(b), (a, b)
    if isinstance(a, ember.Tensor):
        assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            assert type(k) is type(next(x for x in b if x == k))
            assert_nest_equal(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_nest_equal(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b


def test_state_dict_round_trip(st_numpy, tmp_path):
    sd = collections.OrderedDict([
        ("fc1.weight", ember.randn(4, 3)), ("fc1.bias", ember.randn(4)),
        ("bn.running_mean", ember.zeros(4)), ("bn.num_batches_tracked", ember.tensor(7)),
        ("fc2.weight", ember.randn(3, 4).t()),
    ])
    ember.save(sd, tmp_path / "sd.safetensors")
    loaded = ember.load(tmp_path / "sd.safetensors")
    assert type(loaded) is dict
    assert list(loaded) == list(sd)
    assert_nest_equal(loaded, dict(sd))
    assert all(t.is_contiguous() for t in loaded.values())
    # Any safetensors reader sees the tensors under the same names.
    assert set(st_numpy.load_file(str(tmp_path / "sd.safetensors"))) == set(sd)


def test_optimizer_state_round_trip(st_numpy, tmp_path):
    state = {
        "state": {
            0: {"step": ember.tensor(10.0), "exp_avg": ember.randn(3, 2),
                "exp_avg_sq": ember.rand(3, 2)},
            1: {"step": ember.tensor(10.0), "momentum_buffer": None},
        },
        "param_groups": [{
            "lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0,
            "amsgrad": False, "maximize": False, "foreach": None, "name": "group0",
            "params": [0, 1], "limits": [float("inf"), float("-inf"), float("nan"), 2 ** 70],
        }],
    }
    path = tmp_path / "opt.safetensors"
    ember.save(state, path)
    loaded = ember.load(path)
    assert_nest_equal(loaded, state)
    assert list(loaded["state"]) == [0, 1]
    names = set(st_numpy.load(path.read_bytes()))
    assert names == {"state.0.step", "state.0.exp_avg", "state.0.exp_avg_sq", "state.1.step"}


def test_nests_of_every_kind_round_trip(tmp_path):
    x = ember.arange(4)
    objects = [
        x, [x, x], (x,), [], {}, (), {"": x}, [[[x]]], 3, 2.5, True, None, "text",
        {"a.b": x, "a": {"b": x * 2}, 0: x * 3, "0": x * 4},  # dotted paths that collide
        {"unicode ключ ✓": [1, "два", (3.0, None)]},
    ]
    for obj in objects:
        buf = io.BytesIO()
        ember.save(obj, buf)
        assert_nest_equal(ember.load(io.BytesIO(buf.getvalue())), obj)


def test_loaded_tensors_are_fresh_copies(tmp_path):
    x = ember.ones(3, requires_grad=True)
    y = x * 2
    ember.save({"x": x, "y": y}, tmp_path / "f")
    with ember.no_grad():
        x.fill_(5)
    loaded = ember.load(tmp_path / "f")
    np.testing.assert_array_equal(loaded["x"].detach().numpy(), [1, 1, 1])
    # As torch.load: requires_grad comes back, on leaves without history.
    assert loaded["x"].requires_grad and loaded["y"].requires_grad
    assert loaded["x"].grad_fn is None and loaded["y"].grad_fn is None
    assert loaded["x"] is not x


def test_parameters_load_as_parameters(tmp_path):
    p = ember.nn.Parameter(ember.ones(2))
    frozen = ember.nn.Parameter(ember.ones(2), requires_grad=False)
    ember.save({"p": p, "frozen": frozen, "plain": ember.ones(2)}, tmp_path / "f")
    loaded = ember.load(tmp_path / "f")
    assert isinstance(loaded["p"], ember.nn.Parameter) and loaded["p"].requires_grad
    assert isinstance(loaded["frozen"], ember.nn.Parameter) and not loaded["frozen"].requires_grad
    assert not isinstance(loaded["plain"], ember.nn.Parameter)
    assert not loaded["plain"].requires_grad


@pytest.mark.parametrize("obj, what", [
    (object(), "obj of type object"),
    ({"a": np.zeros(2)}, "obj['a'] of type numpy.ndarray"),
    ({"a": [np.float64(1.0)]}, "obj['a'][0] of type numpy.float64"),
    ({1, 2}, "of type set"),
    ({"a": ember.float32}, "of type"),
    (collections.namedtuple("P", "x")(1), "of type"),
])
def test_unsupported_objects_raise_type_error_and_write_nothing(tmp_path, obj, what):
    # What a .safetensors file cannot hold (PyTorch's format pickles all of these).
    path = tmp_path / "f.safetensors"
    path.write_bytes(b"old")
    with pytest.raises(TypeError, match="ember.save: cannot save") as info:
        ember.save(obj, path)
    assert what in str(info.value)
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["f.safetensors"]


def test_bad_keys_cycles_and_targets(tmp_path):
    path = tmp_path / "f.safetensors"
    with pytest.raises(TypeError, match=r"has a key of type tuple; dict keys must be str or int"):
        ember.save({(1, 2): ember.zeros(1)}, path)
    with pytest.raises(TypeError, match="key of type bool"):
        ember.save({True: 1}, path)
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match=r"obj\[0\] contains itself"):
        ember.save(loop, path)
    with pytest.raises(ValueError, match="is not valid Unicode"):
        ember.save({"\ud800": ember.zeros(1)}, path)
    with pytest.raises(TypeError, match="f must be a path or a binary file object"):
        ember.save(ember.zeros(1), 42)
    with pytest.raises(TypeError, match="f must be a path or a binary file object"):
        ember.load(42)


# ---- paths and file objects --------------------------------------------------------------

def test_paths_and_file_objects(tmp_path):
    x = ember.arange(5, dtype=ember.int16)
    for target in [str(tmp_path / "a"), tmp_path / "b", os.fsencode(tmp_path / "c")]:
        ember.save(x, target)
        assert_nest_equal(ember.load(target), x)
    with open(tmp_path / "d", "wb") as f:
        ember.save({"x": x}, f)
    with open(tmp_path / "d", "rb") as f:
        assert_nest_equal(ember.load(f), {"x": x})
    with open(tmp_path / "d", "r") as f:
        with pytest.raises(TypeError, match="binary mode"):
            ember.load(f)
    with pytest.raises(FileNotFoundError):
        ember.load(tmp_path / "missing")
    with pytest.raises(IsADirectoryError):
        ember.load(tmp_path)
    with pytest.raises(RuntimeError, match="cannot create a temporary file"):
        ember.save(x, tmp_path / "no" / "such" / "dir")


def test_map_location_and_weights_only(tmp_path):
    ember.save({"x": ember.arange(3)}, tmp_path / "f")
    path = tmp_path / "f"
    for loc in [None, "cpu", ember.device("cpu"), {"cpu": "cpu"}, {"cuda:0": "cpu"},
                lambda storage, loc: storage, lambda storage, loc: None]:
        out = ember.load(path, map_location=loc)
        np.testing.assert_array_equal(out["x"].numpy(), [0, 1, 2])
    out = ember.load(path, map_location=lambda t, loc: t * 10)
    np.testing.assert_array_equal(out["x"].numpy(), [0, 10, 20])
    assert ember.load(path, weights_only=False)["x"].shape == (3,)
    with pytest.raises(RuntimeError, match="cannot load the tensors onto cuda"):
        ember.load(path, map_location="cuda")
    with pytest.raises(RuntimeError, match="onto cuda"):
        ember.load(path, map_location={"cpu": "cuda:0"})
    with pytest.raises(TypeError, match="map_location must be"):
        ember.load(path, map_location=3)
    with pytest.raises(TypeError, match="returned int, not a tensor"):
        ember.load(path, map_location=lambda t, loc: 3)
    with pytest.raises(TypeError, match="weights_only must be a bool"):
        ember.load(path, weights_only="yes")


# ---- malformed files ------------------------------------------------------------------------

F32x2 = entry("F32", [2], 0, 8)
MALFORMED = {
    "truncated": (raw_file({"x": F32x2}, bytes(8))[:-3], "past the end of the data section"),
    "shorter than the length": (b"\x05\x00", "fewer than the 8"),
    "header length past the end": (struct.pack("<Q", 1000) + b"{}", "runs past the end of the file"),
    "huge header length": (struct.pack("<Q", 2 ** 63) + b"{}", "is over the limit"),
    "not an object": (raw_file("[1, 2]"), "does not start with '{'"),
    "bad json": (raw_file('{"x": {"dtype": "F32",'), "not valid JSON"),
    "bad utf-8": (raw_file(b'{"\xc3\x28": 1}'), "not valid JSON"),
    "duplicate keys": (raw_file('{"x": %s, "x": %s}' % (json.dumps(F32x2), json.dumps(F32x2)),
                                bytes(8)), "has the key 'x' twice"),
    "overlapping": (raw_file({"a": entry("F32", [2], 0, 8), "b": entry("F32", [2], 4, 12)},
                             bytes(12)), "overlap"),
    "hole": (raw_file({"a": entry("F32", [2], 4, 12)}, bytes(12)), "belong to no tensor"),
    "out of range": (raw_file({"a": entry("F32", [2], 8, 16)}, bytes(8)), "past the end"),
    "trailing bytes": (raw_file({"x": F32x2}, bytes(9)), "has 9 bytes but the tensors cover 8"),
    "offsets reversed": (raw_file({"x": entry("F32", [2], 8, 0)}, bytes(8)), "begin <= end"),
    "wrong dtype name": (raw_file({"x": entry("float32", [2], 0, 8)}, bytes(8)),
                         "does not support"),
    "unsupported dtype": (raw_file({"x": entry("U16", [4], 0, 8)}, bytes(8)), "does not support"),
    "shape/size mismatch": (raw_file({"x": entry("F32", [3], 0, 8)}, bytes(8)),
                            "needs 12 bytes but its data_offsets [0, 8] hold 8"),
    "huge shape": (raw_file({"x": entry("F64", [2 ** 31, 2 ** 31, 2 ** 31], 0, 8)}, bytes(8)),
                   "too large to address"),
    "negative shape": (raw_file({"x": entry("F32", [-2], 0, 8)}, bytes(8)), "non-negative"),
    "metadata not strings": (raw_file({"__metadata__": {"k": 1}}), "not a string"),
    "bad bool": (raw_file({"b": entry("BOOL", [1], 0, 1)}, b"\x07"), "holds the byte 7"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_files_give_clear_errors(tmp_path, name):
    data, message = MALFORMED[name]
    with pytest.raises(RuntimeError, match="cannot load the file object as safetensors") as info:
        ember.load(io.BytesIO(data))
    assert message in str(info.value)
    (tmp_path / "bad").write_bytes(data)
    with pytest.raises(RuntimeError, match=f"cannot load '{tmp_path / 'bad'}' as safetensors"):
        ember.load(tmp_path / "bad")


def ember_file(structure_json):
    return raw_file({"__metadata__": {"ember": structure_json}, "x": F32x2}, bytes(8))


@pytest.mark.parametrize("structure, message", [
    ("{not json", "not valid JSON"),
    ('{"structure": {"tensor": "x"}}', "expected {"),
    ('{"format_version": "1", "structure": 1}', "not an integer"),
    ('{"format_version": 2, "structure": 1}', "written by a newer ember (format version 2)"),
    ('{"format_version": 1, "structure": {"tensor": "y"}}', "tensor 'y' that the file does not hold"),
    ('{"format_version": 1, "structure": {"set": [1]}}', "unexpected node"),
    ('{"format_version": 1, "structure": {"dict": [[[1], 2]]}}', "is not [str or int key, node]"),
    ('{"format_version": 1, "structure": {"float": "1.5"}}', "unexpected node"),
    ('{"format_version": 1, "structure": {"tensor": "x", "requires_grad": 1}}', "unexpected node"),
    ('{"format_version": 1, "structure": {"parameter": "x", "extra": true}}', "unexpected node"),
    ('{"format_version": 1, "structure": {"parameter": "z", "requires_grad": true}}',
     "tensor 'z' that the file does not hold"),
    ('{"format_version": 1, "structure": ' + '{"list": [' * 100000 + ']}' * 100000 + '}',
     "nests too deeply"),
])
def test_malformed_ember_metadata_gives_clear_errors(structure, message):
    with pytest.raises(RuntimeError, match="has malformed ember metadata|newer ember") as info:
        ember.load(io.BytesIO(ember_file(structure)))
    assert message in str(info.value)


def test_damaged_files_never_crash():
    good = io.BytesIO()
    ember.save({"w": ember.randn(3, 2), "n": [1, 2.5, "s"], "m": ember.ones(2, dtype=ember.bool)}, good)
    good = good.getvalue()
    rng = np.random.default_rng(0)
    for cut in range(len(good)):
        with pytest.raises(RuntimeError):
            ember.load(io.BytesIO(good[:cut]))
    for _ in range(300):
        bad = bytearray(good)
        for i in rng.integers(0, len(bad), 3):
            bad[i] = int(rng.integers(0, 256))
        try:
            ember.load(io.BytesIO(bytes(bad)))
        except RuntimeError:
            pass


# ---- atomic writes ------------------------------------------------------------------------

@pytest.mark.parametrize("suffix", [".safetensors", ".pt"])  # both formats' writers
def test_a_write_that_fails_midway_leaves_the_old_file(tmp_path, suffix):
    # A file size limit makes the write fail after its first bytes, as a full disk would.
    target = tmp_path / f"model{suffix}"
    ember.save({"w": ember.ones(4)}, target)
    old = target.read_bytes()
    script = textwrap.dedent(f"""
        import resource, signal, ember
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (65536, resource.RLIM_INFINITY))
        try:
            ember.save({{"w": ember.zeros(1 << 20)}}, {str(target)!r})
        except RuntimeError as e:
            print("failed:", e)
    """)
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(ember.__file__).parent.parent))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                         check=True).stdout
    assert f"failed: cannot write '{target}'" in out
    assert target.read_bytes() == old
    assert os.listdir(tmp_path) == [target.name]
    assert_nest_equal(ember.load(target), {"w": ember.ones(4)})
