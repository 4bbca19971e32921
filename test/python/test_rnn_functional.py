"""The recurrent layers' functions (ember._C.lstm_cell, gru_cell, rnn_*_cell, _lstm, _gru,
_rnn_tanh, _rnn_relu) against a float64 numpy reference that loops over the time steps
with the gate equations, against PyTorch's nn.LSTM / nn.GRU / nn.RNN (weights copied in)
where torch is installed, and finite differences (gradcheck)."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck
from _helpers import to_ember, to_numpy

C = ember._C
rng = np.random.default_rng(7)
GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}
SEQ = {"lstm": C._lstm, "gru": C._gru, "rnn_tanh": C._rnn_tanh, "rnn_relu": C._rnn_relu}


def randn(*shape):
    return rng.standard_normal(shape) * 0.5


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# ---- numpy reference: the gate equations, one time step at a time -------------------------

def ref_step(kind, x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One step of a cell; x [B, in], h and c [B, H]. Returns (h', c')."""
    b_ih = 0.0 if b_ih is None else b_ih
    b_hh = 0.0 if b_hh is None else b_hh
    gi, gh = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh
    if kind == "lstm":
        i, f, g, o = np.split(gi + gh, 4, axis=1)
        c2 = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        return sigmoid(o) * np.tanh(c2), c2
    if kind == "gru":
        i_r, i_z, i_n = np.split(gi, 3, axis=1)
        h_r, h_z, h_n = np.split(gh, 3, axis=1)
        r, z = sigmoid(i_r + h_r), sigmoid(i_z + h_z)
        n = np.tanh(i_n + r * h_n)
        return (1 - z) * n + z * h, None
    pre = gi + gh
    return (np.tanh(pre) if kind == "rnn_tanh" else np.maximum(pre, 0)), None


def ref_sequence(kind, x, h0, c0, params, has_biases, num_layers, bidirectional):
    """x [T, B, in]; h0, c0 [L*D, B, H]; params in nn.LSTM's _flat_weights order."""
    D, per = (2 if bidirectional else 1), (4 if has_biases else 2)
    layer_in, h_n, c_n = x, [], []
    for layer in range(num_layers):
        outs = []
        for d in range(D):
            g = layer * D + d
            w = params[g * per:(g + 1) * per] + ([None, None] if not has_biases else [])
            h, c = h0[g], (c0[g] if c0 is not None else None)
            out = [None] * x.shape[0]
            steps = range(x.shape[0] - 1, -1, -1) if d == 1 else range(x.shape[0])
            for t in steps:
                h, c = ref_step(kind, layer_in[t], h, c, *w[:4])
                out[t] = h
            outs.append(np.stack(out))
            h_n.append(h)
            c_n.append(c)
        layer_in = np.concatenate(outs, axis=2)
    return layer_in, np.stack(h_n), (np.stack(c_n) if kind == "lstm" else None)


def make_params(kind, input_size, hidden, num_layers, bidirectional, has_biases):
    D, G = (2 if bidirectional else 1), GATES[kind]
    params = []
    for layer in range(num_layers):
        for _ in range(D):
            in_size = input_size if layer == 0 else D * hidden
            params += [randn(G * hidden, in_size), randn(G * hidden, hidden)]
            if has_biases:
                params += [randn(G * hidden), randn(G * hidden)]
    return params


def run_ember(kind, x, hx, params, has_biases, num_layers, bidirectional, batch_first,
              dropout=0.0, train=False):
    """The sequence function on numpy arrays; hx: None, or (h0,) / (h0, c0) arrays."""
    P = [to_ember(p) for p in params]
    if kind == "lstm":
        h = None if hx is None else [to_ember(a) for a in hx]
    else:
        h = None if hx is None else to_ember(hx[0])
    res = SEQ[kind](to_ember(x), h, P, has_biases, num_layers, dropout, train, bidirectional,
                    batch_first)
    return [to_numpy(r) for r in res]


# ---- values against the numpy reference --------------------------------------------------------

@pytest.mark.parametrize("kind", list(GATES))
@pytest.mark.parametrize("num_layers", [1, 2])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("has_biases", [True, False])
def test_sequence_matches_reference(kind, num_layers, bidirectional, has_biases):
    T, B, I, H = 4, 3, 5, 3
    D = 2 if bidirectional else 1
    params = make_params(kind, I, H, num_layers, bidirectional, has_biases)
    x = randn(T, B, I)
    h0, c0 = randn(num_layers * D, B, H), randn(num_layers * D, B, H)
    hx = (h0, c0) if kind == "lstm" else (h0,)
    got = run_ember(kind, x, hx, params, has_biases, num_layers, bidirectional, False)
    exp = ref_sequence(kind, x, h0, c0 if kind == "lstm" else None, params, has_biases, num_layers,
                       bidirectional)
    assert got[0].shape == (T, B, D * H) and got[1].shape == (num_layers * D, B, H)
    for g, e in zip(got, exp):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_batch_first_unbatched_and_zero_initial_state(kind):
    T, B, I, H, L = 3, 2, 4, 5, 2
    params = make_params(kind, I, H, L, True, True)
    x = randn(T, B, I)
    zeros = np.zeros((2 * L, B, H))
    exp = ref_sequence(kind, x, zeros, zeros if kind == "lstm" else None, params, True, L, True)
    # hx None means zeros; batch_first swaps only the output's first two dims.
    got = run_ember(kind, x.transpose(1, 0, 2).copy(), None, params, True, L, True, True)
    np.testing.assert_allclose(got[0], exp[0].transpose(1, 0, 2), rtol=1e-10, atol=1e-12)
    for g, e in zip(got[1:], exp[1:]):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)
    # Unbatched: [T, in] with hidden [L*D, H] is the batch-of-one computation without the dim
    # (batch_first does not apply to it).
    h0, c0 = randn(2 * L, 1, H), randn(2 * L, 1, H)
    exp = ref_sequence(kind, x[:, :1], h0, c0 if kind == "lstm" else None, params, True, L, True)
    hx = (h0[:, 0], c0[:, 0]) if kind == "lstm" else (h0[:, 0],)
    for batch_first in (False, True):
        got = run_ember(kind, x[:, 0].copy(), hx, params, True, L, True, batch_first)
        assert got[0].shape == (T, 2 * H) and got[1].shape == (2 * L, H)
        for g, e in zip(got, exp):
            np.testing.assert_allclose(g, e[:, 0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", list(GATES))
@pytest.mark.parametrize("has_biases", [True, False])
def test_cells_match_reference(kind, has_biases):
    B, I, H = 3, 4, 5
    w_ih, w_hh = randn(GATES[kind] * H, I), randn(GATES[kind] * H, H)
    b_ih, b_hh = (randn(GATES[kind] * H), randn(GATES[kind] * H)) if has_biases else (None, None)
    x, h, c = randn(B, I), randn(B, H), randn(B, H)
    e = [None if a is None else to_ember(a) for a in (w_ih, w_hh, b_ih, b_hh)]
    exp_h, exp_c = ref_step(kind, x, h, c, w_ih, w_hh, b_ih, b_hh)
    if kind == "lstm":
        got_h, got_c = C.lstm_cell(to_ember(x), [to_ember(h), to_ember(c)], *e)
        np.testing.assert_allclose(to_numpy(got_c), exp_c, rtol=1e-10, atol=1e-12)
    else:
        got_h = getattr(C, kind + "_cell")(to_ember(x), to_ember(h), *e)
    np.testing.assert_allclose(to_numpy(got_h), exp_h, rtol=1e-10, atol=1e-12)


def test_float32_and_empty_batch():
    params = make_params("lstm", 3, 2, 1, False, True)
    x = randn(4, 2, 3)
    P = [to_ember(p).float() for p in params]
    out, h, c = C._lstm(to_ember(x).float(), None, P, True, 1, 0.0, False, False, False)
    assert out.dtype == ember.float32
    exp = ref_sequence("lstm", x, np.zeros((1, 2, 2)), np.zeros((1, 2, 2)), params, True, 1, False)
    np.testing.assert_allclose(to_numpy(out), exp[0], rtol=1e-5, atol=1e-6)
    out, h, c = C._lstm(ember.zeros(4, 0, 3, dtype=ember.float32), None, P, True, 1, 0.0, False, False,
                        False)
    assert tuple(out.shape) == (4, 0, 2) and tuple(h.shape) == (1, 0, 2)


# ---- dropout between layers --------------------------------------------------------------------

def test_dropout_between_layers_only_in_training():
    L, H = 2, 3
    params = make_params("gru", 2, H, L, False, True)
    x = randn(3, 2, 2)
    zeros = np.zeros((L, 2, H))
    # p = 1 drops every output of layer 0, so layer 1 sees zeros; the last layer's own
    # output is never dropped.
    out, h_n = run_ember("gru", x, None, params, True, L, False, False, dropout=1.0, train=True)
    layer0 = ref_sequence("gru", x, zeros[:1], None, params[:4], True, 1, False)
    layer1 = ref_sequence("gru", np.zeros_like(layer0[0]), zeros[1:], None, params[4:], True, 1, False)
    np.testing.assert_allclose(out, layer1[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h_n, np.concatenate([layer0[1], layer1[1]]), rtol=1e-10, atol=1e-12)
    assert np.abs(out).max() > 0
    # train=False: no dropout at all.
    out, _ = run_ember("gru", x, None, params, True, L, False, False, dropout=1.0, train=False)
    exp = ref_sequence("gru", x, zeros, None, params, True, L, False)
    np.testing.assert_allclose(out, exp[0], rtol=1e-10, atol=1e-12)


def test_dropout_half_scales_kept_values():
    ember.manual_seed(3)
    params = make_params("rnn_tanh", 2, 64, 2, False, True)
    x = randn(2, 4, 2)
    out1 = run_ember("rnn_tanh", x, None, params, True, 2, False, False, dropout=0.5, train=True)[0]
    out2 = run_ember("rnn_tanh", x, None, params, True, 2, False, False, dropout=0.5, train=True)[0]
    exp = ref_sequence("rnn_tanh", x, np.zeros((2, 4, 64)), None, params, True, 2, False)[0]
    assert not np.allclose(out1, exp) and not np.allclose(out1, out2)


# ---- gradients -------------------------------------------------------------------------------

def leaf(*shape):
    return to_ember(randn(*shape)).requires_grad_()


@pytest.mark.parametrize("kind", list(GATES))
def test_cell_gradcheck(kind):
    G, B, I, H = GATES[kind], 2, 3, 2
    x, h, c = leaf(B, I), leaf(B, H), leaf(B, H)
    w = [leaf(G * H, I), leaf(G * H, H), leaf(G * H), leaf(G * H)]
    if kind == "rnn_relu":  # keep the pre-activations away from relu's kink
        x = to_ember(np.abs(randn(B, I)) + 0.5).requires_grad_()
    if kind == "lstm":
        assert gradcheck(lambda x, h, c, *w: C.lstm_cell(x, [h, c], *w), [x, h, c] + w)
    else:
        fn = getattr(C, kind + "_cell")
        assert gradcheck(fn, [x, h] + w)


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh"])
def test_sequence_gradcheck(kind):
    # Two bidirectional layers, batch_first, given initial states: every path of the graph.
    T, B, I, H, L = 3, 2, 2, 2, 2
    x, h0, c0 = leaf(B, T, I), leaf(2 * L, B, H), leaf(2 * L, B, H)
    params = [leaf(*p.shape) for p in make_params(kind, I, H, L, True, True)]
    if kind == "lstm":
        fn = lambda x, h0, c0, *p: C._lstm(x, [h0, c0], list(p), True, L, 0.0, False, True, True)  # noqa: E731
        assert gradcheck(fn, [x, h0, c0] + params)
    else:
        fn = lambda x, h0, *p: SEQ[kind](x, h0, list(p), True, L, 0.0, False, True, True)  # noqa: E731
        assert gradcheck(fn, [x, h0] + params)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_sequence_gradgradcheck(kind):
    # Second derivatives pass through the step-unbinding node's backward (a stack) too.
    x, h0 = leaf(3, 1, 2), leaf(2, 1, 2)
    params = [leaf(*p.shape) for p in make_params(kind, 2, 2, 1, True, True)]
    if kind == "lstm":
        fn = lambda x, h0, *p: C._lstm(x, [h0, h0 * 0.5], list(p), True, 1, 0.0, False, True, False)[0]  # noqa: E731
    else:
        fn = lambda x, h0, *p: C._gru(x, h0, list(p), True, 1, 0.0, False, True, False)[0]  # noqa: E731
    assert gradgradcheck(fn, [x, h0] + params)


def test_sequence_gradcheck_unbatched_without_biases():
    x = leaf(3, 2)
    params = [leaf(*p.shape) for p in make_params("lstm", 2, 2, 1, False, False)]
    assert gradcheck(lambda x, *p: C._lstm(x, None, list(p), False, 1, 0.0, False, False, False),
                     [x] + params)


# ---- errors --------------------------------------------------------------------------------

def lstm_params(I=3, H=2, L=1):
    return [to_ember(p) for p in make_params("lstm", I, H, L, False, True)]


def test_sequence_errors():
    P = lstm_params()
    x = to_ember(randn(4, 2, 3))
    with pytest.raises(ValueError, match="Expected input to be 2D or 3D, got 4D"):
        C._lstm(to_ember(randn(1, 4, 2, 3)), None, P, True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="sequence length to be larger than 0"):
        C._lstm(to_ember(randn(0, 2, 3)), None, P, True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match=r"input.size\(-1\) must be equal to input_size. Expected 3, got 4"):
        C._lstm(to_ember(randn(4, 2, 4)), None, P, True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 2\), got \[1, 3, 2\]"):
        C._lstm(x, [to_ember(randn(1, 3, 2)), to_ember(randn(1, 2, 2))], P, True, 1, 0.0, False, False,
                False)
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size"):
        C._lstm(x, [to_ember(randn(1, 2, 2)), to_ember(randn(1, 2, 3))], P, True, 1, 0.0, False, False,
                False)
    with pytest.raises(RuntimeError, match="For batched 3-D input, hx and cx should also be 3-D"):
        C._lstm(x, [to_ember(randn(1, 2)), to_ember(randn(1, 2))], P, True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="For unbatched 2-D input, hx should also be 2-D"):
        C._gru(to_ember(randn(4, 3)), to_ember(randn(1, 1, 2)),
               [to_ember(p) for p in make_params("gru", 3, 2, 1, False, True)], True, 1, 0.0, False,
               False, False)
    with pytest.raises(RuntimeError, match="expected 4 parameters per layer and direction"):
        C._lstm(x, None, P[:3], True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="expected 4 parameters .* 2 layer"):
        C._lstm(x, None, P, True, 2, 0.0, False, False, False)
    with pytest.raises(NotImplementedError, match="proj_size"):
        C._lstm(x, None, P + [to_ember(randn(2, 2))], True, 1, 0.0, False, False, False)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        C._lstm(x, None, P, True, 1, 1.5, True, False, False)
    with pytest.raises(ValueError, match="num_layers must be greater than or equal to 1"):
        C._lstm(x, None, [], True, 0, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="weight_ih_l0 first dim must be 4 \\* hidden_size = 8"):
        C._lstm(x, None, [to_ember(randn(7, 3))] + P[1:], True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="Input and parameter tensors are not the same dtype"):
        C._lstm(x.float(), None, P, True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="floating point input"):
        C._lstm(ember.zeros(4, 2, 3, dtype=ember.int64), None, P, True, 1, 0.0, False, False, False)
    P2 = lstm_params(L=2)
    P2[4] = to_ember(randn(8, 3))
    with pytest.raises(RuntimeError, match="weight_ih_l1 must have 2 columns"):
        C._lstm(x, None, P2, True, 2, 0.0, False, False, False)


def test_cell_errors():
    w_ih, w_hh = to_ember(randn(12, 3)), to_ember(randn(12, 4))
    x, h = to_ember(randn(2, 3)), to_ember(randn(2, 4))
    with pytest.raises(RuntimeError, match="Expected 2D input \\(batch x feature\\), but got 1D input"):
        C.gru_cell(to_ember(randn(3)), h, w_ih, w_hh)
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 5 expected 3"):
        C.gru_cell(to_ember(randn(2, 5)), h, w_ih, w_hh)
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        C.gru_cell(x, to_ember(randn(3, 4)), w_ih, w_hh)
    with pytest.raises(RuntimeError, match="hidden0 has inconsistent hidden_size: got 5, expected 4"):
        C.gru_cell(x, to_ember(randn(2, 5)), w_ih, w_hh)
    with pytest.raises(RuntimeError, match="weight_ih first dim must be 3 \\* hidden_size = 12, but got 11"):
        C.gru_cell(x, h, to_ember(randn(11, 3)), w_hh)
    with pytest.raises(RuntimeError, match="bias_ih must have shape \\[12\\]"):
        C.gru_cell(x, h, w_ih, w_hh, to_ember(randn(11)), to_ember(randn(12)))
    with pytest.raises(RuntimeError, match="hidden1 has inconsistent hidden_size"):
        C.lstm_cell(x, [to_ember(randn(2, 3)), to_ember(randn(2, 4))], to_ember(randn(12, 3)),
                    to_ember(randn(12, 3)))
    with pytest.raises(RuntimeError, match="expected hx = \\(h, c\\)"):
        C.lstm_cell(x, [h], to_ember(randn(16, 3)), w_hh)


# ---- against PyTorch ---------------------------------------------------------------------------

def from_torch(t):
    return to_ember(t.detach().numpy())


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("num_layers, bidirectional, batch_first, bias",
                         [(1, False, False, True), (2, True, True, True), (2, False, True, False),
                          (1, True, False, False)])
def test_matches_torch_modules(kind, num_layers, bidirectional, batch_first, bias):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    I, H, T, B = 3, 4, 5, 2
    if kind == "lstm":
        mod = torch.nn.LSTM(I, H, num_layers, bias=bias, batch_first=batch_first,
                            bidirectional=bidirectional).double()
    elif kind == "gru":
        mod = torch.nn.GRU(I, H, num_layers, bias=bias, batch_first=batch_first,
                           bidirectional=bidirectional).double()
    else:
        mod = torch.nn.RNN(I, H, num_layers, nonlinearity=kind[4:], bias=bias, batch_first=batch_first,
                           bidirectional=bidirectional).double()
    D = 2 if bidirectional else 1
    x = torch.randn((B, T, I) if batch_first else (T, B, I), dtype=torch.float64, requires_grad=True)
    h0 = torch.randn(num_layers * D, B, H, dtype=torch.float64, requires_grad=True)
    c0 = torch.randn(num_layers * D, B, H, dtype=torch.float64, requires_grad=True)
    ex = from_torch(x).requires_grad_()
    eh0, ec0 = from_torch(h0).requires_grad_(), from_torch(c0).requires_grad_()
    params = [from_torch(p).requires_grad_() for p in mod._flat_weights]
    if kind == "lstm":
        t_out, (t_h, t_c) = mod(x, (h0, c0))
        t_res = [t_out, t_h, t_c]
        e_res = C._lstm(ex, [eh0, ec0], params, bias, num_layers, 0.0, False, bidirectional, batch_first)
    else:
        t_out, t_h = mod(x, h0)
        t_res = [t_out, t_h]
        e_res = SEQ[kind](ex, eh0, params, bias, num_layers, 0.0, False, bidirectional, batch_first)
    for e, t in zip(e_res, t_res):
        np.testing.assert_allclose(to_numpy(e.detach()), t.detach().numpy(), rtol=1e-10, atol=1e-12)
    # Gradients of a weighted sum of every output.
    weights = [torch.randn_like(t) for t in t_res]
    sum((t * w).sum() for t, w in zip(t_res, weights)).backward()
    total = None
    for e, w in zip(e_res, weights):
        term = (e * from_torch(w)).sum()
        total = term if total is None else total + term
    total.backward()
    pairs = [(ex, x), (eh0, h0)] + ([(ec0, c0)] if kind == "lstm" else [])
    pairs += list(zip(params, mod._flat_weights))
    for e, t in pairs:
        np.testing.assert_allclose(to_numpy(e.grad), t.grad.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_unbatched_matches_torch(kind):
    torch = pytest.importorskip("torch")
    torch.manual_seed(1)
    mod = (torch.nn.LSTM if kind == "lstm" else torch.nn.GRU)(3, 2, 2, bidirectional=True)
    x = torch.randn(4, 3)
    if kind == "lstm":
        t_out, (t_h, t_c) = mod(x)
        e = C._lstm(from_torch(x), None, [from_torch(p) for p in mod._flat_weights], True, 2, 0.0, False,
                    True, False)
        t = [t_out, t_h, t_c]
    else:
        t_out, t_h = mod(x)
        e = C._gru(from_torch(x), None, [from_torch(p) for p in mod._flat_weights], True, 2, 0.0, False,
                   True, False)
        t = [t_out, t_h]
    for a, b in zip(e, t):
        np.testing.assert_allclose(to_numpy(a), b.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", list(GATES))
def test_cells_match_torch(kind):
    torch = pytest.importorskip("torch")
    torch.manual_seed(2)
    mod = {"lstm": torch.nn.LSTMCell(3, 4), "gru": torch.nn.GRUCell(3, 4),
           "rnn_tanh": torch.nn.RNNCell(3, 4), "rnn_relu": torch.nn.RNNCell(3, 4, nonlinearity="relu")}[kind]
    x, h, c = torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 4)
    w = [from_torch(p) for p in (mod.weight_ih, mod.weight_hh, mod.bias_ih, mod.bias_hh)]
    if kind == "lstm":
        t_h, t_c = mod(x, (h, c))
        e_h, e_c = C.lstm_cell(from_torch(x), [from_torch(h), from_torch(c)], *w)
        np.testing.assert_allclose(to_numpy(e_c), t_c.detach().numpy(), rtol=1e-5, atol=1e-6)
    else:
        t_h = mod(x, h)
        e_h = getattr(C, kind + "_cell")(from_torch(x), from_torch(h), *w)
    np.testing.assert_allclose(to_numpy(e_h), t_h.detach().numpy(), rtol=1e-5, atol=1e-6)


# ---- the fused LSTM step (lstm_cell_fused, lib/kernels/rnn_cell_math.h) -------------------------------

@pytest.mark.parametrize("which", [0, 1])
def test_lstm_cell_gradient_of_one_output_only(which):
    # The fused backward gets an undefined gradient for the unused output: zeros.
    B, I, H = 3, 2, 4
    x, h, c = leaf(B, I), leaf(B, H), leaf(B, H)
    w = [leaf(4 * H, I), leaf(4 * H, H), leaf(4 * H), leaf(4 * H)]
    assert gradcheck(lambda x, h, c, *w: C.lstm_cell(x, [h, c], *w)[which], [x, h, c] + w)
    assert gradgradcheck(lambda x, h, c, *w: C.lstm_cell(x, [h, c], *w)[which], [x, h, c] + w)


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16])
@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_fused_cells_low_precision_compute_in_float32(kind, dtype):
    B, I, H, G = 5, 3, 6, GATES[kind]
    args = [randn(B, I), randn(B, H), randn(B, H), randn(G * H, I), randn(G * H, H), randn(G * H),
            randn(G * H)]
    low = [to_ember(a).to(dtype) for a in args]
    ref = [t.float() for t in low]  # the same rounded inputs, in float32

    def run(t):
        if kind == "lstm":
            return C.lstm_cell(t[0], [t[1], t[2]], *t[3:])
        return (C.gru_cell(t[0], t[1], *t[3:]),)

    tol = 2e-2 if dtype == ember.bfloat16 else 4e-3
    for got, want in zip(run(low), run(ref)):
        assert got.dtype == dtype
        # The gate matmuls round their results to the low dtype before the fused step.
        np.testing.assert_allclose(to_numpy(got), to_numpy(want), atol=tol * 4, rtol=tol)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_fused_cells_match_the_reference_on_many_rows(kind):
    # Enough cells for several threads' rows; the values still match the float64 reference.
    params = make_params(kind, 8, 64, 1, False, True)
    x, h0 = randn(3, 700, 8), np.zeros((1, 700, 64))
    ours = [to_ember(p) for p in params]
    if kind == "lstm":
        out = C._lstm(to_ember(x), None, ours, True, 1, 0.0, False, False, False)[0]
    else:
        out = C._gru(to_ember(x), None, ours, True, 1, 0.0, False, False, False)[0]
    exp = ref_sequence(kind, x, h0, h0, params, True, 1, False)
    np.testing.assert_allclose(to_numpy(out), exp[0], rtol=1e-10, atol=1e-12)
