"""A minimal protocol-buffers *encoder*, enough to write TensorBoard's Event messages.

TensorBoard event files hold serialized `tensorboard.Event` messages. Rather than
depend on the `protobuf` package and generated classes, the writer builds each message
as bytes from the few wire types it needs:

- varint (wire type 0): int32/int64/enum/bool fields; negative numbers are written as
  their 64-bit two's complement, which is what protobuf does for int32 and int64;
- fixed64 (wire type 1): double fields;
- length-delimited (wire type 2): strings, bytes, nested messages and packed repeated
  scalars;
- fixed32 (wire type 5): float fields.

Every function returns the encoded field (key + payload) so messages are assembled
by concatenating the fields in field-number order. A proto3 field holding its
default value (0, empty) may be left out; callers decide, as proto3 does.
"""
import struct

_VARINT = 0
_FIXED64 = 1
_LENGTH_DELIMITED = 2
_FIXED32 = 5

_UINT64_MASK = (1 << 64) - 1


def encode_varint(value):
    """Base-128 little-endian varint of an integer; negatives as 64-bit two's complement."""
    value = int(value)
    if value < 0:
        value &= _UINT64_MASK
    out = bytearray()
    while True:
        low_seven_bits = value & 0x7F
        value >>= 7
        if value:
            out.append(low_seven_bits | 0x80)
        else:
            out.append(low_seven_bits)
            return bytes(out)


def _key(field_number, wire_type):
    return encode_varint((field_number << 3) | wire_type)


def varint_field(field_number, value):
    """An int32 / int64 / uint64 / enum / bool field."""
    return _key(field_number, _VARINT) + encode_varint(value)


def double_field(field_number, value):
    return _key(field_number, _FIXED64) + struct.pack("<d", float(value))


def float_field(field_number, value):
    return _key(field_number, _FIXED32) + struct.pack("<f", float(value))


def bytes_field(field_number, payload):
    """A bytes field or an already-encoded nested message."""
    payload = bytes(payload)
    return _key(field_number, _LENGTH_DELIMITED) + encode_varint(len(payload)) + payload


def string_field(field_number, text):
    return bytes_field(field_number, text.encode("utf-8"))


def packed_doubles_field(field_number, values):
    """A `repeated double` field in packed form (proto3's default encoding)."""
    values = [float(v) for v in values]
    return bytes_field(field_number, struct.pack("<%dd" % len(values), *values))


def packed_floats_field(field_number, values):
    values = [float(v) for v in values]
    return bytes_field(field_number, struct.pack("<%df" % len(values), *values))
