"""The fused CPU scaled_dot_product_attention (scaled_dot_product_flash_attention,
lib/cpu/attention_flash*.cpp): values and gradients against
torch.nn.functional.scaled_dot_product_attention on random inputs (causal, bool and
float masks broadcast, enable_gqa, scale, L != S, lengths that are not multiples of
the kernel's blocks, one-row and empty sequences, MultiheadAttention's transposed
heads), finite differences in float64 (the double backward follows the composite),
dropout's statistics and gradient consistency, and the composite kept for tracing,
masks that need a gradient; float16 and bfloat16 computed in float32."""
import os
import tempfile

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck
from _helpers import to_ember, to_numpy

rng = np.random.default_rng(19)
TOL = {"float64": (1e-10, 1e-11), "float32": (2e-5, 2e-5)}


def fused(out):
    """Whether out came from the fused op (its autograd node)."""
    return out.grad_fn is not None and "Flash" in out.grad_fn.name()


def pair(a, dtype, heads_transposed=False, grad=True):
    """The array a ([..., L, E]) as an ember and a torch tensor of dtype; heads_transposed:
    a is made [.., L, H, E] in memory and viewed as [.., H, L, E], as MultiheadAttention's
    heads are."""
    if heads_transposed:
        base = np.ascontiguousarray(np.swapaxes(a, -3, -2))
        e = to_ember(base).to(getattr(ember, dtype)).transpose(-3, -2)
        t = torch.from_numpy(base).to(getattr(torch, dtype)).transpose(-3, -2)
        assert not e.is_contiguous()
    else:
        e = to_ember(a).to(getattr(ember, dtype))
        t = torch.from_numpy(a.copy()).to(getattr(torch, dtype))
    if grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def check(qs, ks, vs, dtype="float64", mask=None, heads_transposed=False, expect_fused=True, **kw):
    """Values and gradients of ember's SDPA against torch's for random q, k, v of these shapes."""
    (qe, qt), (ke, kt), (ve, vt) = (pair(rng.standard_normal(s), dtype, heads_transposed) for s in (qs, ks, vs))
    me = mt = None
    if mask is not None:
        me = to_ember(mask)
        mt = torch.from_numpy(mask.copy())
        if mask.dtype != bool:
            me, mt = me.to(getattr(ember, dtype)), mt.to(getattr(torch, dtype))
    out = F.scaled_dot_product_attention(qe, ke, ve, attn_mask=me, **kw)
    ref = TF.scaled_dot_product_attention(qt, kt, vt, attn_mask=mt, **kw)
    assert fused(out) == expect_fused
    rtol, atol = TOL[dtype]
    assert tuple(out.shape) == tuple(ref.shape) and out.dtype == getattr(ember, dtype)
    np.testing.assert_allclose(to_numpy(out), ref.detach().numpy(), rtol=rtol, atol=atol)
    if out.numel() == 0:
        return
    g = rng.standard_normal(tuple(out.shape))
    out.backward(to_ember(g).to(out.dtype))
    ref.backward(torch.from_numpy(g).to(ref.dtype))
    for a, b, name in ((qe, qt, "q"), (ke, kt, "k"), (ve, vt, "v")):
        np.testing.assert_allclose(to_numpy(a.grad), b.grad.numpy(), rtol=rtol * 10, atol=atol * 10,
                                   err_msg=f"grad {name}")


def visible_mask(shape, dtype):
    """A random bool mask that leaves every query at least one key (torch's fused
    kernels and its math path agree then), or a float mask of the same pattern."""
    m = rng.random(shape) > 0.4
    m[..., 0] = True
    return m if dtype == bool else np.where(m, rng.standard_normal(shape), -np.inf)


SHAPES = [  # (batch, heads, L, S, E, Ev)
    (2, 3, 5, 7, 4, 6),
    (1, 2, 130, 70, 16, 16),      # L, S not multiples of the 64 x 128 blocks
    (1, 2, 70, 300, 8, 5),
    (1, 2, 70, 1100, 8, 5),       # several key blocks (512 forward, 256 backward)
    (1, 1, 1, 1, 8, 8),           # one query, one key
    (2, 1, 1, 200, 16, 3),        # one query, many keys
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("is_causal", [False, True])
def test_values_and_grads(dtype, shape, is_causal):
    B, H, L, S, E, Ev = shape
    check((B, H, L, E), (B, H, S, E), (B, H, S, Ev), dtype, is_causal=is_causal)


@pytest.mark.parametrize("L, S", [(64, 64), (129, 129), (200, 65), (65, 200), (600, 600), (530, 1030)])
def test_causal_block_edges(L, S):
    check((1, 2, L, 8), (1, 2, S, 8), (1, 2, S, 8), "float64", is_causal=True)
    check((1, 2, L, 8), (1, 2, S, 8), (1, 2, S, 8), "float32", is_causal=True)


@pytest.mark.parametrize("mask_shape", [(9, 140), (2, 1, 9, 140), (1, 3, 1, 140), (1, 140), (2, 3, 9, 140)])
@pytest.mark.parametrize("kind", [bool, float])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_masks_broadcast(mask_shape, kind, dtype):
    check((2, 3, 9, 8), (2, 3, 140, 8), (2, 3, 140, 4), dtype, mask=visible_mask(mask_shape, kind))


@pytest.mark.parametrize("kind", [bool, float])
def test_masks_over_several_key_blocks(kind):
    check((1, 4, 70, 8), (1, 2, 1030, 8), (1, 2, 1030, 4), "float64", mask=visible_mask((1, 1, 70, 1030), kind),
          enable_gqa=True)
    check((1, 2, 70, 8), (1, 2, 1030, 8), (1, 2, 1030, 4), "float32", mask=visible_mask((70, 1030), kind))


def test_float32_mask_with_float64_inputs():
    check((2, 2, 5, 4), (2, 2, 6, 4), (2, 2, 6, 4), "float64", mask=rng.standard_normal((5, 6)).astype(np.float32))


def test_strided_mask_read_in_place():
    # a transposed (non-contiguous) mask and a sliced one
    m = visible_mask((140, 9), bool).T
    check((2, 3, 9, 8), (2, 3, 140, 8), (2, 3, 140, 4), "float64", mask=m)
    me = to_ember(visible_mask((9, 280), float))[:, ::2]
    q, k, v = (to_ember(rng.standard_normal(s)) for s in [(2, 9, 8), (2, 140, 8), (2, 140, 4)])
    got = F.scaled_dot_product_attention(q, k, v, attn_mask=me)
    exp = TF.scaled_dot_product_attention(*(torch.from_numpy(to_numpy(t)) for t in (q, k, v)),
                                          attn_mask=torch.from_numpy(to_numpy(me)))
    np.testing.assert_allclose(to_numpy(got), exp.numpy(), rtol=1e-10, atol=1e-11)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_scale_and_gqa(dtype):
    check((2, 4, 33, 8), (2, 4, 47, 8), (2, 4, 47, 8), dtype, scale=0.3)
    check((2, 6, 33, 8), (2, 2, 47, 8), (2, 2, 47, 5), dtype, enable_gqa=True)
    check((2, 6, 70, 8), (2, 3, 70, 8), (2, 3, 70, 8), dtype, enable_gqa=True, is_causal=True, scale=0.5)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_heads_transposed_noncontiguous(dtype):
    check((2, 4, 37, 16), (2, 4, 50, 16), (2, 4, 50, 16), dtype, heads_transposed=True)
    check((2, 4, 37, 16), (2, 4, 37, 16), (2, 4, 37, 16), dtype, heads_transposed=True, is_causal=True)


def test_three_and_two_dim_inputs():
    check((3, 20, 8), (3, 30, 8), (3, 30, 4), "float64")
    check((20, 8), (30, 8), (30, 4), "float64", is_causal=True)


@pytest.mark.parametrize("L, S", [(0, 5), (5, 0), (0, 0)])
def test_empty_sequences(L, S):
    for mask in (None, np.ones((L, S), dtype=bool)):
        q, k, v = (to_ember(rng.standard_normal(s)).requires_grad_() for s in [(2, 2, L, 4), (2, 2, S, 4),
                                                                                (2, 2, S, 3)])
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=None if mask is None else to_ember(mask))
        assert tuple(out.shape) == (2, 2, L, 3) and np.all(to_numpy(out) == 0)
        out.sum().backward()
        for t in (q, k, v):
            assert tuple(t.grad.shape) == tuple(t.shape) and np.all(to_numpy(t.grad) == 0)
    out = F.scaled_dot_product_attention(*(to_ember(np.zeros(s)) for s in [(0, 2, 3, 4), (0, 2, 5, 4), (0, 2, 5, 3)]))
    assert tuple(out.shape) == (0, 2, 3, 3)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fully_masked_queries_give_zeros(dtype):
    # rows 1 and 70 see no key: zeros and zero gradients (torch's math path), others as torch
    L, S = 80, 150
    mask = visible_mask((L, S), bool)
    mask[[1, 70]] = False
    q, k, v = (to_ember(rng.standard_normal(s)).to(getattr(ember, dtype)).requires_grad_()
               for s in [(2, L, 8), (2, S, 8), (2, S, 4)])
    for m in (mask, np.where(mask, 0.0, -np.inf)):
        me = to_ember(m) if m.dtype == bool else to_ember(m).to(getattr(ember, dtype))
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=me)
        assert fused(out)
        got = to_numpy(out)
        assert np.all(got[:, [1, 70]] == 0)
        live = np.ones(L, dtype=bool)
        live[[1, 70]] = False
        tq, tk, tv = (torch.from_numpy(to_numpy(t)) for t in (q, k, v))
        exp = TF.scaled_dot_product_attention(tq, tk, tv, attn_mask=torch.from_numpy(mask))
        rtol, atol = TOL[dtype]
        np.testing.assert_allclose(got[:, live], exp.numpy()[:, live], rtol=rtol, atol=atol)
        q.grad = k.grad = v.grad = None
        out.sum().backward()
        gq = to_numpy(q.grad)
        assert np.all(np.isfinite(gq)) and np.all(gq[:, [1, 70]] == 0)
        assert np.all(np.isfinite(to_numpy(k.grad))) and np.all(np.isfinite(to_numpy(v.grad)))


def test_gradcheck_and_gradgradcheck_float64():
    q, k, v = (to_ember(rng.standard_normal(s)).requires_grad_() for s in [(1, 2, 5, 3), (1, 2, 7, 3), (1, 2, 7, 2)])
    bmask = to_ember(visible_mask((5, 7), bool))
    fmask = to_ember(rng.standard_normal((2, 1, 7)))
    fns = [lambda q, k, v: F.scaled_dot_product_attention(q, k, v),
           lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.8),
           lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=bmask),
           lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=fmask)]
    for fn in fns:
        assert fused(fn(q, k, v))
        assert gradcheck(fn, [q, k, v])
        assert gradgradcheck(fn, [q, k, v])
    qg = to_ember(rng.standard_normal((1, 4, 5, 3))).requires_grad_()
    gqa = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True, is_causal=True)  # noqa: E731
    assert gradcheck(gqa, [qg, k, v]) and gradgradcheck(gqa, [qg, k, v])


# ---- dropout ------------------------------------------------------------------------------------

def dropout_weights(p, L=40, S=300, H=2, dtype="float64"):
    """With value = the identity, the output is the dropped attention weights themselves."""
    q, k = (to_ember(rng.standard_normal((H, n, 8))).to(getattr(ember, dtype)).requires_grad_() for n in (L, S))
    v = to_ember(np.broadcast_to(np.eye(S), (H, S, S))).to(getattr(ember, dtype)).requires_grad_()
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=p)
    assert fused(out)
    return q, k, v, out


@pytest.mark.parametrize("p", [0.2, 0.6])
def test_dropout_mask_statistics_and_scale(p):
    ember.manual_seed(3)
    q, k, v, out = dropout_weights(p)
    w = to_numpy(out)
    kept = w != 0
    assert abs(kept.mean() - (1 - p)) < 0.01  # 24000 weights
    soft = torch.softmax(torch.from_numpy(to_numpy(q)) @ torch.from_numpy(to_numpy(k)).transpose(-1, -2)
                         / np.sqrt(8), -1).numpy()
    np.testing.assert_allclose(w[kept], soft[kept] / (1 - p), rtol=1e-10)
    # the expectation over draws is the undropped output
    qe, ke, ve = (to_ember(rng.standard_normal(s)) for s in [(2, 5, 8), (2, 9, 8), (2, 9, 4)])
    mean = np.mean([to_numpy(F.scaled_dot_product_attention(qe, ke, ve, dropout_p=p)) for _ in range(3000)], 0)
    np.testing.assert_allclose(mean, to_numpy(F.scaled_dot_product_attention(qe, ke, ve)), atol=0.08)


@pytest.mark.parametrize("is_causal", [False, True])
@pytest.mark.parametrize("S", [150, 700])
def test_dropout_gradients_use_the_forward_mask(is_causal, S):
    p, L = 0.3, 70
    ember.manual_seed(4)
    q, k = (to_ember(rng.standard_normal((2, n, 8))).requires_grad_() for n in (L, S))
    v = to_ember(rng.standard_normal((2, S, 5))).requires_grad_()
    eye = to_ember(np.eye(S))
    # the same draw twice: once with the identity as value (reveals the mask), once with v
    ember.manual_seed(9)
    w = to_numpy(F.scaled_dot_product_attention(q.detach(), k.detach(), eye.expand(2, S, S), dropout_p=p,
                                                is_causal=is_causal))
    ember.manual_seed(9)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=is_causal)
    g = rng.standard_normal(tuple(out.shape))
    out.backward(to_ember(g))
    tq, tk, tv = (torch.from_numpy(to_numpy(t)).requires_grad_() for t in (q, k, v))
    scores = tq @ tk.transpose(-1, -2) / np.sqrt(8)
    if is_causal:
        scores = scores.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float("-inf"))
    keep = torch.from_numpy((w != 0).astype(np.float64)) / (1 - p)
    ref = (torch.softmax(scores, -1) * keep) @ tv
    np.testing.assert_allclose(to_numpy(out), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    ref.backward(torch.from_numpy(g))
    for a, b in ((q, tq), (k, tk), (v, tv)):
        np.testing.assert_allclose(to_numpy(a.grad), b.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_dropout_gradcheck_and_double_backward_with_a_fixed_seed():
    q, k, v = (to_ember(rng.standard_normal(s)).requires_grad_() for s in [(2, 6, 3), (2, 9, 3), (2, 9, 2)])

    def fn(q, k, v):
        ember.manual_seed(12)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=0.4, is_causal=True)

    assert fused(fn(q, k, v))
    assert gradcheck(fn, [q, k, v]) and gradgradcheck(fn, [q, k, v])


def test_dropout_one_drops_everything():
    q, k, v = (to_ember(rng.standard_normal(s)).requires_grad_() for s in [(2, 6, 3), (2, 9, 3), (2, 9, 2)])
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=1.0)
    assert fused(out) and np.all(to_numpy(out) == 0)
    out.sum().backward()
    assert all(np.all(to_numpy(t.grad) == 0) for t in (q, k, v))


# ---- where the composite stays --------------------------------------------------------------------

def test_mask_that_needs_a_gradient_takes_the_composite():
    qs, ks, vs = (2, 2, 5, 4), (2, 2, 7, 4), (2, 2, 7, 3)
    (qe, qt), (ke, kt), (ve, vt) = (pair(rng.standard_normal(s), "float64") for s in (qs, ks, vs))
    m = rng.standard_normal((5, 7))
    me, mt = pair(m, "float64")
    out = F.scaled_dot_product_attention(qe, ke, ve, attn_mask=me)
    assert not fused(out)
    ref = TF.scaled_dot_product_attention(qt, kt, vt, attn_mask=mt)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(to_numpy(me.grad), mt.grad.numpy(), rtol=1e-10, atol=1e-12)
    with ember.no_grad():  # no gradient asked: the fused op
        assert not fused(F.scaled_dot_product_attention(qe, ke, ve, attn_mask=me))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_dtypes_compute_in_float32(dtype):
    q, k, v = (rng.standard_normal(s) for s in [(2, 2, 70, 16), (2, 2, 150, 16), (2, 2, 150, 8)])
    (qe, qt), (ke, kt), (ve, vt) = (pair(a, dtype) for a in (q, k, v))
    mask = visible_mask((70, 150), float)
    for kw in ({"is_causal": True}, {"attn_mask": mask}):
        if "attn_mask" in kw:
            me, mt = to_ember(mask).to(getattr(ember, dtype)), torch.from_numpy(mask).to(getattr(torch, dtype))
            out = F.scaled_dot_product_attention(qe, ke, ve, attn_mask=me)
            ref = TF.scaled_dot_product_attention(qt, kt, vt, attn_mask=mt)
        else:
            out = F.scaled_dot_product_attention(qe, ke, ve, **kw)
            ref = TF.scaled_dot_product_attention(qt, kt, vt, **kw)
        assert out.dtype == getattr(ember, dtype)
        tol = 2e-2 if dtype == "bfloat16" else 2e-3
        np.testing.assert_allclose(to_numpy(out).astype(np.float64), ref.detach().float().numpy(), rtol=tol,
                                   atol=tol)
        g = rng.standard_normal(tuple(out.shape))
        qe.grad = ke.grad = ve.grad = None
        qt.grad = kt.grad = vt.grad = None
        out.backward(to_ember(g).to(out.dtype))
        ref.backward(torch.from_numpy(g).to(ref.dtype))
        for a, b in ((qe, qt), (ke, kt), (ve, vt)):
            assert a.grad.dtype == getattr(ember, dtype)
            np.testing.assert_allclose(to_numpy(a.grad).astype(np.float64), b.grad.float().numpy(),
                                       rtol=5 * tol, atol=5 * tol)


def test_key_batch_broadcast_takes_the_composite():
    q, k, v = (to_ember(rng.standard_normal(s)) for s in [(2, 3, 5, 4), (1, 3, 7, 4), (1, 3, 7, 2)])
    out = F.scaled_dot_product_attention(q, k, v)
    exp = TF.scaled_dot_product_attention(*(torch.from_numpy(to_numpy(t)) for t in (q, k, v)))
    np.testing.assert_allclose(to_numpy(out), exp.numpy(), rtol=1e-10, atol=1e-12)


def test_trace_records_the_composite_and_runs_after_load():
    q, k, v = (ember.randn(2, 3, 20, 8) for _ in range(3))
    mask = ember.rand(20, 20) > 0.3

    def f(q, k, v):
        return (F.scaled_dot_product_attention(q, k, v, is_causal=True)
                + F.scaled_dot_product_attention(q, k, v, attn_mask=mask))

    traced = ember.jit.trace(f, (q, k, v))
    ops = [n.op for n in traced.graph.nodes()]
    assert "scaled_dot_product_flash_attention" not in ops and "softmax" in ops
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "sdpa.ember")
        traced.save(path)
        loaded = ember.jit.load(path)
    q2, k2, v2 = (ember.randn(2, 3, 20, 8) for _ in range(3))
    np.testing.assert_allclose(to_numpy(loaded(q2, k2, v2)), to_numpy(f(q2, k2, v2)), rtol=1e-5, atol=1e-5)


def test_multihead_attention_module_matches_torch():
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(32, 4, batch_first=True).double()
    em = ember.nn.MultiheadAttention(32, 4, batch_first=True).double()
    em.load_state_dict({n: to_ember(p.detach().numpy()) for n, p in tm.state_dict().items()})
    x = rng.standard_normal((2, 37, 32))
    xe, xt = pair(x, "float64")
    causal = np.triu(np.full((37, 37), -np.inf), 1)
    oe, _ = em(xe, xe, xe, attn_mask=to_ember(causal), need_weights=False)
    ot, _ = tm(xt, xt, xt, attn_mask=torch.from_numpy(causal), need_weights=False)
    np.testing.assert_allclose(to_numpy(oe), ot.detach().numpy(), rtol=1e-10, atol=1e-11)
    oe.sum().backward()
    ot.sum().backward()
    np.testing.assert_allclose(to_numpy(xe.grad), xt.grad.numpy(), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(to_numpy(em.in_proj_weight.grad), tm.in_proj_weight.grad.numpy(),
                               rtol=1e-9, atol=1e-10)


def test_threads_give_the_same_result():
    # the forward bit for bit; the backward bit for bit run to run (its partial sums of
    # dK, dV per chunk of queries are added in chunk order), and to rounding across
    # thread counts (the chunks depend on the thread count)
    q, k, v = (ember.randn(1, 2, 300, 16) for _ in range(3))
    g = ember.randn(1, 2, 300, 16)

    def run():
        leaves = [t.detach().requires_grad_() for t in (q, k, v)]
        out = F.scaled_dot_product_attention(*leaves, is_causal=True)
        out.backward(g)
        return [to_numpy(out)] + [to_numpy(t.grad) for t in leaves]

    prev = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        one = run()
        ember.set_num_threads(2)
        two, again = run(), run()
    finally:
        ember.set_num_threads(prev)
    np.testing.assert_array_equal(one[0], two[0])
    for a, b, c in zip(one[1:], two[1:], again[1:]):
        np.testing.assert_array_equal(b, c)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
