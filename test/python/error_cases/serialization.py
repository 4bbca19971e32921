"""Bad calls of ember.save / ember.load (files in memory; test_serialization.py has
the malformed files and the atomic writes)."""
import io
import struct

import ember


def _safetensors_buffer():
    """A file object that ember.save writes in safetensors (a name ending .safetensors):
    only that format refuses objects PyTorch's pickle format would save."""
    buffer = io.BytesIO()
    buffer.name = "x.safetensors"
    return buffer


def _file(header):
    return io.BytesIO(struct.pack("<Q", len(header)) + header)


CASES = [
    ("save an object", lambda: ember.save({"a": object()}, _safetensors_buffer()), TypeError,
     r"ember.save: cannot save obj\['a'\] of type object; only tensors"),
    ("save a tuple key", lambda: ember.save({(1,): 1}, _safetensors_buffer()), TypeError,
     r"dict keys must be str or int"),
    ("save to a number", lambda: ember.save(ember.zeros(1), 3), TypeError,
     r"f must be a path or a binary file object, got int"),
    ("load from a number", lambda: ember.load(3), TypeError,
     r"f must be a path or a binary file object"),
    ("load a text file", lambda: ember.load(io.StringIO("x")), TypeError, r"binary mode"),
    ("load with a bad map_location", lambda: ember.load(io.BytesIO(), map_location=1.5),
     TypeError, r"map_location must be None, a str, an ember.device"),
    ("load an empty file", lambda: ember.load(io.BytesIO()), RuntimeError,
     r"cannot load the file object as safetensors: it has 0 bytes"),
    ("load a non-object header", lambda: ember.load(_file(b"[]")), RuntimeError,
     r"the header does not start with '\{'"),
    ("load an unknown dtype", lambda: ember.load(_file(
        b'{"x":{"dtype":"C64","shape":[],"data_offsets":[0,0]}}')), RuntimeError,
     r"tensor 'x' has dtype \"C64\", which ember does not support"),
]
