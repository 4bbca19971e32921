"""ember.nn.functional.scaled_dot_product_attention and multi_head_attention_forward
against float64 numpy references written from the definitions, against PyTorch where it
is installed (same arguments, nn.MultiheadAttention's weights), and finite differences."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck
from _helpers import to_ember, to_numpy

rng = np.random.default_rng(11)
NEG_INF = -np.inf


def randn(*shape):
    return rng.standard_normal(shape)


def E(a):
    return None if a is None else to_ember(a)


def softmax(x, safe):
    """Softmax over the last axis; safe: rows of all -inf give zeros (else NaN)."""
    m = np.max(x, axis=-1, keepdims=True)
    dead = np.isneginf(m)
    e = np.exp(x - np.where(dead, 0.0, m))
    with np.errstate(invalid="ignore"):
        out = e / e.sum(-1, keepdims=True)
    return np.where(dead, 0.0, out) if safe else np.where(dead, np.nan, out)


def ref_sdpa(q, k, v, mask=None, is_causal=False, scale=None):
    L, S = q.shape[-2], k.shape[-2]
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    scores = (q @ np.swapaxes(k, -1, -2)) * scale
    if is_causal:
        mask = np.tril(np.ones((L, S), dtype=bool))
    if mask is not None:
        scores = np.where(mask, scores, NEG_INF) if mask.dtype == bool else scores + mask
    return softmax(scores, safe=mask is not None) @ v


# ---- scaled_dot_product_attention --------------------------------------------------------------

@pytest.mark.parametrize("qs, ks, vs", [((3, 4), (5, 4), (5, 2)),
                                        ((2, 3, 4), (2, 5, 4), (2, 5, 6)),
                                        ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3)),
                                        ((2, 1, 3, 4), (1, 3, 5, 4), (1, 3, 5, 2))])  # batch broadcast
def test_sdpa_values(qs, ks, vs):
    q, k, v = randn(*qs), randn(*ks), randn(*vs)
    np.testing.assert_allclose(to_numpy(F.scaled_dot_product_attention(E(q), E(k), E(v))),
                               ref_sdpa(q, k, v), rtol=1e-10, atol=1e-12)
    got = F.scaled_dot_product_attention(E(q), E(k), E(v), scale=0.3)
    np.testing.assert_allclose(to_numpy(got), ref_sdpa(q, k, v, scale=0.3), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mask_shape", [(3, 5), (2, 1, 3, 5), (1, 5)])
def test_sdpa_masks(mask_shape):
    q, k, v = randn(2, 2, 3, 4), randn(2, 2, 5, 4), randn(2, 2, 5, 6)
    bmask = rng.random(mask_shape) > 0.3
    np.testing.assert_allclose(to_numpy(F.scaled_dot_product_attention(E(q), E(k), E(v), attn_mask=E(bmask))),
                               ref_sdpa(q, k, v, bmask), rtol=1e-10, atol=1e-12)
    fmask = randn(*mask_shape)
    np.testing.assert_allclose(to_numpy(F.scaled_dot_product_attention(E(q), E(k), E(v), attn_mask=E(fmask))),
                               ref_sdpa(q, k, v, fmask), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("L, S", [(4, 4), (3, 5), (5, 3)])
def test_sdpa_causal(L, S):
    q, k, v = randn(2, L, 4), randn(2, S, 4), randn(2, S, 3)
    got = F.scaled_dot_product_attention(E(q), E(k), E(v), is_causal=True)
    np.testing.assert_allclose(to_numpy(got), ref_sdpa(q, k, v, is_causal=True), rtol=1e-10, atol=1e-12)


def test_sdpa_fully_masked_query_gives_zeros_and_zero_gradient():
    q, k, v = (to_ember(randn(2, 3, 4)).requires_grad_() for _ in range(3))
    mask = np.ones((3, 3), dtype=bool)
    mask[1] = False
    fmask = np.where(mask, 0.0, NEG_INF)
    for m in (mask, fmask):
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=E(m))
        assert np.all(to_numpy(out.detach())[:, 1] == 0)
        q.grad = None
        out.sum().backward()
        g = to_numpy(q.grad)
        assert np.all(np.isfinite(g)) and np.all(g[:, 1] == 0)


@pytest.mark.parametrize("L, S", [(0, 3), (3, 0)])
def test_sdpa_empty(L, S):
    q, k, v = E(randn(2, L, 4)), E(randn(2, S, 4)), E(randn(2, S, 5))
    for mask in (None, E(np.ones((L, S), dtype=bool))):
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        assert tuple(out.shape) == (2, L, 5) and np.all(to_numpy(out) == 0)


def test_sdpa_float32_and_gqa():
    q, k, v = randn(2, 4, 3, 4), randn(2, 2, 5, 4), randn(2, 2, 5, 3)
    got = F.scaled_dot_product_attention(E(q).float(), E(k).float(), E(v).float(), enable_gqa=True)
    assert got.dtype == ember.float32
    exp = ref_sdpa(q, np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1))
    np.testing.assert_allclose(to_numpy(got), exp, rtol=1e-5, atol=1e-5)


def test_sdpa_dropout():
    q, k, v = E(randn(2, 3, 4)), E(randn(2, 5, 4)), E(randn(2, 5, 6))
    assert np.all(to_numpy(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0)) == 0)
    ember.manual_seed(5)
    a = to_numpy(F.scaled_dot_product_attention(q, k, v, dropout_p=0.5))
    ember.manual_seed(5)
    b = to_numpy(F.scaled_dot_product_attention(q, k, v, dropout_p=0.5))
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, to_numpy(F.scaled_dot_product_attention(q, k, v)))


def test_sdpa_gradcheck():
    q, k, v = (to_ember(randn(*s)).requires_grad_() for s in [(2, 3, 2), (2, 4, 2), (2, 4, 3)])
    mask = to_ember(randn(3, 4)).requires_grad_()
    assert gradcheck(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), [q, k, v, mask])
    bmask = E(rng.random((3, 4)) > 0.4)
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=bmask, scale=0.7),
                     [q, k, v])
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), [q, k, v])
    # non-contiguous query
    qt = to_ember(randn(2, 2, 3)).transpose(1, 2).requires_grad_()
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v), [qt, k, v])


def test_sdpa_errors():
    q, k, v = E(randn(2, 3, 4)), E(randn(2, 5, 4)), E(randn(2, 5, 6))
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=E(np.ones((3, 5), dtype=bool)), is_causal=True)
    with pytest.raises(RuntimeError, match="Expected attn_mask dtype to be bool or float"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=ember.ones(3, 5, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="Expected query, key, and value to have the same dtype"):
        F.scaled_dot_product_attention(q, k.float(), v)
    with pytest.raises(RuntimeError, match="at least 2 dimensional"):
        F.scaled_dot_product_attention(E(randn(4)), E(randn(4)), E(randn(4)))
    with pytest.raises(RuntimeError, match="key's last dim"):
        F.scaled_dot_product_attention(q, E(randn(2, 5, 3)), v)
    with pytest.raises(RuntimeError, match="value must have as many positions"):
        F.scaled_dot_product_attention(q, k, E(randn(2, 4, 6)))
    with pytest.raises(RuntimeError, match="does not broadcast"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=E(randn(4, 5)))
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1"):
        F.scaled_dot_product_attention(q, k, v, dropout_p=1.5)
    with pytest.raises(RuntimeError, match="floating point"):
        F.scaled_dot_product_attention(q.long(), k.long(), v.long())
    with pytest.raises(RuntimeError, match="enable_gqa"):
        F.scaled_dot_product_attention(E(randn(2, 3, 3, 4)), E(randn(2, 2, 5, 4)), E(randn(2, 2, 5, 4)),
                                       enable_gqa=True)


# ---- multi_head_attention_forward -----------------------------------------------------------

def ref_mha(query, key, value, heads, w_in, b_in, w_out, b_out, kpm=None, attn_mask=None,
            bias_k=None, bias_v=None, add_zero_attn=False, need_weights=True, average=True):
    """torch's multi_head_attention_forward in numpy (sequence first, batched)."""
    L, N, Em = query.shape
    hd = Em // heads
    wq, wk, wv = np.split(w_in, 3)
    bq, bk, bv = np.split(b_in, 3) if b_in is not None else (0.0, 0.0, 0.0)
    q, k, v = query @ wq.T + bq, key @ wk.T + bk, value @ wv.T + bv
    to_float = lambda m: np.where(m, NEG_INF, 0.0) if m is not None and m.dtype == bool else m  # noqa: E731
    kpm, attn_mask = to_float(kpm), to_float(attn_mask)
    if bias_k is not None:
        k = np.concatenate([k, np.repeat(bias_k, N, axis=1)])
        v = np.concatenate([v, np.repeat(bias_v, N, axis=1)])
    if add_zero_attn:
        k = np.concatenate([k, np.zeros((1, N, Em))])
        v = np.concatenate([v, np.zeros((1, N, Em))])
    pad = k.shape[0] - key.shape[0]
    S = k.shape[0]
    # [N, heads, len, hd]
    split = lambda x: x.reshape(x.shape[0], N, heads, hd).transpose(1, 2, 0, 3)  # noqa: E731
    scores = split(q) @ split(k).transpose(0, 1, 3, 2) / np.sqrt(hd)
    if attn_mask is not None:
        m = np.pad(attn_mask, [(0, 0)] * (attn_mask.ndim - 1) + [(0, pad)])
        scores = scores + (m if m.ndim == 2 else m.reshape(N, heads, L, S))
    if kpm is not None:
        scores = scores + np.pad(kpm, [(0, 0), (0, pad)])[:, None, None, :]
    w = softmax(scores, safe=not need_weights)
    out = (w @ split(v)).transpose(2, 0, 1, 3).reshape(L, N, Em) @ w_out.T
    out = out + (b_out if b_out is not None else 0.0)
    return out, (w.mean(1) if average else w)


def mha_args(Em=4, heads=2, bias=True):
    return dict(w_in=randn(3 * Em, Em), b_in=randn(3 * Em) if bias else None,
                w_out=randn(Em, Em), b_out=randn(Em) if bias else None)


def call_mha(query, key, value, heads, w_in, b_in, w_out, b_out, bias_k=None, bias_v=None,
             add_zero_attn=False, **kw):
    kw = {n: (E(a) if isinstance(a, np.ndarray) else a) for n, a in kw.items()}
    out, w = F.multi_head_attention_forward(E(query), E(key), E(value), query.shape[-1], heads, E(w_in),
                                            E(b_in), E(bias_k), E(bias_v), add_zero_attn, 0.0, E(w_out),
                                            E(b_out), **kw)
    return to_numpy(out), (None if w is None else to_numpy(w))


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("average", [True, False])
@pytest.mark.parametrize("bias", [True, False])
def test_mha_values(need_weights, average, bias):
    L, S, N, Em, H = 3, 5, 2, 4, 2
    p = mha_args(Em, H, bias)
    query, key, value = randn(L, N, Em), randn(S, N, Em), randn(S, N, Em)
    out, w = call_mha(query, key, value, H, **p, need_weights=need_weights,
                      average_attn_weights=average)
    exp_out, exp_w = ref_mha(query, key, value, H, **p, need_weights=need_weights, average=average)
    np.testing.assert_allclose(out, exp_out, rtol=1e-10, atol=1e-12)
    if need_weights:
        assert w.shape == ((N, L, S) if average else (N, H, L, S))
        np.testing.assert_allclose(w, exp_w, rtol=1e-10, atol=1e-12)
    else:
        assert w is None


@pytest.mark.parametrize("mask_kind", ["bool", "float"])
@pytest.mark.parametrize("mask_dim", [2, 3])
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_masks(mask_kind, mask_dim, need_weights):
    L, S, N, Em, H = 3, 4, 2, 4, 2
    p = mha_args(Em, H)
    query, key = randn(L, N, Em), randn(S, N, Em)
    shape = (L, S) if mask_dim == 2 else (N * H, L, S)
    attn_mask = rng.random(shape) > 0.7 if mask_kind == "bool" else randn(*shape)
    kpm = np.zeros((N, S), dtype=bool)
    kpm[0, 1] = kpm[1, 3] = True
    if mask_kind == "bool":
        attn_mask[..., 0] = False  # no fully masked query: torch's two paths differ there (NaN vs 0)
    else:
        kpm = np.where(kpm, -2.0, 0.0)
    out, w = call_mha(query, key, key, H, **p, key_padding_mask=kpm, attn_mask=attn_mask,
                      need_weights=need_weights)
    exp_out, exp_w = ref_mha(query, key, key, H, **p, kpm=kpm, attn_mask=attn_mask)
    np.testing.assert_allclose(out, exp_out, rtol=1e-10, atol=1e-12)
    if need_weights:
        np.testing.assert_allclose(w, exp_w, rtol=1e-10, atol=1e-12)


def test_mha_self_attention_unbatched_bias_kv_zero_attn():
    L, Em, H = 3, 6, 3
    p = mha_args(Em, H)
    x = randn(L, Em)
    bias_k, bias_v = randn(1, 1, Em), randn(1, 1, Em)
    kpm = np.array([False, True, False])
    out, w = call_mha(x, x, x, H, **p, bias_k=bias_k, bias_v=bias_v, add_zero_attn=True,
                      key_padding_mask=kpm, average_attn_weights=False)
    exp_out, exp_w = ref_mha(x[:, None], x[:, None], x[:, None], H, **p, bias_k=bias_k, bias_v=bias_v,
                             add_zero_attn=True, kpm=kpm[None], average=False)
    assert out.shape == (L, Em) and w.shape == (H, L, L + 2)
    np.testing.assert_allclose(out, exp_out[:, 0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w, exp_w[0], rtol=1e-10, atol=1e-12)
    out, w = call_mha(x, x, x, H, **p, bias_k=bias_k, bias_v=bias_v, add_zero_attn=True,
                      key_padding_mask=kpm, need_weights=False)
    assert w is None
    np.testing.assert_allclose(out, exp_out[:, 0], rtol=1e-10, atol=1e-12)


def test_mha_causal_hint_uses_sdpa_causal():
    L, N, Em, H = 4, 2, 4, 2
    p = mha_args(Em, H)
    x = randn(L, N, Em)
    causal = np.triu(np.ones((L, L), dtype=bool), 1)
    exp_out, _ = ref_mha(x, x, x, H, **p, attn_mask=causal)
    for need_weights in (True, False):
        out, _ = call_mha(x, x, x, H, **p, attn_mask=causal, is_causal=True, need_weights=need_weights)
        np.testing.assert_allclose(out, exp_out, rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        call_mha(x, x, x, H, **p, is_causal=True)


def test_mha_dropout_only_in_training():
    L, N, Em, H = 3, 2, 4, 2
    p = mha_args(Em, H)
    x = randn(L, N, Em)
    args = [E(x), E(x), E(x), Em, H, E(p["w_in"]), E(p["b_in"]), None, None, False, 1.0, E(p["w_out"]),
            E(p["b_out"])]
    out, w = F.multi_head_attention_forward(*args, training=False)
    np.testing.assert_allclose(to_numpy(out), ref_mha(x, x, x, H, **p)[0], rtol=1e-10, atol=1e-12)
    out, w = F.multi_head_attention_forward(*args, training=True)  # p = 1: only the out bias is left
    np.testing.assert_allclose(to_numpy(out), np.broadcast_to(p["b_out"], (L, N, Em)), atol=1e-12)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_gradcheck(need_weights):
    L, S, N, Em, H = 2, 3, 2, 4, 2
    leaves = [to_ember(randn(*s)).requires_grad_() for s in
              [(L, N, Em), (S, N, Em), (S, N, Em), (3 * Em, Em), (3 * Em,), (Em, Em), (Em,)]]
    kpm = E(np.array([[False, True, False], [False, False, True]]))

    def fn(q, k, v, w_in, b_in, w_out, b_out):
        out, w = F.multi_head_attention_forward(q, k, v, Em, H, w_in, b_in, None, None, False, 0.0, w_out,
                                                b_out, key_padding_mask=kpm, need_weights=need_weights)
        return (out, w) if need_weights else out

    assert gradcheck(fn, leaves)


def test_mha_errors():
    p = mha_args(4, 2)
    x = randn(3, 2, 4)
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D tensor"):
        call_mha(randn(1, 3, 2, 4), x, x, 2, **p)
    with pytest.raises(AssertionError, match="expected `key` and `value` to be 3-D"):
        call_mha(x, randn(3, 4), x, 2, **p)
    with pytest.raises(AssertionError, match="expected `key_padding_mask` to be `None` or 2-D"):
        call_mha(x, x, x, 2, **p, key_padding_mask=np.zeros(3, dtype=bool))
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 5, but got 4"):
        F.multi_head_attention_forward(E(x), E(x), E(x), 5, 2, E(p["w_in"]), E(p["b_in"]), None, None,
                                       False, 0.0, E(p["w_out"]), E(p["b_out"]))
    with pytest.raises(AssertionError, match="embed_dim 4 not divisible by num_heads 3"):
        call_mha(x, x, x, 3, **p)
    with pytest.raises(AssertionError, match="key shape .* does not match value shape"):
        call_mha(x, x, randn(2, 2, 4), 2, **p)
    with pytest.raises(AssertionError, match="only bool and floating types of attn_mask"):
        call_mha(x, x, x, 2, **p, attn_mask=np.zeros((3, 3), dtype=np.int64))
    with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask is"):
        call_mha(x, x, x, 2, **p, attn_mask=np.zeros((3, 4)))
    with pytest.raises(RuntimeError, match="The shape of the 3D attn_mask is"):
        call_mha(x, x, x, 2, **p, attn_mask=np.zeros((3, 3, 3)))
    with pytest.raises(AssertionError, match="Expected key_padded_mask.shape\\[1\\] to be 3, but got 4"):
        call_mha(x, x, x, 2, **p, key_padding_mask=np.zeros((2, 4), dtype=bool))
    with pytest.raises(AssertionError, match="bias_k is set but bias_v is None"):
        call_mha(x, x, x, 2, **p, bias_k=randn(1, 1, 4))
    with pytest.raises(AssertionError, match="use_separate_proj_weight is True but q_proj_weight is None"):
        call_mha(x, x, x, 2, **p, use_separate_proj_weight=True)
    with pytest.raises(RuntimeError, match="in_proj_weight must have shape"):
        call_mha(x, x, x, 2, w_in=randn(9, 4), b_in=None, w_out=p["w_out"], b_out=None)
    with pytest.raises(ValueError, match="num_heads must be positive"):
        call_mha(x, x, x, 0, **p)


# ---- against PyTorch -------------------------------------------------------------------------

def from_torch(t):
    return to_ember(t.detach().numpy())


@pytest.mark.parametrize("config", [dict(), dict(kdim=3, vdim=5), dict(add_bias_kv=True, add_zero_attn=True),
                                    dict(bias=False), dict(batch_first=True)])
@pytest.mark.parametrize("need_weights, average", [(True, True), (True, False), (False, True)])
def test_mha_matches_torch_module(config, need_weights, average):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    Em, H, L, S, N = 6, 3, 4, 5, 2
    mod = torch.nn.MultiheadAttention(Em, H, **config).double().eval()
    bf = config.get("batch_first", False)
    shape = lambda n, d: (N, n, d) if bf else (n, N, d)  # noqa: E731
    q = torch.randn(shape(L, Em), dtype=torch.float64, requires_grad=True)
    k = torch.randn(shape(S, config.get("kdim", Em)), dtype=torch.float64, requires_grad=True)
    v = torch.randn(shape(S, config.get("vdim", Em)), dtype=torch.float64, requires_grad=True)
    kpm = torch.zeros(N, S, dtype=torch.float64)  # float like attn_mask (mixed kinds are deprecated)
    kpm[1, 2] = -np.inf
    mask = torch.randn(L, S, dtype=torch.float64)
    t_out, t_w = mod(q, k, v, key_padding_mask=kpm, attn_mask=mask, need_weights=need_weights,
                     average_attn_weights=average)
    # The caller (nn.MultiheadAttention) makes batch_first inputs sequence first.
    eq, ek, ev = (from_torch(t).requires_grad_() for t in (q, k, v))
    seq = (lambda t: t.transpose(0, 1)) if bf else (lambda t: t)  # noqa: E731
    sep = not mod._qkv_same_embed_dim
    opt = lambda t: None if t is None else from_torch(t)  # noqa: E731
    e_out, e_w = F.multi_head_attention_forward(
        seq(eq), seq(ek), seq(ev), Em, H, opt(mod.in_proj_weight), opt(mod.in_proj_bias),
        opt(mod.bias_k), opt(mod.bias_v), mod.add_zero_attn, 0.0, from_torch(mod.out_proj.weight),
        opt(mod.out_proj.bias), training=False, key_padding_mask=from_torch(kpm),
        need_weights=need_weights, attn_mask=from_torch(mask), use_separate_proj_weight=sep,
        q_proj_weight=opt(mod.q_proj_weight), k_proj_weight=opt(mod.k_proj_weight),
        v_proj_weight=opt(mod.v_proj_weight), average_attn_weights=average)
    e_out = seq(e_out)
    np.testing.assert_allclose(to_numpy(e_out.detach()), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    if need_weights:
        np.testing.assert_allclose(to_numpy(e_w.detach()), t_w.detach().numpy(), rtol=1e-10, atol=1e-12)
    else:
        assert e_w is None and t_w is None
    g = torch.randn_like(t_out)
    (t_out * g).sum().backward()
    (e_out * from_torch(g)).sum().backward()
    for e, t in [(eq, q), (ek, k), (ev, v)]:
        np.testing.assert_allclose(to_numpy(e.grad), t.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_mha_static_kv_and_unbatched_3d_mask_match_torch():
    torch = pytest.importorskip("torch")
    TF = torch.nn.functional
    torch.manual_seed(1)
    Em, H, L, S = 4, 2, 3, 5
    w_in, b_in = torch.randn(3 * Em, Em), torch.randn(3 * Em)
    w_out, b_out = torch.randn(Em, Em), torch.randn(Em)
    q, k = torch.randn(L, Em), torch.randn(S, Em)
    static_k, static_v = torch.randn(H, S + 1, Em // H), torch.randn(H, S + 1, Em // H)
    mask3 = torch.rand(H, L, S) > 0.8
    mask3[..., 0] = False
    t = TF.multi_head_attention_forward(q, k, k, Em, H, w_in, b_in, None, None, False, 0.0, w_out, b_out,
                                        static_k=static_k, static_v=static_v, average_attn_weights=False)
    e = F.multi_head_attention_forward(*(from_torch(a) for a in (q, k, k)), Em, H, from_torch(w_in),
                                       from_torch(b_in), None, None, False, 0.0, from_torch(w_out),
                                       from_torch(b_out), static_k=from_torch(static_k),
                                       static_v=from_torch(static_v), average_attn_weights=False)
    for a, b in zip(e, t):
        np.testing.assert_allclose(to_numpy(a), b.numpy(), rtol=1e-5, atol=1e-6)
    t = TF.multi_head_attention_forward(q, k, k, Em, H, w_in, b_in, None, None, False, 0.0, w_out, b_out,
                                        attn_mask=mask3)
    e = F.multi_head_attention_forward(*(from_torch(a) for a in (q, k, k)), Em, H, from_torch(w_in),
                                       from_torch(b_in), None, None, False, 0.0, from_torch(w_out),
                                       from_torch(b_out), attn_mask=from_torch(mask3))
    for a, b in zip(e, t):
        np.testing.assert_allclose(to_numpy(a), b.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kw", [dict(), dict(is_causal=True), dict(scale=0.2), dict(mask="bool"),
                                dict(mask="float"), dict(enable_gqa=True)])
def test_sdpa_matches_torch(kw):
    torch = pytest.importorskip("torch")
    TF = torch.nn.functional
    torch.manual_seed(2)
    q = torch.randn(2, 4, 3, 8, requires_grad=True)
    hk = 2 if kw.get("enable_gqa") else 4
    k = torch.randn(2, hk, 5, 8, requires_grad=True)
    v = torch.randn(2, hk, 5, 6, requires_grad=True)
    mask = kw.pop("mask", None)
    if mask == "bool":
        kw["attn_mask"] = torch.rand(3, 5) > 0.5
        kw["attn_mask"][1] = False  # a fully masked query
    elif mask == "float":
        kw["attn_mask"] = torch.randn(1, 4, 3, 5)
    t = TF.scaled_dot_product_attention(q, k, v, **kw)
    ekw = {n: (from_torch(a) if n == "attn_mask" else a) for n, a in kw.items()}
    eq, ek, ev = (from_torch(a).requires_grad_() for a in (q, k, v))
    e = F.scaled_dot_product_attention(eq, ek, ev, **ekw)
    np.testing.assert_allclose(to_numpy(e.detach()), t.detach().numpy(), rtol=1e-5, atol=1e-6)
    g = torch.randn_like(t)
    (t * g).sum().backward()
    (e * from_torch(g)).sum().backward()
    for a, b in [(eq, q), (ek, k), (ev, v)]:
        np.testing.assert_allclose(to_numpy(a.grad), b.grad.numpy(), rtol=1e-4, atol=1e-5)
