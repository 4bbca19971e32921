"""The zip archive of PyTorch's checkpoint format, written as torch's writer (miniz,
caffe2/serialize/inline_container.cc) writes it, and read through Python's zipfile.

The writer stores every record uncompressed, with its data aligned to 64 bytes (a
padding extra field "FB" in the local header, so that a reader can map the storages
in place), the CRC-32 and sizes in a data descriptor after the data, and the zip64
end records, as miniz does. It only appends, so it writes to any binary stream.

The reader accepts uncompressed records only (torch writes nothing else; a compressed
record could inflate to far more memory than the file has), checks each record's size
before reading it, and reports any damage to the archive as a RuntimeError that names
the file.
"""
import struct
import zipfile
import zlib

from ._errors import damaged

ALIGNMENT = 64
_U32 = 0xFFFFFFFF
_UTF8_AND_DESCRIPTOR = 0x0808  # flags: names in UTF-8, sizes in a data descriptor


class ZipWriter:
    """Writes records name -> bytes under archive_name/ through write(bytes)."""

    def __init__(self, write, archive_name):
        self._write, self._prefix = write, archive_name + "/"
        self._offset = 0
        self._entries = []  # (name bytes, crc, size, local header offset, flags)

    def _emit(self, data):
        self._write(data)
        self._offset += len(data)

    def add(self, name, data):
        name = (self._prefix + name).encode("utf-8")
        data = memoryview(data).cast("B")
        header_offset, size = self._offset, len(data)
        # A record past 4 GiB, or of 4 GiB or more, has its sizes and offset in a zip64
        # extra field; then padding ("FB" + length + "Z"s) makes its data start aligned.
        zip64 = b""
        if size >= _U32:
            zip64 += struct.pack("<QQ", size, size)
        if header_offset >= _U32:
            zip64 += struct.pack("<Q", header_offset)
        extra = struct.pack("<HH", 1, len(zip64)) + zip64 if zip64 else b""
        start = header_offset + 30 + len(name) + len(extra)
        padding = -(start + 4) % ALIGNMENT
        extra += b"FB" + struct.pack("<H", padding) + b"Z" * padding
        flags = _UTF8_AND_DESCRIPTOR if size else 0x0800
        self._emit(struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 0, flags, 0, 0, 0, 0, 0, 0,
                               len(name), len(extra)) + name + extra)
        crc = zlib.crc32(data)
        self._emit(data)
        if size:
            # miniz writes 64-bit sizes in the descriptor once a size or offset needs them.
            if size >= _U32 or header_offset >= _U32:
                self._emit(struct.pack("<4sIQQ", b"PK\x07\x08", crc, size, size))
            else:
                self._emit(struct.pack("<4sIII", b"PK\x07\x08", crc, size, size))
        self._entries.append((name, crc, size, header_offset, flags))
        return crc

    def finish(self):
        cd_offset = self._offset
        for name, crc, size, header_offset, flags in self._entries:
            zip64 = b""
            sizes32 = size
            if size >= _U32:
                zip64 += struct.pack("<QQ", size, size)
                sizes32 = _U32
            offset32 = header_offset
            if header_offset >= _U32:
                zip64 += struct.pack("<Q", header_offset)
                offset32 = _U32
            extra = struct.pack("<HH", 1, len(zip64)) + zip64 if zip64 else b""
            self._emit(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 0, 0, flags, 0, 0, 0,
                                   crc, sizes32, sizes32, len(name), len(extra), 0, 0, 0, 0,
                                   offset32) + name + extra)
        cd_size = self._offset - cd_offset
        count = len(self._entries)
        eocd64_offset = self._offset
        self._emit(struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count,
                               cd_size, cd_offset))
        self._emit(struct.pack("<4sIQI", b"PK\x06\x07", 0, eocd64_offset, 1))
        self._emit(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, min(count, 0xFFFF),
                               min(count, 0xFFFF), min(cd_size, _U32), min(cd_offset, _U32), 0))


# Errors that zipfile raises for damaged archives (and struct / zlib below it). OSError:
# a damaged directory can send a real file's seek() to a negative offset (EINVAL).
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, struct.error, EOFError,
               ValueError, OverflowError, NotImplementedError, KeyError, IndexError, RuntimeError,
               OSError)


class ZipReader:
    """The records of the archive in fileobj (seekable). source names it in errors."""

    def __init__(self, fileobj, source):
        self._source = source
        try:
            self._zip = zipfile.ZipFile(fileobj)
            infos = self._zip.infolist()
        except _ZIP_ERRORS as e:
            raise damaged(source, f"its zip archive is damaged ({e})") from e
        if not infos:
            raise damaged(source, "its zip archive is empty")
        # torch names the archive by its first record's directory (inline_container.cc).
        first = infos[0].filename
        if "/" not in first:
            raise damaged(source, f"its first record {first!r} is not inside a directory")
        self.prefix = first[:first.index("/") + 1]
        fileobj.seek(0, 2)
        self._size = fileobj.tell()
        self._read_total = 0
        self._read_names = set()

    def has(self, name):
        return self._info(name) is not None

    def _info(self, name):
        try:
            return self._zip.getinfo(self.prefix + name)
        except KeyError:
            return None

    def read(self, name, expected_size=None):
        """The bytes of record name (inside the archive's directory). With
        expected_size, a record of another size raises before it is read."""
        info = self._info(name)
        if info is None:
            raise damaged(self._source, f"it has no record {self.prefix + name!r}")
        if info.compress_type != zipfile.ZIP_STORED:
            raise damaged(self._source, f"its record {info.filename!r} is compressed (method "
                          f"{info.compress_type}); PyTorch's checkpoints store records as they are")
        if expected_size is not None and info.file_size != expected_size:
            raise damaged(self._source, f"its record {info.filename!r} has {info.file_size} bytes "
                          f"where {expected_size} are expected")
        # Records are stored, so together they cannot hold more bytes than the file: a
        # crafted directory whose entries all point at the same data would.
        if name not in self._read_names:
            self._read_names.add(name)
            self._read_total += info.file_size
            if self._read_total > self._size:
                raise damaged(self._source, "its records overlap")
        try:
            return self._zip.read(info)
        except _ZIP_ERRORS as e:
            raise damaged(self._source, f"its record {info.filename!r} is damaged ({e})") from e
