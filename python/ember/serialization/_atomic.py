"""Atomic writes of a file from Python: the bytes go to a temporary file next to the
target, which is flushed to disk and renamed over it, so the target appears complete
or keeps its old contents. The same protocol as lib/serialize/atomic_file.h (used by
the C++ safetensors writer), with the same messages."""
import contextlib
import errno
import os
import secrets


def _create_temp_next_to(path):
    directory, base = os.path.split(path)
    for _ in range(64):
        temp = os.path.join(directory, f".{base}.tmp-{secrets.token_hex(8)}")
        try:
            # 0666 and O_EXCL: the umask decides the permissions, as for any new file.
            return temp, os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        except FileExistsError:
            continue
        except OSError as e:
            raise RuntimeError(f"cannot write '{path}': cannot create a temporary file in "
                               f"'{directory or '.'}': {e.strerror}") from e
    raise RuntimeError(f"cannot write '{path}': cannot create a temporary file in "
                       f"'{directory or '.'}': {os.strerror(errno.EEXIST)}")


@contextlib.contextmanager
def atomic_writer(path):
    """with atomic_writer(path) as write: write(bytes) ... ; the file is renamed into
    place when the block ends without an exception, and removed otherwise."""
    temp, fd = _create_temp_next_to(path)
    try:
        try:
            writer = _FdWriter(fd, path)
            yield writer.write
            writer.flush()
            _check(path, os.fsync, fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _sync_directory(os.path.dirname(path) or ".")


def _check(path, fn, *args):
    try:
        return fn(*args)
    except OSError as e:
        raise RuntimeError(f"cannot write '{path}': {e.strerror}") from e


class _FdWriter:
    """Buffered writes to a file descriptor. (Not a Python file object: closing one
    flushes its buffer again, and a second failure there would hide the first.)"""

    _BUFFER = 1 << 20

    def __init__(self, fd, path):
        self._fd, self._path, self._buffer = fd, path, bytearray()

    def write(self, data):
        if len(self._buffer) + len(data) <= self._BUFFER:
            self._buffer += data
            return
        self.flush()
        if len(data) < self._BUFFER:
            self._buffer += data
        else:
            self._write_all(memoryview(data).cast("B"))  # large: no copy into the buffer

    def flush(self):
        self._write_all(memoryview(self._buffer))
        self._buffer = bytearray()

    def _write_all(self, view):
        while len(view):
            view = view[_check(self._path, os.write, self._fd, view):]


def _sync_directory(directory):
    # Makes the rename durable; some filesystems cannot fsync a directory, and the
    # file is complete under its name either way.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
