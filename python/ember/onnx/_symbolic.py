"""The symbolic sizes of a graph traced with dynamic_shapes, as the converters see them.

ember.jit.trace(..., dynamic_shapes=...) keeps every size and integer attribute that
follows the dynamic input dims as an expression of them (graph.exprs(): polynomials
with rational coefficients, such as batch*seq or seq/2 + 1). symbolic_graph() gives the
exporter a view of the graph in which those entries are SymSize objects instead of the
numbers of the trace: in value sizes, in node attributes, and as the value of 0-dim
constants computed from sizes (x * x.shape[1]). The builder (_builder.py) computes a
SymSize in the ONNX graph from the inputs' shapes; a converter that needs the number
itself refuses it (ctx.static). A static graph's view holds plain numbers only."""
from dataclasses import dataclass
from types import SimpleNamespace


@dataclass(frozen=True)
class SymSize:
    """A size or integer attribute: sum(num / den * prod(symbols)) over the terms.
    terms: ((num, den, (symbol index, ...)), ...); text: how it reads ("batch*seq")."""
    terms: tuple
    text: str

    def __repr__(self):
        return self.text


class DataDependentSize:
    """A dim whose size depends on the data (after nonzero or mask indexing): ONNX
    leaves it unnamed, and a converter cannot compute it from the inputs' shapes."""
    text = "a size that depends on the data"

    def __repr__(self):
        return "?"


DATA_DEPENDENT = DataDependentSize()
_STATIC, _DATA_DEPENDENT = -1, -2  # Value.size_exprs entries that are not expressions


def is_symbolic(value):
    return isinstance(value, (SymSize, DataDependentSize))


def has_symbolic(value):
    """Whether value (a number, or a nested list of them) holds a symbolic entry."""
    if is_symbolic(value):
        return True
    return isinstance(value, (list, tuple)) and any(has_symbolic(v) for v in value)


def dim_param(size):
    """The ONNX shape entry of a dim: its size, the expression's name, or None (unnamed)."""
    if isinstance(size, SymSize):
        return size.text
    return None if size is DATA_DEPENDENT else size


def _sizes(value, exprs):
    if not value.size_exprs:
        return tuple(value.sizes)
    sizes = []
    for size, e in zip(value.sizes, value.size_exprs):
        sizes.append(size if e == _STATIC else DATA_DEPENDENT if e == _DATA_DEPENDENT
                     else exprs[e])
    return tuple(sizes)


def _attrs(node, exprs):
    attrs = list(node.attrs)
    for attr, element, e in node.sym_attrs:
        if element == -1:
            attrs[attr] = exprs[e]
        else:
            entries = list(attrs[attr])
            entries[element] = exprs[e]
            attrs[attr] = entries
    return attrs


def _bindings(graph, values, exprs):
    """Per symbol the (input position, dim) a run reads it from: the first input dim
    whose size is exactly that symbol."""
    bound = {}
    for position, vid in enumerate(graph.inputs()):
        for d, size in enumerate(values[vid].sizes):
            if isinstance(size, SymSize) and len(size.terms) == 1:
                num, den, symbols = size.terms[0]
                if (num, den) == (1, 1) and len(symbols) == 1:
                    bound.setdefault(symbols[0], (position, d))
    return bound


def symbolic_graph(graph):
    """graph (an ember.jit Graph) with SymSize entries where it has expressions. The view
    has the graph's methods the exporter uses, plus .symbols (the symbols' names) and
    .bindings (symbol index -> (input position, dim))."""
    symbols = [s["name"] for s in graph.symbols()]
    exprs = [SymSize(tuple((num, den, tuple(syms)) for num, den, syms in terms),
                     graph.expr_str(i).replace(" ", ""))
             for i, terms in enumerate(graph.exprs())]
    values = [SimpleNamespace(kind=v.kind, name=v.name, dtype=v.dtype, sizes=_sizes(v, exprs),
                              node=v.node, index=v.index,
                              value_expr=exprs[v.value_expr] if v.value_expr >= 0 else None)
              for v in graph.values()]
    nodes = [SimpleNamespace(op=n.op, inputs=n.inputs, attrs=_attrs(n, exprs), preset=n.preset,
                             outputs=n.outputs) for n in graph.nodes()]
    bindings = _bindings(graph, values, exprs)
    unbound = [name for k, name in enumerate(symbols) if k not in bindings]
    if unbound:  # the trace binds every symbol to an input dim; a hand-made file may not
        raise ValueError(f"ember.onnx.export: the dynamic sizes {unbound} are no input dim of "
                         f"the graph, so the ONNX model could not read them from its inputs")
    return SimpleNamespace(nodes=lambda: nodes, values=lambda: values, tensors=graph.tensors,
                           inputs=graph.inputs, outputs=graph.outputs, symbols=symbols,
                           bindings=bindings)
