"""ember.jit.trace and the traced module: recording, checking, running, saving and
loading a traced graph (the package's __init__ re-exports these names)."""
import json
from collections import OrderedDict

from .. import _C
from .._C import Tensor
from . import _dynamic_shapes
from ._script import ScriptModule

_jit = _C._jit
TracerWarning = _jit.TracerWarning
Graph = _jit.Graph


class TracingCheckError(Exception):
    """check_trace found that the traced graph does not reproduce the function."""


def _flatten(out, flat):
    """Appends out's tensors to flat; returns its structure (index or nested list)."""
    if isinstance(out, Tensor):
        flat.append(out)
        return len(flat) - 1
    if isinstance(out, (tuple, list)):
        return [_flatten(o, flat) for o in out]
    raise TypeError(
        "ember.jit.trace: only tensors and (nested) tuples or lists of tensors can be output "
        f"from traced functions, got {type(out).__name__}")


def _unflatten(structure, flat):
    if isinstance(structure, int):
        return flat[structure]
    return tuple(_unflatten(s, flat) for s in structure)


def _flatten_input(x, flat, where):
    """Appends the tensors of one (nested) input to flat; returns its structure."""
    if isinstance(x, Tensor):
        flat.append(x)
        return len(flat) - 1
    if isinstance(x, (tuple, list)):
        return [_flatten_input(item, flat, f"{where}[{i}]") for i, item in enumerate(x)]
    raise TypeError(f"ember.jit.trace: {where} must be a Tensor or a (nested) tuple or list of "
                    f"tensors, got {type(x).__name__}")


def _nested_inputs(structure, flat):
    """The call's arguments from the flat tensors and _as_inputs's structure."""
    return tuple(_unflatten(s, flat) for s in structure)


def _as_inputs(example_inputs):
    """(the inputs as the function takes them, the graph's flat tensor inputs, the nest
    structure): trace(f, (x, (h, c))) calls f(x, (h, c)) and gives the graph inputs
    x, h, c."""
    inputs = (example_inputs,) if isinstance(example_inputs, Tensor) else tuple(example_inputs)
    flat = []
    structure = [_flatten_input(x, flat, f"example input {i}") for i, x in enumerate(inputs)]
    return inputs, flat, structure


class TracedModule(ScriptModule):
    """A traced graph with its parameters: callable like the module it came from."""

    def __init__(self, c_module, name="TracedModule", input_structure=None):
        self._c = c_module
        self._name = name
        # How the call's arguments nest (None: each argument is one tensor, as in a loaded
        # model file, which keeps only the graph's flat inputs).
        self._input_structure = input_structure
        self.training = False
        structure = c_module.graph.output_structure
        self._structure = json.loads(structure) if structure else 0

    @property
    def graph(self):
        """The graph (prints as an SSA listing; .nodes(), .values() to inspect)."""
        return self._c.graph

    @property
    def code(self):
        return str(self._c.graph)

    def forward(self, *inputs):
        flat = list(inputs)
        if self._input_structure is not None:
            _, flat, structure = _as_inputs(inputs)
            if structure != self._input_structure:
                raise TypeError(f"{self._name}: the inputs nest as {structure}, the trace's as "
                                f"{self._input_structure} (indices of the tensors)")
        return _unflatten(self._structure, self._c.forward(flat))

    __call__ = forward

    def named_parameters(self):
        return iter(self._c.named_parameters().items())

    def parameters(self):
        return iter(self._c.named_parameters().values())

    def state_dict(self):
        return OrderedDict(sorted(self._c.named_parameters().items()))

    def to(self, device):
        self._c.to(device)
        return self

    def cuda(self, device="cuda"):
        return self.to(device)

    def cpu(self):
        return self.to("cpu")

    @property
    def device(self):
        return self._c.device

    def eval(self):
        """The trace has fixed the mode it ran in; kept for nn.Module's interface."""
        return self

    def train(self, mode=True):
        return self

    def run_pass(self, name):
        """Runs one graph pass ('dce', 'constant_folding', 'cse', or 'freeze': parameters
        and buffers become constants and what depends on them alone is folded) in place;
        returns the number of nodes it removed, folded or merged (parameters frozen)."""
        return self._c.run_pass(name)

    def save(self, path):
        """Writes the model file (graph + weights, safetensors layout) atomically."""
        self._c.save(str(path))

    def __repr__(self):
        params = ", ".join(f"{k}: {tuple(v.shape)}" for k, v in self._c.named_parameters().items())
        return f"{self._name}(traced, {len(self._c.graph.nodes())} ops; {params})"


def _check_trace(traced, inputs, expected, tolerance, what="the example inputs"):
    import warnings

    if traced.graph.has_random_nodes():
        warnings.warn("ember.jit.trace: the trace has nondeterministic nodes (random ops, "
                      "dropout in training mode); check_trace skipped the comparison",
                      TracerWarning, stacklevel=3)
        return
    import numpy as np

    try:
        got = traced._c.forward(list(inputs))
    except RuntimeError as e:  # a guard: the inputs' sizes are not ones the graph accepts
        raise TracingCheckError(f"ember.jit.trace: the traced graph cannot run on {what}: {e}") from e
    for i, (g, e) in enumerate(zip(got, expected)):
        same = g.shape == e.shape and g.dtype == e.dtype
        if same and g.numel():
            a, b = g.detach().cpu(), e.detach().cpu()
            if a.is_floating_point():
                a, b = a.double(), b.double()
            same = np.allclose(a.numpy(), b.numpy(), rtol=tolerance, atol=tolerance,
                               equal_nan=True)
        if not same:
            raise TracingCheckError(
                f"ember.jit.trace: output {i} of the traced graph differs from the traced "
                f"function's on {what} (shape {tuple(g.shape)} vs {tuple(e.shape)}). "
                "The function probably depends on Python values or control flow the trace baked "
                "in (see the TracerWarnings).")


def _record(func, inputs, flat_inputs, params):
    """One trace of func(*inputs): the C++ module and func's flat outputs."""
    _jit._begin_trace(flat_inputs, params)
    try:
        out = func(*inputs)
        flat = []
        structure = _flatten(out, flat)
    except BaseException:
        _jit._abort_trace()
        raise
    return _jit._end_trace(flat, json.dumps(structure)), flat


def _kwargs_as_positional(func, example_kwarg_inputs):
    """torch.jit.trace's example_kwarg_inputs: the call's keyword inputs put in the
    positions of forward's signature (the graph's inputs are positional)."""
    import inspect
    target = func.forward if hasattr(func, "forward") else func
    names = [n for n, p in inspect.signature(target).parameters.items()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    unknown = sorted(set(example_kwarg_inputs) - set(names))
    if unknown:
        raise ValueError(f"ember.jit.trace: example_kwarg_inputs names {unknown}, which forward "
                         f"does not take (its arguments: {names})")
    last = max(names.index(k) for k in example_kwarg_inputs)
    missing = [n for n in names[:last + 1] if n not in example_kwarg_inputs]
    if missing:
        raise ValueError(f"ember.jit.trace: example_kwarg_inputs must give every argument up to "
                         f"the last one given; missing {missing}")
    return tuple(example_kwarg_inputs[n] for n in names[:last + 1])


def trace(func, example_inputs=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          optimize=True, dynamic_shapes=None, *, strict=True, example_kwarg_inputs=None):
    """Runs func (a Module or a function of tensors) on example_inputs and records
    the ops it runs. Returns a TracedModule. ``optimize`` runs constant folding,
    common-subexpression elimination and dead-code elimination on the graph;
    ``check_trace`` runs the graph on the example inputs, and on each tuple of
    ``check_inputs``, and compares with func's results (raising TracingCheckError
    when they differ: the trace baked in a value or a branch).

    ``dynamic_shapes`` (as torch.export's) makes input dims dynamic: a dict from
    forward's argument names, or a tuple with one entry per input, of ``{dim: Dim}``::

        batch = ember.jit.Dim("batch", min=1, max=4096)
        traced = ember.jit.trace(model, x, dynamic_shapes={"x": {0: batch}})

    The graph then runs at any size in the Dim's range, checks on every call that the
    inputs fit (a clear error otherwise), and keeps every size that follows the dynamic
    dims as an expression of them (docs/jit.md, "Dynamic shapes"). Without it, the
    graph accepts only the traced sizes.

    torch.jit.trace's example_kwarg_inputs (a dict of forward's arguments by name) is
    accepted in place of example_inputs; strict is accepted (outputs are tensors or
    tuples/lists of them either way)."""
    from ..nn import Module

    if example_kwarg_inputs is not None:
        if example_inputs is not None:
            raise ValueError("ember.jit.trace: give example_inputs or example_kwarg_inputs, not both")
        if not isinstance(example_kwarg_inputs, dict) or not example_kwarg_inputs:
            raise TypeError("ember.jit.trace: example_kwarg_inputs must be a non-empty dict")
        example_inputs = _kwargs_as_positional(func, example_kwarg_inputs)
    if example_inputs is None:
        raise TypeError("ember.jit.trace() missing its example_inputs")
    if optimize is None:  # torch's deprecated default
        optimize = True

    inputs, flat_inputs, input_structure = _as_inputs(example_inputs)
    params = []
    name = getattr(func, "__name__", "TracedModule")
    if isinstance(func, Module):
        params = list(func.named_parameters()) + list(func.named_buffers())
        name = type(func).__name__
    dims = None
    if dynamic_shapes is not None:
        specs = _dynamic_shapes.flat_dim_specs(dynamic_shapes, func, inputs)
        symbols, input_dims = _dynamic_shapes.symbols_of(specs, flat_inputs)
        dims = (symbols, input_dims) if symbols else None
    traced_c, flat = _record(func, inputs, flat_inputs, params)
    if dims is not None:
        def trace_at(flat_at):
            return _record(func, _nested_inputs(input_structure, flat_at), flat_at, params)[0]

        state = _dynamic_shapes.SavedState(func if isinstance(func, Module) else None)
        traced_c = _dynamic_shapes.fit(trace_at, traced_c, flat_inputs, *dims, state)
    nested = any(not isinstance(s, int) for s in input_structure)
    traced = TracedModule(traced_c, name, input_structure if nested else None)
    if optimize:
        for p in ("constant_folding", "cse", "dce"):
            traced.run_pass(p)
    if check_trace:
        _check_trace(traced, flat_inputs, flat, check_tolerance)
        for k, other in enumerate(check_inputs or ()):
            other, other_flat, _ = _as_inputs(other)
            expected = []
            _flatten(func(*other), expected)
            _check_trace(traced, other_flat, expected, check_tolerance, f"check_inputs[{k}]")
    return traced


TopLevelTracedModule = TracedModule


def trace_module(mod, inputs, check_trace=True, check_inputs=None, check_tolerance=1e-5,
                 optimize=True, **kwargs):
    """torch.jit.trace_module's form: inputs maps method names to their example inputs.
    ember traces forward only."""
    if not isinstance(inputs, dict) or not inputs:
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    unknown = sorted(set(inputs) - {"forward"})
    if unknown:
        raise NotImplementedError(f"ember.jit.trace_module: only 'forward' can be traced, got "
                                  f"{unknown}")
    return trace(mod, inputs["forward"], check_trace=check_trace, check_inputs=check_inputs,
                 check_tolerance=check_tolerance, optimize=optimize)


def _is_file_like(f):
    return not isinstance(f, (str, bytes)) and not hasattr(f, "__fspath__")


def load(path, map_location=None):
    """Reads a model file written by TracedModule.save (or ember::jit::Module::save), from
    a path or, as torch.jit.load, a binary file-like object (io.BytesIO, an open file).
    Safe on files from anywhere: nothing in it runs, everything is checked."""
    import os
    import tempfile

    if _is_file_like(path):
        if not hasattr(path, "read"):
            raise TypeError(f"ember.jit.load: expected a path or a file-like object, got "
                            f"{type(path).__name__}")
        # The C++ reader maps a file: the bytes go through a private temporary one.
        with tempfile.TemporaryDirectory() as folder:
            name = os.path.join(folder, "model")
            with open(name, "wb") as out:
                out.write(path.read())
            return TracedModule(_jit.load(name, map_location))
    # torch.jit.load's errors for a path that is not a file.
    if not os.path.exists(path):
        raise ValueError(f"The provided filename {path} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"The provided filename {path} is a directory")
    return TracedModule(_jit.load(str(path), map_location))


def save(module, path):
    """torch.jit.save's form of module.save(path); path may also be a binary file-like
    object (io.BytesIO, an open file), written at its position as torch.jit.save does."""
    import os
    import tempfile

    if not isinstance(module, TracedModule):
        raise TypeError(f"ember.jit.save: expected a TracedModule, got {type(module).__name__}")
    if not _is_file_like(path):
        module.save(path)
        return
    if not hasattr(path, "write"):
        raise TypeError(f"ember.jit.save: expected a path or a file-like object, got "
                        f"{type(path).__name__}")
    with tempfile.TemporaryDirectory() as folder:
        name = os.path.join(folder, "model")
        module.save(name)
        with open(name, "rb") as written:
            path.write(written.read())
