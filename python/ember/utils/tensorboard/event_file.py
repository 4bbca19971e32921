"""One TensorBoard event file: TFRecord framing, buffering and periodic flushing.

A record is framed as
    uint64 little-endian length | uint32 masked CRC-32C of those 8 bytes |
    data | uint32 masked CRC-32C of data
and each record's data is one serialized `Event` message. The first record of a file
is the Event carrying `file_version = "brain.Event:2"`, which TensorBoard reads to know
the file's format.

Buffering: records are framed at once but held in memory until `max_queue` of them
wait, `flush_secs` passed since the last flush (checked on each add and by a daemon
thread that wakes every `flush_secs`), or `flush()`/`close()` is called. Only the
background thread and the adding thread touch the buffer, under one lock.
"""
import atexit
import os
import socket
import struct
import threading
import time

from . import _proto
from ._crc32c import masked_crc32c

FILE_VERSION = "brain.Event:2"

# Event field numbers (tensorboard/compat/proto/event.proto).
_EVENT_WALL_TIME = 1
_EVENT_STEP = 2
_EVENT_FILE_VERSION = 3
_EVENT_SUMMARY = 5
_EVENT_SESSION_LOG = 7

_SESSION_LOG_STATUS = 1
SESSION_LOG_START = 1

# Distinguishes files opened in the same second by the same process.
_file_counter_lock = threading.Lock()
_file_counter = 0


def _next_file_number():
    global _file_counter
    with _file_counter_lock:
        _file_counter += 1
        return _file_counter


def frame_record(data):
    """TFRecord framing of one record's bytes."""
    length = struct.pack("<Q", len(data))
    return (length + struct.pack("<I", masked_crc32c(length)) + data
            + struct.pack("<I", masked_crc32c(data)))


def encode_event(wall_time, step=None, file_version=None, summary=None, session_log=None):
    """Serialized Event; `summary` and `session_log` are already-encoded messages."""
    parts = [_proto.double_field(_EVENT_WALL_TIME, wall_time)]
    if step is not None and int(step) != 0:
        parts.append(_proto.varint_field(_EVENT_STEP, int(step)))
    if file_version is not None:
        parts.append(_proto.string_field(_EVENT_FILE_VERSION, file_version))
    if summary is not None:
        parts.append(_proto.bytes_field(_EVENT_SUMMARY, summary))
    if session_log is not None:
        parts.append(_proto.bytes_field(_EVENT_SESSION_LOG, session_log))
    return b"".join(parts)


def encode_session_log(status):
    return _proto.varint_field(_SESSION_LOG_STATUS, status)


class EventFileWriter:
    """Appends Events to a new file `events.out.tfevents.<time>.<host>.<pid>.<n><suffix>`
    in `log_dir` (created if missing)."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        if int(max_queue) < 1:
            raise ValueError(f"SummaryWriter: max_queue must be >= 1, got {max_queue}")
        if not flush_secs > 0:
            raise ValueError(f"SummaryWriter: flush_secs must be > 0, got {flush_secs}")
        self._log_dir = str(log_dir)
        os.makedirs(self._log_dir, exist_ok=True)
        name = "events.out.tfevents.%010d.%s.%s.%s%s" % (
            time.time(), socket.gethostname(), os.getpid(), _next_file_number(),
            filename_suffix)
        self._path = os.path.join(self._log_dir, name)
        self._file = open(self._path, "wb")
        self._max_queue = int(max_queue)
        self._flush_secs = float(flush_secs)
        self._pending = []
        self._lock = threading.Lock()
        self._closed = False
        self._last_flush = time.monotonic()
        # The version record goes out at once so the file is valid from the start.
        self._file.write(frame_record(encode_event(time.time(), file_version=FILE_VERSION)))
        self._file.flush()
        self._stop = threading.Event()
        self._flusher = threading.Thread(target=self._flush_periodically,
                                         name="ember-tensorboard-flush", daemon=True)
        self._flusher.start()
        # A script that never calls close() still gets its buffered records written.
        atexit.register(self.close)

    @property
    def path(self):
        return self._path

    def get_logdir(self):
        return self._log_dir

    def add_event(self, event_bytes):
        with self._lock:
            if self._closed:
                raise RuntimeError(f"SummaryWriter: the event file {self._path} is closed")
            self._pending.append(frame_record(event_bytes))
            due = (len(self._pending) >= self._max_queue
                   or time.monotonic() - self._last_flush >= self._flush_secs)
            if due:
                self._write_pending()

    def _write_pending(self):
        if self._pending:
            self._file.write(b"".join(self._pending))
            self._pending.clear()
        self._file.flush()
        self._last_flush = time.monotonic()

    def _flush_periodically(self):
        while not self._stop.wait(self._flush_secs):
            with self._lock:
                if self._closed:
                    return
                self._write_pending()

    def flush(self):
        with self._lock:
            if not self._closed:
                self._write_pending()

    def close(self):
        with self._lock:
            if self._closed:
                return
            self._write_pending()
            self._file.close()
            self._closed = True
        self._stop.set()
        atexit.unregister(self.close)
        if self._flusher is not threading.current_thread():
            self._flusher.join()

    @property
    def closed(self):
        return self._closed
