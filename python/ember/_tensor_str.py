"""The printed form of a tensor: the same text PyTorch prints (torch/_tensor_str.py),
with 'ember' for 'torch'. The values are read once as a numpy array (zero-copy on
the CPU) and formatted from there, with PyTorch's rules:

- floats get `precision` decimals, integers and bools print as Python does;
- a float tensor whose finite values are all integral prints as `1.` (int mode);
- scientific notation when the nonzero finite magnitudes span more than 1000x,
  or reach 1e8, or go below 1e-4 (unless sci_mode says otherwise);
- all elements are right-aligned to one width, lines wrap at `linewidth`;
- more than `threshold` elements are summarized with '...', keeping `edgeitems`
  at each end of each dim;
- suffixes for a dtype other than the defaults, a non-CPU device, requires_grad.
"""
import contextlib
import dataclasses
import math
import numbers
from typing import Any, Optional

import numpy as np


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: Optional[bool] = None


PRINT_OPTS = _PrintOptions()

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"set_printoptions: {name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"set_printoptions: {name} must be >= {minimum}, got {value}")


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Sets the options for printing tensors, as torch.set_printoptions does.

    precision: digits after the decimal point (default 4); threshold: number of
    elements above which a tensor is summarized (default 1000); edgeitems: items
    kept at each end of a summarized dim (default 3); linewidth: characters per
    line (default 80); profile: 'default', 'short' or 'full'; sci_mode: True or
    False forces scientific notation on or off, None (the default, also when not
    given) lets the values decide.
    """
    if profile is not None and profile not in _PROFILES:
        raise ValueError(f"set_printoptions: profile must be one of {sorted(_PROFILES)}, "
                         f"got {profile!r}")
    if precision is not None:
        _check_int("precision", precision, 0)
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
            raise TypeError(f"set_printoptions: threshold must be a number, got "
                            f"{type(threshold).__name__}")
        if not threshold >= 0:
            raise ValueError(f"set_printoptions: threshold must be >= 0, got {threshold}")
    if edgeitems is not None:
        _check_int("edgeitems", edgeitems, 0)
    if linewidth is not None:
        _check_int("linewidth", linewidth, 1)
    if sci_mode is not None and not isinstance(sci_mode, bool):
        raise TypeError(f"set_printoptions: sci_mode must be None, True or False, got "
                        f"{type(sci_mode).__name__}")

    if profile is not None:
        for key, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, key, value)
    if precision is not None:
        PRINT_OPTS.precision = int(precision)
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = int(edgeitems)
    if linewidth is not None:
        PRINT_OPTS.linewidth = int(linewidth)
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options, as keywords for set_printoptions()."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Changes the print options inside a `with` block."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """Picks one format and width for all the values that will be printed."""

    def __init__(self, values, floating):
        self.floating_dtype = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if flat.size == 0:
            return
        if not floating:
            if flat.dtype == np.bool_:
                self.max_width = 5 if not flat.all() else 4
            else:  # the widest of all is the widest of the two extremes
                self.max_width = max(len(str(flat.max())), len(str(flat.min())))
            return
        flat = flat.astype(np.float64)  # exact for every ember float type
        nonzero_finite = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite.size == 0:
            return
        magnitudes = np.abs(nonzero_finite)
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = bool(largest / smallest > 1000.0 or largest > 1.0e8
                                 or smallest < 1.0e-4)
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        precision = PRINT_OPTS.precision
        if self.sci_mode:
            widths = (len(f"{v:.{precision}e}") for v in nonzero_finite.tolist())
        elif self.int_mode:  # "3." : one more for the decimal point
            widths = (len(f"{v:.0f}") + 1 for v in nonzero_finite.tolist())
        else:
            widths = (len(f"{v:.{precision}f}") for v in nonzero_finite.tolist())
        self.max_width = max(self.max_width, max(widths))

    def width(self):
        return self.max_width

    def format(self, value):
        if self.floating_dtype:
            precision = PRINT_OPTS.precision
            if self.sci_mode:
                text = f"{value:{self.max_width}.{precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{precision}f}"
        else:
            text = f"{value}"
        return (self.max_width - len(text)) * " " + text


def _vector_str(values, indent, summarize, formatter):
    element_length = formatter.width() + 2  # with ", "
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and values.shape[0] > 2 * edge:
        data = ([formatter.format(v) for v in values[:edge].tolist()] + [" ..."]
                + [formatter.format(v) for v in values[-edge:].tolist()])
    else:
        data = [formatter.format(v) for v in values.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(values, indent, summarize, formatter):
    dim = values.ndim
    if dim == 0:
        return formatter.format(values.item())
    if dim == 1:
        return _vector_str(values, indent, summarize, formatter)
    edge = PRINT_OPTS.edgeitems
    n = values.shape[0]
    if summarize and n > 2 * edge:
        rows = list(range(edge)) + [None] + list(range(n - edge, n))
    else:
        rows = range(n)
    slices = ["..." if i is None else
              _tensor_str_with_formatter(values[i], indent + 1, summarize, formatter)
              for i in rows]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized_data(values):
    """The values that a summarized print shows (what the formatter measures)."""
    dim = values.ndim
    edge = PRINT_OPTS.edgeitems
    if dim == 0:
        return values
    if dim == 1:
        if values.shape[0] > 2 * edge:
            return np.concatenate((values[:edge], values[-edge:]))
        return values
    if not edge:
        return np.empty([0] * dim, dtype=values.dtype)
    n = values.shape[0]
    rows = list(range(edge)) + list(range(n - edge, n)) if n > 2 * edge else range(n)
    return np.stack([_summarized_data(values[i]) for i in rows])


def _as_numpy(tensor):
    """The values of a tensor as a numpy array (bfloat16 widened to float32, exactly)."""
    t = tensor.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if str(t.dtype) == "ember.bfloat16":
        t = t.float()
    return t.numpy()


def _tensor_str(tensor, indent):
    if tensor.numel() == 0:
        return "[]"
    summarize = tensor.numel() > PRINT_OPTS.threshold
    values = _as_numpy(tensor)
    formatter = _Formatter(_summarized_data(values) if summarize else values,
                           tensor.dtype.is_floating_point)
    return _tensor_str_with_formatter(values, indent, summarize, formatter)


def _add_suffixes(tensor_str, suffixes, indent, force_newline):
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
            force_newline = False
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _grad_fn_name(tensor):
    grad_fn = getattr(tensor, "grad_fn", None)
    if grad_fn is None:
        return None
    name = getattr(grad_fn, "name", None)
    return name() if callable(name) else type(grad_fn).__name__


def _str(self):
    """repr(tensor) and str(tensor)."""
    from . import _C  # the dtypes, without importing the package at module load

    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if self.device.type != "cpu":
        suffixes.append("device='" + str(self.device) + "'")
    default_dtype = _C.get_default_dtype()
    if self.numel() == 0:
        if self.dim() != 1:  # the shape says more than "[]"
            suffixes.append("size=" + str(tuple(self.shape)))
        if self.dtype != default_dtype:  # no value tells the dtype
            suffixes.append("dtype=" + str(self.dtype))
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(self.shape)))
        if self.dtype not in (default_dtype, _C.int64, _C.bool):
            suffixes.append("dtype=" + str(self.dtype))
        tensor_str = _tensor_str(self, indent)
    grad_fn = _grad_fn_name(self)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif self.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + tensor_str, suffixes, indent, force_newline=False)
