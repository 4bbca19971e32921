"""dynamic_axes (torch.onnx.export's form) as ember.jit.trace's dynamic_shapes.

{input or output name: [dims] or {dim: "name"}}: each named input dim becomes an
ember.jit.Dim of that name (dims with one name are one size; the dims of the list form
are all the size "batch"), and the model is traced with those dynamic_shapes, which
makes every size that follows them symbolic. Output entries are checks: the output dims
they name must come out dynamic (and, when named, be that dynamic size)."""
import re
from dataclasses import dataclass

from ._symbolic import DATA_DEPENDENT, SymSize

DEFAULT_NAME = "batch"


@dataclass
class DynamicAxes:
    """The parsed dynamic_axes: one dynamic_shapes entry per input (None: all static),
    and the output dims to check as (output name, dim, name of the size or None)."""
    dynamic_shapes: tuple
    outputs: list


def _entries(key, dims):
    """[(dim, name or None)] of one dynamic_axes entry."""
    if isinstance(dims, dict):
        pairs = list(dims.items())
    elif isinstance(dims, (list, tuple)):
        pairs = [(d, None) for d in dims]
    else:
        raise TypeError(f"ember.onnx.export: dynamic_axes[{key!r}] must be a list of dims or a "
                        f"dict {{dim: name}}, got {type(dims).__name__}")
    for d, name in pairs:
        if not isinstance(d, int) or isinstance(d, bool):
            raise TypeError(f"ember.onnx.export: dynamic_axes[{key!r}]: dims must be ints, "
                            f"got {d!r}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"ember.onnx.export: dynamic_axes[{key!r}][{d}]: the name must be "
                            f"a string, got {type(name).__name__}")
        if name is not None and not name.isidentifier():
            raise ValueError(f"ember.onnx.export: dynamic_axes[{key!r}][{d}]: the name {name!r} "
                             f"must be a Python identifier (it names an ember.jit.Dim)")
    return pairs


def _is_output(key, output_names):
    """Whether key can name an output: one of output_names, or a default name ("output",
    "output1", ...: how many outputs there are is known after tracing, which checks)."""
    if output_names is not None and key in list(output_names):
        return True
    return isinstance(key, str) and re.fullmatch(r"output\d*", key) is not None


def parse(dynamic_axes, input_names, output_names, example_inputs):
    """DynamicAxes from the user's dict; checks what can be checked before tracing.
    output_names: the names given, or None for the defaults."""
    from ..jit import Dim
    if not isinstance(dynamic_axes, dict):
        raise TypeError(f"ember.onnx.export: dynamic_axes must be a dict (name -> dims), got "
                        f"{type(dynamic_axes).__name__}")
    specs = [None] * len(input_names)
    outputs, dims_by_name, first_seen = [], {}, {}
    for key, dims in dynamic_axes.items():
        if key in input_names:
            k = input_names.index(key)
        elif _is_output(key, output_names):
            outputs += [(key, d, name) for d, name in _entries(key, dims)]
            continue
        else:
            raise _neither(key, input_names, output_names or "'output', 'output0', ...")
        shape = tuple(example_inputs[k].shape)
        for d, name in _entries(key, dims):
            if not -len(shape) <= d < len(shape):
                raise ValueError(f"ember.onnx.export: dynamic_axes: input {key!r} has no dim {d} "
                                 f"(shape {list(shape)})")
            d %= len(shape)
            name = name or DEFAULT_NAME
            where = f"input {key!r} dim {d}"
            if name in first_seen and first_seen[name][1] != shape[d]:
                raise ValueError(
                    f"ember.onnx.export: dynamic_axes: dims with one name are one size, but "
                    f"{first_seen[name][0]} is {first_seen[name][1]} and {where} is {shape[d]} in "
                    f"the example inputs (both {name!r}; give them different names to make them "
                    f"different sizes)")
            first_seen.setdefault(name, (where, shape[d]))
            specs[k] = specs[k] or {}
            specs[k][d] = dims_by_name.setdefault(name, Dim(name))
    if not any(specs):
        raise ValueError("ember.onnx.export: dynamic_axes must name at least one input dim")
    return DynamicAxes(tuple(specs), outputs)


def _neither(key, input_names, output_names):
    return ValueError(f"ember.onnx.export: dynamic_axes names {key!r}, which is neither an "
                      f"input ({input_names}) nor an output ({output_names})")


def output_dim_params(axes, graph, input_names, output_names):
    """Checks the output dims dynamic_axes names against the traced graph's sizes; returns
    {(output index, dim): name} for the named data-dependent dims (ONNX names them)."""
    values, out_ids = graph.values(), graph.outputs()
    names = {}
    for key, d, name in axes.outputs:
        if key not in output_names:
            raise _neither(key, input_names, output_names)
        k = output_names.index(key)
        sizes = values[out_ids[k]].sizes
        what = f"output {key!r}"
        if not -len(sizes) <= d < len(sizes):
            raise ValueError(f"ember.onnx.export: dynamic_axes: {what} has no dim {d} (it has "
                             f"{len(sizes)})")
        d %= len(sizes)
        size = sizes[d]
        if not isinstance(size, SymSize) and size is not DATA_DEPENDENT:
            raise ValueError(f"ember.onnx.export: dynamic_axes names dim {d} of {what}, which "
                             f"does not follow the dynamic size (it is always {size})")
        if name is None:
            continue
        if size is DATA_DEPENDENT:
            names[(k, d)] = name
        elif size.text != name:
            raise ValueError(f"ember.onnx.export: dynamic_axes names dim {d} of {what} {name!r}, "
                             f"but its size is {size.text} (the ONNX model names it so)")
    return names
