"""CRC-32C (Castagnoli) and the masked form TFRecord framing stores.

Computed with a 256-entry lookup table over the reflected polynomial 0x82F63B78.
Pure Python is fast enough here: records are scalars, histograms and small PNGs.
"""


def _build_table():
    reflected_polynomial = 0x82F63B78
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ reflected_polynomial if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_TABLE = _build_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in bytes(data):
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    """TFRecord's masked CRC: rotate right by 15 bits, then add a constant (mod 2**32).

    The mask keeps a CRC of data that itself contains CRCs from looking like one.
    """
    crc = crc32c(data)
    rotated = ((crc >> 15) | (crc << 17)) & 0xFFFFFFFF
    return (rotated + 0xA282EAD8) & 0xFFFFFFFF
