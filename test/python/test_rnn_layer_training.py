"""The recurrent layers' whole-layer training path (lib/ops/rnn.cpp, lib/cpu/rnn_layer.cpp,
lib/cpu/rnn_layer_backward.cpp): when a graph is recorded, each LSTM / GRU direction on
the CPU is one lstm_layer / gru_layer op whose backward is one lstm_layer_backward /
gru_layer_backward op. Values and gradients (input, initial state, every weight) must be
PyTorch's for every layer option; float64 finite differences (gradcheck, gradgradcheck
through the create_graph composite) on tiny cases; dropout between layers as the
layer-by-layer composition draws it."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.profiler import profile

from _rnn_pairs import CONFIGS, counts, flat, pair_modules

torch = pytest.importorskip("torch")


def leaf_pair(a, grad=True):
    return (ember.from_numpy(a.copy()).requires_grad_(grad), torch.from_numpy(a.copy()).requires_grad_(grad))


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
# which outputs the loss reads: all, only the final states (no gradient reaches the
# output sequence of the last layer), only the output sequence
@pytest.mark.parametrize("uses", ["all", "states", "output"])
def test_values_and_gradients_match_torch(kind, cfg, with_state, dtype, uses):
    rng = np.random.default_rng(5)
    I, H, T, B = 5, 7, 6, 3
    em, tm = pair_modules(kind, dtype, I, H, **cfg)
    D = 2 if cfg.get("bidirectional") else 1
    xe, xt = leaf_pair(rng.standard_normal((B, T, I) if cfg.get("batch_first") else (T, B, I)).astype(dtype))
    n_states = 2 if kind == "LSTM" else 1
    states = [leaf_pair(rng.standard_normal((cfg["num_layers"] * D, B, H)).astype(dtype)) for _ in range(n_states)]
    he = (tuple(s[0] for s in states) if kind == "LSTM" else states[0][0]) if with_state else None
    ht = (tuple(s[1] for s in states) if kind == "LSTM" else states[0][1]) if with_state else None
    with profile() as prof:
        got = flat(em(xe, he))
    n = counts(prof)
    op = kind.lower()
    assert n.get(op + "_layer") == cfg["num_layers"] * D and op + "_cell_fused" not in n
    want = flat(tm(xt, ht))
    tol = dict(rtol=1e-11, atol=1e-12) if dtype == "float64" else dict(rtol=2e-5, atol=3e-6)
    for e, t in zip(got, want):
        assert tuple(e.shape) == tuple(t.shape) and e.requires_grad
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), **tol)
    picked = {"all": range(len(got)), "states": range(1, len(got)), "output": [0]}[uses]
    ws = [rng.standard_normal(tuple(t.shape)).astype(dtype) for t in want]
    le = sum((got[k] * ember.from_numpy(ws[k])).sum() for k in picked)
    lt = sum((want[k] * torch.from_numpy(ws[k])).sum() for k in picked)
    le.backward()
    lt.backward()
    grads = [(xe.grad, xt.grad)] + ([(s[0].grad, s[1].grad) for s in states] if with_state else [])
    grads += [(p.grad, getattr(tm, name).grad) for name, p in em.named_parameters()]
    for e, t in grads:
        if t is None:
            assert e is None or not np.any(e.numpy())
            continue
        np.testing.assert_allclose(e.numpy(), t.numpy(), **tol)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_unbatched_wide_and_empty_batches(kind):
    # H = 37 and B = 70: vector tails and a pointwise pass split over threads; B = 0.
    rng = np.random.default_rng(6)
    for shape, hidden in [((5, 6), 4), ((4, 70, 6), 37), ((3, 0, 6), 5)]:
        em, tm = pair_modules(kind, "float32", 6, hidden, num_layers=2, bidirectional=True)
        xe, xt = leaf_pair(rng.standard_normal(shape).astype(np.float32))
        got, want = flat(em(xe)), flat(tm(xt))
        sum((o * (k + 1)).sum() for k, o in enumerate(got)).backward()
        sum((o * (k + 1)).sum() for k, o in enumerate(want)).backward()
        np.testing.assert_allclose(got[0].detach().numpy(), want[0].detach().numpy(), rtol=2e-5, atol=2e-6)
        np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=2e-5, atol=2e-5)
        for name, p in em.named_parameters():
            np.testing.assert_allclose(p.grad.numpy(), getattr(tm, name).grad.numpy(), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_dropout_between_layers_is_the_layer_by_layer_composition(kind):
    """Dropout's draws differ from torch's; the same draws as two single-layer modules
    with F.dropout between them (same seed) give the same values and gradients."""
    rng = np.random.default_rng(7)
    em, _ = pair_modules(kind, "float64", 4, 6, num_layers=2, dropout=0.5, bidirectional=True)
    mod = getattr(nn, kind)
    a, b = mod(4, 6, bidirectional=True).double(), mod(12, 6, bidirectional=True).double()
    with ember.no_grad():
        for name, p in em.named_parameters():
            layer = a if "_l0" in name else b
            getattr(layer, name.replace("_l1", "_l0")).copy_(p)
    xa = rng.standard_normal((5, 3, 4))
    x1, x2 = (ember.from_numpy(xa.copy()).requires_grad_() for _ in range(2))
    ember.manual_seed(11)
    out, _ = em(x1)
    ember.manual_seed(11)
    mid, _ = a(x2)
    ref, _ = b(F.dropout(mid, 0.5, training=True))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(x1.grad.numpy(), x2.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("cfg", [dict(), dict(bidirectional=True, num_layers=2), dict(bias=False)],
                         ids=["plain", "bidir-2", "no-bias"])
def test_gradcheck_float64(kind, cfg):
    """gradcheck (the backward op) and gradgradcheck (the composite the derivative runs
    with create_graph) through x, the initial state and the weights of a tiny layer."""
    rng = np.random.default_rng(8)
    I, H, T, B = 2, 3, 3, 2
    D = 2 if cfg.get("bidirectional") else 1
    L = cfg.get("num_layers", 1)
    bias = cfg.get("bias", True)
    x = ember.from_numpy(rng.standard_normal((T, B, I))).requires_grad_()
    states = [ember.from_numpy(rng.standard_normal((L * D, B, H))).requires_grad_()
              for _ in range(2 if kind == "LSTM" else 1)]
    params = list(getattr(nn, kind)(I, H, **cfg).double()._flat_weights)
    n = len(states)

    def fn(x, *rest):
        st, w = rest[:n], list(rest[n:])
        if kind == "LSTM":
            return ember._C._lstm(x, list(st), w, bias, L, 0.0, False, D == 2, False)
        return ember._C._gru(x, st[0], w, bias, L, 0.0, False, D == 2, False)

    inputs = (x, *states, *params)
    assert ember.autograd.gradcheck(fn, inputs)
    assert ember.autograd.gradgradcheck(fn, inputs)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_backward_op_runs_once_per_direction(kind):
    em = getattr(nn, kind)(4, 5, num_layers=2, bidirectional=True)
    x = ember.randn(3, 2, 4, requires_grad=True)
    out, _ = em(x)
    with profile() as prof:
        out.sum().backward()
    n = counts(prof)
    op = kind.lower()
    assert n.get(op + "_layer_backward") == 4 and op + "_cell_fused_backward" not in n
