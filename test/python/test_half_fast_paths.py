"""float16 / bfloat16 fast paths on the CPU (issue 18, item 3), against PyTorch.

Elementwise ops on float16/bfloat16 widen blocks of operands to float32 with vector
converters and round the results back once (lib/cpu/reduced_float_loops.h); casts
to and from float32 go through the same converters; bfloat16 products go through
oneDNN's matmul (lib/cpu/onednn_matmul.cpp). add and mul (float32 math, one
rounding) and the casts must match torch bit for bit; gelu and reductions within
a rounding; products within the error of bfloat16 inputs with float32 accumulation.
"""
import numpy as np
import pytest

import ember
import ember.nn.functional as EF

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

DTYPES = [("bfloat16", ember.bfloat16, torch.bfloat16), ("float16", ember.float16, torch.float16)]
IDS = [d[0] for d in DTYPES]
# Not multiples of the vector widths (8, 16) or of the block (512); 100003 splits over threads.
SIZES = [1, 7, 15, 16, 17, 511, 513, 1000, 100003]


def special_values(name):
    """inf, nan, signed zeros, the smallest normal and some subnormals of the dtype,
    values that round up to inf, and float32 subnormals."""
    tiny = 1e-39 if name == "bfloat16" else 1e-6  # subnormal in the dtype
    big = 3.4e38 if name == "bfloat16" else 65519.0
    return np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, tiny, -tiny, 2 * tiny, big, -big,
                     1e-45, -3e-44, 1.0, -2.5, 65504.0, 1e-8], dtype=np.float32)


def pair(values, name):
    """The same float32 values as an ember and a torch tensor of the dtype (cast by each)."""
    _, e_dt, t_dt = next(d for d in DTYPES if d[0] == name)
    a = np.ascontiguousarray(values, dtype=np.float32)
    return ember.from_numpy(a.copy()).to(e_dt), torch.from_numpy(a.copy()).to(t_dt)


def as_f32(t):
    """float32 numpy values of an ember or torch tensor (exact for float16/bfloat16)."""
    if isinstance(t, torch.Tensor):
        return t.detach().float().numpy()
    return t.detach().float().contiguous().numpy()


def assert_bits(e, t):
    """Same dtype, shape and values (nan where torch has nan, -0.0 kept)."""
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(e.shape) == tuple(t.shape)
    a, b = as_f32(e), as_f32(t)
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(b)
    np.testing.assert_array_equal(a[ok].view(np.uint32), b[ok].view(np.uint32))


def random_values(n, seed=0, scale=3.0):
    return (np.random.default_rng(seed).standard_normal(n) * scale).astype(np.float32)


# ---- casts ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", IDS)
@pytest.mark.parametrize("n", SIZES)
def test_cast_to_and_from_float32_matches_torch(name, n):
    vals = random_values(n, seed=n)
    vals[: min(n, 16)] = special_values(name)[: min(n, 16)]
    e, t = pair(vals, name)
    assert_bits(e, t)
    assert_bits(e.float(), t.float())


@pytest.mark.parametrize("name", IDS)
def test_cast_of_random_bit_patterns_matches_torch(name):
    # Every class of float32 (subnormals a seventh of them: AVX512-BF16's instruction
    # flushes those, the converter must not), through the vector path and its tail.
    bits = np.random.default_rng(70).integers(0, 2 ** 32, size=200_003, dtype=np.uint64).astype(np.uint32)
    bits[::7] &= 0x807FFFFF
    e, t = pair(bits.view(np.float32), name)
    assert_bits(e, t)


@pytest.mark.parametrize("name", IDS)
def test_cast_rounds_to_nearest_even_on_ties(name):
    # Halfway cases between two neighbours of the dtype: ties go to the even one.
    if name == "bfloat16":
        bits = np.array([0x3F808000, 0x3F818000, 0x3F80C000, 0x3F807FFF, 0x7F7F8000, 0x00008000],
                        dtype=np.uint32)
    else:
        bits = np.array([0x3F801000, 0x3F803000, 0x477FF000, 0x477FEFFF, 0x33000000, 0x33400000],
                        dtype=np.uint32)
    vals = np.tile(bits.view(np.float32), 5)  # 30 values: the vector path and the tail
    e, t = pair(vals, name)
    assert_bits(e, t)


@pytest.mark.parametrize("name", IDS + ["float32"])
def test_copies_of_transposed_and_alike_layouts(name):
    # A transposing copy (tiled) and a copy between two tensors laid out alike (one flat
    # pass), with and without a dtype conversion.
    x = random_values(70 * 45, seed=60).reshape(70, 45)
    x[0, :16] = special_values("float16")
    e32, t32 = ember.from_numpy(x.copy()), torch.from_numpy(x.copy())
    if name == "float32":
        e, t = e32, t32
    else:
        e, t = pair(x, name)
    assert_bits(e32.t().to(e.dtype), t32.t().to(t.dtype))
    assert_bits(e.t().float(), t.t().float())
    assert_bits(e.t().contiguous(), t.t().contiguous())
    assert_bits(e[3:40].t().contiguous(), t[3:40].t().contiguous())
    col_e = ember.empty([45, 70], dtype=e.dtype).t()  # column-major [70, 45]
    col_t = torch.empty([45, 70], dtype=t.dtype).t()
    col_e.copy_(e32.t().contiguous().t())
    col_t.copy_(t32.t().contiguous().t())
    assert_bits(col_e, col_t)
    col_e.copy_(e.t().contiguous().t())
    col_t.copy_(t.t().contiguous().t())
    assert_bits(col_e, col_t)
    b = ember.empty([4, 9, 8], dtype=e.dtype).permute(2, 0, 1)  # a permuted dense block
    src = e32[:8, :36].reshape(8, 4, 9)
    b.copy_(src)
    np.testing.assert_array_equal(as_f32(b), as_f32(t32[:8, :36].reshape(8, 4, 9).to(t.dtype)))


# ---- elementwise ----------------------------------------------------------------------

OPS = {
    "add": (lambda x, y: x + y, lambda x, y: x + y),
    "mul": (lambda x, y: x * y, lambda x, y: x * y),
    "sub_alpha": (lambda x, y: ember.sub(x, y, alpha=3), lambda x, y: torch.sub(x, y, alpha=3)),
}


@pytest.mark.parametrize("name", IDS)
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("n", SIZES)
def test_binary_contiguous_matches_torch_bitwise(name, op, n):
    x = random_values(n, seed=1)
    y = random_values(n, seed=2)
    x[: min(n, 16)] = special_values(name)[: min(n, 16)]
    ex, tx = pair(x, name)
    ey, ty = pair(y, name)
    e_fn, t_fn = OPS[op]
    if op == "sub_alpha":
        # torch rounds alpha * y to the dtype first; ember computes x - alpha * y in float32
        # (maybe fused) and rounds once: compare within a rounding of the terms' size.
        got, want = as_f32(e_fn(ex, ey)), as_f32(t_fn(tx, ty))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        ok = np.isfinite(want)
        scale = np.abs(as_f32(tx)) + 3 * np.abs(as_f32(ty))
        np.testing.assert_array_less(np.abs(got[ok] - want[ok]), 2.0 ** -6 * scale[ok] + 1e-30)
    else:
        assert_bits(e_fn(ex, ey), t_fn(tx, ty))


@pytest.mark.parametrize("name", IDS)
def test_binary_noncontiguous_broadcast_scalar_and_empty(name):
    a = random_values(40 * 70, seed=3).reshape(40, 70)
    b = random_values(70, seed=4)
    ea, ta = pair(a, name)
    eb, tb = pair(b, name)
    # transposed and sliced views
    assert_bits(ea.t() * ea.t(), ta.t() * ta.t())
    assert_bits(ea[:, :69:3] + ea[:, 1::3], ta[:, :69:3] + ta[:, 1::3])
    # broadcast rows and columns, 0-dim tensors and Python numbers
    assert_bits(ea + eb, ta + tb)
    assert_bits(ea[:, :1] * eb, ta[:, :1] * tb)
    e0, t0 = pair(np.array(1.7, dtype=np.float32), name)
    assert_bits(ea * e0, ta * t0)
    assert_bits(e0 + e0, t0 + t0)
    assert_bits(ea * 0.3, ta * 0.3)
    assert_bits(2.5 - ea, 2.5 - ta)
    # in place, including into a strided view
    ec, tc = ea.clone(), ta.clone()
    ec.add_(eb)
    tc.add_(tb)
    assert_bits(ec, tc)
    ec[:, ::2].mul_(3.0)
    tc[:, ::2].mul_(3.0)
    assert_bits(ec, tc)
    # empty
    ee, te = pair(np.zeros((0, 5), dtype=np.float32), name)
    assert_bits(ee + ee, te + te)
    assert_bits(EF.gelu(ee), TF.gelu(te))


@pytest.mark.parametrize("name", IDS)
def test_compare_and_predicates(name):
    x = random_values(1000, seed=5)
    x[:16] = special_values(name)
    y = random_values(1000, seed=6)
    ex, tx = pair(x, name)
    ey, ty = pair(y, name)
    for e, t in [(ex < ey, tx < ty), (ex == ex, tx == tx), (ex.isnan(), tx.isnan()),
                 (ex.isinf(), tx.isinf()), (ex[::2] >= ey[1::2], tx[::2] >= ty[1::2])]:
        assert e.dtype == ember.bool
        np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parametrize("name", IDS)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("n", [15, 17, 513, 100003])
def test_gelu_matches_torch_and_float32_rounded(name, approximate, n):
    x = random_values(n, seed=7)
    x[: min(n, 16)] = special_values(name)[: min(n, 16)]
    ex, tx = pair(x, name)
    got = EF.gelu(ex, approximate=approximate)
    want = TF.gelu(tx, approximate=approximate)
    assert got.dtype == ex.dtype
    a, b = as_f32(got), as_f32(want)
    xr = as_f32(tx)
    assert np.isnan(a[np.isnan(xr)]).all()  # nan in, nan out (gelu(-inf) is nan in both libraries)
    # within one rounding of the dtype (torch's float32 gelu differs from ember's in the
    # last bits); torch's bfloat16 gelu of inf and of huge values is nan: left out.
    eps = 2.0 ** -7 if name == "bfloat16" else 2.0 ** -10
    ok = np.isfinite(xr) & (np.abs(xr) < 1e4)
    np.testing.assert_allclose(a[ok], b[ok], rtol=eps, atol=1e-6)
    # and exactly ember's own float32 gelu rounded once
    ref = EF.gelu(ex.float(), approximate=approximate).to(ex.dtype)
    np.testing.assert_array_equal(as_f32(got)[ok].view(np.uint32), as_f32(ref)[ok].view(np.uint32))
    # non-contiguous input
    got_t = EF.gelu(ex[1::2], approximate=approximate)
    np.testing.assert_array_equal(as_f32(got_t), as_f32(got)[1::2])


@pytest.mark.parametrize("name", IDS)
def test_unary_ops_relu_silu_neg_exp(name):
    x = random_values(2049, seed=8)
    x[:16] = special_values(name)
    ex, tx = pair(x, name)
    assert_bits(EF.relu(ex), TF.relu(tx))
    assert_bits(-ex, -tx)
    assert_bits(ex.abs(), tx.abs())
    eps = 2.0 ** -7 if name == "bfloat16" else 2.0 ** -10
    for e, t in [(EF.silu(ex), TF.silu(tx)), (ex.exp(), tx.exp()), (ex.sigmoid(), tx.sigmoid())]:
        a, b = as_f32(e), as_f32(t)
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        ok = np.isfinite(b)
        np.testing.assert_allclose(a[ok], b[ok], rtol=eps, atol=1e-6)


@pytest.mark.parametrize("name", IDS)
def test_backward_of_gelu_in_reduced_precision(name):
    x = random_values(777, seed=9)
    g = random_values(777, seed=10)
    ex, tx = pair(x, name)
    eg, tg = pair(g, name)
    ex.requires_grad_()
    tx.requires_grad_()
    EF.gelu(ex).backward(eg)
    TF.gelu(tx).backward(tg)
    assert ex.grad.dtype == ex.dtype
    # ember's gelu derivative is a composite of elementwise ops, each rounded to the
    # dtype (lib/autograd/derivatives/elementwise.cpp), torch's one fused kernel.
    eps = 2.0 ** -4 if name == "bfloat16" else 2.0 ** -8
    np.testing.assert_allclose(as_f32(ex.grad), as_f32(tx.grad), rtol=eps, atol=eps * np.abs(g).max() / 8)


# ---- reductions -----------------------------------------------------------------------

@pytest.mark.parametrize("name", IDS)
@pytest.mark.parametrize("n", [0, 1, 17, 1000, 100003])
def test_sum_and_mean(name, n):
    x = random_values(n, seed=11, scale=1.0)
    ex, tx = pair(x, name)
    exact = as_f32(tx).astype(np.float64).sum()
    assert ex.sum().dtype == ex.dtype
    tol = 2.0 ** -7 if name == "bfloat16" else 2.0 ** -10
    np.testing.assert_allclose(float(ex.sum().float()), exact, rtol=tol, atol=tol * max(1, np.sqrt(n)))
    if n:
        np.testing.assert_allclose(float(ex.mean().float()), exact / n, rtol=tol, atol=tol)
    m = random_values(60 * 33, seed=12).reshape(60, 33)
    em, tm = pair(m, name)
    for dim in (0, 1):
        np.testing.assert_allclose(as_f32(em.sum(dim)), as_f32(tm.float().sum(dim)), rtol=tol, atol=tol * 8)
        np.testing.assert_allclose(as_f32(em.t().sum(dim)), as_f32(tm.t().float().sum(dim)), rtol=tol,
                                   atol=tol * 8)
    assert np.isnan(float(pair(special_values(name), name)[0].sum().float()))


# ---- products -------------------------------------------------------------------------

def product_tolerance(a, b, name):
    """|error| bound of a product of the rounded inputs accumulated in float32 and rounded once."""
    eps = 2.0 ** -8 if name == "bfloat16" else 2.0 ** -11
    return eps, 1e-4 * np.abs(a).max() * np.abs(b).max() * max(a.shape[-1], 1)


def check_product(e, a32, b32, name, fn=np.matmul):
    ref = fn(a32.astype(np.float64), b32.astype(np.float64))
    rtol, atol = product_tolerance(a32, b32, name)
    got = as_f32(e)
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", IDS)
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (3, 5, 7), (17, 33, 9), (64, 64, 64), (130, 257, 65),
                                   (300, 200, 100)])
def test_mm_matches_float64_of_rounded_inputs(name, m, k, n):
    ea, ta = pair(random_values(m * k, seed=m).reshape(m, k), name)
    eb, tb = pair(random_values(k * n, seed=n).reshape(k, n), name)
    a32, b32 = as_f32(ta), as_f32(tb)
    out = ea @ eb
    assert out.dtype == ea.dtype
    check_product(out, a32, b32, name)
    check_product(ea.t().contiguous().t() @ eb, a32, b32, name)        # transposed a
    check_product(ea @ eb.t().contiguous().t(), a32, b32, name)        # transposed b
    # and close to torch's own reduced-precision product
    np.testing.assert_allclose(as_f32(out), as_f32(ta @ tb), rtol=2.0 ** -6,
                               atol=product_tolerance(a32, b32, name)[1])


@pytest.mark.parametrize("name", IDS)
def test_mm_sliced_operands_empty_and_out(name):
    big_a, _ = pair(random_values(50 * 90, seed=20).reshape(50, 90), name)
    big_b, _ = pair(random_values(90 * 40, seed=21).reshape(90, 40), name)
    a, b = big_a[:, 10:70], big_b[20:80, ::2]  # leading dimensions larger than the rows
    check_product(a @ b, as_f32(a), as_f32(b), name)
    ez, _ = pair(np.zeros((4, 0), dtype=np.float32), name)
    ew, _ = pair(np.zeros((0, 3), dtype=np.float32), name)
    z = ez @ ew
    assert tuple(z.shape) == (4, 3) and not as_f32(z).any()
    e0, _ = pair(np.zeros((0, 5), dtype=np.float32), name)
    e5, _ = pair(np.ones((5, 2), dtype=np.float32), name)
    assert tuple((e0 @ e5).shape) == (0, 2)
    # out= into a transposed view
    ea, _ = pair(random_values(6 * 8, seed=22).reshape(6, 8), name)
    eb, _ = pair(random_values(8 * 6, seed=23).reshape(8, 6), name)
    out = ember.empty([6, 6], dtype=ea.dtype).t()
    ember.mm(ea, eb, out=out)
    check_product(out, as_f32(ea), as_f32(eb), name)
    # a broadcast (stride 0) operand
    row, _ = pair(random_values(8, seed=24).reshape(1, 8), name)
    rows = row.expand(5, 8)
    check_product(rows @ eb, as_f32(rows), as_f32(eb), name)


@pytest.mark.parametrize("name", IDS)
def test_bmm_addmm_and_linear(name):
    ea, ta = pair(random_values(4 * 20 * 30, seed=30).reshape(4, 20, 30), name)
    eb, tb = pair(random_values(4 * 30 * 10, seed=31).reshape(4, 30, 10), name)
    check_product(ember.bmm(ea, eb), as_f32(ta), as_f32(tb), name)
    check_product(ember.bmm(ea, eb.transpose(1, 2).contiguous().transpose(1, 2)), as_f32(ta), as_f32(tb), name)
    ex, tx = pair(random_values(33 * 64, seed=32).reshape(33, 64), name)
    ew, tw = pair(random_values(48 * 64, seed=33).reshape(48, 64), name)
    eb1, tb1 = pair(random_values(48, seed=34), name)
    got = EF.linear(ex, ew, eb1)
    want = TF.linear(tx, tw, tb1)
    assert got.dtype == ex.dtype
    rtol, atol = product_tolerance(as_f32(tx), as_f32(tw), name)
    ref = as_f32(tx).astype(np.float64) @ as_f32(tw).astype(np.float64).T + as_f32(tb1)
    np.testing.assert_allclose(as_f32(got), ref, rtol=rtol, atol=atol)
    np.testing.assert_allclose(as_f32(got), as_f32(want), rtol=2.0 ** -6, atol=atol)
    ec, tc = pair(random_values(33 * 48, seed=35).reshape(33, 48), name)
    got = ember.addmm(ec, ex, ew.t(), beta=0.5, alpha=-2.0)
    ref = 0.5 * as_f32(tc) - 2.0 * (as_f32(tx).astype(np.float64) @ as_f32(tw).astype(np.float64).T)
    np.testing.assert_allclose(as_f32(got), ref, rtol=rtol, atol=2 * atol)
    # beta = 0 ignores nan in self
    nan_c = ember.full([33, 48], float("nan"), dtype=ex.dtype)
    assert not np.isnan(as_f32(ember.addmm(nan_c, ex, ew.t(), beta=0))).any()


@pytest.mark.parametrize("name", IDS)
def test_linear_backward_in_reduced_precision(name):
    ex, tx = pair(random_values(16 * 40, seed=40).reshape(16, 40), name)
    ew, tw = pair(random_values(24 * 40, seed=41).reshape(24, 40), name)
    eg, tg = pair(random_values(16 * 24, seed=42).reshape(16, 24), name)
    for t in (ex, ew, tx, tw):
        t.requires_grad_()
    EF.linear(ex, ew).backward(eg)
    TF.linear(tx, tw).backward(tg)
    for e, t in ((ex.grad, tx.grad), (ew.grad, tw.grad)):
        assert e.dtype == ex.dtype
        np.testing.assert_allclose(as_f32(e), as_f32(t), rtol=2.0 ** -5, atol=0.5)


def test_bfloat16_autocast_mlp_step_matches_torch():
    rng = np.random.default_rng(50)
    w1 = (rng.standard_normal((64, 32)) * 0.2).astype(np.float32)
    w2 = (rng.standard_normal((10, 64)) * 0.2).astype(np.float32)
    x, y = rng.standard_normal((16, 32)).astype(np.float32), rng.integers(0, 10, 16)
    ew1, ew2 = (ember.from_numpy(w.copy()).requires_grad_() for w in (w1, w2))
    tw1, tw2 = (torch.from_numpy(w.copy()).requires_grad_() for w in (w1, w2))
    with ember.autocast("cpu", dtype=ember.bfloat16):
        e_loss = EF.cross_entropy(EF.linear(EF.relu(EF.linear(ember.from_numpy(x), ew1)), ew2),
                                  ember.from_numpy(y))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        t_loss = TF.cross_entropy(TF.linear(TF.relu(TF.linear(torch.from_numpy(x), tw1)), tw2),
                                  torch.from_numpy(y))
    e_loss.backward()
    t_loss.backward()
    np.testing.assert_allclose(float(e_loss.detach()), float(t_loss.detach()), rtol=2e-2)
    for e, t in ((ew1, tw1), (ew2, tw2)):
        assert e.grad.dtype == ember.float32
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=5e-2, atol=2e-2)
