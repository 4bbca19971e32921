"""PyTorch's checkpoint formats: writing the zip format (torch.save's default) and the
legacy format (_use_new_zipfile_serialization=False), and reading both.

The zip format, archive <name>/:
    data.pkl                  the pickle of the object (protocol 2); its storages are
                              persistent ids ("storage", torch.FloatStorage, key,
                              location, numel)
    .format_version           "1"
    .storage_alignment        "64"
    byteorder                 "little" (or "big"): the byte order of the storages
    data/<key>                the bytes of each storage
    version                   "3\\n"
    .data/serialization_id    a 40-digit id of the file
The legacy format, a sequence in one stream:
    pickle(magic number), pickle(1001), pickle(sys_info), pickle(object: persistent ids
    ("storage", type, key, location, numel, view)), pickle(sorted storage keys), then
    for each key: its number of elements (int64) and its bytes.
"""
import io
import pickle
import secrets
import struct
import sys

from .. import _C
from . import _allowlist, _trusted
from ._errors import damaged, type_name
from ._pickler import pickle_checkpoint
from ._raw import tensor_from_bytes
from ._rebuild import LoadedStorage, Rebuilders
from ._restricted import RestrictedUnpickler
from ._torch_names import StorageType
from ._zip import ZipReader, ZipWriter

MAGIC_NUMBER = 0x1950a86a20f9469cfc6c
LEGACY_PROTOCOL_VERSION = 1001
_MAX_ZIP_VERSION = 10  # torch's kMaxSupportedFileFormatVersion
_MAX_NESTING = 4       # storages pickled on their own, inside such storages, ...


# ---- writing ---------------------------------------------------------------------------

def write_zip(obj, write, archive_name, protocol):
    """Writes obj in torch's zip format through write(bytes)."""
    data_pkl, storages = pickle_checkpoint(obj, protocol)
    zw = ZipWriter(write, archive_name)
    crcs = [zw.add("data.pkl", data_pkl), zw.add(".format_version", b"1"),
            zw.add(".storage_alignment", b"64"), zw.add("byteorder", sys.byteorder.encode())]
    for s in storages:
        crcs.append(zw.add(f"data/{s.key}", s.data()))
    crcs.append(zw.add("version", b"3\n"))
    # torch's id: 20 random digits and 20 from the records' checksums.
    combined = 0
    for crc in crcs:
        combined = (combined * 31 + crc) % 10 ** 20
    serialization_id = f"{secrets.randbits(64) % 10 ** 20:020d}{combined:020d}"
    zw.add(".data/serialization_id", serialization_id.encode())
    zw.finish()


def write_legacy(obj, write, protocol):
    """Writes obj in torch's legacy (pre-1.6) format through write(bytes)."""
    data_pkl, storages = pickle_checkpoint(obj, protocol, legacy=True)
    sys_info = {"protocol_version": LEGACY_PROTOCOL_VERSION,
                "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": 2, "int": 4, "long": 4}}
    for header in (MAGIC_NUMBER, LEGACY_PROTOCOL_VERSION, sys_info):
        write(pickle.dumps(header, protocol=protocol))
    write(data_pkl)
    by_key = {s.key: s for s in storages}
    keys = sorted(by_key)  # torch sorts the keys as strings
    write(pickle.dumps(keys, protocol=protocol))
    for key in keys:
        write(struct.pack("<q", by_key[key].numel))
        write(by_key[key].data())


# ---- reading ---------------------------------------------------------------------------

class LoadContext:
    """What one ember.load call reads with: the relocation (map_location), whether
    the file is trusted (weights_only=False), the unpickler's arguments, and the
    tables of names, made once per load (a weights_only load also snapshots the
    globals the user allowed)."""

    def __init__(self, source, restore, weights_only, pickle_load_args, pickle_module=None,
                 depth=0):
        self.source, self.restore, self.weights_only = source, restore, weights_only
        self.pickle_load_args = pickle_load_args
        self.pickle_module = pickle_module or pickle
        self.depth = depth
        self.rebuilders = Rebuilders(trusted=not weights_only, load_storage_bytes=self._nested)
        self._defaults = _allowlist.default_globals(self.rebuilders)
        if weights_only:
            self._user = _allowlist.user_globals()
        else:
            self._names = _trusted.TorchNames(self.rebuilders)

    def unpickle(self, file, persistent_load=None):
        """One pickle from file, with the unpickler the load's safety asks for."""
        if self.weights_only:
            return RestrictedUnpickler(file, self._defaults, self._user, persistent_load,
                                       encoding=self.pickle_load_args.get("encoding", "utf-8"),
                                       errors=self.pickle_load_args.get("errors", "strict")).load()
        if persistent_load is None:
            def persistent_load(pid):
                raise pickle.UnpicklingError("this pickle may not refer to persistent objects")
        return _trusted.make_unpickler(file, self._names, persistent_load, self.pickle_module,
                                       **self.pickle_load_args).load()

    def unpickle_plain(self, file):
        """A header pickle of the legacy format: plain values, read by the restricted
        unpickler whatever weights_only says."""
        return RestrictedUnpickler(file, self._defaults, {}).load()

    def _nested(self, data):
        # torch.storage._load_from_bytes(b): b is a legacy checkpoint of one storage.
        if self.depth >= _MAX_NESTING:
            raise RuntimeError(f"ember.load: {self.source} nests storages pickled on their own "
                               f"more than {_MAX_NESTING} deep")
        inner = LoadContext(self.source, self.restore, self.weights_only, self.pickle_load_args,
                            self.pickle_module, self.depth + 1)
        return read_legacy(BoundedReader(io.BytesIO(data), len(data)), inner)


def _storage_id(pid, source, legacy):
    """(dtype, key, location, numel, view) from a persistent id, checked."""
    n = 6 if legacy else 5
    if type(pid) is not tuple or len(pid) != n:
        raise damaged(source, f"a storage's persistent id is not a tuple of {n} fields")
    _, storage_type, key, location, numel, *view = pid
    key, location = _text(key), _text(location)
    if not isinstance(storage_type, StorageType):
        raise damaged(source, f"a storage's type is {type_name(storage_type)}, not a storage class")
    if storage_type.dtype is None:
        raise RuntimeError(f"ember.load: {source} holds a {storage_type} (dtype "
                           f"{storage_type.dtype_name}), which ember does not support")
    if type(key) is not str or type(location) is not str or type(numel) is not int or numel < 0:
        raise damaged(source, "a storage's persistent id is not (type, key, location, numel)")
    return storage_type.dtype, key, location, numel, (view[0] if view else None)


def _text(value):
    # Python 2 pickles (encoding="bytes") give the key and location as bytes.
    if isinstance(value, bytes):
        try:
            return value.decode("ascii")
        except UnicodeDecodeError:
            return value
    return value


def read_zip(fileobj, ctx):
    """Loads the object of a zip-format checkpoint."""
    z = ZipReader(fileobj, ctx.source)
    if z.has("constants.pkl"):
        raise RuntimeError(f"ember.load: {ctx.source} is a TorchScript archive (torch.jit.save); "
                           "ember.load reads checkpoints of torch.save")
    version_name = "version" if z.has("version") else ".data/version"
    version = z.read(version_name).strip()
    if not version.isdigit():
        raise damaged(ctx.source, f"its version record is {version[:20]!r}, not a number")
    if not 1 <= int(version) <= _MAX_ZIP_VERSION:
        raise RuntimeError(f"ember.load: {ctx.source} has format version {int(version)}; ember "
                           f"reads versions 1 to {_MAX_ZIP_VERSION} (a newer PyTorch wrote it?)")
    byteorder = z.read("byteorder").decode("ascii", "replace") if z.has("byteorder") else "little"
    if byteorder not in ("little", "big"):
        raise damaged(ctx.source, f"its byteorder record is {byteorder[:20]!r}")
    loaded = {}

    def persistent_load(pid):
        dtype, key, location, numel, _ = _storage_id(pid, ctx.source, legacy=False)
        storage = loaded.get(key)
        if storage is not None and storage.dtype == dtype:
            return storage
        if storage is not None:
            # torch saves one dtype per storage with data; an empty record may be named
            # under several, and bytes read as another dtype are a copy (no views of
            # one memory as two dtypes in ember).
            return storage.as_dtype(dtype)
        data = z.read(f"data/{key}", expected_size=numel * dtype.itemsize)
        tensor = ctx.restore(tensor_from_bytes(data, dtype, byteorder), location)
        loaded[key] = LoadedStorage(tensor, dtype)
        return loaded[key]

    return ctx.unpickle(io.BytesIO(z.read("data.pkl")), persistent_load)


class BoundedReader:
    """read / readline / tell over a binary stream that holds `size` more bytes. Reads
    never ask the stream for more than it holds: a crafted length must not make a
    file's read() allocate it."""

    def __init__(self, stream, size):
        self._stream, self._left, self._pos = stream, size, 0

    @property
    def left(self):
        return self._left

    def read(self, n=-1):
        n = self._left if n is None or n < 0 else min(n, self._left)
        data = self._stream.read(n)
        self._left -= len(data)
        self._pos += len(data)
        return data

    def readline(self, limit=-1):
        limit = self._left if limit is None or limit < 0 else min(limit, self._left)
        data = self._stream.readline(limit)
        self._left -= len(data)
        self._pos += len(data)
        return data

    def tell(self):
        return self._pos


def read_legacy(stream, ctx):
    """Loads the object of a legacy-format checkpoint from stream (a BoundedReader)."""
    source = ctx.source
    if ctx.unpickle_plain(stream) != MAGIC_NUMBER:
        raise damaged(source, "invalid magic number; corrupt file?")
    version = ctx.unpickle_plain(stream)
    if version != LEGACY_PROTOCOL_VERSION:
        raise damaged(source, f"invalid protocol version: {version!r}")
    sys_info = ctx.unpickle_plain(stream)
    little = sys_info.get("little_endian", True) if isinstance(sys_info, dict) else None
    if type(little) is not bool:
        raise damaged(source, "its sys_info is not a dict with little_endian")
    byteorder = "little" if little else "big"
    storages = {}
    claimed = [0]  # bytes the storages need after the pickle: bounded by what is left

    def persistent_load(pid):
        kind = _text(pid[0]) if type(pid) is tuple and pid else None
        if kind == "module" and not ctx.weights_only and len(pid) == 4:
            return pid[1]  # a module class saved with its source, which is not checked
        if kind != "storage":
            raise damaged(source, f"unknown persistent id {type_name(pid)} {kind!r}")
        dtype, key, location, numel, view = _storage_id(pid, source, legacy=True)
        if key not in storages:
            claimed[0] += 8 + numel * dtype.itemsize
            if claimed[0] > stream.left:
                raise damaged(source, f"its storages need {claimed[0]} bytes but only "
                              f"{stream.left} follow")
            # Filled in place once the pickle is read: the tensors rebuilt meanwhile are
            # views of it. map_location sees it unfilled, as torch's does.
            tensor = ctx.restore(_C.zeros(numel, dtype=dtype), location)
            storages[key] = LoadedStorage(tensor, dtype)
        storage = storages[key]
        if storage.dtype != dtype:
            # Its bytes are read only after the pickle, so it cannot be read as two dtypes.
            if storage.numel or numel:
                raise damaged(source, f"storage {key!r} is used as {storage.dtype} and {dtype}")
            storage = LoadedStorage(_C.zeros(0, dtype=dtype), dtype)
        if view is not None:
            if type(view) is not tuple or len(view) != 3:
                raise damaged(source, "a storage view is not (key, offset, numel)")
            view_key, offset, view_numel = view
            if _text(view_key) not in storages:
                storages[_text(view_key)] = storage.view(offset, view_numel)
            return storages[_text(view_key)]
        return storage

    result = ctx.unpickle(stream, persistent_load)
    keys = ctx.unpickle_plain(stream)
    if not isinstance(keys, list) or not all(isinstance(k, (str, bytes)) for k in keys):
        raise damaged(source, "its list of storage keys is not a list of str")
    for key in keys:
        storage = storages.get(_text(key))
        if storage is None or storage.offset != 0:
            raise damaged(source, f"it lists the storage {key!r}, which its pickle does not use")
        size = stream.read(8)
        data = stream.read(storage.numel * storage.dtype.itemsize)
        if len(size) != 8 or len(data) != storage.numel * storage.dtype.itemsize:
            raise damaged(source, f"it ends in the middle of storage {key!r}")
        (numel,) = struct.unpack("<q", size)
        if numel != storage.numel:
            raise damaged(source, f"storage {key!r} has {numel} elements where "
                          f"{storage.numel} are expected")
        with _no_grad():
            storage.tensor.copy_(tensor_from_bytes(data, storage.dtype, byteorder))
    return result


def _no_grad():
    from ..autograd import no_grad
    return no_grad()
