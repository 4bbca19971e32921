"""The key pieces of the programs in test/python/programs/ added for issue 14 (ViT, packed
char-RNN, Spatial Transformer, GAT, Forward-Forward, REINFORCE, DQN), run with the same
weights and inputs in ember and in PyTorch: values and gradients agree. The programs
themselves only run with ember (test_tutorial_programs.py); their random streams differ
from torch's, so this is where their numbers are compared."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def as_torch(x):
    return torch.tensor(np.asarray(x))


def as_ember(x):
    return ember.tensor(np.asarray(x))


def same_weights(ember_module, torch_module):
    ember_module.load_state_dict({k: ember.tensor(v.detach().numpy())
                                  for k, v in torch_module.state_dict().items()})


def rel(got, want):
    got = np.asarray(got.detach().numpy(), dtype=np.float64)
    want = np.asarray(want.detach().numpy(), dtype=np.float64)
    return float(np.abs(got - want).max() / (np.abs(want).max() + 1e-12))


def grads_rel(ember_module, torch_module):
    return max(rel(pe.grad, pt.grad) for pe, pt in zip(ember_module.parameters(), torch_module.parameters())
               if pt.grad is not None)


def _vit_parts(lib):
    nn = lib.nn
    return nn.ModuleDict(dict(
        pe=nn.Conv2d(1, 48, 4, stride=4), n1=nn.LayerNorm(48),
        attn=nn.MultiheadAttention(48, 4, batch_first=True), n2=nn.LayerNorm(48, eps=1e-6),
        mlp=nn.Sequential(nn.Linear(48, 96), nn.GELU(approximate="tanh"), nn.Linear(96, 48))))


def _vit_forward(lib, m, x):
    h = m["pe"](x).flatten(2).transpose(1, 2)
    a = m["n1"](h)
    o, w = m["attn"](a, a, a, need_weights=True, average_attn_weights=True)
    h = h + o
    h = h + m["mlp"](m["n2"](h))
    loss = lib.nn.CrossEntropyLoss(label_smoothing=0.1)(h.mean(1)[:, :4], lib.tensor([0, 1, 2, 3, 0]))
    return loss, w


def test_vit_block_with_attention_weights():
    x = np.random.RandomState(0).randn(5, 1, 16, 16).astype(np.float32)
    tm, em = _vit_parts(torch), _vit_parts(ember)
    same_weights(em, tm)
    lt, wt = _vit_forward(torch, tm, as_torch(x))
    le, we = _vit_forward(ember, em, as_ember(x))
    lt.backward()
    le.backward()
    assert rel(le, lt) < 1e-6 and rel(we, wt) < 1e-6 and grads_rel(em, tm) < 1e-5


def _char_lm(lib):
    nn = lib.nn
    return nn.ModuleDict(dict(emb=nn.Embedding(29, 24, padding_idx=0),
                              rnn=nn.LSTM(24, 64, num_layers=2, batch_first=True, dropout=0.1),
                              head=nn.Linear(64, 29)))


def _char_lm_forward(lib, m, x, lengths):
    rnn = lib.nn.utils.rnn
    packed = rnn.pack_padded_sequence(m["emb"](x), lengths, batch_first=True, enforce_sorted=False)
    out, (h, _) = m["rnn"](packed)
    out, _ = rnn.pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
    logits = m["head"](out)
    loss = lib.nn.CrossEntropyLoss(ignore_index=0)(logits.reshape(-1, 29), x.roll(-1, 1).reshape(-1))
    return loss, h


def test_packed_two_layer_lstm_unsorted_lengths():
    rng = np.random.RandomState(1)
    lengths = [5, 9, 3, 7]
    x = np.zeros((4, 9), np.int64)
    for i, n in enumerate(lengths):
        x[i, :n] = rng.randint(1, 29, n)
    tm, em = _char_lm(torch), _char_lm(ember)
    same_weights(em, tm)
    tm.eval()
    em.eval()
    lt, ht = _char_lm_forward(torch, tm, as_torch(x), as_torch(lengths))
    le, he = _char_lm_forward(ember, em, as_ember(x), as_ember(lengths))
    lt.backward()
    le.backward()
    assert rel(le, lt) < 1e-6 and rel(he, ht) < 1e-6 and grads_rel(em, tm) < 1e-5


def test_spatial_transformer_sampling_with_default_align_corners():
    rng = np.random.RandomState(2)
    x = rng.randn(3, 1, 28, 28).astype(np.float32)
    theta = rng.randn(3, 2, 3).astype(np.float32) * 0.3 + np.array([[1, 0, 0], [0, 1, 0]], np.float32)
    results = []
    for lib, make in ((torch, as_torch), (ember, as_ember)):
        xs, th = make(x).requires_grad_(), make(theta).requires_grad_()
        F = lib.nn.functional
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # both warn that align_corners defaults to False
            out = F.grid_sample(xs, F.affine_grid(th, xs.size()))
        out.pow(2).sum().backward()
        results.append((out, th.grad, xs.grad))
    for want, got in zip(*results):
        assert rel(got, want) < 1e-5


def _gat_attention(lib, W, a, h, adj):
    ht = lib.mm(h, W).view(h.shape[0], 4, 8).permute(1, 0, 2)
    e = lib.nn.LeakyReLU(0.2)(lib.matmul(ht, a[:, :8, :]) + lib.matmul(ht, a[:, 8:, :]).mT)
    e = lib.where(adj > 0, e, -9e16 * lib.ones_like(e))
    return lib.matmul(lib.nn.functional.softmax(e, dim=-1), ht).mean(0)


def test_gat_masked_multi_head_attention():
    rng = np.random.RandomState(3)
    W, a = rng.randn(10, 32).astype(np.float32), rng.randn(4, 16, 1).astype(np.float32)
    h = rng.randn(20, 10).astype(np.float32)
    adj = ((rng.rand(20, 20) < 0.2) | np.eye(20, dtype=bool)).astype(np.float32)
    results = []
    for lib, make in ((torch, as_torch), (ember, as_ember)):
        Wl, al = make(W).requires_grad_(), make(a).requires_grad_()
        out = _gat_attention(lib, Wl, al, make(h), make(adj))
        out.sum().backward()
        results.append((out, Wl.grad, al.grad))
    for want, got in zip(*results):
        assert rel(got, want) < 1e-5


def test_forward_forward_label_overlay():
    rng = np.random.RandomState(4)
    x, y = rng.randn(6, 784).astype(np.float32), np.array([1, 3, 5, 7, 9, 0])

    def overlay(x, y):
        x_ = x.clone()
        x_[:, :10] *= 0.0
        x_[range(x.shape[0]), y] = x.max()
        return x_

    assert rel(overlay(as_ember(x), as_ember(y)), overlay(as_torch(x), as_torch(y))) == 0


def test_reinforce_categorical_and_normalised_returns():
    rng = np.random.RandomState(5)
    p = rng.rand(5, 2).astype(np.float32)
    p /= p.sum(1, keepdims=True)
    actions = np.array([0, 1, 1, 0, 1])
    ct, ce = torch.distributions.Categorical(as_torch(p)), ember.distributions.Categorical(as_ember(p))
    assert rel(ce.log_prob(as_ember(actions)), ct.log_prob(as_torch(actions))) < 1e-7
    assert rel(ce.entropy(), ct.entropy()) < 1e-7
    r = rng.rand(7).astype(np.float32)
    eps = np.finfo(np.float32).eps.item()
    norm = [(t - t.mean()) / (t.std() + eps) for t in (as_torch(r), as_ember(r))]
    assert rel(norm[1], norm[0]) < 1e-6


def test_dqn_gather_masked_max_and_unfold():
    rng = np.random.RandomState(6)
    q, a, mask = rng.randn(8, 2).astype(np.float32), rng.randint(0, 2, (8, 1)), rng.rand(8) > 0.3

    def pieces(lib):
        v = lib.zeros(8)
        v[lib.tensor(mask)] = lib.tensor(q).max(1).values[lib.tensor(mask)]
        d = lib.arange(30, dtype=lib.float).unfold(0, 10, 1).mean(1).view(-1)
        return lib.tensor(q).gather(1, lib.tensor(a)), v, d

    for got, want in zip(pieces(ember), pieces(torch)):
        assert rel(got, want) == 0
