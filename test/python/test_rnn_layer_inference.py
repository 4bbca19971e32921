"""The recurrent layers' path without a graph (lib/ops/rnn.cpp, lib/cpu/rnn_layer.cpp): under
no_grad (or with nothing requiring grad) each LSTM/GRU direction on the CPU runs as one
lstm_layer_inference / gru_layer_inference call instead of step by step. Its values must be
PyTorch's and the step-by-step path's, for every layer option; when a graph is recorded the
layers run their training ops lstm_layer / gru_layer (test_rnn_layer_training.py)."""
import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.profiler import profile

from _rnn_pairs import CONFIGS, counts, flat, pair_modules

torch = pytest.importorskip("torch")


def values(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy()


def make_state(kind, layers_dirs, batch, hidden, dtype, rng):
    n = 2 if kind == "LSTM" else 1
    shape = (layers_dirs, batch, hidden) if batch else (layers_dirs, hidden)
    arrays = [rng.standard_normal(shape).astype(dtype) for _ in range(n)]
    e = [ember.from_numpy(a.copy()) for a in arrays]
    t = [torch.from_numpy(a.copy()) for a in arrays]
    return (tuple(e), tuple(t)) if kind == "LSTM" else (e[0], t[0])


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_no_grad_matches_torch_and_the_step_path(kind, cfg, with_state, dtype):
    rng = np.random.default_rng(3)
    I, H, T, B = 5, 7, 6, 3
    em, tm = pair_modules(kind, dtype, I, H, **cfg)
    shape = (B, T, I) if cfg.get("batch_first") else (T, B, I)
    xa = rng.standard_normal(shape).astype(dtype)
    xe, xt = ember.from_numpy(xa.copy()), torch.from_numpy(xa.copy())
    D = 2 if cfg.get("bidirectional") else 1
    he, ht = make_state(kind, cfg["num_layers"] * D, B, H, dtype, rng) if with_state else (None, None)
    before = [s.numpy().copy() for s in (he if isinstance(he, tuple) else (he,))] if with_state else []
    with ember.no_grad():
        fast = flat(em(xe, he))
    for s, b in zip(he if isinstance(he, tuple) else (he,), before):
        np.testing.assert_array_equal(s.numpy(), b)  # the initial state is left as it was
    with torch.no_grad():
        ref = flat(tm(xt, ht))
    step = flat(em(xe, he))  # parameters require grad: the training op (lstm_layer / gru_layer)
    assert all(s.requires_grad for s in step) and not any(f.requires_grad for f in fast)
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else dict(rtol=2e-5, atol=2e-6)
    for f, s, r in zip(fast, step, ref):
        assert tuple(f.shape) == tuple(s.shape) == tuple(r.shape) and f.dtype == s.dtype
        np.testing.assert_allclose(values(f), values(s), **tol)
        np.testing.assert_allclose(values(f), r.numpy(), **tol)
    np.testing.assert_array_equal(xe.numpy(), xa)  # the input is left as it was


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_unbatched_and_wide_batches(kind):
    # H = 37 and B = 70: vector tails and a pointwise pass split over threads.
    rng = np.random.default_rng(4)
    for shape, hidden in [((5, 6), 4), ((4, 70, 6), 37)]:
        em, tm = pair_modules(kind, "float32", 6, hidden, num_layers=2, bidirectional=True)
        xa = rng.standard_normal(shape).astype(np.float32)
        with ember.no_grad():
            got = flat(em(ember.from_numpy(xa)))
        with torch.no_grad():
            want = flat(tm(torch.from_numpy(xa)))
        for g, w in zip(got, want):
            np.testing.assert_allclose(values(g), w.numpy(), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_which_path_runs(kind):
    em = getattr(nn, kind)(4, 5, num_layers=2, bidirectional=True)
    x = ember.randn(3, 2, 4)
    op = kind.lower() + "_layer_inference"
    cell = kind.lower() + "_cell_fused"
    with profile() as prof, ember.no_grad():
        em(x)
    n = counts(prof)
    assert n.get(op) == 4 and cell not in n  # one call per layer and direction
    with profile() as prof:
        em(x)  # a graph: the training op (test_rnn_layer_training.py)
    n = counts(prof)
    assert op not in n and cell not in n and n[kind.lower() + "_layer"] == 4
    em.requires_grad_(False)
    with profile() as prof:
        em(x)  # grad mode, but nothing requires grad: no graph either
    assert counts(prof).get(op) == 4
    with profile() as prof:
        em(x.requires_grad_())  # the input requires grad: the step path
    assert op not in counts(prof)


def test_trace_records_the_steps():
    # A traced graph (and its ONNX export) knows the step ops, not the layer ops.
    em = nn.LSTM(3, 4).eval()
    x = ember.randn(5, 2, 3)
    with ember.no_grad():
        traced = ember.jit.trace(em, (x,), check_trace=False)
        eager = em(x)
    out = traced(x)
    np.testing.assert_allclose(out[0].detach().numpy(), eager[0].numpy(), rtol=1e-6, atol=1e-7)


def test_dropout_between_layers_in_training_mode_without_grad():
    # train() with no_grad: dropout between layers still applies (and draws the same
    # random numbers as the step path, which consumes none in the recurrence).
    em = nn.LSTM(4, 6, num_layers=3, dropout=0.5).train()
    x = ember.randn(5, 2, 4)
    ember.manual_seed(11)
    with ember.no_grad():
        fast = em(x)[0]
    ember.manual_seed(11)
    step = em(x)[0]
    np.testing.assert_allclose(fast.numpy(), step.detach().numpy(), rtol=1e-6, atol=1e-7)
    ember.manual_seed(11)
    with ember.no_grad():
        evaluated = em.eval()(x)[0]
    assert not np.allclose(fast.numpy(), evaluated.numpy())


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_packed_sequences_without_grad_match_torch(kind):
    from ember.nn.utils.rnn import pack_padded_sequence as e_pack, pad_packed_sequence as e_pad
    from torch.nn.utils.rnn import pack_padded_sequence as t_pack, pad_packed_sequence as t_pad
    rng = np.random.default_rng(5)
    em, tm = pair_modules(kind, "float32", 3, 4, num_layers=2, bidirectional=True)
    xa = rng.standard_normal((5, 3, 3)).astype(np.float32)
    lengths = [5, 2, 4]
    with ember.no_grad():
        eo, eh = em(e_pack(ember.from_numpy(xa), lengths, enforce_sorted=False))
        eo = e_pad(eo)[0]
    with torch.no_grad():
        to, th = tm(t_pack(torch.from_numpy(xa), lengths, enforce_sorted=False))
        to = t_pad(to)[0]
    for g, w in zip([eo] + flat((eo, eh))[1:], [to] + flat((to, th))[1:]):
        np.testing.assert_allclose(values(g), w.numpy(), rtol=2e-5, atol=2e-6)


def test_projections_still_refused():
    with pytest.raises(NotImplementedError, match="proj_size"):
        nn.LSTM(4, 6, proj_size=3)
