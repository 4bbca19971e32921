"""ember's safetensors files: tensors and nests of them (a model's state_dict, an
optimizer's state), which other tools read and write too. ember.save writes this format
to a path ending in ".safetensors"; ember.load reads it whatever the name.

A file is a plain safetensors file (see lib/serialize/safetensors.h). Each tensor
of the saved object is stored under its dotted path in the nest ("fc.weight",
"state.0.exp_avg"); the nest itself (dicts, lists, tuples and plain values) is kept
as JSON in the file's metadata under the key "ember", so that load rebuilds it. A
safetensors file without that key (written by another tool) loads as a dict
name -> tensor. Nothing is ever pickled, so loading a file runs no code from it.

The JSON of the nest, version 1: a node is
    null, true, false, a number, a string      the value itself
    {"float": "inf" | "-inf" | "nan"}          a float JSON cannot spell
    {"tensor": name}                           the file's tensor of that name
    {"tensor": name, "requires_grad": true}    ... saved from a tensor that required grad
    {"parameter": name, "requires_grad": b}    ... saved from an nn.Parameter
    {"list": [node, ...]}, {"tuple": [node, ...]}
    {"dict": [[key, node], ...]}               key: a string or an integer
and the metadata value is {"format_version": 1, "structure": node}.
"""
import json
import math

from .. import _C
from .._C import Tensor
from ._errors import type_name as _type_name

_KEY = _C._SERIALIZATION_KEY
_VERSION = _C._SERIALIZATION_VERSION
_ROOT_NAME = "tensor"  # the name of a tensor saved on its own, as ember::save(path, tensor) does
_SAVABLE = "tensors, dicts with str or int keys, lists, tuples, int, float, bool, str and None"


def save(obj, path=None, write=None):
    """Saves obj as a safetensors file: to the path (atomically, by ember's C++ writer)
    or through write(bytes).

    obj is a tensor or a nest of dicts (str or int keys), lists and tuples of tensors
    and plain values (int, float, bool, str, None), like a state_dict. Anything else
    raises TypeError before anything is written. Tensors are saved as contiguous CPU
    copies without autograd history; tensors that share memory are saved as separate
    copies.
    """
    encoder = _Encoder()
    structure = encoder.encode(obj, ())
    metadata = {_KEY: json.dumps({"format_version": _VERSION, "structure": structure},
                                 allow_nan=False, separators=(",", ":"))}
    if path is not None:
        _C._save_safetensors(path, encoder.tensors, metadata)
    else:
        _C._write_safetensors(encoder.tensors, metadata, write)


def load(source, relocate, path_fd=None, data=None):
    """Reads a safetensors file, from an open file descriptor (path_fd) or from memory
    (data); source names it in errors. relocate(tensor, location) places each tensor
    (map_location); the location of a safetensors tensor is always "cpu"."""
    if path_fd is not None:
        named, metadata = _C._read_safetensors_fd(path_fd, source)
    else:
        named, metadata = _C._read_safetensors_bytes(bytes(data), source)
    tensors = {name: relocate(t, "cpu") for name, t in named}
    if _KEY not in metadata:
        return tensors
    return _decode_file(metadata[_KEY], tensors, source)


# ---- saving ---------------------------------------------------------------------------

class _Encoder:
    """Turns a nest into its JSON node, collecting its tensors as (name, tensor)."""

    def __init__(self):
        self.tensors = []
        self._names = set()
        self._open = set()  # ids of the containers being encoded, to catch cycles

    def encode(self, obj, path):
        if isinstance(obj, Tensor):
            name = self._name(path)
            self.tensors.append((name, obj))
            # As torch.load does, load gives back Parameters and requires_grad.
            from ..nn.parameter import Parameter
            if isinstance(obj, Parameter):
                return {"parameter": name, "requires_grad": obj.requires_grad}
            return {"tensor": name, "requires_grad": True} if obj.requires_grad else {"tensor": name}
        if obj is None or type(obj) in (bool, int, str):
            return obj
        if type(obj) is float:
            return obj if math.isfinite(obj) else {"float": repr(obj)}  # 'inf', '-inf', 'nan'
        if isinstance(obj, dict) or type(obj) in (list, tuple):
            if id(obj) in self._open:
                raise ValueError(f"ember.save: {_where(path)} contains itself")
            self._open.add(id(obj))
            try:
                return self._encode_container(obj, path)
            finally:
                self._open.discard(id(obj))
        raise TypeError(f"ember.save: cannot save {_where(path)} of type {_type_name(obj)}; "
                        f"only {_SAVABLE} can be saved in a .safetensors file (it holds no "
                        "pickled objects; save to another name for PyTorch's format)")

    def _encode_container(self, obj, path):
        if isinstance(obj, dict):  # OrderedDict too: a state_dict
            items = []
            for key, value in obj.items():
                if type(key) not in (str, int):
                    raise TypeError(f"ember.save: {_where(path)} has a key of type "
                                    f"{_type_name(key)}; dict keys must be str or int")
                items.append([key, self.encode(value, path + (key,))])
            return {"dict": items}
        return {type(obj).__name__: [self.encode(v, path + (i,)) for i, v in enumerate(obj)]}

    def _name(self, path):
        """The tensor's dotted path, made unique if another path spells the same
        (as {"a.b": x, "a": {"b": y}} do)."""
        base = ".".join(str(k) for k in path) if path else _ROOT_NAME
        try:
            base.encode("utf-8")
        except UnicodeEncodeError as e:  # a lone surrogate: safetensors names are UTF-8
            raise ValueError(f"ember.save: the path of {_where(path)} is not valid Unicode "
                             f"({e.reason})") from None
        name, n = base, 1
        while name in self._names:
            n += 1
            name = f"{base}#{n}"
        self._names.add(name)
        return name


def _where(path):
    return "obj" + "".join(f"[{k!r}]" for k in path)


# ---- loading --------------------------------------------------------------------------

def _decode_file(text, tensors, source):
    def malformed(why):
        return RuntimeError(f"ember.load: {source} has malformed ember metadata: {why}")

    try:
        doc = json.loads(text)
    except ValueError as e:
        raise malformed(f"not valid JSON ({e})") from None
    except RecursionError:
        raise malformed("it nests too deeply") from None
    if type(doc) is not dict or set(doc) != {"format_version", "structure"}:
        raise malformed('expected {"format_version": ..., "structure": ...}')
    version = doc["format_version"]
    if type(version) is not int:
        raise malformed(f"format_version is {version!r}, not an integer")
    if version > _VERSION:
        raise RuntimeError(f"ember.load: {source} was written by a newer ember (format version "
                           f"{version}); this ember reads format version {_VERSION}")
    try:
        return _decode(doc["structure"], tensors)
    except _Malformed as e:
        raise malformed(e) from None
    except RecursionError:
        raise malformed("it nests too deeply") from None


class _Malformed(Exception):
    pass


def _decode_tensor(node, tensors):
    """A {"tensor" | "parameter": name[, "requires_grad": bool]} node."""
    kind = "parameter" if "parameter" in node else "tensor"
    name, requires_grad = node[kind], node.get("requires_grad", False)
    if set(node) - {kind, "requires_grad"} or type(name) is not str or type(requires_grad) is not bool:
        raise _Malformed(f"unexpected node {_excerpt(node)}")
    if name not in tensors:
        raise _Malformed(f"it refers to a tensor '{name}' that the file does not hold")
    t = tensors[name]
    if kind == "parameter":
        from ..nn.parameter import Parameter
        return Parameter(t, requires_grad=requires_grad)
    if requires_grad:
        if not t.is_floating_point():
            raise _Malformed(f"tensor '{name}' of dtype {t.dtype} cannot require grad")
        t.requires_grad_(True)
    return t


def _decode(node, tensors):
    if node is None or type(node) in (bool, int, float, str):
        return node
    if type(node) is dict and ("parameter" in node or ("tensor" in node and len(node) == 2)):
        return _decode_tensor(node, tensors)
    if type(node) is not dict or len(node) != 1:
        raise _Malformed(f"unexpected node {_excerpt(node)}")
    (tag, value), = node.items()
    if tag == "tensor" and type(value) is str:
        if value not in tensors:
            raise _Malformed(f"it refers to a tensor '{value}' that the file does not hold")
        return tensors[value]
    if tag in ("list", "tuple") and type(value) is list:
        items = [_decode(v, tensors) for v in value]
        return items if tag == "list" else tuple(items)
    if tag == "dict" and type(value) is list:
        out = {}
        for item in value:
            if type(item) is not list or len(item) != 2 or type(item[0]) not in (str, int):
                raise _Malformed(f"a dict entry {_excerpt(item)} is not [str or int key, node]")
            out[item[0]] = _decode(item[1], tensors)
        return out
    if tag == "float" and value in ("inf", "-inf", "nan"):
        return float(value)
    raise _Malformed(f"unexpected node {_excerpt(node)}")


def _excerpt(node):
    text = json.dumps(node)
    return text if len(text) <= 60 else text[:57] + "..."
