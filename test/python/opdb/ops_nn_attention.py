"""Op database entries of scaled_dot_product_attention's fused CPU op
(lib/dispatch/schema/nn.toml: scaled_dot_product_flash_attention)."""
import numpy as np

from .opinfo import FLOATING, ErrorCase, OpInfo, Sample, T, make_values


def _t(rng, shape, dtype, low=-3.0, high=3.0, noncontig=False, grad=True):
    return T(make_values(rng, shape, dtype, low, high), dtype, noncontig, grad)


def _sdpa_fn(m, q, k, v, *mask, **kw):
    return m.nn.functional.scaled_dot_product_attention(q, k, v, *mask, **kw)


def _sdpa_mask(rng, shape, kind, dtype):
    """A mask that leaves every query a key (torch's kernels differ on fully masked rows)."""
    keep = rng.random(shape) > 0.4
    keep[..., 0] = True
    if kind == "bool":
        return T(keep, "bool", grad=False)
    return T(np.where(keep, rng.uniform(-1, 1, shape), -np.inf), dtype, grad=False)


def _sdpa_samples(dtype, rng):
    """scaled_dot_product_attention on the CPU's fused op: plain, strided, causal with
    L > S, masks broadcast (bool and float, not requiring grad), scale, enable_gqa,
    an empty query, 3-d operands."""
    def qkv(qs, ks, vs, nc=False):
        return tuple(_t(rng, s, dtype, -2.0, 2.0, noncontig=nc) for s in (qs, ks, vs))
    base = ((2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 3))
    return [Sample(qkv(*base)), Sample(qkv(*base, nc=True)),
            Sample(qkv((2, 2, 7, 4), (2, 2, 5, 4), (2, 2, 5, 3)), {"is_causal": True}),
            Sample(qkv(*base) + (_sdpa_mask(rng, (5, 7), "bool", dtype),)),
            Sample(qkv(*base) + (_sdpa_mask(rng, (2, 1, 5, 7), "float", dtype),)),
            Sample(qkv(*base), {"scale": 0.5}),
            Sample(qkv((1, 4, 5, 4), (1, 2, 6, 4), (1, 2, 6, 2)), {"enable_gqa": True}),
            Sample(qkv((2, 0, 4), (2, 3, 4), (2, 3, 2))),
            Sample(qkv((3, 6, 4), (3, 6, 4), (3, 6, 5)), {"is_causal": True})]


def _sdpa_errors(rng):
    q, k, v = (_t(rng, s, "float64") for s in ((2, 5, 4), (2, 7, 4), (2, 7, 3)))
    return [ErrorCase(Sample((q, T(k.values, "float32"), v)), RuntimeError, "same dtype"),
            ErrorCase(Sample((q, k, v), {"attn_mask": T(np.ones((5, 7), dtype=bool), "bool"), "is_causal": True}),
                      RuntimeError, "is_causal")]


OPS = [
    # ---- attention: scaled_dot_product_attention takes the fused op on the CPU ----
    # float16 / bfloat16 compute in float32 (as torch's CPU kernel)
    OpInfo("scaled_dot_product_flash_attention", _sdpa_fn, _sdpa_samples, dtypes=FLOATING, errors=_sdpa_errors,
           tol={"float16": (3e-3, 3e-3), "bfloat16": (2e-2, 2e-2)}),
]
