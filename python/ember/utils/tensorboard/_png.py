"""Encode an 8-bit image as PNG with only the standard library (zlib).

The PNG stream is the 8-byte signature followed by chunks, each framed as
length (big-endian uint32), 4-byte type, data, CRC-32 of type+data (zlib's CRC-32,
the same polynomial PNG specifies). Only what TensorBoard needs is written: IHDR,
one IDAT holding the zlib-compressed scanlines (each prefixed by filter type 0,
"None": the images are small and zlib does the compression), and IEND.
"""
import struct
import zlib

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# PNG colour types for 8-bit samples, by number of channels.
_COLOR_TYPE_BY_CHANNELS = {1: 0, 2: 4, 3: 2, 4: 6}  # gray, gray+alpha, RGB, RGBA


def _chunk(chunk_type, data):
    crc = zlib.crc32(chunk_type + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + chunk_type + data + struct.pack(">I", crc)


def encode_png(pixels):
    """PNG bytes of a uint8 array shaped (H, W) or (H, W, C) with C in 1..4.

    C = 1 is grayscale, 2 grayscale + alpha, 3 RGB, 4 RGBA.
    """
    pixels = np.asarray(pixels)
    if pixels.dtype != np.uint8:
        raise TypeError(f"encode_png: expected a uint8 array, got dtype {pixels.dtype}")
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    if pixels.ndim != 3 or pixels.shape[2] not in _COLOR_TYPE_BY_CHANNELS:
        raise ValueError(
            f"encode_png: expected shape (H, W) or (H, W, C) with C in 1..4, got {pixels.shape}")
    height, width, channels = pixels.shape
    if height == 0 or width == 0:
        raise ValueError(f"encode_png: PNG images cannot be empty, got shape {pixels.shape}")
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPE_BY_CHANNELS[channels],
                         0, 0, 0)  # bit depth 8, deflate, adaptive filtering, no interlace
    rows = np.ascontiguousarray(pixels).reshape(height, width * channels)
    scanlines = np.concatenate([np.zeros((height, 1), dtype=np.uint8), rows], axis=1)
    compressed = zlib.compress(scanlines.tobytes(), 6)
    return (_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", compressed)
            + _chunk(b"IEND", b""))
