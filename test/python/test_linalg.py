"""Matrix products (matmul, mm, bmm, mv, dot, outer, addmm, linear, @) against
numpy float64 references: every rank case of matmul, broadcast batches,
transposed / sliced / expanded operands, empty dims, and every dtype."""
import numpy as np
import pytest

import ember
from _helpers import assert_close, to_ember, to_numpy

rng = np.random.default_rng(1234)

_NP = {ember.float32: np.float32, ember.float64: np.float64, ember.float16: np.float16,
       ember.int8: np.int8, ember.uint8: np.uint8, ember.int16: np.int16, ember.int32: np.int32,
       ember.int64: np.int64}


FLOATS = [ember.float32, ember.float64]
REDUCED = [ember.float16, ember.bfloat16]
INTS = [ember.int64, ember.int32, ember.int16, ember.int8, ember.uint8]
TOL = {ember.float32: (1e-4, 1e-4), ember.float64: (1e-10, 1e-10), ember.float16: (2e-2, 5e-2),
       ember.bfloat16: (5e-2, 2e-1)}


def every_other(t, dim, offset=0):
    """t[..., offset::2, ...] along dim (an even-sized dim), as a strided view."""
    dim = dim % t.dim()
    return t.unflatten(dim, (t._shape[dim] // 2, 2)).select(dim + 1, offset)


def values(shape, dtype):
    """Random values exactly representable in dtype (small integers for integer dtypes)."""
    if dtype in INTS:
        lo = 0 if dtype == ember.uint8 else -3
        return rng.integers(lo, 4, size=shape).astype(np.float64)
    a = rng.standard_normal(shape)
    if dtype in REDUCED:  # round to the dtype so the float64 reference sees the same inputs
        return to_numpy(to_ember(a.astype(np.float32), dtype).float()).astype(np.float64)
    return a


def make(shape, dtype):
    """(ember tensor, float64 numpy values)."""
    a = values(shape, dtype)
    stored = a.astype(np.float32 if dtype in REDUCED else _NP[dtype])
    return to_ember(stored, dtype), stored.astype(np.float64)


def check(got, expected, dtype):
    """Compares, with integer results checked exactly after wrapping like the dtype."""
    assert got.dtype == dtype
    if dtype in INTS:
        exp = np.asarray(expected).astype(np.int64).astype(_NP[dtype])
        np.testing.assert_array_equal(to_numpy(got), exp)
        assert tuple(got._shape) == exp.shape
    else:
        rtol, atol = TOL[dtype]
        assert_close(got, np.asarray(expected), rtol=rtol, atol=atol)


# ---- matmul: every rank case -----------------------------------------------------------------

RANK_CASES = [
    ((3,), (3,)),              # dot
    ((2, 3), (3,)),            # mv
    ((3,), (3, 4)),            # vector @ matrix
    ((2, 3), (3, 4)),          # mm
    ((5, 2, 3), (3,)),         # batch @ vector (folded)
    ((5, 2, 3), (3, 4)),       # batch @ matrix (folded)
    ((2, 5, 2, 3), (3, 4)),
    ((3,), (5, 3, 4)),         # vector @ batch
    ((2, 3), (5, 3, 4)),       # matrix @ batch
    ((5, 2, 3), (5, 3, 4)),    # bmm
    ((5, 2, 3), (1, 3, 4)),    # broadcast batch
    ((1, 2, 3), (5, 3, 4)),
    ((2, 1, 2, 3), (4, 3, 5)),  # broadcast over two batch dims
    ((1, 5, 2, 3), (4, 1, 3, 2)),
    ((0, 3), (3, 4)),          # empty rows -> [0, 4]
    ((2, 0), (0, 3)),          # empty inner dim -> zeros [2, 3]
    ((0,), (0,)),
    ((2, 0), (0,)),
    ((0, 2, 3), (3, 4)),
    ((2, 3), (0, 3, 4)),
    ((3, 2, 0), (0, 4)),
]


@pytest.mark.parametrize("sa, sb", RANK_CASES, ids=[f"{a}@{b}" for a, b in RANK_CASES])
@pytest.mark.parametrize("dtype", FLOATS + REDUCED + [ember.int64, ember.int32])
def test_matmul_rank_cases(sa, sb, dtype):
    a, an = make(sa, dtype)
    b, bn = make(sb, dtype)
    expected = np.matmul(an, bn)
    check(ember.matmul(a, b), expected, dtype)
    check(a @ b, expected, dtype)
    check(a.matmul(b), expected, dtype)


@pytest.mark.parametrize("dtype", INTS)
def test_matmul_integer_dtypes(dtype):
    a, an = make((4, 5), dtype)
    b, bn = make((5, 3), dtype)
    check(a @ b, an @ bn, dtype)
    check(ember.bmm(a.unsqueeze(0), b.unsqueeze(0)), (an @ bn)[None], dtype)


def test_integer_overflow_wraps_like_torch():
    a = to_ember(np.full((1, 4), 100, dtype=np.int8))
    b = to_ember(np.full((4, 1), 100, dtype=np.int8))
    assert (a @ b).item() == np.int64(40000).astype(np.int8)  # 40000 mod 256 as int8


def test_empty_inner_dim_gives_zeros():
    for dtype in FLOATS + REDUCED + [ember.int64]:
        out = ember.matmul(ember.empty(2, 0, dtype=dtype), ember.empty(0, 3, dtype=dtype))
        assert tuple(out._shape) == (2, 3)
        np.testing.assert_array_equal(to_numpy(out).astype(np.float64), np.zeros((2, 3)))


# ---- non-contiguous operands --------------------------------------------------------------

def layouts(shape, dtype):
    """(description, ember tensor, numpy values) for one logical matrix in several layouts."""
    t, a = make(shape, dtype)
    out = [("contiguous", t, a)]
    # stored transposed: BLAS reads it with a trans flag
    out.append(("transposed", to_ember(np.ascontiguousarray(np.swapaxes(to_numpy(t), -1, -2))
                                       ).to(dtype).transpose(-1, -2), a))
    # every other column of a wider buffer: no BLAS layout, copied
    wide = to_ember(np.repeat(to_numpy(t), 2, axis=-1)).to(dtype)
    out.append(("column step 2", every_other(wide, -1), a))
    # every other row: a row-major layout with a bigger leading dimension
    tall = to_ember(np.repeat(to_numpy(t), 2, axis=-2)).to(dtype)
    out.append(("row step 2", every_other(tall, -2), a))
    return out


@pytest.mark.parametrize("dtype", FLOATS + [ember.float16, ember.int32])
def test_mm_all_layout_pairs(dtype):
    for da, a, an in layouts((6, 7), dtype):
        for db, b, bn in layouts((7, 5), dtype):
            got = ember.mm(a, b)
            try:
                check(got, an @ bn, dtype)
            except AssertionError as e:
                raise AssertionError(f"{da} @ {db}: {e}")


@pytest.mark.parametrize("dtype", FLOATS)
def test_bmm_layouts(dtype):
    for da, a, an in layouts((3, 4, 5), dtype):
        for db, b, bn in layouts((3, 5, 2), dtype):
            check(ember.bmm(a, b), an @ bn, dtype)
    # batch dims permuted (batch stride smaller than the matrix strides)
    t, an = make((4, 3, 5), dtype)
    a = t.permute(1, 0, 2)  # [3, 4, 5], non-contiguous batch
    b, bn = make((3, 5, 2), dtype)
    check(ember.bmm(a, b), np.transpose(an, (1, 0, 2)) @ bn, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_matmul_expanded_and_transposed_batches(dtype):
    m, mn = make((4, 5), dtype)
    a = m.expand(3, 4, 5)  # stride-0 batch
    b, bn = make((3, 5, 2), dtype)
    check(a @ b, np.broadcast_to(mn, (3, 4, 5)) @ bn, dtype)
    # a transposed batch @ matrix: not foldable without a copy, runs batched
    t, tn = make((3, 5, 4), dtype)
    check(t.transpose(1, 2) @ m.t(), np.swapaxes(tn, 1, 2) @ mn.T, dtype)
    # vector with a stride
    v, vn = make((10,), dtype)
    check(m @ every_other(v, 0), mn @ vn[::2], dtype)
    check(every_other(v, 0, 1).narrow(0, 0, 4) @ m, vn[1:9:2] @ mn, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m, k, n", [(130, 170, 150), (300, 64, 257), (1, 300, 400), (257, 300, 1), (64, 64, 64)])
def test_blas_sizes(dtype, m, k, n):
    """Sizes that take each BLAS route (oneDNN / OpenBLAS, threaded splits)."""
    a, an = make((m, k), dtype)
    b, bn = make((k, n), dtype)
    check(a @ b, an @ bn, dtype)
    check(a.t().contiguous().t() @ b, an @ bn, dtype)
    check(ember.mv(a, b.select(1, 0)), an @ bn[:, 0], dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_large_mv_and_dot(dtype):
    a, an = make((700, 800), dtype)
    x, xn = make((800,), dtype)
    check(ember.mv(a, x), an @ xn, dtype)
    check(ember.mv(a.t(), x.narrow(0, 0, 700)), an.T @ xn[:700], dtype)
    y, yn = make((300000,), dtype)
    z, zn = make((300000,), dtype)
    got = ember.dot(y, z).item()
    np.testing.assert_allclose(got, yn @ zn, rtol=1e-4 if dtype == ember.float32 else 1e-10)


# ---- mm, bmm, mv, dot, outer, addmm, linear ----------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + REDUCED + INTS)
def test_mm_bmm_mv_dot(dtype):
    a, an = make((4, 6), dtype)
    b, bn = make((6, 3), dtype)
    v, vn = make((6,), dtype)
    check(ember.mm(a, b), an @ bn, dtype)
    check(a.mm(b), an @ bn, dtype)
    check(ember.mv(a, v), an @ vn, dtype)
    check(a.mv(v), an @ vn, dtype)
    check(ember.dot(v, v), vn @ vn, dtype)
    check(v.dot(v), vn @ vn, dtype)
    ba, ban = make((2, 4, 6), dtype)
    bb, bbn = make((2, 6, 3), dtype)
    check(ember.bmm(ba, bb), ban @ bbn, dtype)
    check(ba.bmm(bb), ban @ bbn, dtype)


def test_dot_0dim_result_and_strides():
    v, vn = make((9,), ember.float32)
    three = v.unflatten(0, (3, 3))
    got = ember.dot(three.select(1, 0), three.select(1, 2))
    assert tuple(got._shape) == ()
    np.testing.assert_allclose(got.item(), vn[0::3] @ vn[2::3], rtol=1e-5)
    # a stride-0 (expanded) operand
    s = to_ember(np.array([2.0], dtype=np.float32)).expand(9)
    np.testing.assert_allclose(ember.dot(v, s).item(), 2 * vn.sum(), rtol=1e-5)


@pytest.mark.parametrize("da, db, dout", [
    (ember.float32, ember.float32, ember.float32), (ember.float32, ember.float64, ember.float64),
    (ember.int64, ember.float32, ember.float32), (ember.int32, ember.int64, ember.int64),
    (ember.float16, ember.float16, ember.float16)])
def test_outer_promotes(da, db, dout):
    a, an = make((4,), da)
    b, bn = make((3,), db)
    check(ember.outer(a, b), np.outer(an, bn), dout)
    check(a.outer(b), np.outer(an, bn), dout)
    check(ember.ger(a, b), np.outer(an, bn), dout)


@pytest.mark.parametrize("dtype", FLOATS + REDUCED)
@pytest.mark.parametrize("bias_shape", [(4, 3), (3,), (1, 3), (4, 1), ()])
def test_addmm(dtype, bias_shape):
    bias, biasn = make(bias_shape, dtype)
    a, an = make((4, 5), dtype)
    b, bn = make((5, 3), dtype)
    check(ember.addmm(bias, a, b), biasn + an @ bn, dtype)
    check(ember.addmm(bias, a, b, beta=0.5, alpha=2.0), 0.5 * biasn + 2.0 * (an @ bn), dtype)
    check(bias.addmm(a, b, beta=2, alpha=-1), 2 * biasn - an @ bn, dtype)


def test_addmm_beta_zero_ignores_nan():
    bias = ember.full([2, 2], float("nan"))
    a, an = make((2, 3), ember.float32)
    b, bn = make((3, 2), ember.float32)
    check(ember.addmm(bias, a, b, beta=0), an @ bn, ember.float32)


@pytest.mark.parametrize("dtype", [ember.int64, ember.int32])
def test_addmm_integers(dtype):
    bias, biasn = make((3,), dtype)
    a, an = make((4, 5), dtype)
    b, bn = make((5, 3), dtype)
    check(ember.addmm(bias, a, b, beta=2, alpha=3), 2 * biasn + 3 * (an @ bn), dtype)


def test_addmm_noncontiguous_operands():
    bias, biasn = make((3, 4), ember.float64)
    a, an = make((5, 3), ember.float64)
    b, bn = make((4, 5), ember.float64)
    check(ember.addmm(bias, a.t(), b.t(), beta=1.5, alpha=0.5), 1.5 * biasn + 0.5 * (an.T @ bn.T),
          ember.float64)


@pytest.mark.parametrize("dtype", FLOATS + REDUCED)
@pytest.mark.parametrize("in_shape", [(5,), (4, 5), (2, 3, 5), (0, 5)])
@pytest.mark.parametrize("with_bias", [False, True])
def test_linear(dtype, in_shape, with_bias):
    x, xn = make(in_shape, dtype)
    w, wn = make((6, 5), dtype)
    b, bn = make((6,), dtype)
    expected = xn @ wn.T + (bn if with_bias else 0)
    check(ember.linear(x, w, b if with_bias else None), expected, dtype)
    if with_bias:
        check(ember.linear(x, w, bias=b), expected, dtype)


def test_linear_vector_weight_and_broadcast_bias():
    x, xn = make((4, 5), ember.float32)
    w, wn = make((5,), ember.float32)
    check(ember.linear(x, w), xn @ wn, ember.float32)
    b, bn = make((4,), ember.float32)
    check(ember.linear(x, w, b), xn @ wn + bn, ember.float32)
    x3, x3n = make((2, 4, 5), ember.float32)
    w2, w2n = make((3, 5), ember.float32)
    b2, b2n = make((4, 3), ember.float32)  # a bias over the last two output dims
    check(ember.linear(x3, w2, b2), x3n @ w2n.T + b2n, ember.float32)
    check(ember.linear(x3.transpose(0, 1), w2.t().contiguous().t()), np.swapaxes(x3n, 0, 1) @ w2n.T,
          ember.float32)


def test_results_are_fresh_and_inputs_untouched():
    a, an = make((3, 3), ember.float32)
    b, bn = make((3, 3), ember.float32)
    c = a @ b
    assert not c._is_view_of(a) and not c._is_view_of(b)
    assert_close(a, an.astype(np.float32))
    assert_close(b, bn.astype(np.float32))


def test_matmul_dtype_mismatch_message():
    with pytest.raises(RuntimeError, match=r"expected m1 and m2 to have the same dtype, but got: float != double"):
        ember.matmul(ember.zeros(2, 3), ember.zeros(3, 4, dtype=ember.float64))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        ember.mm(ember.zeros(2, 3), ember.zeros(4, 5))


def test_blas_info_names_the_kernels():
    info = ember._C._blas_info()
    assert "float32 gemm" in info


# ---- against torch, when it is installed ----------------------------------------------------

def test_against_torch():
    torch = pytest.importorskip("torch")
    for sa, sb in RANK_CASES:
        an = rng.standard_normal(sa).astype(np.float32)
        bn = rng.standard_normal(sb).astype(np.float32)
        expected = torch.matmul(torch.from_numpy(an), torch.from_numpy(bn)).numpy()
        assert_close(ember.matmul(to_ember(an), to_ember(bn)), expected, rtol=1e-4, atol=1e-5)
    xn = rng.standard_normal((2, 3, 5)).astype(np.float32)
    wn = rng.standard_normal((4, 5)).astype(np.float32)
    bn = rng.standard_normal((4,)).astype(np.float32)
    expected = torch.nn.functional.linear(*map(torch.from_numpy, (xn, wn, bn))).numpy()
    assert_close(ember.linear(to_ember(xn), to_ember(wn), to_ember(bn)), expected, rtol=1e-4, atol=1e-5)
