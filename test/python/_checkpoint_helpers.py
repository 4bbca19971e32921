"""What the checkpoint tests share (test_torch_checkpoints.py, test_checkpoint_safety.py):
bytes saved by either library, loads from bytes, hand-made zip checkpoints, and the
comparison of an ember tensor with a torch tensor."""
import io
import zipfile

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

DTYPES = [("float32", 1.5), ("float64", 2.25), ("float16", 0.5), ("bfloat16", 3.0),
          ("int64", 2 ** 40), ("int32", -7), ("int16", 300), ("int8", -5), ("uint8", 200),
          ("bool", True)]


def np_of(t):
    """The values of an ember or torch tensor as numpy (bfloat16 as float32)."""
    if isinstance(t, torch.Tensor):
        t = t.detach()
        return (t.float() if t.dtype == torch.bfloat16 else t).numpy()
    t = t.detach()
    return (t.float() if t.dtype == ember.bfloat16 else t).contiguous().numpy()


def same_dtype(e, t):
    return str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]


def assert_same(e, t):
    """An ember tensor and a torch tensor have the same dtype, shape and values."""
    assert same_dtype(e, t), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_array_equal(np_of(e), np_of(t))


def saved(obj, **kwargs):
    buf = io.BytesIO()
    ember.save(obj, buf, **kwargs)
    return buf.getvalue()


def torch_saved(obj, **kwargs):
    buf = io.BytesIO()
    torch.save(obj, buf, **kwargs)
    return buf.getvalue()


def torch_load(data, **kwargs):
    return torch.load(io.BytesIO(data), weights_only=kwargs.pop("weights_only", True), **kwargs)


def ember_load(data, **kwargs):
    return ember.load(io.BytesIO(data), **kwargs)


def repack(data, edit):
    """The zip checkpoint data with edit(records: {name: bytes}) applied."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        records = {i.filename: z.read(i) for i in z.infolist()}
    edit(records)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, body in records.items():
            z.writestr(name, body)
    return out.getvalue()


def zip_checkpoint(pickle_bytes, storages=None):
    """A zip checkpoint from a hand-written pickle (and storages {key: bytes})."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("archive/data.pkl", pickle_bytes)
        z.writestr("archive/byteorder", "little")
        for key, body in (storages or {}).items():
            z.writestr(f"archive/data/{key}", body)
        z.writestr("archive/version", "3\n")
    return out.getvalue()
