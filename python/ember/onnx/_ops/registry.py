"""The table of converters: converts(op, ...) registers one, convert_node runs the
one a node names (see the package docstring)."""

CONVERTERS = {}


def converts(*ops):
    def register(fn):
        for op in ops:
            CONVERTERS[op] = fn
        return fn
    return register


# Ops whose output shares its input's storage.
VIEW_OPS = {"view", "as_strided", "transpose", "permute", "expand", "squeeze", "unsqueeze",
            "slice", "select", "alias"}


def convert_node(ctx, node):
    fn = CONVERTERS.get(node.op)
    if fn is None:
        ctx.fail(node, "this op has no ONNX conversion")
    # An in-place write becomes a new value: right as long as nothing reads the old
    # storage (the written tensor, its base, another view of it) afterwards.
    for vid in node.preset:
        later = ctx.read_after_write(vid, VIEW_OPS)
        if later is not None:
            reader = "the graph's output" if later == len(ctx.graph_nodes) else f"node {later}"
            ctx.fail(node, f"it writes in place into a tensor whose storage {reader} reads "
                     f"afterwards through another view; ONNX graphs have no views")
    fn(ctx, node)
