"""Dynamic shapes for ember.jit.trace (docs/jit.md, "Dynamic shapes").

``dynamic_shapes`` names input dims as symbols (:class:`Dim`). The function is traced
at the example sizes and again at a fixed design of other sizes (the dynamic dims
moved by a step; the inputs' data tiled to the new sizes, so token ids and masks stay
valid); the C++ fit (lib/jit/symbolic_fit.cpp) then finds every size and integer
attribute that follows the symbols as a polynomial of them, and the graph keeps those
expressions and the guards a call must pass. A trace that fails at another size tells
that the model specializes the dim: the error names the line that failed."""
import os
import traceback
import warnings

from .. import _C

_jit = _C._jit
_INT64_MAX = 2 ** 63 - 1
_STEPS = (1, 2, 4, 8, 16)  # a step above 1 is tried when shape logic divides a size


class _Hint:
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"Dim.{self._name}"


class Dim:
    """A dynamic size of an input dim, as ``torch.export.Dim``::

        batch = ember.jit.Dim("batch", min=1, max=4096)
        ember.jit.trace(model, x, dynamic_shapes={"x": {0: batch}})

    Dims with one name are one size: the graph checks on every call that they are
    equal. ``Dim.AUTO`` and ``Dim.DYNAMIC`` make a dim dynamic under a name of its own;
    ``Dim.STATIC`` (or None) keeps it at the traced size."""

    AUTO = _Hint("AUTO")
    DYNAMIC = _Hint("DYNAMIC")
    STATIC = _Hint("STATIC")

    def __init__(self, name, *, min=None, max=None):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"Dim: the name must be a Python identifier, got {name!r}")
        lo = 0 if min is None else min
        hi = _INT64_MAX if max is None else max
        for what, v in (("min", lo), ("max", hi)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"Dim {name!r}: {what} must be an int, got {type(v).__name__}")
        if lo < 0 or hi < lo:
            raise ValueError(f"Dim {name!r}: the range [{lo}, {hi}] is empty or negative")
        self.__name__ = name
        self.min, self.max = lo, hi

    def __repr__(self):
        hi = "inf" if self.max == _INT64_MAX else self.max
        return f"Dim({self.__name__!r}, min={self.min}, max={hi})"

    def _derived(self, *_):
        raise TypeError(f"Dim {self.__name__!r}: derived dims (2 * dim, dim + 1) are not "
                        "supported; give the input dim a Dim of its own")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __floordiv__ = _derived


def _dims_of(spec, tensor, where):
    """{dim: Dim or hint} for one tensor input's spec."""
    if spec is None:
        return {}
    ndim = tensor.dim()
    if isinstance(spec, dict):
        items = spec.items()
    elif isinstance(spec, (list, tuple)):
        if len(spec) != ndim:
            raise ValueError(f"ember.jit.trace: dynamic_shapes for {where} has {len(spec)} entries, "
                             f"but the input has {ndim} dims")
        items = enumerate(spec)
    else:
        raise TypeError(f"ember.jit.trace: dynamic_shapes for {where} must be None, a dict "
                        f"{{dim: Dim}} or a list of Dim/None per dim, got {type(spec).__name__}")
    dims = {}
    for d, dim in items:
        if not isinstance(d, int) or not -ndim <= d < ndim:
            raise ValueError(f"ember.jit.trace: dynamic_shapes for {where} names dim {d!r}, but "
                             f"the input has {ndim} dims (shape {list(tensor.shape)})")
        if dim is None or dim is Dim.STATIC:
            continue
        if not isinstance(dim, (Dim, _Hint)):
            raise TypeError(f"ember.jit.trace: dynamic_shapes for {where} dim {d}: expected a "
                            f"Dim, Dim.AUTO/DYNAMIC/STATIC or None, got {type(dim).__name__}")
        dims[d % ndim] = dim
    return dims


def _walk(spec, x, where, out):
    from .._C import Tensor
    if isinstance(x, Tensor):
        out.append(_dims_of(spec, x, where))
        return
    if spec is not None and (not isinstance(spec, (list, tuple)) or len(spec) != len(x)):
        raise ValueError(f"ember.jit.trace: dynamic_shapes for {where} must be None or a "
                         f"list of {len(x)} entries, as the input nests")
    for i, item in enumerate(x):
        _walk(None if spec is None else spec[i], item, f"{where}[{i}]", out)


def flat_dim_specs(dynamic_shapes, func, inputs):
    """The dynamic dims of each flat tensor input: a list of {dim: Dim or hint}."""
    if isinstance(dynamic_shapes, dict):
        import inspect
        target = func.forward if hasattr(func, "forward") else func
        names = list(inspect.signature(target).parameters)
        by_position = [None] * len(inputs)
        for key, spec in dynamic_shapes.items():
            if key not in names or names.index(key) >= len(inputs):
                raise ValueError(f"ember.jit.trace: dynamic_shapes names {key!r}, which is not "
                                 f"one of the traced arguments {names[:len(inputs)]}")
            by_position[names.index(key)] = spec
        specs = by_position
    elif isinstance(dynamic_shapes, (list, tuple)):
        if len(dynamic_shapes) != len(inputs):
            raise ValueError(f"ember.jit.trace: dynamic_shapes has {len(dynamic_shapes)} entries "
                             f"for {len(inputs)} example inputs")
        specs = list(dynamic_shapes)
    else:
        raise TypeError(f"ember.jit.trace: dynamic_shapes must be a dict (argument name -> "
                        f"spec) or a tuple (one spec per input), got {type(dynamic_shapes).__name__}")
    out = []
    for i, (spec, x) in enumerate(zip(specs, inputs)):
        _walk(spec, x, f"input {i}", out)
    return out


def symbols_of(dim_specs, flat_inputs):
    """(symbols as (name, min, max, traced), per flat input per dim the symbol or -1)."""
    symbols, index, where = [], {}, {}
    input_dims = []
    for i, (dims, x) in enumerate(zip(dim_specs, flat_inputs)):
        row = [-1] * x.dim()
        for d, dim in sorted(dims.items()):
            size = x.shape[d]
            if isinstance(dim, _Hint):
                dim = Dim(f"s{len(symbols)}")
            name = dim.__name__
            if name in index:
                k = index[name]
                _, lo, hi, traced = symbols[k]
                if (lo, hi) != (dim.min, dim.max):
                    raise ValueError(f"ember.jit.trace: two Dims named {name!r} have different "
                                     f"ranges")
                if traced != size:
                    raise ValueError(f"ember.jit.trace: {where[name]} and input {i} dim {d} are both "
                                     f"the dynamic size {name}, but the example inputs have "
                                     f"{traced} and {size} there")
            else:
                if size < 2:
                    raise ValueError(
                        f"ember.jit.trace: input {i} dim {d} is the dynamic size {name}, but the "
                        f"example input has size {size} there: trace with a size of 2 or more "
                        f"(a size of 0 or 1 is special to broadcasting, so a trace at it cannot "
                        f"tell how the model treats other sizes; the graph still accepts "
                        f"{name} down to min={dim.min})")
                if not dim.min <= size <= dim.max:
                    raise ValueError(f"ember.jit.trace: input {i} dim {d} has size {size}, "
                                     f"outside the range of its {dim!r}")
                index[name] = len(symbols)
                where[name] = f"input {i} dim {d}"
                symbols.append((name, dim.min, dim.max, size))
            row[d] = index[name]
        input_dims.append(row)
    return symbols, input_dims


def _resized(x, sizes):
    """x with each dim of `sizes` (dim -> n) cut or tiled to n: tiling repeats the data,
    so the values stay what a model expects (token ids, masks)."""
    import ember
    with ember.no_grad():
        for d, n in sizes.items():
            have = x.shape[d]
            if n > have:
                x = ember.cat([x] * (-(-n // have)), d)
            x = x.narrow(d, 0, n)
        x = x.clone()
    return x


def _user_line(exc):
    """"file:line (source)" of the innermost frame outside ember of exc's traceback."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not os.path.abspath(f.filename).startswith(package + os.sep)]
    if not frames:
        return None
    f = frames[-1]
    return f"{f.filename}:{f.lineno}" + (f" ({f.line.strip()})" if f.line else "")


def _steps_for(symbols, h):
    """Each symbol's step at size h: upwards within its range, else downwards within it,
    else upwards past its max (the extra traces only show the shape logic; the graph
    still accepts only the range)."""
    steps = []
    for name, lo, hi, traced in symbols:
        if traced + 5 * h <= hi or traced - 5 * h < max(lo, 2):
            steps.append(h)
        else:
            steps.append(-h)
    return steps


class _Trials:
    """The traces at the design's points for one step size."""

    def __init__(self, trace_at, symbols, flat_inputs, input_dims, base):
        self.trace_at, self.symbols = trace_at, symbols
        self.flat_inputs, self.input_dims, self.base = flat_inputs, input_dims, base

    def run(self, steps):
        points = _jit._fit_points(self.symbols, steps)
        traces = [self.base]
        for point in points[1:]:
            flat = []
            for x, row in zip(self.flat_inputs, self.input_dims):
                sizes = {d: point[s] for d, s in enumerate(row) if s >= 0}
                flat.append(_resized(x, sizes) if sizes else x)
            try:
                traces.append(self.trace_at(flat))
            except Exception as e:  # noqa: BLE001 - reported with the point it failed at
                return None, (point, e)
        try:
            return _jit._fit_symbolic(traces, self.symbols, steps, self.input_dims), None
        except ValueError as e:
            return None, (None, e)


def _failure(symbols, failure):
    point, exc = failure
    if point is None:
        return exc
    moved = [f"{name}={v} (instead of {traced})"
             for (name, _, _, traced), v in zip(symbols, point) if v != traced]
    line = _user_line(exc)
    return ValueError(
        f"ember.jit.trace: the model specializes a dynamic size: tracing with "
        f"{', '.join(moved)} failed" + (f" at {line}" if line else "") +
        f": {type(exc).__name__}: {exc}. That code needs the traced size: make the dim static "
        f"(remove it from dynamic_shapes) or change the code")


def fit(trace_at, base, flat_inputs, symbols, input_dims, state):
    """The base trace made symbolic. trace_at(flat_inputs) traces once; `state` saves and
    restores what extra traces would change (buffers, the RNG)."""
    trials = _Trials(trace_at, symbols, flat_inputs, input_dims, base)
    first = None
    with state, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the example's trace already warned
        for h in _STEPS:
            steps = _steps_for(symbols, h)
            fitted, failure = trials.run(steps)
            if fitted is not None:
                return fitted
            first = first or failure
    raise _failure(symbols, first)


class SavedState:
    """Keeps a module's buffers and the RNG as they were around the extra traces."""

    def __init__(self, module):
        self.module = module

    def __enter__(self):
        import ember
        self.rng = ember.get_rng_state()
        self.buffers = []
        if self.module is not None:
            with ember.no_grad():
                self.buffers = [(b, b.clone()) for _, b in self.module.named_buffers()]
        return self

    def __exit__(self, *exc):
        import ember
        with ember.no_grad():
            for b, saved in self.buffers:
                b.copy_(saved)
        ember.set_rng_state(self.rng)
        return False
