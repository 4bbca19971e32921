"""The op database's entries: OpInfo (one per schema row), its sample inputs, and the
helpers that build the same inputs for ember and for PyTorch.

An OpInfo says how to call the op through its public API with either library as
`m` (`fn(m, *args, **kwargs)`, where `m` is the `ember` or the `torch` module: ember
has PyTorch's names, so one lambda serves both), which dtypes it claims, how to make
sample inputs for a dtype, its bad inputs, and which checks apply. test_opdb.py walks
every entry; test_opdb_coverage checks that every schema row has one.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

import ember

# ---- dtypes --------------------------------------------------------------------------

FLOAT = ("float32", "float64")
HALF = ("float16", "bfloat16")
FLOATING = FLOAT + HALF
SIGNED = ("int8", "int16", "int32", "int64")
INTEGRAL = ("uint8",) + SIGNED
ALL = FLOATING + INTEGRAL
ALL_AND_BOOL = ALL + ("bool",)

# Default tolerances per dtype: (rtol, atol), against PyTorch on the same inputs.
TOLERANCES = {
    "float64": (1e-7, 1e-7),
    "float32": (1.3e-6, 1e-5),
    "float16": (1e-3, 1e-3),
    "bfloat16": (1.6e-2, 1e-2),
}


def dtype_of(lib, name: str):
    return getattr(lib, name)


def is_float(name: str) -> bool:
    return name in FLOATING


# ---- sample inputs -------------------------------------------------------------------

@dataclass
class T:
    """A tensor argument: values (a numpy array, float64 or the dtype's numpy type),
    the dtype to make it in, and its layout. noncontig: the same values in a strided
    layout (every other element of a larger buffer). grad: whether it takes part in
    gradient checks (float inputs only)."""
    values: np.ndarray
    dtype: str
    noncontig: bool = False
    grad: bool = True


@dataclass
class Sample:
    args: tuple
    kwargs: dict = field(default_factory=dict)
    name: str = ""

    def describe(self) -> str:
        def d(a):
            if isinstance(a, T):
                return f"{a.dtype}{list(a.values.shape)}" + ("(strided)" if a.noncontig else "")
            if isinstance(a, (list, tuple)) and any(isinstance(x, T) for x in a):
                return "[" + ", ".join(d(x) for x in a) + "]"
            return repr(a)
        parts = [d(a) for a in self.args] + [f"{k}={d(v)}" for k, v in self.kwargs.items()]
        return f"{self.name or 'sample'}({', '.join(parts)})"


@dataclass
class ErrorCase:
    """A bad call: sample args and the exception type it must raise (PyTorch's type;
    the test checks that torch raises it too unless torch_raises is False)."""
    sample: Sample
    error: type
    match: str | None = None
    torch_raises: bool = True


def make_values(rng: np.random.Generator, shape, dtype: str, low=-3.0, high=3.0) -> np.ndarray:
    """Random values for a tensor of dtype: floats in [low, high), integers in the
    dtype's range clipped to [low, high], bools half true."""
    shape = tuple(shape)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in INTEGRAL:
        lo = max(low, 0 if dtype == "uint8" else -128)
        hi = min(high, 127)
        return rng.integers(int(np.floor(lo)), int(np.floor(hi)) + 1, size=shape).astype(np.int64)
    return rng.uniform(low, high, size=shape)


def to_lib(lib, a: T, device: str = "cpu", requires_grad: bool = False):
    """The tensor a in lib (ember or torch) on device."""
    values = np.asarray(a.values)
    base = lib.from_numpy(np.array(values, copy=True))
    t = base.to(dtype_of(lib, a.dtype))
    if device != "cpu":
        t = t.to(device)
    if a.noncontig and t.dim() > 0 and t.numel() > 1:  # strided on the device too
        big = lib.zeros(tuple(t.shape[:-1]) + (t.shape[-1] * 2,), dtype=t.dtype, device=device)
        view = big[..., ::2]
        view.copy_(t)
        t = view
    if requires_grad:
        t.requires_grad_(True)
    return t


def build(lib, value: Any, device: str = "cpu", grad: bool = False):
    """Turns a sample argument into lib's: T -> tensor, lists/tuples element-wise, a
    dtype name wrapped in Dtype -> lib's dtype; anything else as it is."""
    if isinstance(value, T):
        return to_lib(lib, value, device, grad and value.grad and is_float(value.dtype))
    if isinstance(value, Dtype):
        return dtype_of(lib, value.name)
    if isinstance(value, list):
        return [build(lib, v, device, grad) for v in value]
    if isinstance(value, tuple):
        return tuple(build(lib, v, device, grad) for v in value)
    if isinstance(value, dict):
        return {k: build(lib, v, device, grad) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Dtype:
    """A dtype argument (dtype=...), by name."""
    name: str


def layouts(rng, shapes: Iterable, dtype: str, low=-3.0, high=3.0, **kw) -> list:
    """Sample argument lists for shapes (a list of per-argument shapes): each shape set
    contiguous, and strided where any argument has more than one element."""
    out = []
    for shape_set in shapes:
        vals = [make_values(rng, s, dtype, low, high) for s in shape_set]
        out.append(tuple(T(v, dtype) for v in vals))
        if any(int(np.prod(s)) > 1 for s in shape_set):
            out.append(tuple(T(v, dtype, noncontig=True) for v in vals))
    return out


# The standard shape sets: a matrix, 0-dim, empty, a 3-d tensor.
UNARY_SHAPES = [[(3, 4)], [()], [(0, 3)], [(2, 3, 2)]]
# Binary: same shapes, broadcast both ways, 0-dim with a tensor, empty.
BINARY_SHAPES = [[(3, 4), (3, 4)], [(3, 1), (1, 4)], [(2, 3, 4), (4,)], [(), (3, 2)],
                 [(3, 2), ()], [(0, 4), (1, 4)], [(), ()]]


def unary_samples(low=-3.0, high=3.0, shapes=UNARY_SHAPES, **kwargs):
    def make(dtype, rng):
        return [Sample(args, dict(kwargs)) for args in layouts(rng, shapes, dtype, low, high)]
    return make


def binary_samples(low=-3.0, high=3.0, shapes=BINARY_SHAPES, low2=None, high2=None, **kwargs):
    def make(dtype, rng):
        out = []
        for args in layouts(rng, shapes, dtype, low, high):
            if low2 is not None or high2 is not None:
                b = args[1]
                args = (args[0], T(make_values(rng, b.values.shape, dtype,
                                               low if low2 is None else low2,
                                               high if high2 is None else high2), dtype, b.noncontig))
            out.append(Sample(args, dict(kwargs)))
        return out
    return make


# ---- the entry ------------------------------------------------------------------------

@dataclass
class OpInfo:
    """One op database row. name: the schema row it covers (several OpInfos may cover
    one row, e.g. different public functions reaching it)."""
    name: str
    fn: Callable                          # fn(m, *args, **kwargs) with m = ember or torch
    samples: Callable                     # samples(dtype, rng) -> list[Sample]
    dtypes: tuple = FLOAT
    ref: Callable | None = None           # torch's call when it differs from fn(torch, ...)
    variant: str = ""                     # a label when several OpInfos cover one row
    grad: bool = True                     # differentiable: compare gradients with torch
    gradcheck: bool = True                # also finite differences (gradcheck, gradgradcheck)
    gradgrad: bool = True
    inplace: Callable | None = None       # inplace(m, *args, **kwargs): the x.op_() form
    out: bool = False                     # takes out=
    trace: bool = True                    # trace, save, load and run against eager
    onnx: bool = False                    # export to ONNX and run with onnxruntime
    errors: Callable | None = None        # errors(rng) -> list[ErrorCase]
    tol: dict = field(default_factory=dict)  # dtype -> (rtol, atol) overrides
    nondeterministic: bool = False        # outputs that may differ run to run (random ops):
    compare: Callable | None = None       # compare(ember_out, torch_out, dtype) instead of values
    devices: tuple = ("cpu", "cuda")      # devices it runs on
    # device -> the dtypes its kernels take, when fewer than `dtypes` (cuBLAS and cuDNN
    # have no integer kernels): the others must raise NotImplementedError there.
    device_dtypes: dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.name + (f"[{self.variant}]" if self.variant else "")

    def dtypes_on(self, device: str) -> tuple:
        return self.device_dtypes.get(device, self.dtypes)

    def tolerance(self, dtype: str):
        return self.tol.get(dtype, TOLERANCES.get(dtype, (0, 0)))

    def replace(self, **changes) -> "OpInfo":
        return dataclasses.replace(self, **changes)
