"""ember.save and ember.load: PyTorch's checkpoint files, and safetensors files.

ember.save(obj, f) writes what torch.save writes: PyTorch's zip format, which
torch.load reads (with weights_only=True for tensors, state dicts and plain values).
To a path ending in ".safetensors" it writes a safetensors file instead (_safetensors.py).

ember.load(f) reads all three formats, recognized by their first bytes: PyTorch's zip
format, its legacy format (torch.save(..., _use_new_zipfile_serialization=False)) and
safetensors. With weights_only=True (the default, as in torch.load) a checkpoint's
pickle is run by a restricted unpickler that only builds tensors, containers, plain
values and the globals allowed with add_safe_globals / safe_globals
(_restricted.py, _allowlist.py); weights_only=False runs Python's unpickler, which can
run any code the file names: use it for files you trust (as with torch.load).

docs/serialization.md describes the formats and the safety model.
"""
import io
import os
import pickle
import warnings

from . import _safetensors, _torch_format
from ._allowlist import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from ._atomic import atomic_writer
from ._errors import NotAFileError, type_name
from ._relocate import restorer

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2  # torch.save's pickle protocol; torch's weights_only loader reads only it

_UNSAFE_MESSAGE = (
    "Re-running `ember.load` with `weights_only` set to `False` will likely succeed, but it "
    "can result in arbitrary code execution. Do it only if you got the file from a trusted "
    "source.")


def _is_path(f):
    return isinstance(f, (str, bytes, os.PathLike))


def _is_safetensors_name(name):
    return isinstance(name, str) and name.endswith(".safetensors")


# ---- save ------------------------------------------------------------------------------------

def save(obj, f, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True):
    """Saves obj to f (a path, or a binary file object opened for writing) as
    torch.save does: in PyTorch's zip format, which torch.load and ember.load read.

    obj is anything torch.save takes: a tensor, a state_dict, an optimizer's
    state_dict, numbers, strings, containers, numpy arrays, a whole module or any
    picklable object. Tensors are saved with their storages: views of one tensor
    share one storage in the file (and share memory again when loaded), with their
    offsets and strides. Tensors, Parameters, dtypes, ember.Size and ember.device are
    written under torch's names, so that torch.load(weights_only=True) reads state
    dicts; anything else is pickled as pickle pickles it, and loading it then needs
    weights_only=False, as for torch's files.

    A path ending in ".safetensors" (or a file object whose name does) gets a
    safetensors file instead: tensors and nests of dicts, lists and tuples of them and
    of plain values only (ember's format of before, readable by any safetensors tool).

    Saving to a path is atomic: the file appears complete under its name or not at
    all. pickle_protocol is the pickle protocol (2, as torch.save, or up to 5);
    _use_new_zipfile_serialization=False writes torch's legacy format.
    """
    if _is_path(f):
        path = os.fsdecode(f)
        if not _is_safetensors_name(path):
            _check_protocol(pickle_protocol)
        if _is_safetensors_name(path):
            return _safetensors.save(obj, path=path)
        # torch names the archive's directory after the file (its name without the extension).
        archive = os.path.splitext(os.path.basename(path))[0] or "archive"
        with atomic_writer(path) as write:
            _save_checkpoint(obj, write, archive, pickle_protocol, _use_new_zipfile_serialization)
        return None
    if not hasattr(f, "write"):
        raise NotAFileError(f"ember.save: f must be a path or a binary file object, got {type_name(f)}")
    if isinstance(f, io.TextIOBase):
        raise TypeError("ember.save: f is a text file; open it in binary mode ('wb')")
    if _is_safetensors_name(getattr(f, "name", None)):
        return _safetensors.save(obj, write=f.write)
    _save_checkpoint(obj, f.write, "archive", pickle_protocol, _use_new_zipfile_serialization)
    return None


def _check_protocol(protocol):
    if type(protocol) is not int or not 2 <= protocol <= pickle.HIGHEST_PROTOCOL:
        raise ValueError(f"ember.save: pickle_protocol must be an int from 2 to "
                         f"{pickle.HIGHEST_PROTOCOL} (persistent ids need a binary protocol), "
                         f"got {protocol!r}")


def _save_checkpoint(obj, write, archive, protocol, zip_format):
    _check_protocol(protocol)
    if zip_format:
        _torch_format.write_zip(obj, write, archive, protocol)
    else:
        _torch_format.write_legacy(obj, write, protocol)


# ---- load ------------------------------------------------------------------------------------

def load(f, map_location=None, weights_only=True, mmap=None, **pickle_load_args):
    """Loads an object saved by ember.save or torch.save (zip or legacy format), or a
    safetensors file, from f: a path or a binary file object opened for reading (read
    from its current position to the end).

    weights_only=True (the default, as in torch.load; None means the same) runs the
    checkpoint's pickle on a restricted unpickler that builds only tensors, dicts
    (OrderedDict too), lists, tuples, sets, numbers, strings, bytes, torch.Size,
    dtypes and devices, and the globals allowed with
    ember.serialization.add_safe_globals / safe_globals. It imports nothing and calls
    nothing else; any other global raises pickle.UnpicklingError naming it.
    weights_only=False unpickles as Python's pickle does, mapping torch's names to
    ember's (a torch.nn module loads as the ember.nn module of the same name); it can
    run any code the file names: use it only for files you trust.

    map_location, as torch.load takes it: None (each tensor goes back to the device it
    was saved from), a str or ember.device (all tensors go there), a dict from saved
    location to target ({"cuda:1": "cuda:0"}), or a function (storage, location) ->
    storage or None, where the storage is a 1-d tensor of its elements on the CPU.

    mmap=True reads a zip checkpoint at a path through a memory map (the tensors are
    still copies in memory of their own). pickle_load_args (encoding="latin1", ...)
    go to the unpickler, as in torch.load.

    A file that is not a valid checkpoint raises RuntimeError (or
    pickle.UnpicklingError for a bad pickle), naming the file and the problem.
    """
    if weights_only is None:
        weights_only = True
    if not isinstance(weights_only, bool):
        raise TypeError(f"ember.load: weights_only must be a bool, got {type_name(weights_only)}")
    pickle_module = pickle_load_args.pop("pickle_module", None)
    if weights_only and pickle_module is not None:
        raise RuntimeError("ember.load: Can not safely load weights when explicit pickle_module "
                           "is specified")
    if weights_only and set(pickle_load_args) - {"encoding", "errors"}:
        warnings.warn("ember.load: pickle_load_args other than encoding and errors only work if "
                      "weights_only=False", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    restore = restorer(map_location)  # a bad map_location raises before anything is read

    with _open_for_reading(f, mmap) as (stream, size, source, fd):
        head = stream.read(512)
        stream.seek(0)
        kind = _format_of(head)
        if kind == "safetensors":
            if fd is not None:
                return _safetensors.load(source, restore, path_fd=fd)
            return _safetensors.load(source, restore, data=stream.getvalue())
        if kind == "tar":
            raise RuntimeError(f"ember.load: {source} is in PyTorch's tar format of before 0.4, "
                               "which ember does not read; load it with torch and save it again")
        if mmap and kind != "zip":
            raise RuntimeError("ember.load: mmap can only be used with files saved with "
                               "`_use_new_zipfile_serialization=True` (PyTorch's zip format)")
        ctx = _torch_format.LoadContext(source, restore, weights_only, pickle_load_args,
                                        pickle_module)
        try:
            if kind == "zip":
                result = _torch_format.read_zip(stream, ctx)
            else:
                result = _torch_format.read_legacy(_torch_format.BoundedReader(stream, size), ctx)
        except pickle.UnpicklingError as e:
            if weights_only:
                raise pickle.UnpicklingError(_weights_only_message(str(e))) from e
            raise
    if not weights_only:
        from ._trusted import complete_modules
        complete_modules(result)
    return result


def _weights_only_message(message):
    """torch's explanation around a weights_only refusal."""
    if "was not an allowed global by default" in message:
        return ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, do those steps only if you trust the source of the checkpoint. "
                f"\n\t(1) {_UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` "
                "please check the recommended steps in the following error message.\n\t"
                f"WeightsUnpickler error: {message}")
    return f"Weights only load failed. {_UNSAFE_MESSAGE}\n\nWeightsUnpickler error: {message}"


def _format_of(head):
    """'zip', 'legacy', 'tar' or 'safetensors', from the first bytes of a file."""
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    # A safetensors file starts with its header's length (8 bytes) and then "{"; the
    # length may itself start with 0x80, so this test comes before the pickle's.
    if head[8:9] == b"{":
        return "safetensors"
    if head[:1] == b"\x80" and head[1:2] and 2 <= head[1] <= pickle.HIGHEST_PROTOCOL:
        return "legacy"  # a pickle (PROTO opcode): the magic number comes first
    if head[257:262] == b"ustar":
        return "tar"
    return "safetensors"  # whose reader says what is wrong with the file


class _MappedFile:
    """A memory map as the seekable binary file that zipfile reads."""

    def __init__(self, mapped):
        self._m = mapped

    def read(self, n=-1):
        return self._m.read(None if n is None or n < 0 else n)

    def seek(self, pos, whence=0):
        self._m.seek(pos, whence)
        return self._m.tell()

    def tell(self):
        return self._m.tell()

    def seekable(self):
        return True


class _open_for_reading:  # noqa: N801
    """with _open_for_reading(f, mmap) as (stream, size, source, fd): a seekable
    binary stream over f's bytes from the current position, its size, how messages
    name it, and the file descriptor when f is a path."""

    def __init__(self, f, use_mmap):
        self._f, self._mmap = f, use_mmap
        self._closers = []

    def __enter__(self):
        f = self._f
        if _is_path(f):
            path = os.fsdecode(f)
            file = open(path, "rb")
            self._closers.append(file.close)
            size = os.fstat(file.fileno()).st_size
            stream = file
            if self._mmap and size:
                import mmap
                mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
                self._closers.append(mapped.close)
                stream = _MappedFile(mapped)
            return stream, size, f"'{path}'", file.fileno()
        if self._mmap:
            raise ValueError("ember.load: f must be a file path in order to use the mmap argument")
        if not hasattr(f, "read"):
            raise NotAFileError("ember.load: f must be a path or a binary file object, got "
                            f"{type_name(f)}")
        data = f.read() if not isinstance(f, io.TextIOBase) else ""
        if isinstance(data, str):
            raise TypeError("ember.load: f is a text file; open it in binary mode ('rb')")
        data = bytes(data)
        return io.BytesIO(data), len(data), "the file object", None

    def __exit__(self, *exc):
        for close in reversed(self._closers):
            close()
        return False
