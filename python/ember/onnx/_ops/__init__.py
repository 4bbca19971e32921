"""ember graph nodes as ONNX nodes: one converter per ember op (a row of
lib/dispatch/ops/*.def), in a table keyed by the op's name.

A converter gets the export context and the node, reads the node's tensor inputs and
its attrs (positional, exactly as the op function put them in the OpCall) and emits
ONNX nodes that write ctx.out(node, i). ember records every view and expand with the
sizes it had when traced, and the converters use the traced output sizes where ONNX
wants a shape. In a graph traced with dynamic_shapes, sizes and int attrs that follow
the dynamic dims are SymSize objects (_symbolic.py): ctx.ints, ctx.int_scalar and
ctx.scalar compute them from the inputs' shapes; ctx.static refuses them where a
converter needs a fixed number.

In-place nodes (add_, masked_fill_, copy_ into a preset) become the functional op: the
node's output is a new value. A node whose first input is left out (-1) writes a fresh
tensor (zeros() is fill_, x.to(dtype) is copy_): it becomes the op that produces it.
"""
# Importing the groups registers their converters.
from . import activation, elementwise, nn, reduce, shape  # noqa: F401
from .registry import CONVERTERS, VIEW_OPS, convert_node  # noqa: F401
