"""Op database entries of the elementwise group (lib/dispatch/schema/elementwise.toml)."""
from .opinfo import (ALL, FLOAT, FLOATING, ErrorCase, OpInfo, Sample, T, binary_samples,
                     unary_samples)

OPS = [
    OpInfo("neg", lambda m, x: m.neg(x), unary_samples(), dtypes=FLOATING + ("int32", "int64"),
           inplace=lambda m, x: x.neg_(), onnx=True),
    OpInfo("exp", lambda m, x: m.exp(x), unary_samples(), dtypes=FLOATING,
           inplace=lambda m, x: x.exp_(), onnx=True),
    OpInfo("add", lambda m, x, y: m.add(x, y), binary_samples(), dtypes=ALL,
           inplace=lambda m, x, y: x.add_(y), onnx=True),
    OpInfo("add", lambda m, x, y: m.add(x, y, alpha=2), binary_samples(), dtypes=FLOAT,
           variant="alpha"),
    OpInfo("hypot", lambda m, x, y: m.hypot(x, y), binary_samples(), dtypes=FLOATING,
           inplace=lambda m, x, y: x.hypot_(y),
           errors=lambda rng: [ErrorCase(Sample((T(rng.integers(0, 3, (2,)), "int64"),
                                                 T(rng.integers(0, 3, (2,)), "int64"))),
                                         RuntimeError)]),
    OpInfo("elu", lambda m, x: m.nn.functional.elu(x, alpha=0.7), unary_samples(), dtypes=FLOATING),
]
