"""torch.onnx.export's options that ember's exporter takes beside its own: the training
mode the model is exported in, the legacy switches (export_params, do_constant_folding,
keep_initializers_as_inputs, operator_export_type, dynamo, verbose), opsets below the
exporter's own (converted down with onnx's version converter) and file-like targets."""
import contextlib
from enum import Enum

from ._errors import UnsupportedOperatorError


class TrainingMode(Enum):
    """The mode a module is exported in: EVAL (the default: dropout off, batch norm's
    running statistics), PRESERVE (its current mode), TRAINING."""
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(Enum):
    """Only standard ONNX operators are written (ember has no ATen fallback)."""
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


@contextlib.contextmanager
def training_mode(model, training):
    """The module in the mode training asks for during the export, restored after (as
    torch.onnx.export does)."""
    from ..nn import Module
    if training is None:
        training = TrainingMode.EVAL
    if not isinstance(training, TrainingMode):
        raise TypeError(f"ember.onnx.export: training must be an ember.onnx.TrainingMode, got "
                        f"{training!r}")
    if not isinstance(model, Module) or training is TrainingMode.PRESERVE:
        yield
        return
    before = {m: m.training for m in model.modules()}
    model.train(training is TrainingMode.TRAINING)
    try:
        yield
    finally:
        for m, mode in before.items():
            m.training = mode


def check_legacy_options(export_params, keep_initializers_as_inputs, operator_export_type,
                         kwargs):
    if not export_params:
        raise NotImplementedError("ember.onnx.export: export_params=False (a model without its "
                                  "weights) is not supported; export with the weights")
    if operator_export_type not in (None, OperatorExportTypes.ONNX):
        raise NotImplementedError(f"ember.onnx.export: operator_export_type="
                                  f"{operator_export_type!r}: ember writes standard ONNX "
                                  f"operators only (OperatorExportTypes.ONNX)")
    if kwargs:
        raise NotImplementedError("ember.onnx.export: keyword inputs (kwargs=) are not "
                                  "supported; pass every input positionally")
    return bool(keep_initializers_as_inputs)


def initializers_as_inputs(proto):
    """Lists every initializer among the graph's inputs too (keep_initializers_as_inputs:
    a runtime may then feed other weights)."""
    from onnx import helper
    present = {i.name for i in proto.graph.input}
    for init in proto.graph.initializer:
        if init.name not in present:
            proto.graph.input.append(helper.make_tensor_value_info(init.name, init.data_type,
                                                                   list(init.dims)))
    return proto


def _fits(node, schema):
    """Whether node, as written, is a valid node of schema: every attribute it sets exists
    there, and its inputs and outputs are as many as the schema takes (an input that was an
    attribute before, such as ReduceSum's axes before opset 13, makes one too many)."""
    return (all(a.name in schema.attributes for a in node.attribute)
            and schema.min_input <= len(node.input) <= schema.max_input
            and schema.min_output <= len(node.output) <= schema.max_output)


def converted_down(proto, opset):
    """proto (written at the exporter's opset) at an older opset: by onnx's version
    converter, else, where every node is also a valid node of its op's older version (Relu
    14 against 6 only added bfloat16; Reshape's allowzero, unset, is the old behaviour),
    relabelled and checked against the older schemas. UnsupportedOperatorError names the
    ops that do not fit (LayerNormalization has no form before 17, ReduceSum took its axes
    as an attribute before 13, ...)."""
    import onnx
    from onnx import defs, version_converter
    try:
        older = version_converter.convert_version(proto, opset)
        onnx.checker.check_model(older, full_check=True)
        return older
    except Exception:  # noqa: BLE001 - the converter lacks many down-adapters; try relabelling
        pass
    exported = proto.opset_import[0].version
    changed = set()
    for node in proto.graph.node:
        try:
            then = defs.get_schema(node.op_type, opset)
        except Exception:  # noqa: BLE001 - no such op at that opset
            changed.add(node.op_type)
            continue
        if not _fits(node, then):
            changed.add(node.op_type)
    if changed:
        raise UnsupportedOperatorError(
            f"ember.onnx.export: the model cannot be written at opset_version={opset}: "
            f"{sorted(changed)} take other inputs or attributes there (or do not exist). "
            f"Export at opset {exported}")
    older = onnx.ModelProto()
    older.CopyFrom(proto)
    older.opset_import[0].version = opset
    older.ir_version = onnx.helper.find_min_ir_version_for(list(older.opset_import))
    try:
        onnx.checker.check_model(older, full_check=True)
    except Exception as e:  # noqa: BLE001
        raise UnsupportedOperatorError(
            f"ember.onnx.export: the model does not check at opset_version={opset} "
            f"({type(e).__name__}: {str(e)[:200]}); export at opset {exported}") from e
    return older


def write(proto, f, save_atomically):
    """To a path (atomically) or into a file-like object."""
    if hasattr(f, "write"):
        f.write(proto.SerializeToString())
    else:
        save_atomically(proto, f)
