"""dynamic_axes: which sizes and int attributes of a traced graph follow a dynamic input
size (the batch), found by tracing at three sizes and comparing.

ember records views, expands and slices with the concrete sizes of the trace. Tracing
again with the dynamic dims one and two longer tells which of those numbers move with
them: each such number is a*n + b in the dynamic size n (an Affine), which the exporter
computes in the ONNX graph from the input's shape. A graph whose structure changes with
n (a branch on the size, a size-1 special case) cannot be exported with dynamic axes."""
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np


@dataclass(frozen=True)
class Affine:
    """A size or int attribute equal to a * n + b, n being the dynamic size."""
    a: int
    b: int

    def symbol(self, name):
        """The ONNX dim_param of a dim of this size."""
        scaled = name if self.a == 1 else f"{self.a}*{name}"
        return scaled if self.b == 0 else f"{scaled}{self.b:+d}"


def has_affine(value):
    if isinstance(value, Affine):
        return True
    return isinstance(value, (list, tuple)) and any(has_affine(v) for v in value)


@dataclass
class DynamicAxes:
    """The parsed dynamic_axes: (input index, dim) pairs sharing one size, its name, and
    the output dims the user expects to be dynamic."""
    inputs: list
    outputs: list
    name: str


def parse(dynamic_axes, input_names, output_names, example_inputs):
    if not isinstance(dynamic_axes, dict):
        raise TypeError(f"ember.onnx.export: dynamic_axes must be a dict (name -> dims), got "
                        f"{type(dynamic_axes).__name__}")
    inputs, outputs, names = [], [], set()
    for key, dims in dynamic_axes.items():
        if key in input_names:
            target, k = inputs, input_names.index(key)
        elif key in output_names:
            target, k = outputs, output_names.index(key)
        else:
            raise ValueError(f"ember.onnx.export: dynamic_axes names {key!r}, which is neither "
                             f"an input ({input_names}) nor an output ({output_names})")
        if isinstance(dims, dict):
            names.update(dims.values())
            dims = list(dims)
        for d in dims:
            if not isinstance(d, int):
                raise TypeError(f"ember.onnx.export: dynamic_axes[{key!r}]: dims must be ints, "
                                f"got {d!r}")
            target.append((k, d))
    if len(names) > 1:
        raise ValueError(f"ember.onnx.export: dynamic_axes: one dynamic size is supported, "
                         f"got the names {sorted(names)}")
    sizes = set()
    for k, d in inputs:
        shape = tuple(example_inputs[k].shape)
        if not -len(shape) <= d < len(shape):
            raise ValueError(f"ember.onnx.export: dynamic_axes: input {input_names[k]!r} has no "
                             f"dim {d} (shape {list(shape)})")
        sizes.add(shape[d])
    if len(sizes) > 1:
        raise ValueError(f"ember.onnx.export: dynamic_axes: the dynamic dims must have one size "
                         f"(they are one dynamic size), got {sorted(sizes)}")
    if not inputs or 0 in sizes:
        raise ValueError("ember.onnx.export: dynamic_axes must name at least one non-empty "
                         "input dim")
    wrapped = [(k, d % example_inputs[k].dim()) for k, d in inputs]
    return DynamicAxes(wrapped, outputs, names.pop() if names else "batch")


def grown(example_inputs, axes, extra):
    """The example inputs with each dynamic dim `extra` longer (its first entry repeated:
    valid values for index and mask inputs too)."""
    import ember
    out = list(example_inputs)
    for k, d in axes.inputs:
        out[k] = ember.cat([out[k]] + [out[k].narrow(d, 0, 1)] * extra, d)
    return tuple(out)


def _structure_error(where):
    return ValueError(f"ember.onnx.export: with dynamic_axes the traced graph must not change "
                      f"with the dynamic size, but {where} does; export without dynamic_axes "
                      f"(or trace with a larger example size)")


def _same(a, b):
    if type(a) is not type(b):
        return False
    return a == b or (isinstance(a, float) and np.isnan(a) and np.isnan(b))


def _merge(samples, n0, where):
    """One number (or list, or other attr) of three traces at n0, n0+1, n0+2."""
    first = samples[0]
    if all(_same(s, first) for s in samples):
        return first
    if all(isinstance(s, (list, tuple)) and len(s) == len(first) for s in samples):
        return [_merge([s[i] for s in samples], n0, where) for i in range(len(first))]
    if all(isinstance(s, int) and not isinstance(s, bool) for s in samples):
        a = samples[1] - samples[0]
        if samples[2] - samples[1] == a:
            return Affine(a, samples[0] - a * n0)
    raise _structure_error(where)


def _uniform_value(array):
    """The one value every element of array holds, or None."""
    if array.size == 0:
        return None
    first = array.reshape(-1)[0]
    same = array == first if not (array.dtype.kind == "f" and np.isnan(first)) else np.isnan(array)
    return first if np.all(same) else None


def _constant_fills(graphs):
    """The constants that differ between the traces: each must be one value throughout
    (zeros(n, ...) folded by the trace's passes), which the exporter then makes with
    ConstantOfShape at the run-time size. Returns {name: that value}."""
    kinds = {v.name: v.kind for v in graphs[0].values()}
    tensors = [g.tensors() for g in graphs]
    fills = {}
    for name, t in tensors[0].items():
        if kinds.get(name) != "constant":
            continue
        arrays = [ts[name].detach().cpu().numpy() for ts in tensors]
        nan_equal = arrays[0].dtype.kind == "f"
        if all(a.shape == arrays[0].shape and np.array_equal(a, arrays[0], equal_nan=nan_equal)
               for a in arrays[1:]):
            continue
        values = [_uniform_value(a) for a in arrays]
        if values[0] is None or not all(v is not None and _same(v.item(), values[0].item())
                                        for v in values[1:]):
            raise _structure_error(f"the constant {name}")
        fills[name] = values[0]
    return fills


def symbolic_graph(graphs, n0):
    """The first graph with its sizes and int attrs that follow the dynamic size made Affine.
    graphs: the traces at n0, n0 + 1, n0 + 2."""
    nodes = [g.nodes() for g in graphs]
    values = [g.values() for g in graphs]
    if len({len(n) for n in nodes}) != 1 or len({len(v) for v in values}) != 1:
        raise _structure_error("the number of nodes")
    if any(g.inputs() != graphs[0].inputs() or g.outputs() != graphs[0].outputs() for g in graphs):
        raise _structure_error("the list of outputs")
    fills = _constant_fills(graphs)
    sym_nodes = []
    for i, ns in enumerate(zip(*nodes)):
        n = ns[0]
        if any((m.op, m.inputs, m.preset, m.outputs, len(m.attrs)) !=
               (n.op, n.inputs, n.preset, n.outputs, len(n.attrs)) for m in ns):
            raise _structure_error(f"node {i} ({n.op})")
        attrs = [_merge([m.attrs[j] for m in ns], n0, f"attribute {j} of node {i} ({n.op})")
                 for j in range(len(n.attrs))]
        sym_nodes.append(SimpleNamespace(op=n.op, inputs=n.inputs, attrs=attrs, preset=n.preset,
                                         outputs=n.outputs))
    sym_values = []
    for vid, vs in enumerate(zip(*values)):
        v = vs[0]
        if any((u.kind, u.name, u.dtype, len(u.sizes)) != (v.kind, v.name, v.dtype, len(v.sizes))
               for u in vs):
            raise _structure_error(f"value %{v.name or vid}")
        where = f"the shape of value %{v.name or vid}"
        sizes = tuple(_merge([list(u.sizes) for u in vs], n0, where))
        sym_values.append(SimpleNamespace(kind=v.kind, name=v.name, dtype=v.dtype, sizes=sizes,
                                          node=v.node, index=v.index))
    g = graphs[0]
    return SimpleNamespace(nodes=lambda: sym_nodes, values=lambda: sym_values,
                           tensors=g.tensors, inputs=g.inputs, outputs=g.outputs,
                           dynamic_fills=fills)
