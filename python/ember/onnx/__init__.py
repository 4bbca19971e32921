"""ONNX export of traced ember models: ember.onnx.export(model, example_inputs, path).

The model is traced (ember.jit.trace) unless it is a TracedModule already; each node of
the graph becomes ONNX nodes (_ops/), parameters and constants become initializers
under their names. The result is checked with onnx.checker and saved. Shapes are those
of the trace (ember records views and expands with concrete sizes), except for the
dims that dynamic_axes names and the sizes that follow them (_dynamic.py)."""
import os
import uuid

from . import _dynamic
from ._errors import UnsupportedOperatorError

__all__ = ["export", "UnsupportedOperatorError"]

# ONNX's LayerNormalization needs opset 17.
MIN_OPSET = 17


def _as_tuple(example_inputs):
    return tuple(example_inputs) if isinstance(example_inputs, (tuple, list)) else (example_inputs,)


def _traced(model, example_inputs):
    from .. import jit
    if isinstance(model, jit.TracedModule):
        return model
    return jit.trace(model, example_inputs, check_trace=False)


def _check_inputs(graph, example_inputs):
    """The example inputs must be what the graph was traced with (the ONNX model's
    shapes are the traced ones)."""
    values = graph.values()
    ids = graph.inputs()
    tensors = _as_tuple(example_inputs)
    if len(tensors) != len(ids):
        raise ValueError(f"ember.onnx.export: the traced graph takes {len(ids)} inputs, "
                         f"got {len(tensors)} example inputs")
    for k, (vid, t) in enumerate(zip(ids, tensors)):
        v = values[vid]
        if tuple(t.shape) != tuple(v.sizes) or t.dtype != v.dtype:
            raise ValueError(f"ember.onnx.export: example input {k} is {t.dtype.name}"
                             f"{list(t.shape)}, but the graph was traced with "
                             f"{v.dtype.name}{list(v.sizes)}")


def _names(given, defaults, what):
    if given is None:
        return list(defaults)
    given = list(given)
    if len(given) > len(defaults):
        raise ValueError(f"ember.onnx.export: {len(given)} {what} names for a graph with "
                         f"{len(defaults)} {what}s")
    if not all(isinstance(n, str) and n for n in given):
        raise TypeError(f"ember.onnx.export: {what} names must be non-empty strings, got {given}")
    return given + list(defaults[len(given):])


def _value_info(name, value, dynamic_name):
    from onnx import helper
    from ._dtypes import onnx_type
    dims = [d.symbol(dynamic_name) if isinstance(d, _dynamic.Affine) else d for d in value.sizes]
    return helper.make_tensor_value_info(name, onnx_type(value.dtype), dims)


def _dynamic_graph(model, graph, example_inputs, axes):
    """The graph with the sizes that follow the dynamic axes made symbolic: the model is
    traced again with those dims one and two longer."""
    from .. import jit
    if isinstance(model, jit.TracedModule):
        raise TypeError("ember.onnx.export: dynamic_axes needs the Module or function (it is "
                        "traced again at other sizes), not a TracedModule")
    k, d = axes.inputs[0]
    graphs = [graph] + [_traced(model, _dynamic.grown(example_inputs, axes, extra)).graph
                        for extra in (1, 2)]
    return _dynamic.symbolic_graph(graphs, example_inputs[k].shape[d])


def export(model, example_inputs, path, input_names=None, output_names=None, opset_version=17,
           dynamic_axes=None):
    """Writes model as an ONNX file at path and returns the onnx.ModelProto.

    model: a TracedModule (ember.jit.trace), or a Module or function, which is traced on
    example_inputs (a tensor or a tuple of tensors) first. input_names / output_names:
    the ONNX names of the graph's inputs and (flattened) outputs; by default the traced
    input names ("x", "x1", ...) and "output" ("output0", "output1", ... for several).
    opset_version: 17 (the first with LayerNormalization) up to onnx's newest.
    dynamic_axes: {input or output name: [dims] or {dim: "name"}}: dims of one size (the
    batch) that the ONNX model takes at any size. The model is traced twice more with
    those dims longer to find the sizes that follow them; output dims named here must
    turn out to follow them.

    Raises UnsupportedOperatorError naming the op and the node for an op (or a use of an
    op: dropout in training mode, an in-place write read back through another view) that
    has no ONNX equivalent.
    """
    try:
        import onnx
    except ImportError as e:  # an optional dependency: say how to get it
        raise ImportError("ember.onnx.export needs the onnx package: pip install onnx") from e
    from onnx import helper
    from ._builder import ExportContext
    from ._ops import convert_node

    newest = onnx.defs.onnx_opset_version()
    if not isinstance(opset_version, int) or not MIN_OPSET <= opset_version <= newest:
        raise ValueError(f"ember.onnx.export: opset_version must be an int in "
                         f"[{MIN_OPSET}, {newest}], got {opset_version!r}")
    example_inputs = _as_tuple(example_inputs)
    traced = _traced(model, example_inputs)
    graph = traced.graph
    _check_inputs(graph, example_inputs)
    values = graph.values()
    in_ids, out_ids = graph.inputs(), graph.outputs()
    in_names = _names(input_names, [values[v].name for v in in_ids], "input")
    default_out = ["output"] if len(out_ids) == 1 else [f"output{i}" for i in range(len(out_ids))]
    out_names = _names(output_names, default_out, "output")

    dynamic_name, dynamic_source = None, None
    if dynamic_axes:
        axes = _dynamic.parse(dynamic_axes, in_names, out_names, example_inputs)
        graph = _dynamic_graph(model, graph, example_inputs, axes)
        values = graph.values()
        for k, d in axes.outputs:
            sizes = values[out_ids[k]].sizes
            if not -len(sizes) <= d < len(sizes):
                raise ValueError(f"ember.onnx.export: dynamic_axes: output {out_names[k]!r} has "
                                 f"no dim {d} (it has {len(sizes)})")
            if not isinstance(sizes[d], _dynamic.Affine):
                raise ValueError(f"ember.onnx.export: dynamic_axes names dim {d} of output "
                                 f"{out_names[k]!r}, which does not follow the dynamic size")
        dynamic_name, dynamic_source = axes.name, (in_names[axes.inputs[0][0]], axes.inputs[0][1])

    ctx = ExportContext(graph, opset_version, in_names, out_names, dynamic_source)
    for index, node in enumerate(ctx.graph_nodes):
        ctx.current = index
        convert_node(ctx, node)
    ctx.current = "outputs"
    for vid, name in zip(out_ids, out_names):
        if ctx.name(vid) != name:
            ctx.bind_output(vid, name)

    onnx_graph = helper.make_graph(
        ctx.nodes, "ember_graph",
        [_value_info(n, values[v], dynamic_name) for v, n in zip(in_ids, in_names)],
        [_value_info(n, values[v], dynamic_name) for v, n in zip(out_ids, out_names)],
        initializer=ctx.initializers)
    opsets = [helper.make_opsetid("", opset_version)]
    proto = helper.make_model(onnx_graph, opset_imports=opsets, producer_name="ember",
                              ir_version=helper.find_min_ir_version_for(opsets))
    onnx.checker.check_model(proto, full_check=True)
    _save_atomically(proto, path)
    return proto


def _save_atomically(proto, path):
    """Writes under a temporary name in path's directory, then renames: a failed export
    never leaves a partial file at path."""
    import onnx
    path = os.fspath(path)
    # Not mkstemp: its file is private (0600); this one gets the usual permissions.
    tmp = os.path.join(os.path.dirname(os.path.abspath(path)),
                       f".{os.path.basename(path)}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        onnx.save(proto, tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
