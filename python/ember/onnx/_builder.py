"""The state of one export: which ONNX name each ember graph value has, the
initializers (parameters, constants, and the small int64 tensors ONNX takes shapes and
axes as), and the ONNX nodes emitted so far. The op converters (_ops/) work through
it and never touch protobufs themselves."""
import itertools
import math

import numpy as np
from onnx import helper, numpy_helper

from ._dtypes import dtype_name, numpy_dtype, onnx_type
from ._errors import UnsupportedOperatorError
from ._symbolic import DATA_DEPENDENT, SymSize, has_symbolic, is_symbolic


def _attr_str(a):
    if isinstance(a, str):
        return repr(a)
    return a.name if hasattr(a, "is_floating_point") else str(a)


class ExportContext:
    def __init__(self, graph, opset, input_names, output_names):
        """graph: the view of _symbolic.symbolic_graph (SymSize entries where the
        trace's sizes follow dynamic dims)."""
        self.opset = opset
        # Per symbol the (ONNX input name, dim) its value is read from at run time.
        self._symbol_sources = {k: (input_names[position], dim)
                                for k, (position, dim) in graph.bindings.items()}
        self._symbol_names = graph.symbols
        self._computed = {}      # SymSize, ("monomial", symbols), ("scalar", SymSize) -> tensor
        self.graph_nodes = graph.nodes()
        self.values = graph.values()
        self.tensors = graph.tensors()
        self.nodes = []          # NodeProtos in order
        self.initializers = []   # TensorProtos in order
        self._names = {}         # value id -> ONNX name
        self._defined = set()    # ONNX names that exist (inputs, initializers, node outputs)
        self._taken = set()      # ONNX names handed out (defined or promised)
        self._casts = {}         # (name, dtype name) -> name of the cast
        self._lifted = set()     # parameter/constant value ids turned into initializers
        self.current = None      # index of the node being converted, for messages
        self.graph_outputs = graph.outputs()
        self._aliases = None     # (root per value, last read per root), made on first use
        for vid, name in zip(graph.inputs(), input_names):
            self._claim(vid, name)
            self._defined.add(name)
        for v in self.values:
            if v.kind in ("parameter", "constant"):
                if v.name in self._taken:
                    raise ValueError(f"ember.onnx.export: the name {v.name!r} is both an input "
                                     f"and a {v.kind} of the graph")
                self._taken.add(v.name)
        # A graph output computed by a node gets the output's name directly; the others
        # (an input returned as is, one value returned twice) get an Identity later.
        for vid, name in zip(graph.outputs(), output_names):
            if name in self._taken:
                raise ValueError(f"ember.onnx.export: output name {name!r} is already the name "
                                 f"of an input, a parameter or another output")
            if self.values[vid].kind == "node" and vid not in self._names:
                self._claim(vid, name)
            else:
                self._taken.add(name)

    # ---- names ------------------------------------------------------------------------
    def _claim(self, vid, name):
        if name in self._taken:
            raise ValueError(f"ember.onnx.export: the name {name!r} is given twice")
        self._taken.add(name)
        self._names[vid] = name

    def fresh(self, hint):
        """An unused ONNX name for an intermediate result."""
        candidates = itertools.chain([hint], (f"{hint}_{k}" for k in itertools.count(1)))
        name = next(n for n in candidates if n not in self._taken)
        self._taken.add(name)
        return name

    def name(self, vid):
        """The ONNX name holding value vid (a parameter or constant becomes an initializer
        the first time it is used)."""
        v = self.values[vid]
        if v.kind in ("parameter", "constant") and vid not in self._lifted:
            self._lifted.add(vid)
            self._names[vid] = v.name
            if v.value_expr is not None:  # a number computed from sizes (x * x.shape[1])
                self.emit("Cast", [self.int_scalar(v.value_expr)], [v.name],
                          to=onnx_type(dtype_name(v.dtype)))
            elif has_symbolic(v.sizes):
                self._refuse_dynamic(f"constant %{v.name}'s shape", v.sizes)
            else:
                self._initializer(self._host_array(self.tensors[v.name]), v.name)
        name = self._names.get(vid)
        if name is None or name not in self._defined:
            producer = self.graph_nodes[v.node]
            raise UnsupportedOperatorError(
                f"ember.onnx.export: output {v.index} of {producer.op} (node {v.node}) is used "
                f"(by node {self.current}) but has no ONNX equivalent")
        return name

    def out(self, node, i=0):
        """The name node's output i must be written to."""
        vid = node.outputs[i]
        if vid not in self._names:
            self._names[vid] = self.fresh(f"{node.op}_{vid}")
        return self._names[vid]

    # ---- aliasing -----------------------------------------------------------------------
    def _alias_groups(self, view_ops):
        """Per value the root it views (itself unless a view op made it), and per root
        the last node that reads a value of its group (len(nodes) for a graph output)."""
        root = {}
        for v_id, v in enumerate(self.values):
            producer = self.graph_nodes[v.node] if v.kind == "node" else None
            viewed = producer is not None and producer.op in view_ops and producer.inputs[0] != -1
            root[v_id] = root[producer.inputs[0]] if viewed else v_id
        last_read = {}
        for index, node in enumerate(self.graph_nodes):
            for v_id in node.inputs:
                if v_id != -1:
                    last_read[root[v_id]] = index
        for v_id in self.graph_outputs:
            last_read[root[v_id]] = len(self.graph_nodes)
        return root, last_read

    def read_after_write(self, vid, view_ops):
        """The index of a node after the current one that reads the tensor vid or a view
        of the same storage through a value from before the write, or None. The node's
        own outputs are new values, so reads through them are fine."""
        if self._aliases is None:
            self._aliases = self._alias_groups(view_ops)
        root, last_read = self._aliases
        later = last_read.get(root[vid], -1)
        return later if later > self.current else None

    # ---- values -----------------------------------------------------------------------
    def dtype(self, vid):
        return dtype_name(self.values[vid].dtype)

    def sizes(self, vid):
        return tuple(self.values[vid].sizes)

    def has_input(self, node, i):
        return i < len(node.inputs) and node.inputs[i] != -1

    def input(self, node, i, dtype=None):
        """The ONNX name of node's tensor input i, cast to dtype when given."""
        if not self.has_input(node, i):
            self.fail(node, f"input {i} is left out")
        vid = node.inputs[i]
        name = self.name(vid)
        return name if dtype is None else self.cast(name, self.dtype(vid), dtype)

    def cast(self, name, src, dst):
        src, dst = dtype_name(src), dtype_name(dst)
        if src == dst:
            return name
        key = (name, dst)
        if key not in self._casts:
            self._casts[key] = self.emit("Cast", [name], to=onnx_type(dst), hint=f"{name}_{dst}")
        return self._casts[key]

    # ---- constants --------------------------------------------------------------------
    @staticmethod
    def _host_array(tensor):
        t = tensor.detach().cpu()
        if t.dtype.name == "bfloat16":
            import ember
            return t.to(ember.float32).numpy().astype(numpy_dtype("bfloat16"))
        return t.numpy().copy(order="C")  # not ascontiguousarray: it makes 0-dim 1-dim

    def _initializer(self, array, name):
        array = np.asarray(array)
        if array.dtype == object:  # a symbolic size among the numbers
            self._refuse_dynamic("constant", array.tolist())
        self.initializers.append(numpy_helper.from_array(array, name))
        self._defined.add(name)
        self._taken.add(name)
        return name

    def const(self, array, hint="const"):
        """An initializer holding array (a numpy array, dtype kept)."""
        return self._initializer(array, self.fresh(hint))

    def ints(self, values, hint="ints"):
        """A 1-D int64 tensor: the shapes, axes and indices ONNX ops take as inputs. An
        initializer, or computed from the inputs' shapes where an entry is a SymSize."""
        values = list(values)
        if not has_symbolic(values):
            return self.const(np.asarray(values, dtype=np.int64), hint)
        pieces, fixed = [], []
        for v in values + [None]:
            if isinstance(v, (int, np.integer)):
                fixed.append(int(v))
                continue
            if fixed:
                pieces.append(self.const(np.asarray(fixed, dtype=np.int64), hint))
                fixed = []
            if v is not None:
                pieces.append(self._size_tensor(v))
        return pieces[0] if len(pieces) == 1 else self.emit("Concat", pieces, hint=hint, axis=0)

    def dims_of(self, vid, dims, hint="sizes"):
        """Value vid's sizes in dims as a 1-D int64 tensor, like ints(); a size that
        depends on the data (after nonzero) is read from the tensor's own shape."""
        sizes = self.sizes(vid)
        dims = [d % len(sizes) for d in dims]
        if not any(sizes[d] is DATA_DEPENDENT for d in dims):
            return self.ints([sizes[d] for d in dims], hint)
        pieces = [self.emit("Shape", [self.name(vid)], hint=hint, start=d, end=d + 1)
                  if sizes[d] is DATA_DEPENDENT else self.ints([sizes[d]], hint) for d in dims]
        return pieces[0] if len(pieces) == 1 else self.emit("Concat", pieces, hint=hint, axis=0)

    def int_scalar(self, value, hint="index"):
        """value (an int or a SymSize) as a 0-dim int64 tensor."""
        if not is_symbolic(value):
            return self.const(np.asarray(value, dtype=np.int64), hint)
        key = ("scalar", value)
        if key not in self._computed:
            self._computed[key] = self.emit("Squeeze", [self._size_tensor(value),
                                                        self.ints([0], "axes")], hint=hint)
        return self._computed[key]

    # ---- symbolic sizes ------------------------------------------------------------------
    def _size_tensor(self, size):
        """A SymSize as a 1-element int64 tensor: each symbol read from the shape of the
        input dim it is bound to, the polynomial spelled out with Mul and Add over the
        terms' numerators brought to one denominator, then one exact Div by it (the
        graph's divisibility guards make the sum a multiple of it)."""
        if size is DATA_DEPENDENT:
            self._refuse_dynamic("size", [size])
        if size in self._computed:
            return self._computed[size]
        denominator = 1
        for _num, den, _symbols in size.terms:
            denominator = denominator * den // math.gcd(denominator, den)
        total, constant = None, 0
        for num, den, symbols in size.terms:
            coefficient = num * (denominator // den)
            if not symbols:
                constant += coefficient
                continue
            term = self._monomial(symbols)
            if coefficient != 1:
                term = self.emit("Mul", [term, self.ints([coefficient], "coefficient")])
            total = term if total is None else self.emit("Add", [total, term])
        if total is None:  # a constant expression: no input needed
            total = self.ints([constant], "size")
        elif constant:
            total = self.emit("Add", [total, self.ints([constant], "constant")])
        if denominator != 1:
            total = self.emit("Div", [total, self.ints([denominator], "denominator")])
        self._computed[size] = total
        return total

    def _monomial(self, symbols):
        """The product of the symbols (indices, a repeat is a power), [1] int64."""
        key = ("monomial", tuple(symbols))
        if key not in self._computed:
            if len(symbols) == 1:
                name, dim = self._symbol_sources[symbols[0]]
                hint = self._symbol_names[symbols[0]]
                self._computed[key] = self.emit("Shape", [name], hint=hint, start=dim, end=dim + 1)
            else:
                self._computed[key] = self.emit("Mul", [self._monomial(symbols[:-1]),
                                                        self._monomial(symbols[-1:])])
        return self._computed[key]

    def static(self, values, what="size"):
        """values (ints, lists of ints), refusing symbolic ones."""
        if has_symbolic(values):
            self._refuse_dynamic(what, values)
        return values

    def _refuse_dynamic(self, what, values):
        node = self.graph_nodes[self.current] if isinstance(self.current, int) else None
        where = self.describe(node) if node is not None else f"node {self.current}"
        symbolic = _symbolic_entries(values)
        if symbolic and all(s is DATA_DEPENDENT for s in symbolic):
            raise UnsupportedOperatorError(
                f"ember.onnx.export: {where}: its {what} depends on the data (a size after "
                f"nonzero or mask indexing), which this conversion cannot compute from the "
                f"inputs' shapes")
        texts = ", ".join(dict.fromkeys(s.text for s in symbolic if isinstance(s, SymSize)))
        raise UnsupportedOperatorError(
            f"ember.onnx.export: {where}: its {what} follows the dynamic size ({texts}), which "
            f"this conversion needs as a fixed number; make the dims it depends on static "
            f"(leave them out of dynamic_shapes / dynamic_axes)")

    def filled(self, sizes, value, output, dtype=None):
        """A tensor of sizes (computed where symbolic) holding value, written to output:
        a numpy scalar of the dtype wanted, or a SymSize cast to dtype (an ember dtype)."""
        if is_symbolic(value):
            return self.emit("Expand", [self.scalar(value, dtype), self.ints(sizes, "shape")],
                             [output])
        fill = numpy_helper.from_array(np.asarray(value).reshape(1), "value")
        self.emit("ConstantOfShape", [self.ints(sizes, "shape")], [output], value=fill)

    def scalar(self, value, dtype, hint="scalar"):
        """A 0-dim tensor of an ember dtype: an initializer, or computed where value is a
        SymSize (a size read as a number, x * x.shape[0])."""
        if is_symbolic(value):
            return self.cast(self.int_scalar(value), "int64", dtype)
        return self.const(np.asarray(value, dtype=numpy_dtype(dtype)), hint)

    # ---- nodes ------------------------------------------------------------------------
    def emit(self, op_type, inputs, outputs=None, hint=None, **attrs):
        """Appends one ONNX node. outputs: the names to write (default: one fresh name).
        Returns the output name (or the list of them when several were asked for)."""
        for key, value in attrs.items():
            if has_symbolic(value):
                self._refuse_dynamic(f"{op_type} attribute {key}", value)
        if outputs is None:
            outputs = [self.fresh(hint or op_type)]
        self.nodes.append(helper.make_node(op_type, list(inputs), list(outputs),
                                           name=self.fresh(f"{op_type}_n"), **attrs))
        self._defined.update(outputs)
        return outputs[0] if len(outputs) == 1 else list(outputs)

    def bind_output(self, vid, name):
        """A graph output whose value is not a node's own output: an Identity writes it."""
        self.emit("Identity", [self.name(vid)], [name])

    # ---- messages ---------------------------------------------------------------------
    def describe(self, node):
        args = [f"%{self.values[i].name or i}" if i != -1 else "None" for i in node.inputs]
        args += [_attr_str(a) for a in node.attrs]
        outs = ", ".join(f"%{o}" for o in node.outputs)
        return f"node {self.current}: {outs} = {node.op}({', '.join(args)})"

    def fail(self, node, why):
        raise UnsupportedOperatorError(f"ember.onnx.export: cannot export {node.op} "
                                       f"({self.describe(node)}): {why}")


def _symbolic_entries(values):
    if is_symbolic(values):
        return [values]
    if isinstance(values, (list, tuple)):
        return [s for v in values for s in _symbolic_entries(v)]
    return []
