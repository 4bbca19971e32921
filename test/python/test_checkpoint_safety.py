"""The safety of ember.load on PyTorch checkpoints: the restricted unpickler of
weights_only loads (crafted payloads refused without running anything, plain values read
as pickle reads them, tensor geometry checked), its allowlist (add_safe_globals,
safe_globals), and damaged files that raise only documented errors. Interoperability
with torch's files is in test_torch_checkpoints.py."""
import collections
import os
import pathlib
import pickle
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import ember
from _checkpoint_helpers import ember_load, repack, saved, torch_load, zip_checkpoint
from ember.serialization import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals

torch = pytest.importorskip("torch")


# ---- the restricted unpickler -----------------------------------------------------------------

class _Call:
    """Pickles as a call fn(*args): what a malicious file's __reduce__ writes."""

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return (self.fn, self.args)


def payloads(sentinel):
    """name -> pickle bytes that would create the file sentinel (or import a module)."""
    cmd = f"touch {sentinel}".encode()
    string = b"X" + struct.pack("<I", len(cmd)) + cmd
    return {
        "os.system via GLOBAL/REDUCE": b"\x80\x02cos\nsystem\nq\x00" + string + b"\x85R.",
        "posix.system": b"\x80\x02cposix\nsystem\n" + string + b"\x85R.",
        "builtins.eval": b"\x80\x02c__builtin__\neval\nX\x0d\x00\x00\x00__import__(1)\x85R.",
        "__reduce__ returning exec": pickle.dumps(
            _Call(exec, f"open({str(sentinel)!r}, 'w').close()"), protocol=2),
        "__reduce__ returning os.system (protocol 4)": pickle.dumps(
            _Call(os.system, f"touch {sentinel}"), protocol=4),
        "__reduce__ returning eval of __import__": pickle.dumps(
            _Call(eval, f"__import__('os').system('touch {sentinel}')"), protocol=2),
        "subprocess.Popen": b"\x80\x02csubprocess\nPopen\n" + string + b"\x85\x85R.",
        "STACK_GLOBAL os.system": b"\x80\x04\x8c\x02os\x8c\x06system\x93" + string + b"\x85R.",
        "INST os.system": b"(" + string + b"ios\nsystem\n.",
        "getattr on an allowed global": b"\x80\x02c__builtin__\ngetattr\nccollections\nOrderedDict\n"
                                        b"X\x08\x00\x00\x00__init__\x86R.",
        "a module to import": b"\x80\x02cember_evil_module_xyz\nrun\n)R.",
        "_codecs.encode with a codec module": b"\x80\x02c_codecs\nencode\nX\x01\x00\x00\x00a"
                                              b"X\x04\x00\x00\x00zlib\x86R.",
        "bytes of a huge size": b"\x80\x02c__builtin__\nbytes\nJ\xff\xff\xff\x7f\x85R.",
        "rebuild_from_type calling a global": b"\x80\x02ctorch._tensor\n_rebuild_from_type_v2\n"
                                              b"(ccollections\nOrderedDict\nctorch\nTensor\n)NtR.",
    }


@pytest.mark.parametrize("container", ["zip", "legacy"])
def test_crafted_payloads_are_refused_and_run_nothing(tmp_path, monkeypatch, container):
    sentinel = tmp_path / "SENTINEL"
    module_dir = tmp_path / "mods"
    module_dir.mkdir()
    (module_dir / "ember_evil_module_xyz.py").write_text(
        f"open({str(sentinel)!r}, 'w').close()\ndef run(): pass\n")
    monkeypatch.syspath_prepend(str(module_dir))
    monkeypatch.chdir(tmp_path)
    for name, payload in payloads(sentinel).items():
        if container == "zip":
            data = zip_checkpoint(payload)
        else:  # the legacy format's pickle of the object, after its three header pickles
            data = b"".join(pickle.dumps(h, protocol=2) for h in (
                0x1950a86a20f9469cfc6c, 1001, {"little_endian": True})) + payload
        with pytest.raises(pickle.UnpicklingError) as info:
            ember_load(data)
        assert "Weights only load failed" in str(info.value), name
        assert not sentinel.exists(), name
        assert "ember_evil_module_xyz" not in sys.modules, name
    # A raw pickle is not a checkpoint: even weights_only=False reads its header
    # (the magic number) with the restricted unpickler.
    with pytest.raises(pickle.UnpicklingError):
        ember_load(payloads(sentinel)["os.system via GLOBAL/REDUCE"], weights_only=False)
    assert not sentinel.exists()


def random_plain_value(rng, depth=0):
    kind = rng.integers(16 if depth < 4 else 9)
    if kind == 0:
        return int(rng.integers(-2 ** 62, 2 ** 62)) * int(rng.integers(1, 2 ** 20))
    if kind == 1:
        return float(rng.standard_normal()) * 1e10
    if kind == 2:
        return "".join(chr(int(c)) for c in rng.integers(0x30, 0x3000, rng.integers(5)))
    if kind == 3:
        return bytes(rng.integers(0, 256, rng.integers(5)).tolist())
    if kind in (4, 5, 6, 7, 8):
        return [None, True, 1 + 2j, bytearray(b"ab"), int(rng.integers(-300, 300))][kind - 4]
    children = [random_plain_value(rng, depth + 1) for _ in range(rng.integers(4))]
    if kind == 9:
        return children
    if kind == 10:
        return tuple(children)
    if kind == 11:
        return {i * 7: c for i, c in enumerate(children)}
    if kind == 12:
        return collections.OrderedDict((str(i), c) for i, c in enumerate(children))
    return [{1, 2}, frozenset({"a", 1}), collections.Counter("abca")][kind - 13]


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_the_restricted_unpickler_reads_plain_values_as_pickle_does(protocol):
    rng = np.random.default_rng(protocol)
    for _ in range(150):
        value = random_plain_value(rng)
        shared = [value, value]  # the memo: the second is the same object as the first
        data = pickle.dumps(shared, protocol=protocol)
        got = ember_load(zip_checkpoint(data))
        assert got == pickle.loads(data)
        assert type(got[0]) is type(value)
        if isinstance(value, (list, dict, set, bytearray)):
            assert got[0] is got[1]


def test_refusal_messages_name_the_global_and_the_way_to_allow_it():
    with pytest.raises(pickle.UnpicklingError) as info:
        ember_load(zip_checkpoint(b"\x80\x02cmymodule\nMyClass\n)\x81."))
    message = str(info.value)
    assert "GLOBAL mymodule.MyClass was not an allowed global by default" in message
    assert "ember.serialization.add_safe_globals([mymodule.MyClass])" in message
    assert "ember.serialization.safe_globals([mymodule.MyClass])" in message
    assert "weights_only` set to `False`" in message
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL repr was not an allowed global"):
        ember_load(zip_checkpoint(b"\x80\x02c__builtin__\nrepr\n."))  # builtins. is left out
    with pytest.raises(pickle.UnpicklingError, match="posix.system whose module posix is blocked"):
        ember_load(zip_checkpoint(b"\x80\x02cposix\nsystem\n."))


def test_blocked_globals_stay_blocked_when_allowed():
    with safe_globals([os.system, eval, (print, "builtins.exec")]):
        for payload in [b"\x80\x02cposix\nsystem\n.", b"\x80\x02c__builtin__\neval\n.",
                        b"\x80\x02c__builtin__\nexec\n."]:
            with pytest.raises(pickle.UnpicklingError, match="is blocked"):
                ember_load(zip_checkpoint(payload))


@pytest.mark.parametrize("payload, message", [
    # SETITEM on a tensor (a rebuilt one), APPEND to a dict, BUILD on a tensor
    (b"\x80\x02ctorch\nSize\n]\x85RK\x00K\x01s.", "Can only SETITEM"),
    (b"\x80\x02}K\x01a.", "Can only append to list"),
    (b"\x80\x02ctorch\nSize\n]\x85R}b.", "Can only build"),
    (b"\x80\x02(X\x03\x00\x00\x00bad\x85Q.", "only storages may be loaded by persistent id"),
    (b"\x80\x02P0\n.", "text persistent ids"),
    (b"\x80\x02\x82\x01.", "extension codes"),
    (b"\x80\x02h\x05.", "Memo value not found"),
    (b"\x80\x02X\xff\xff\x00\x00ab.", "truncated"),
    (b"\x80\x02\xff.", "unsupported pickle opcode"),
    (b"\x80\x02t.", "could not find MARK"),
    (b"\x80\x02c__builtin__\nset\nK\x05\x85R.", "malformed pickle data"),  # set(5)
    (b"\x80\x02ctorch\nfloat32\n)R.", "Trying to call reduce for unrecognized function"),
    (b"\x80\x02ctorch\ndevice\nX\x03\x00\x00\x00cpuK\x00K\x01\x87R.", r"torch\.device\(\) is allowed"),
])
def test_what_the_machine_refuses(payload, message):
    with pytest.raises(pickle.UnpicklingError, match=message):
        ember_load(zip_checkpoint(payload))


def test_deeply_nested_tuples_are_refused_before_they_are_hashed():
    # hash() of a million nested 1-tuples overflows the C stack: the machine stops at 1000.
    deep_key = b"\x80\x02}" + b")" + b"\x85" * 1_000_000 + b"K\x01s."
    with pytest.raises(pickle.UnpicklingError, match="nest more than 1000 deep"):
        ember_load(zip_checkpoint(deep_key))
    deep_set = b"\x80\x02(" + b")" + b"\x85" * 5000 + b"\x91."
    with pytest.raises(pickle.UnpicklingError, match="nest more than 1000 deep"):
        ember_load(zip_checkpoint(deep_set))
    # Deep lists need no hashing: they load (and shallow tuples as keys too).
    deep_list = b"\x80\x02" + b"]" * 100_000 + b"a" * 99_999 + b"."
    assert isinstance(ember_load(zip_checkpoint(deep_list)), list)
    assert ember_load(zip_checkpoint(pickle.dumps({((1,),): 2}, protocol=2))) == {((1,),): 2}


def test_tensor_geometry_and_storage_sizes_are_checked():
    # A storage claims far more elements than its record holds: refused before reading.
    huge = zip_checkpoint(
        b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\n"
        b"X\x01\x00\x00\x000X\x03\x00\x00\x00cpu\x8a\x06\x00\x00\x00\x00\x00\x01tQK\x00K\x01\x85K\x01\x85"
        b"\x89ccollections\nOrderedDict\n)Rt\x52.", {"0": b"\0" * 8})
    with pytest.raises(RuntimeError, match="has 8 bytes where 4398046511104 are expected"):
        ember_load(huge)

    def tensor(size, stride, offset):
        return zip_checkpoint(
            b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\n"
            b"X\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x02tQ" + pickle.dumps(offset, 2)[2:-1]
            + pickle.dumps(size, 2)[2:-1] + pickle.dumps(stride, 2)[2:-1]
            + b"\x89ccollections\nOrderedDict\n)Rt\x52.", {"0": b"\0" * 8})
    assert ember_load(tensor((2,), (1,), 0)).tolist() == [0, 0]
    for size, stride, offset, message in [((3,), (1,), 0, "reaches element 2 of a storage of 2"),
                                          ((2,), (1,), 1, "reaches element 2"),
                                          ((2,), (-1,), 1, "none may be negative"),
                                          ((2, 2), (1,), 0, "same length"),
                                          ((1,), (1,), -1, "none may be negative"),
                                          ((2 ** 62, 4), (0, 0), 0, "too large")]:
        with pytest.raises(RuntimeError, match=message):
            ember_load(tensor(size, stride, offset))


def test_legacy_storages_cannot_claim_more_than_the_file_holds():
    data = bytearray(saved({"x": ember.ones(4)}, _use_new_zipfile_serialization=False))
    # The persistent id's numel (BININT1 4) becomes 2**30 (BININT): the file is too short.
    i = data.index(b"cpu") + len(b"cpu") + 2  # after BINPUT
    assert data[i:i + 2] == b"K\x04"
    bad = bytes(data[:i]) + b"J\x00\x00\x00\x40" + bytes(data[i + 2:])
    with pytest.raises(RuntimeError, match="its storages need"):
        ember_load(bad)


# ---- the allowlist --------------------------------------------------------------------------

class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return type(other) is Point and (self.x, self.y) == (other.x, other.y)


class Slotted:
    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a


@pytest.fixture
def clean_allowlist():
    saved_globals = get_safe_globals()
    clear_safe_globals()
    yield
    clear_safe_globals()
    add_safe_globals(saved_globals)


def test_safe_globals_let_a_user_class_through(clean_allowlist):
    data = saved({"p": Point(1, ember.ones(2)), "s": Slotted(3)})
    with pytest.raises(pickle.UnpicklingError, match=f"GLOBAL {__name__}.Point was not an allowed"):
        ember_load(data)
    with safe_globals([Point, Slotted]):
        assert get_safe_globals() == [Point, Slotted]
        out = ember_load(data)
        assert out["p"].x == 1 and out["p"].y.tolist() == [1, 1] and out["s"].a == 3
    assert get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError):
        ember_load(data)
    add_safe_globals([Point, Slotted])
    assert ember_load(data)["p"].x == 1
    add_safe_globals([Point])  # no duplicates
    assert get_safe_globals() == [Point, Slotted]
    # torch reads ember's file with its own allowlist.
    with torch.serialization.safe_globals([Point, Slotted]):
        assert torch_load(data)["p"].x == 1
    clear_safe_globals()
    assert get_safe_globals() == []
    # (object, "module.name"): a class the file names differently.
    def rename(records):
        records["archive/data.pkl"] = records["archive/data.pkl"].replace(
            f"{__name__}\nPoint".encode(), b"somewhere.else\nPoint")
    renamed = repack(saved({"p": Point(2, 3)}), rename)
    with pytest.raises(pickle.UnpicklingError, match="somewhere.else.Point"):
        ember_load(renamed)
    with safe_globals([(Point, "somewhere.else.Point")]):
        assert ember_load(renamed)["p"] == Point(2, 3)
    with pytest.raises(TypeError):
        add_safe_globals(Point)
    with pytest.raises(TypeError):
        add_safe_globals([(Point, 3)])


def test_a_build_cannot_plant_a_setstate(clean_allowlist):
    # BUILD puts {"__setstate__": torch.Tensor} in a Point's __dict__; a second BUILD on
    # it must not call ember.Tensor(...) (which weights_only loads never call).
    payload = (b"\x80\x02c" + __name__.encode() + b"\nPoint\n)\x81q\x00"
               b"}X\x0c\x00\x00\x00__setstate__ctorch\nTensor\nsb"
               b"h\x00J\x00\x00\x00\x40b.")
    with safe_globals([Point]):
        with pytest.raises(pickle.UnpicklingError, match="state of a .*Point is not a dict"):
            ember_load(zip_checkpoint(payload))


def test_a_context_does_not_remove_what_was_allowed_before(clean_allowlist):
    add_safe_globals([Point])
    with safe_globals([Point, Slotted]):
        pass
    assert get_safe_globals() == [Point]


# ---- damaged files ----------------------------------------------------------------------------

DOCUMENTED = (pickle.UnpicklingError, RuntimeError, ValueError, EOFError, zipfile.BadZipFile)


def damaged_inputs():
    obj = {"w": ember.randn(3, 2), "v": ember.arange(6).reshape(2, 3).t(), "n": [1, 2.5, "s"],
           "b": ember.ones(2, dtype=ember.bool)}
    return {"zip": saved(obj), "legacy": saved(obj, _use_new_zipfile_serialization=False)}


@pytest.mark.parametrize("fmt", ["zip", "legacy"])
def test_truncated_files_raise_clear_errors(fmt):
    good = damaged_inputs()[fmt]
    for cut in range(0, len(good), max(1, len(good) // 300)):
        with pytest.raises((RuntimeError, pickle.UnpicklingError)) as info:
            ember_load(good[:cut])
        message = str(info.value)
        assert "the file object" in message or "pickle data was truncated" in message \
            or "Weights only load failed" in message, message


@pytest.mark.parametrize("fmt", ["zip", "legacy"])
def test_corrupted_files_raise_only_documented_errors(fmt):
    good = damaged_inputs()[fmt]
    rng = np.random.default_rng(0)
    outcomes = set()
    for _ in range(400):
        bad = bytearray(good)
        for i in rng.integers(0, len(bad), int(rng.integers(1, 4))):
            bad[i] ^= 1 << int(rng.integers(0, 8))
        try:
            ember_load(bytes(bad))
            outcomes.add("loaded")
        except DOCUMENTED as e:
            outcomes.add(type(e).__name__)
    assert outcomes - {"loaded"}


def test_a_corrupted_record_of_a_zip_is_named():
    data = bytearray(saved({"w": ember.ones(64)}))
    i = data.index(b"\x00\x00\x80\x3f")  # the first 1.0 of the storage
    data[i + 3] = 0x40
    with pytest.raises(RuntimeError, match=r"the file object is not a valid PyTorch checkpoint: its "
                                           r"record 'archive/data/0' is damaged \(Bad CRC-32"):
        ember_load(bytes(data))


def test_a_legacy_list_of_storage_keys_must_hold_strings():
    good = saved({"x": ember.ones(2)}, _use_new_zipfile_serialization=False)
    keys = pickle.dumps(["0"], protocol=2)
    assert good.count(keys) == 1
    for bad_keys in ([[1]], "0", [None]):  # unhashable, not a list, not a key
        bad = good.replace(keys, pickle.dumps(bad_keys, protocol=2))
        with pytest.raises(RuntimeError, match="list of storage keys is not a list of str"):
            ember_load(bad)


def test_a_damaged_zip_directory_in_a_file_is_named(tmp_path):
    # A central directory offset too far by the file's size makes zipfile place every
    # record before the file's start: seeking there is an OSError (EINVAL) on a real
    # file, reported as the damage it is.
    data = bytearray(saved({"w": ember.ones(4)}))
    at = data.index(b"PK\x06\x06") + 48  # the zip64 end record's directory offset
    (offset,) = struct.unpack("<Q", data[at:at + 8])
    data[at:at + 8] = struct.pack("<Q", offset + len(data))
    path = tmp_path / "bad.pt"
    path.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match=f"'{path}' is not a valid PyTorch checkpoint: its "
                                           r"record 'archive/version' is damaged \(\[Errno 22\]"):
        ember.load(path)
    with pytest.raises(RuntimeError, match="record 'archive/version' is damaged"):
        ember.load(path, mmap=True)


def test_fuzz_harness_smoke(tmp_path):
    script = pathlib.Path(__file__).parents[2] / "scripts" / "fuzz_checkpoint.py"
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(ember.__file__).parent.parent))
    run = subprocess.run([sys.executable, str(script), "--seconds", "3", "--seed", "0",
                          "--artifacts", str(tmp_path)],
                         capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "OK (no failures)" in run.stdout
