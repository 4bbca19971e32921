"""nn.RNN / LSTM / GRU, their cells, MultiheadAttention, TransformerEncoderLayer and
TransformerEncoder: parameter names, shapes, init and reprs; numpy references for a
1-layer LSTM and GRU; outputs and gradients against torch with the same weights (loaded
from torch's state_dict); dropout in train / eval mode; an LSTM trained with Adam."""
import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

RNG = np.random.default_rng(0)


def t(a, requires_grad=False):
    return ember.tensor(np.asarray(a), requires_grad=requires_grad)


def randn(*shape):
    return RNG.standard_normal(shape)


def close(e, ref, atol=1e-8, rtol=1e-6):
    np.testing.assert_allclose(e.detach().numpy(), np.asarray(ref), atol=atol, rtol=rtol)


def names_and_shapes(module):
    return [(n, tuple(p.shape)) for n, p in module.named_parameters()]


# ---- parameters, state_dict, init, repr (no torch) -----------------------------------

def test_lstm_parameter_names_and_shapes():
    m = nn.LSTM(3, 5, num_layers=2, bidirectional=True)
    assert names_and_shapes(m) == [
        ("weight_ih_l0", (20, 3)), ("weight_hh_l0", (20, 5)), ("bias_ih_l0", (20,)),
        ("bias_hh_l0", (20,)), ("weight_ih_l0_reverse", (20, 3)),
        ("weight_hh_l0_reverse", (20, 5)), ("bias_ih_l0_reverse", (20,)),
        ("bias_hh_l0_reverse", (20,)), ("weight_ih_l1", (20, 10)), ("weight_hh_l1", (20, 5)),
        ("bias_ih_l1", (20,)), ("bias_hh_l1", (20,)), ("weight_ih_l1_reverse", (20, 10)),
        ("weight_hh_l1_reverse", (20, 5)), ("bias_ih_l1_reverse", (20,)),
        ("bias_hh_l1_reverse", (20,))]
    assert list(m.state_dict()) == [n for n, _ in m.named_parameters()]
    assert [len(ws) for ws in m.all_weights] == [4, 4, 4, 4]
    assert m.all_weights[1][0] is m.weight_ih_l0_reverse
    assert m._flat_weights[-1] is m.bias_hh_l1_reverse


def test_gru_and_rnn_parameters_without_bias():
    g = nn.GRU(4, 6, bias=False)
    assert names_and_shapes(g) == [("weight_ih_l0", (18, 4)), ("weight_hh_l0", (18, 6))]
    r = nn.RNN(4, 6, num_layers=2, nonlinearity="relu")
    assert names_and_shapes(r)[4:6] == [("weight_ih_l1", (6, 6)), ("weight_hh_l1", (6, 6))]
    assert r.mode == "RNN_RELU" and nn.RNN(2, 3).mode == "RNN_TANH"


def test_cell_parameters():
    assert names_and_shapes(nn.LSTMCell(3, 4)) == [
        ("weight_ih", (16, 3)), ("weight_hh", (16, 4)), ("bias_ih", (16,)), ("bias_hh", (16,))]
    c = nn.GRUCell(3, 4, bias=False)
    assert names_and_shapes(c) == [("weight_ih", (12, 3)), ("weight_hh", (12, 4))]
    assert c.bias_ih is None and c.bias_hh is None
    assert names_and_shapes(nn.RNNCell(3, 4))[0] == ("weight_ih", (4, 3))


@pytest.mark.parametrize("make", [lambda: nn.LSTM(8, 25, 2), lambda: nn.GRU(8, 25),
                                  lambda: nn.RNN(8, 25), lambda: nn.LSTMCell(8, 25),
                                  lambda: nn.GRUCell(8, 25)])
def test_recurrent_init_is_uniform_over_one_over_sqrt_hidden(make):
    m = make()
    bound = 1 / math.sqrt(25)
    values = np.concatenate([p.detach().numpy().ravel() for p in m.parameters()])
    assert np.abs(values).max() <= bound and np.abs(values).max() > 0.95 * bound
    assert abs(values.mean()) < 0.02


def test_mha_parameters_and_init():
    m = nn.MultiheadAttention(8, 2)
    assert names_and_shapes(m) == [("in_proj_weight", (24, 8)), ("in_proj_bias", (24,)),
                                   ("out_proj.weight", (8, 8)), ("out_proj.bias", (8,))]
    assert m.q_proj_weight is None and m.bias_k is None and m.head_dim == 4
    assert isinstance(m.out_proj, nn.Linear)
    assert not m.in_proj_bias.detach().numpy().any() and not m.out_proj.bias.detach().numpy().any()
    bound = math.sqrt(6 / (24 + 8))  # xavier_uniform_ on [3E, E]
    assert np.abs(m.in_proj_weight.detach().numpy()).max() <= bound
    s = nn.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True, bias=False)
    assert names_and_shapes(s) == [("q_proj_weight", (8, 8)), ("k_proj_weight", (8, 4)),
                                   ("v_proj_weight", (8, 6)), ("bias_k", (1, 1, 8)),
                                   ("bias_v", (1, 1, 8)), ("out_proj.weight", (8, 8))]
    assert s.in_proj_weight is None and s.in_proj_bias is None


def test_transformer_parameter_names():
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
    assert [n for n, _ in layer.named_parameters()] == [
        "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
        "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
        "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"]
    enc = nn.TransformerEncoder(layer, 3, norm=nn.LayerNorm(8))
    keys = list(enc.state_dict())
    assert keys[0] == "layers.0.self_attn.in_proj_weight" and keys[-1] == "norm.bias"
    assert len(keys) == 3 * 12 + 2
    # the layers are independent copies
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight
    assert enc.layers[0].linear1.weight is not layer.linear1.weight
    nobias = nn.TransformerEncoderLayer(8, 2, 16, bias=False)
    assert all("bias" not in n for n, _ in nobias.named_parameters())


REPRS = [
    (lambda: nn.LSTM(3, 4, 2, bias=False, batch_first=True, dropout=0.5, bidirectional=True),
     "LSTM(3, 4, num_layers=2, bias=False, batch_first=True, dropout=0.5, bidirectional=True)"),
    (lambda: nn.GRU(3, 4), "GRU(3, 4)"),
    (lambda: nn.RNN(3, 4, nonlinearity="relu"), "RNN(3, 4)"),
    (lambda: nn.RNNCell(2, 3, nonlinearity="relu", bias=False),
     "RNNCell(2, 3, bias=False, nonlinearity=relu)"),
    (lambda: nn.LSTMCell(2, 3), "LSTMCell(2, 3)"),
    (lambda: nn.GRUCell(2, 3, bias=False), "GRUCell(2, 3, bias=False)"),
    (lambda: nn.MultiheadAttention(8, 2),
     "MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, "
     "out_features=8, bias=True)\n)"),
    (lambda: nn.TransformerEncoderLayer(8, 2, 16),
     "TransformerEncoderLayer(\n"
     "  (self_attn): MultiheadAttention(\n"
     "    (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)\n"
     "  )\n"
     "  (linear1): Linear(in_features=8, out_features=16, bias=True)\n"
     "  (dropout): Dropout(p=0.1, inplace=False)\n"
     "  (linear2): Linear(in_features=16, out_features=8, bias=True)\n"
     "  (norm1): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)\n"
     "  (norm2): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)\n"
     "  (dropout1): Dropout(p=0.1, inplace=False)\n"
     "  (dropout2): Dropout(p=0.1, inplace=False)\n"
     ")"),
]


@pytest.mark.parametrize("make,expected", REPRS)
def test_repr(make, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(make()) == expected


def test_encoder_repr_lists_module_activation_and_norm():
    layer = nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU())
    text = repr(nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8)))
    assert text.startswith("TransformerEncoder(\n  (layers): ModuleList(\n"
                           "    (0-1): 2 x TransformerEncoderLayer(\n")
    assert "      (activation): GELU(approximate='none')\n" in text
    assert text.endswith("  (norm): LayerNorm((8,), eps=1e-05, elementwise_affine=True, "
                         "bias=True)\n)")


def test_repr_matches_torch():
    torch = pytest.importorskip("torch")
    torch_makers = [
        lambda: torch.nn.LSTM(3, 4, 2, bias=False, batch_first=True, dropout=0.5,
                              bidirectional=True),
        lambda: torch.nn.GRU(3, 4), lambda: torch.nn.RNN(3, 4, nonlinearity="relu"),
        lambda: torch.nn.RNNCell(2, 3, nonlinearity="relu", bias=False),
        lambda: torch.nn.LSTMCell(2, 3), lambda: torch.nn.GRUCell(2, 3, bias=False),
        lambda: torch.nn.MultiheadAttention(8, 2),
        lambda: torch.nn.TransformerEncoderLayer(8, 2, 16)]
    for make, (_, expected) in zip(torch_makers, REPRS):
        assert repr(make()) == expected
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, activation=torch.nn.GELU())
    ours = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU()), 2,
                                 norm=nn.LayerNorm(8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.nn.TransformerEncoder(layer, 2, norm=torch.nn.LayerNorm(8))
    assert repr(ours) == repr(theirs)


def test_flatten_parameters_is_a_noop_and_to_keeps_working():
    m = nn.GRU(3, 4, num_layers=2)
    before = [p.detach().numpy().copy() for p in m.parameters()]
    assert m.flatten_parameters() is None
    assert all((a == p.detach().numpy()).all() for a, p in zip(before, m.parameters()))
    m.double()
    assert m._flat_weights[0].dtype == ember.float64
    out, h = m(t(randn(5, 2, 3)))
    assert out.dtype == ember.float64 and tuple(h.shape) == (2, 2, 4)


# ---- numpy references -----------------------------------------------------------------

def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def numpy_lstm(x, h, c, w_ih, w_hh, b_ih, b_hh):
    outs = []
    for x_t in x:
        i, f, g, o = np.split(x_t @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs), h, c


def numpy_gru(x, h, w_ih, w_hh, b_ih, b_hh):
    outs = []
    for x_t in x:
        xr, xz, xn = np.split(x_t @ w_ih.T + b_ih, 3, axis=-1)
        hr, hz, hn = np.split(h @ w_hh.T + b_hh, 3, axis=-1)
        r, z = sigmoid(xr + hr), sigmoid(xz + hz)
        n = np.tanh(xn + r * hn)
        h = (1 - z) * n + z * h
        outs.append(h)
    return np.stack(outs), h


def weights(m, suffix="_l0"):
    return [getattr(m, k + suffix).detach().numpy() for k in ("weight_ih", "weight_hh",
                                                              "bias_ih", "bias_hh")]


def test_lstm_matches_numpy():
    m = nn.LSTM(3, 4, dtype=ember.float64)
    x, h0, c0 = randn(6, 2, 3), randn(1, 2, 4), randn(1, 2, 4)
    out, (h, c) = m(t(x), (t(h0), t(c0)))
    ref_out, ref_h, ref_c = numpy_lstm(x, h0[0], c0[0], *weights(m))
    close(out, ref_out)
    close(h, ref_h[None])
    close(c, ref_c[None])
    # no initial state: zeros; batch_first only transposes
    m.batch_first = True
    out, (h, c) = m(t(x.transpose(1, 0, 2)))
    ref_out, ref_h, _ = numpy_lstm(x, 0 * h0[0], 0 * c0[0], *weights(m))
    close(out, ref_out.transpose(1, 0, 2))
    close(h, ref_h[None])


def test_gru_matches_numpy_and_cell_agrees():
    m = nn.GRU(3, 4, dtype=ember.float64)
    x, h0 = randn(5, 2, 3), randn(1, 2, 4)
    out, h = m(t(x), t(h0))
    ref_out, ref_h = numpy_gru(x, h0[0], *weights(m))
    close(out, ref_out)
    close(h, ref_h[None])
    cell = nn.GRUCell(3, 4, dtype=ember.float64)
    cell.load_state_dict({k[:-3]: v for k, v in m.state_dict().items()})
    close(cell(t(x[0]), t(h0[0])), ref_out[0])


def test_unbatched_inputs():
    m = nn.LSTM(3, 4, num_layers=2, dtype=ember.float64)
    x = randn(5, 3)
    out, (h, c) = m(t(x))
    assert tuple(out.shape) == (5, 4) and tuple(h.shape) == (2, 4) and tuple(c.shape) == (2, 4)
    batched, (hb, _) = m(t(x[:, None]))
    close(out, batched.detach().numpy()[:, 0])
    close(h, hb.detach().numpy()[:, 0])
    g = nn.GRU(3, 4, batch_first=True, dtype=ember.float64)
    out, h = g(t(x), t(randn(1, 4)))
    assert tuple(out.shape) == (5, 4) and tuple(h.shape) == (1, 4)
    cell = nn.LSTMCell(3, 4, dtype=ember.float64)
    h1, c1 = cell(t(x[0]))
    assert tuple(h1.shape) == (4,) and tuple(c1.shape) == (4,)
    hb, cb = cell(t(x[:1]))
    close(h1, hb.detach().numpy()[0])


def test_lstm_trains_to_sum_a_sequence():
    ember.manual_seed(0)

    class Summer(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(1, 16, batch_first=True)
            self.fc = nn.Linear(16, 1)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.fc(out[:, -1]).squeeze(-1)

    model = Summer()
    opt = ember.optim.Adam(model.parameters(), lr=0.02)
    x_test = ember.rand(64, 5, 1) * 2 - 1
    y_test = x_test.sum((1, 2))
    with ember.no_grad():
        first = F.mse_loss(model(x_test), y_test).item()
    for _ in range(300):
        x = ember.rand(32, 5, 1) * 2 - 1
        loss = F.mse_loss(model(x), x.sum((1, 2)))
        opt.zero_grad()
        loss.backward()
        opt.step()
    with ember.no_grad():
        last = F.mse_loss(model(x_test), y_test).item()
    assert first > 0.5 and last < 0.02


# ---- dropout: train vs eval ------------------------------------------------------------

def test_rnn_dropout_only_in_training():
    ember.manual_seed(1)
    m = nn.LSTM(4, 8, num_layers=2, dropout=0.5)
    x = t(randn(6, 3, 4).astype(np.float32))
    a, b = m(x)[0].detach().numpy(), m(x)[0].detach().numpy()
    assert not np.allclose(a, b)
    m.eval()
    e1, e2 = m(x)[0].detach().numpy(), m(x)[0].detach().numpy()
    np.testing.assert_array_equal(e1, e2)
    m.dropout = 0.0
    m.train()
    np.testing.assert_allclose(m(x)[0].detach().numpy(), e1, rtol=1e-6, atol=1e-7)


def test_dropout_warning_and_checks():
    with pytest.warns(UserWarning, match="num_layers greater than 1"):
        nn.GRU(2, 3, dropout=0.2)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.LSTM(2, 3, dropout=1.5)


def test_transformer_dropout_only_in_training():
    ember.manual_seed(2)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.3)
    x = t(randn(5, 2, 8).astype(np.float32))
    assert not np.allclose(layer(x).detach().numpy(), layer(x).detach().numpy())
    layer.eval()
    np.testing.assert_array_equal(layer(x).detach().numpy(), layer(x).detach().numpy())
    mha = nn.MultiheadAttention(8, 2, dropout=0.5)
    _, w1 = mha(x, x, x)
    _, w2 = mha(x, x, x)
    assert not np.allclose(w1.detach().numpy(), w2.detach().numpy())
    mha.eval()
    np.testing.assert_allclose(mha(x, x, x)[1].detach().numpy().sum(-1), 1.0, rtol=1e-5)


# ---- errors ----------------------------------------------------------------------------

def test_argument_errors():
    with pytest.raises(NotImplementedError, match="proj_size"):
        nn.LSTM(3, 4, proj_size=2)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="only supported for LSTM"):
        nn.GRU(3, 4, proj_size=2)
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sigmoid'"):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(TypeError, match="bias should be of type bool"):
        nn.LSTM(3, 4, bias=1)
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        nn.GRU(3, 0)
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(10, 3)
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
        nn.MultiheadAttention(0, 1)
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")


def test_forward_errors():
    m = nn.LSTM(3, 4)
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D"):
        m(ember.zeros(1, 2, 3, 3))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. "
                                           "Expected 3, got 5"):
        m(ember.zeros(2, 2, 5))
    with pytest.raises(ValueError, match="does not match weight dtype"):
        m(ember.zeros(2, 2, 3, dtype=ember.float64))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 4\), got "
                                           r"\[1, 3, 4\]"):
        m(ember.zeros(5, 2, 3), (ember.zeros(1, 3, 4), ember.zeros(1, 2, 4)))
    with pytest.raises(RuntimeError, match=r"For batched 3-D input, hx and cx should also be "
                                           r"3-D but got \(2-D, 3-D\) tensors"):
        m(ember.zeros(5, 2, 3), (ember.zeros(2, 4), ember.zeros(1, 2, 4)))
    g = nn.GRU(3, 4)
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[2, 2, 4\]"):
        g(ember.zeros(5, 2, 3), ember.zeros(2, 2, 4))
    with pytest.raises(RuntimeError, match="For unbatched 2-D input, hx should also be 2-D but "
                                           "got 3-D tensor"):
        g(ember.zeros(5, 3), ember.zeros(1, 1, 4))
    with pytest.raises(ValueError, match="GRUCell: Expected input to be 1D or 2D, got 3D"):
        nn.GRUCell(3, 4)(ember.zeros(1, 2, 3))
    with pytest.raises(ValueError, match=r"LSTMCell: Expected hx\[1\] to be 1D or 2D"):
        nn.LSTMCell(3, 4)(ember.zeros(2, 3), (ember.zeros(2, 4), ember.zeros(1, 2, 4)))
    cell = nn.RNNCell(3, 4, nonlinearity="sigmoid")
    with pytest.raises(RuntimeError, match="Unknown nonlinearity: sigmoid"):
        cell(ember.zeros(2, 3))


def test_mismatched_mask_dtypes_warn():
    mha = nn.MultiheadAttention(4, 2)
    x = ember.randn(3, 2, 4)
    kpm = ember.zeros(2, 3, dtype=ember.bool)
    with pytest.warns(UserWarning, match="mismatched key_padding_mask and attn_mask"):
        mha(x, x, x, key_padding_mask=kpm, attn_mask=ember.zeros(3, 3))


# ---- against torch: outputs and gradients -----------------------------------------------

def load_from_torch(module, torch_module):
    module.load_state_dict({k: ember.tensor(v.detach().numpy())
                            for k, v in torch_module.state_dict().items()})


def flat(outputs):
    if isinstance(outputs, (tuple, list)):
        return [x for o in outputs for x in flat(o)]
    return [] if outputs is None else [outputs]


def compare_with_torch(torch, ours, theirs, args, kwargs=None, atol=1e-9):
    """Loads theirs' weights into ours (both float64), runs both on the same inputs
    (float arrays in args require grad; kwargs are masks), compares every output, then
    the gradients of a weighted sum of the outputs for inputs and parameters."""
    kwargs = kwargs or {}
    theirs = theirs.double()
    ours = ours.double()
    load_from_torch(ours, theirs)
    ours.train(theirs.training)
    e_args = [t(a, requires_grad=a.dtype == np.float64) for a in args]
    t_args = [torch.tensor(a, requires_grad=a.dtype == np.float64) for a in args]
    e_kw = {k: (t(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    t_kw = {k: (torch.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    e_out, t_out = flat(ours(*e_args, **e_kw)), flat(theirs(*t_args, **t_kw))
    assert len(e_out) == len(t_out)
    e_loss = t_loss = 0
    for e, th in zip(e_out, t_out):
        assert tuple(e.shape) == tuple(th.shape)
        close(e, th.detach().numpy(), atol=atol)
        weight = randn(*th.shape)
        e_loss = e_loss + (e * t(weight)).sum()
        t_loss = t_loss + (th * torch.tensor(weight)).sum()
    e_loss.backward()
    t_loss.backward()
    for e, th in zip(e_args, t_args):
        if th.requires_grad:
            close(e.grad, th.grad.numpy(), atol=atol)
    t_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        close(p.grad, t_params[name].grad.numpy(), atol=atol)


RNN_CONFIGS = [
    dict(num_layers=1),
    dict(num_layers=2, bidirectional=True),
    dict(num_layers=2, batch_first=True, bias=False),
    dict(num_layers=3, bidirectional=True, batch_first=True),
]


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN_tanh", "RNN_relu"])
@pytest.mark.parametrize("config", RNN_CONFIGS)
@pytest.mark.parametrize("with_state", [False, True])
def test_recurrent_layers_match_torch(kind, config, with_state):
    torch = pytest.importorskip("torch")
    name, _, act = kind.partition("_")
    extra = {"nonlinearity": act} if act else {}
    ours = getattr(nn, name)(3, 5, **config, **extra)
    theirs = getattr(torch.nn, name)(3, 5, **config, **extra)
    x = randn(2, 6, 3) if config.get("batch_first") else randn(6, 2, 3)
    args = [x]
    if with_state:
        layers = config["num_layers"] * (2 if config.get("bidirectional") else 1)
        h0 = randn(layers, 2, 5)
        args.append((h0, randn(layers, 2, 5)) if name == "LSTM" else h0)
    if name == "LSTM" and with_state:
        # the (h0, c0) tuple: wrap so that both get gradients
        compare_with_torch(torch, _TupleState(ours), _TupleState(theirs), [x, *args[1]])
    else:
        compare_with_torch(torch, ours, theirs, args)


class _TupleState:
    """Calls an LSTM or LSTMCell as m(x, (h0, c0)) from three positional arguments."""

    def __init__(self, module):
        self.module = module
        self.training = module.training

    def __call__(self, x, h0, c0):
        return self.module(x, (h0, c0))

    def double(self):
        self.module.double()
        return self

    def train(self, mode):
        self.module.train(mode)

    def state_dict(self):
        return self.module.state_dict()

    def load_state_dict(self, sd):
        return self.module.load_state_dict(sd)

    def named_parameters(self):
        return self.module.named_parameters()


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_unbatched_recurrent_layers_match_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(3, 4, 2), getattr(torch.nn, name)(3, 4, 2)
    compare_with_torch(torch, ours, theirs, [randn(5, 3)])


@pytest.mark.parametrize("name", ["LSTMCell", "GRUCell", "RNNCell"])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_torch(name, batched):
    torch = pytest.importorskip("torch")
    shape = (3,) if batched else ()
    for bias in (True, False):
        ours, theirs = getattr(nn, name)(4, 5, bias=bias), getattr(torch.nn, name)(4, 5, bias=bias)
        x, h, c = randn(*shape, 4), randn(*shape, 5), randn(*shape, 5)
        compare_with_torch(torch, ours, theirs, [x])
        if name == "LSTMCell":
            compare_with_torch(torch, _TupleState(ours), _TupleState(theirs), [x, h, c])
        else:
            compare_with_torch(torch, ours, theirs, [x, h])
    relu = dict(nonlinearity="relu")
    if name == "RNNCell":
        compare_with_torch(torch, nn.RNNCell(4, 5, **relu), torch.nn.RNNCell(4, 5, **relu),
                           [randn(*shape, 4), randn(*shape, 5)])


MHA_CASES = [
    ("self", dict(), {}),
    ("self", dict(batch_first=True), {}),
    ("self", dict(bias=False), dict(need_weights=False)),
    ("self", dict(add_bias_kv=True, add_zero_attn=True), {}),
    ("cross", dict(kdim=3, vdim=5), dict(average_attn_weights=False)),
    ("cross", dict(kdim=3, vdim=5, batch_first=True, add_bias_kv=True), {}),
    ("self", dict(), dict(key_padding_mask="bool", attn_mask="bool")),
    ("self", dict(), dict(key_padding_mask="float", attn_mask="float")),
    ("self", dict(batch_first=True), dict(attn_mask="bool", need_weights=False)),
    ("self", dict(), dict(attn_mask="causal", is_causal=True, need_weights=False)),
    ("self", dict(), dict(attn_mask="3d")),
    ("unbatched", dict(), dict(key_padding_mask="bool1d")),
]


def mha_masks(spec, L, N, S, heads):
    """The masks named in a case: bool padding (True = ignore), bool / float / 3-d masks."""
    tri = np.triu(np.ones((L, S), dtype=bool), 1)
    pad = RNG.random((N, S)) < 0.3
    pad[:, 0] = False  # every query keeps a key to attend to
    values = {
        ("key_padding_mask", "bool"): pad,
        ("key_padding_mask", "float"): np.where(pad, -np.inf, 0.0),
        ("key_padding_mask", "bool1d"): np.array([False, True, False, False, True, False]),
        ("attn_mask", "bool"): tri,
        ("attn_mask", "float"): randn(L, S),
        ("attn_mask", "causal"): np.where(tri, -np.inf, 0.0),
        ("attn_mask", "3d"): randn(N * heads, L, S),
    }
    return {k: values.get((k, v), v) for k, v in spec.items()}


@pytest.mark.parametrize("kind,options,call", MHA_CASES)
def test_multihead_attention_matches_torch(kind, options, call):
    torch = pytest.importorskip("torch")
    E, heads, L, S, N = 8, 2, 4, 6, 3
    ours = nn.MultiheadAttention(E, heads, **options)
    theirs = torch.nn.MultiheadAttention(E, heads, **options)
    kdim, vdim = options.get("kdim", E), options.get("vdim", E)
    bf = options.get("batch_first", False)

    def seq(length, dim):
        if kind == "unbatched":
            return randn(length, dim)
        return randn(N, length, dim) if bf else randn(length, N, dim)

    if kind == "cross":
        args = [seq(L, E), seq(S, kdim), seq(S, vdim)]
    else:
        S = L if kind == "self" else S
        q = seq(S, E)
        args = [q, q, q]
        L = S
    kwargs = mha_masks(call, L, N, S, heads)
    compare_with_torch(torch, ours, theirs, args, kwargs)


@pytest.mark.parametrize("options", [
    dict(),
    dict(activation="gelu", batch_first=True),
    dict(norm_first=True, layer_norm_eps=1e-6),
    dict(bias=False, activation=lambda x: x.tanh()),
])
@pytest.mark.parametrize("masks", [False, True])
def test_transformer_encoder_layer_matches_torch(options, masks):
    torch = pytest.importorskip("torch")
    ours = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **options)
    theirs = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **options)
    S, N = 5, 3
    x = randn(N, S, 8) if options.get("batch_first") else randn(S, N, 8)
    kwargs = {}
    if masks:
        pad = RNG.random((N, S)) < 0.3
        pad[:, 0] = False
        kwargs = dict(src_mask=np.where(np.triu(np.ones((S, S), bool), 1), -np.inf, 0.0),
                      src_key_padding_mask=np.where(pad, -np.inf, 0.0))
    compare_with_torch(torch, ours, theirs, [x], kwargs)


def test_transformer_encoder_layer_module_activation_matches_torch():
    torch = pytest.importorskip("torch")
    ours = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=nn.GELU())
    theirs = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=torch.nn.GELU())
    assert ours.activation_relu_or_gelu == theirs.activation_relu_or_gelu == 2
    compare_with_torch(torch, ours, theirs, [randn(4, 8)])  # unbatched


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("mask", [None, "causal_float", "causal_bool", "padding"])
def test_transformer_encoder_matches_torch(batch_first, mask):
    torch = pytest.importorskip("torch")
    S, N = 6, 2
    make = dict(dropout=0.0, batch_first=batch_first)
    ours = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, **make), 2,
                                 norm=nn.LayerNorm(8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, **make),
                                             2, norm=torch.nn.LayerNorm(8))
    x = randn(N, S, 8) if batch_first else randn(S, N, 8)
    tri = np.triu(np.ones((S, S), bool), 1)
    kwargs = {"causal_float": dict(mask=np.where(tri, -np.inf, 0.0)),
              "causal_bool": dict(mask=tri),
              "padding": dict(src_key_padding_mask=np.array([[False] * 4 + [True] * 2,
                                                             [False] * 6]))}.get(mask, {})
    compare_with_torch(torch, ours, theirs, [x], kwargs)


def test_causal_mask_detection():
    from ember.nn.modules.transformer import _detect_is_causal_mask
    tri = np.triu(np.ones((4, 4), bool), 1)
    assert _detect_is_causal_mask(t(tri), None, 4)
    assert _detect_is_causal_mask(t(np.where(tri, -np.inf, 0.0)), None, 4)
    assert not _detect_is_causal_mask(t(tri.T), None, 4)
    assert not _detect_is_causal_mask(t(tri), None, 5)
    assert _detect_is_causal_mask(None, True, 4) and not _detect_is_causal_mask(t(tri), False, 4)
