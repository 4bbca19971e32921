"""The state of one export: which ONNX name each ember graph value has, the
initializers (parameters, constants, and the small int64 tensors ONNX takes shapes and
axes as), and the ONNX nodes emitted so far. The op converters (_ops/) work through
it and never touch protobufs themselves."""
import itertools

import numpy as np
from onnx import helper, numpy_helper

from ._dtypes import dtype_name, numpy_dtype, onnx_type
from ._dynamic import Affine, has_affine
from ._errors import UnsupportedOperatorError


def _attr_str(a):
    if isinstance(a, str):
        return repr(a)
    return a.name if hasattr(a, "is_floating_point") else str(a)


class ExportContext:
    def __init__(self, graph, opset, input_names, output_names, dynamic_source=None):
        self.opset = opset
        # With dynamic_axes: (input name, dim) holding the dynamic size, whose Affine
        # functions stand in the graph's sizes and int attrs.
        self.dynamic_source = dynamic_source
        self._dynamic = {}       # Affine -> name of its 1-element int64 tensor
        self._fills = getattr(graph, "dynamic_fills", {})  # constant name -> its one value
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
            if v.name in self._fills:  # one value at a size that follows the dynamic size
                self.filled(v.sizes, self._fills[v.name], v.name)
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
        if array.dtype == object:  # an Affine among the numbers
            self._refuse_dynamic("constant")
        self.initializers.append(numpy_helper.from_array(array, name))
        self._defined.add(name)
        self._taken.add(name)
        return name

    def const(self, array, hint="const"):
        """An initializer holding array (a numpy array, dtype kept)."""
        return self._initializer(array, self.fresh(hint))

    def ints(self, values, hint="ints"):
        """A 1-D int64 tensor: the shapes, axes and indices ONNX ops take as inputs. An
        initializer, or computed from the input's shape where an entry is Affine."""
        values = list(values)
        if not has_affine(values):
            return self.const(np.asarray(values, dtype=np.int64), hint)
        pieces, fixed = [], []
        for v in values + [None]:
            if isinstance(v, int):
                fixed.append(v)
                continue
            if fixed:
                pieces.append(self.const(np.asarray(fixed, dtype=np.int64), hint))
                fixed = []
            if v is not None:
                pieces.append(self._dynamic_size(v))
        return pieces[0] if len(pieces) == 1 else self.emit("Concat", pieces, hint=hint, axis=0)

    def _dynamic_size(self, size):
        """[a * n + b] as a 1-element int64 tensor, n read from the input's shape."""
        if size not in self._dynamic:
            if Affine(1, 0) not in self._dynamic:
                name, dim = self.dynamic_source
                shape = self.emit("Shape", [name], hint="input_shape")
                self._dynamic[Affine(1, 0)] = self.emit("Gather", [shape, self.ints([dim])],
                                                        hint="dynamic_size", axis=0)
            n = self._dynamic[Affine(1, 0)]
            if size.a != 1:
                n = self.emit("Mul", [n, self.ints([size.a])])
            if size.b != 0:
                n = self.emit("Add", [n, self.ints([size.b])])
            self._dynamic[size] = n
        return self._dynamic[size]

    def static(self, values, what="size"):
        """values (ints, lists of ints), refusing ones that follow the dynamic size."""
        if has_affine(values):
            self._refuse_dynamic(what)
        return values

    def _refuse_dynamic(self, what):
        node = self.graph_nodes[self.current] if isinstance(self.current, int) else None
        where = self.describe(node) if node is not None else f"node {self.current}"
        raise UnsupportedOperatorError(
            f"ember.onnx.export: {where}: its {what} follows the dynamic size, which this "
            f"conversion cannot compute at run time; export without dynamic_axes")

    def filled(self, sizes, value, output):
        """A tensor of sizes (computed where they follow the dynamic size) holding value,
        a numpy scalar of the dtype wanted, written to output."""
        fill = numpy_helper.from_array(np.asarray(value).reshape(1), "value")
        self.emit("ConstantOfShape", [self.ints(sizes, "shape")], [output], value=fill)

    def scalar(self, value, dtype, hint="scalar"):
        """A 0-dim initializer of an ember dtype."""
        return self.const(np.asarray(value, dtype=numpy_dtype(dtype)), hint)

    # ---- nodes ------------------------------------------------------------------------
    def emit(self, op_type, inputs, outputs=None, hint=None, **attrs):
        """Appends one ONNX node. outputs: the names to write (default: one fresh name).
        Returns the output name (or the list of them when several were asked for)."""
        for key, value in attrs.items():
            if has_affine(value):
                self._refuse_dynamic(f"{op_type} attribute {key}")
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
