"""The pickle of a checkpoint, as torch.save writes it (torch/serialization.py, _save;
torch/_tensor.py, _reduce_ex_internal).

Each tensor becomes a call torch._utils._rebuild_tensor_v2(storage, storage_offset,
size, stride, requires_grad, OrderedDict()), a Parameter a call of
torch._utils._rebuild_parameter on its data; each storage becomes the persistent id
("storage", torch.FloatStorage, key, location, numel), and its bytes a record of the
file (data/<key>). ember's dtypes, Size, device and layout are written under torch's
names. Everything else is pickled as pickle pickles it (numpy arrays, modules, any
object), so torch.load(weights_only=True) reads exactly what it would read from
torch.save, and needs weights_only=False for the rest, as for torch's own files.

ember has no storage objects, so the storages are found from the tensors: tensors
whose memory starts from the same address (data_ptr - storage_offset * itemsize) on
the same device, with the same dtype, share a storage. The checkpoint stores the span
of the storage that its tensors reach, and each tensor's offset into that span. This
takes two passes over the object: the first finds every tensor (to know each span),
the second writes the pickle.
"""
import collections
import io
import pickle
import sys

from .. import _C, _layout
from .._C import Tensor
from ._raw import tensor_bytes
from ._torch_names import (GET_LAYOUT, REBUILD_FROM_TYPE_V2, REBUILD_PARAMETER,
                           REBUILD_PARAMETER_WITH_STATE, REBUILD_TENSOR_V2, TorchGlobal,
                           saved_name, storage_class)


class SavedStorage:
    """One storage of the checkpoint: numel elements of dtype, elements [lo, hi) of
    the memory of `sample` (a tensor that lives in it)."""

    __slots__ = ("key", "dtype", "location", "lo", "hi", "sample")

    def __init__(self, sample, lo, hi):
        self.key = None  # given when the pickle first refers to it: "0", "1", ...
        self.dtype, self.location = sample.dtype, sys.intern(_location(sample.device))
        self.lo, self.hi, self.sample = lo, hi, sample

    @property
    def numel(self):
        return self.hi - self.lo

    def data(self):
        """The storage's bytes, read on the CPU."""
        if self.numel == 0:
            return b""
        span = _C.as_strided(self.sample.detach(), (self.numel,), (1,), self.lo)
        return tensor_bytes(span)


def _location(device):
    # torch's location tags: "cpu", "cuda:<index>".
    if device.type == "cuda":
        return f"cuda:{device.index or 0}"
    return device.type


def _reach(t):
    """The elements of its storage that t reads: [storage_offset, last + 1)."""
    offset = t.storage_offset()
    return offset, offset + 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride()))


class StorageTable:
    """The storages of the tensors being saved. note() every tensor first (pass one),
    then locate() gives each its storage and its offset in it (pass two)."""

    def __init__(self):
        self._spans = {}     # (device, base address, dtype) -> SavedStorage
        self.in_order = []   # the storages in the order of their keys

    @staticmethod
    def _identity(t):
        return (str(t.device), t.data_ptr() - t.storage_offset() * t.element_size(), str(t.dtype))

    def note(self, t):
        if t.numel() == 0:
            return
        lo, hi = _reach(t)
        key = self._identity(t)
        s = self._spans.get(key)
        if s is None:
            self._spans[key] = SavedStorage(t.detach(), lo, hi)
        else:
            s.lo, s.hi = min(s.lo, lo), max(s.hi, hi)

    def locate(self, t):
        """(storage, storage_offset) for t."""
        if t.numel() == 0:
            # An empty tensor reads no memory: a storage of its own, of no elements.
            s = SavedStorage(t.detach(), 0, 0)
            offset = 0
        else:
            lo, hi = _reach(t)
            s = self._spans.get(self._identity(t))
            if s is None or lo < s.lo or hi > s.hi:
                # A tensor that pass one did not see (an object whose pickling makes
                # new tensors): a storage of its own.
                s = SavedStorage(t.detach(), lo, hi)
            offset = t.storage_offset() - s.lo
        if s.key is None:
            s.key = str(len(self.in_order))
            self.in_order.append(s)
        return s, offset


class CheckpointPickler(pickle._Pickler):
    """Pass two: pickle's Python pickler (its save_global can be taught torch's names;
    the C pickler's cannot) with torch.save's reductions of tensors and storages."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol, table, legacy=False):
        super().__init__(file, protocol)
        self._table, self._legacy = table, legacy

    # ---- storages --------------------------------------------------------------------
    def persistent_id(self, obj):
        if type(obj) is not SavedStorage:
            return None
        pid = ("storage", storage_class(obj.dtype), obj.key, obj.location, obj.numel)
        # The legacy format adds the storage-view metadata (never a view since torch 1.0).
        return pid + (None,) if self._legacy else pid

    # ---- tensors and ember's objects ---------------------------------------------------
    def reducer_override(self, obj):
        if isinstance(obj, Tensor) and not _reduces_itself(obj):
            return self._reduce_tensor(obj)
        if type(obj) is _C.Size:
            return (_C.Size, (tuple(obj),))
        if type(obj) is _C.device:
            return (_C.device, (obj.type,) if obj.index is None else (obj.type, obj.index))
        if isinstance(obj, _layout.layout):
            return (GET_LAYOUT, (f"torch.{obj._name}",))
        # A memory format pickles as its name, which save_global writes as torch's.
        return NotImplemented

    def _reduce_tensor(self, t):
        from ..nn.parameter import Parameter
        state = _python_state(t)
        if isinstance(t, Parameter):
            data = t.detach()  # a plain alias of the parameter's memory, as torch's .data
            if state:
                return (REBUILD_PARAMETER_WITH_STATE, (data, t.requires_grad, _hooks(), state))
            return (REBUILD_PARAMETER, (data, t.requires_grad, _hooks()))
        storage, offset = self._table.locate(t)
        args = (storage, offset, tuple(t.shape), tuple(t.stride()), t.requires_grad, _hooks())
        if type(t) is Tensor and not state:
            return (REBUILD_TENSOR_V2, args)
        # A subclass of Tensor, or a tensor with Python attributes.
        return (REBUILD_FROM_TYPE_V2, (REBUILD_TENSOR_V2, type(t), args, state))

    def save_global(self, obj, name=None):
        """Writes ember's classes, dtypes and TorchGlobal names as torch's globals."""
        torch_name = saved_name(obj)
        if torch_name is None:
            return super().save_global(obj, name)
        module, qualname = torch_name
        if self.proto >= 4:
            self.save(module)
            self.save(qualname)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + module.encode() + b"\n" + qualname.encode() + b"\n")
        self.memoize(obj)

    def _save_as_global(self, obj):
        self.save_global(obj)

    dispatch[TorchGlobal] = _save_as_global
    dispatch[_C.dtype] = _save_as_global


def _reduces_itself(t):
    """Whether t's class pickles its instances its own way (torch's and ember's
    UninitializedParameter: (cls, (requires_grad,))), rather than as a tensor."""
    from ..nn.parameter import Parameter
    return type(t).__reduce_ex__ not in (Tensor.__reduce_ex__, Parameter.__reduce_ex__)


def _hooks():
    # torch pickles a tensor's backward hooks as an empty OrderedDict (it never saves hooks).
    return collections.OrderedDict()


def _python_state(t):
    """The Python attributes of a tensor (torch._utils._get_obj_state), or None."""
    d = getattr(t, "__dict__", None)
    return dict(d) if d else None


class _Discard:
    def write(self, data):
        pass


class _TensorFinder(pickle.Pickler):
    """Pass one: pickles obj with the C pickler (fast), only to meet every tensor in it
    as pass two will, and note it in `found`. What it writes is thrown away."""

    def __init__(self, found, protocol):
        super().__init__(_Discard(), protocol=protocol)
        self._found = found

    def reducer_override(self, obj):
        if isinstance(obj, Tensor) and not _reduces_itself(obj):
            self._found.note(obj)  # a Parameter's memory is its data's
            return (tuple, (_python_state(obj),))  # its attributes may hold tensors too
        if isinstance(obj, (TorchGlobal, _C.dtype, _C.Size, _C.device, _layout.layout,
                            _layout.memory_format)):
            return (tuple, ())  # torch's names in pass two; they hold no tensors
        return NotImplemented


def pickle_checkpoint(obj, protocol=2, legacy=False):
    """(the pickle of obj, its storages in key order)."""
    table = StorageTable()
    _TensorFinder(table, protocol).dump(obj)
    out = io.BytesIO()
    CheckpointPickler(out, protocol, table, legacy).dump(obj)
    return out.getvalue(), table.in_order
