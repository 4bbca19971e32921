"""ONNX export of traced ember models: ember.onnx.export(model, example_inputs, path).

The model is traced (ember.jit.trace) unless it is a TracedModule already; each node of
the graph becomes ONNX nodes (_ops/), parameters and constants become initializers
under their names. The result is checked with onnx.checker and saved. Shapes are those
of the trace, except where the graph was traced with dynamic_shapes (or dynamic_axes,
_dynamic_axes.py, which becomes dynamic_shapes): its symbolic sizes (_symbolic.py) are
named dims of the ONNX inputs and outputs and computed in the ONNX graph from the
inputs' shapes."""
import os
import uuid

from . import _dynamic_axes, _torch_options
from ._errors import UnsupportedOperatorError
from ._symbolic import SymSize, dim_param
from ._torch_options import OperatorExportTypes, TrainingMode

__all__ = ["export", "UnsupportedOperatorError", "TrainingMode", "OperatorExportTypes"]

# ONNX's LayerNormalization needs opset 17.
MIN_OPSET = 17


def _as_tuple(example_inputs):
    return tuple(example_inputs) if isinstance(example_inputs, (tuple, list)) else (example_inputs,)


def _check_inputs(graph, example_inputs):
    """The example inputs must be what the graph takes: its dtypes, and its traced sizes
    except in symbolic dims (the ONNX model's shapes are the graph's)."""
    values = graph.values()
    ids = graph.inputs()
    if len(example_inputs) != len(ids):
        raise ValueError(f"ember.onnx.export: the traced graph takes {len(ids)} inputs, "
                         f"got {len(example_inputs)} example inputs")
    for k, (vid, t) in enumerate(zip(ids, example_inputs)):
        v = values[vid]
        fits = t.dtype == v.dtype and t.dim() == len(v.sizes) and all(
            isinstance(want, SymSize) or want == got for want, got in zip(v.sizes, t.shape))
        if not fits:
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


def _value_info(name, value, dim_names):
    """An input's or output's ONNX type; dim_names: {dim: name} for unnamed dynamic dims."""
    from onnx import helper
    from ._dtypes import onnx_type
    dims = [dim_names.get(d, dim_param(size)) for d, size in enumerate(value.sizes)]
    return helper.make_tensor_value_info(name, onnx_type(value.dtype), dims)


def _traced(model, example_inputs, input_names, output_names, dynamic_axes, dynamic_shapes):
    """(the TracedModule to export, the parsed dynamic_axes or None, the default input
    names): model as it is, or traced with dynamic_shapes (dynamic_axes's when given)."""
    from .. import jit
    if isinstance(model, jit.TracedModule):
        if dynamic_axes is not None or dynamic_shapes is not None:
            raise TypeError("ember.onnx.export: dynamic_axes and dynamic_shapes need the Module "
                            "or function (it is traced with them); a TracedModule exports the "
                            "dynamic dims it was traced with (ember.jit.trace(..., "
                            "dynamic_shapes=...))")
        values = model.graph.values()
        return model, None, [values[v].name for v in model.graph.inputs()]
    if dynamic_axes is not None and dynamic_shapes is not None:
        raise ValueError("ember.onnx.export: give dynamic_axes or dynamic_shapes, not both")
    # The names the trace gives the inputs (lib/jit/tracer.cpp), which dynamic_axes may use.
    defaults = ["x" if i == 0 else f"x{i}" for i in range(len(example_inputs))]
    axes = None
    if dynamic_axes is not None:
        axes = _dynamic_axes.parse(dynamic_axes, _names(input_names, defaults, "input"),
                                   output_names, example_inputs)
        dynamic_shapes = axes.dynamic_shapes
    traced = jit.trace(model, example_inputs, check_trace=False, dynamic_shapes=dynamic_shapes)
    return traced, axes, defaults


def export(model, example_inputs=None, path=None, input_names=None, output_names=None,
           opset_version=None, dynamic_axes=None, dynamic_shapes=None, *, args=None, f=None,
           kwargs=None, verbose=None, export_params=True, keep_initializers_as_inputs=False,
           do_constant_folding=True, training=None, operator_export_type=None, dynamo=None):
    """Writes model as an ONNX file at path and returns the onnx.ModelProto.

    model: a TracedModule (ember.jit.trace) or an ember.export.ExportedProgram, exported as
    it is, or a Module or function, which is traced on example_inputs (a tensor or a tuple
    of tensors) first.
    input_names / output_names: the ONNX names of the graph's inputs and (flattened)
    outputs; by default the traced input names ("x", "x1", ...) and "output" ("output0",
    "output1", ... for several). opset_version: 17 (the first with LayerNormalization)
    up to onnx's newest.

    Dynamic sizes: a TracedModule traced with dynamic_shapes exports its symbolic dims as
    named ONNX dims ("batch", "batch*seq"), every size that follows them computed in the
    ONNX graph from the inputs' shapes. A Module or function takes dynamic_shapes (as
    ember.jit.trace's) or dynamic_axes (torch.onnx.export's form: {input or output name:
    [dims] or {dim: "name"}}), not both: dynamic_axes's input dims become ember.jit.Dims
    (one size per name; the list form's dims are all "batch"), and the output dims it
    names must come out dynamic.

    torch.onnx.export's other options: args= and f= (the same as example_inputs and
    path; f may be a file-like object), training (TrainingMode.EVAL by default: a Module is
    exported in eval mode and put back after, as torch does), opset_version below 17
    (written at 17, then converted down by onnx's version converter, or
    UnsupportedOperatorError when an op has no older form), keep_initializers_as_inputs,
    verbose (prints the graph); do_constant_folding and dynamo are accepted (ember's traces
    are always folded; it has one exporter); export_params=False and kwargs= raise
    NotImplementedError.

    Raises UnsupportedOperatorError naming the op and the node for an op (or a use of an
    op: dropout in training mode, an in-place write read back through another view, a
    fixed-size ONNX attribute at a dynamic size) that has no ONNX equivalent.
    """
    if args is not None:
        if example_inputs is not None:
            raise TypeError("ember.onnx.export: example_inputs given twice (positionally and as args=)")
        example_inputs = args
    if f is not None:
        if path is not None:
            raise TypeError("ember.onnx.export: the file given twice (positionally and as f=)")
        path = f
    if example_inputs is None or path is None:
        raise TypeError("ember.onnx.export() missing its example inputs (args) or its file (f)")
    keep_inputs = _torch_options.check_legacy_options(export_params, keep_initializers_as_inputs,
                                                      operator_export_type, kwargs)
    with _torch_options.training_mode(model, training):
        proto = _export(model, example_inputs, input_names, output_names, opset_version,
                        dynamic_axes, dynamic_shapes)
    if keep_inputs:
        proto = _torch_options.initializers_as_inputs(proto)
    if verbose:
        from onnx import helper
        print(helper.printable_graph(proto.graph))
    _torch_options.write(proto, path, _save_atomically)
    return proto


def _export(model, example_inputs, input_names, output_names, opset_version, dynamic_axes,
            dynamic_shapes):
    """The ModelProto of the export (checked, not yet written)."""
    try:
        import onnx
    except ImportError as e:  # an optional dependency: say how to get it
        raise ImportError("ember.onnx.export needs the onnx package: pip install onnx") from e
    from onnx import helper
    from .._C import Tensor
    from ..export import ExportedProgram
    from ._builder import ExportContext
    from ._ops import convert_node
    from ._symbolic import symbolic_graph

    newest = onnx.defs.onnx_opset_version()
    requested = MIN_OPSET if opset_version is None else opset_version
    if isinstance(requested, bool) or not isinstance(requested, int) or not 7 <= requested <= newest:
        raise ValueError(f"ember.onnx.export: opset_version must be an int in [7, {newest}] "
                         f"({MIN_OPSET} and up directly, older ones by conversion), got "
                         f"{opset_version!r}")
    opset_version = max(requested, MIN_OPSET)
    if isinstance(model, ExportedProgram):  # torch.onnx.export takes one too
        model = model.module()
    example_inputs = _as_tuple(example_inputs)
    for k, t in enumerate(example_inputs):
        if not isinstance(t, Tensor):  # an ONNX model's inputs are a flat list of tensors
            raise TypeError(f"ember.onnx.export: example input {k} must be a Tensor, got "
                            f"{type(t).__name__}")
    traced, axes, default_in = _traced(model, example_inputs, input_names, output_names,
                                       dynamic_axes, dynamic_shapes)
    graph = symbolic_graph(traced.graph)
    _check_inputs(graph, example_inputs)
    values = graph.values()
    in_ids, out_ids = graph.inputs(), graph.outputs()
    in_names = _names(input_names, default_in, "input")
    default_out = ["output"] if len(out_ids) == 1 else [f"output{i}" for i in range(len(out_ids))]
    out_names = _names(output_names, default_out, "output")
    named_dims = {}
    if axes is not None:
        named_dims = _dynamic_axes.output_dim_params(axes, graph, in_names, out_names)

    ctx = ExportContext(graph, opset_version, in_names, out_names)
    for index, node in enumerate(ctx.graph_nodes):
        ctx.current = index
        convert_node(ctx, node)
    ctx.current = "outputs"
    for vid, name in zip(out_ids, out_names):
        if ctx.name(vid) != name:
            ctx.bind_output(vid, name)

    inputs = [_value_info(n, values[v], {}) for v, n in zip(in_ids, in_names)]
    outputs = [_value_info(n, values[v], {d: p for (k, d), p in named_dims.items() if k == i})
               for i, (v, n) in enumerate(zip(out_ids, out_names))]
    onnx_graph = helper.make_graph(ctx.nodes, "ember_graph", inputs, outputs,
                                   initializer=ctx.initializers)
    opsets = [helper.make_opsetid("", opset_version)]
    proto = helper.make_model(onnx_graph, opset_imports=opsets, producer_name="ember",
                              ir_version=helper.find_min_ir_version_for(opsets))
    onnx.checker.check_model(proto, full_check=True)
    if requested < opset_version:
        proto = _torch_options.converted_down(proto, requested)
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
