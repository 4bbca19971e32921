"""TransformerDecoderLayer, TransformerDecoder and Transformer against torch: the same
state_dict names (torch's state_dict loads into ember), equal outputs and gradients with
masks, batch_first, norm_first, unbatched inputs; the causal mask helper; reprs."""
import numpy as np
import pytest

import ember
import ember.nn as nn

from _torch_compare import copy_state

torch = pytest.importorskip("torch")

rng = np.random.default_rng(3)


def pair(*shape):
    a = rng.standard_normal(shape)
    return ember.from_numpy(a.copy()).requires_grad_(), torch.from_numpy(a.copy()).requires_grad_()


def check(e_out, t_out, e_in, t_in):
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-6, atol=1e-8)
    (e_out * e_out).sum().backward()
    (t_out * t_out).sum().backward()
    for e, t in zip(e_in, t_in):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_decoder_layer(batch_first, norm_first, activation):
    kw = dict(dim_feedforward=16, dropout=0.0, activation=activation, batch_first=batch_first,
              norm_first=norm_first)
    t_mod = torch.nn.TransformerDecoderLayer(8, 2, **kw).double()
    e_mod = nn.TransformerDecoderLayer(8, 2, **kw).double()
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    copy_state(t_mod, e_mod)
    shape_t, shape_m = ((3, 5, 8), (3, 4, 8)) if batch_first else ((5, 3, 8), (4, 3, 8))
    (et, tt), (em, tm) = pair(*shape_t), pair(*shape_m)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64)
    e_mask = nn.Transformer.generate_square_subsequent_mask(5, dtype=ember.float64)
    np.testing.assert_array_equal(e_mask.numpy(), mask.numpy())
    pad = np.zeros((3, 4), dtype=bool)
    pad[1, 3] = True
    check(e_mod(et, em, tgt_mask=e_mask, memory_key_padding_mask=ember.from_numpy(pad)),
          t_mod(tt, tm, tgt_mask=mask, memory_key_padding_mask=torch.from_numpy(pad)), [et, em], [tt, tm])


def test_decoder_layer_unbatched_and_memory_mask():
    t_mod = torch.nn.TransformerDecoderLayer(6, 3, dim_feedforward=12, dropout=0.0).double()
    e_mod = nn.TransformerDecoderLayer(6, 3, dim_feedforward=12, dropout=0.0).double()
    copy_state(t_mod, e_mod)
    (et, tt), (em, tm) = pair(4, 6), pair(5, 6)
    mm = rng.random((4, 5)) < 0.3
    mm[:, 0] = False
    check(e_mod(et, em, memory_mask=ember.from_numpy(mm)), t_mod(tt, tm, memory_mask=torch.from_numpy(mm)),
          [et, em], [tt, tm])


def test_decoder_stack_with_norm():
    layer_t = torch.nn.TransformerDecoderLayer(8, 4, dim_feedforward=16, dropout=0.0)
    layer_e = nn.TransformerDecoderLayer(8, 4, dim_feedforward=16, dropout=0.0)
    t_mod = torch.nn.TransformerDecoder(layer_t, 2, norm=torch.nn.LayerNorm(8)).double()
    e_mod = nn.TransformerDecoder(layer_e, 2, norm=nn.LayerNorm(8)).double()
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    assert repr(e_mod) == repr(t_mod)
    copy_state(t_mod, e_mod)
    (et, tt), (em, tm) = pair(5, 2, 8), pair(3, 2, 8)
    tpad = np.zeros((2, 5), dtype=bool)
    tpad[0, 4] = True
    mask_e = nn.Transformer.generate_square_subsequent_mask(5, dtype=ember.float64)
    mask_t = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64)
    check(e_mod(et, em, tgt_mask=mask_e, tgt_key_padding_mask=ember.from_numpy(tpad), tgt_is_causal=True),
          t_mod(tt, tm, tgt_mask=mask_t, tgt_key_padding_mask=torch.from_numpy(tpad), tgt_is_causal=True),
          [et, em], [tt, tm])


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer(batch_first):
    kw = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16,
              dropout=0.0, batch_first=batch_first)
    t_mod = torch.nn.Transformer(**kw).double()
    e_mod = nn.Transformer(**kw).double()
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    assert repr(e_mod) == repr(t_mod)
    copy_state(t_mod, e_mod)
    src_shape, tgt_shape = ((2, 6, 8), (2, 4, 8)) if batch_first else ((6, 2, 8), (4, 2, 8))
    (es, ts), (et, tt) = pair(*src_shape), pair(*tgt_shape)
    spad = np.zeros((2, 6), dtype=bool)
    spad[1, 5] = True
    mask_e = e_mod.generate_square_subsequent_mask(4).double()
    mask_t = t_mod.generate_square_subsequent_mask(4).double()
    check(e_mod(es, et, tgt_mask=mask_e, src_key_padding_mask=ember.from_numpy(spad),
                memory_key_padding_mask=ember.from_numpy(spad)),
          t_mod(ts, tt, tgt_mask=mask_t, src_key_padding_mask=torch.from_numpy(spad),
                memory_key_padding_mask=torch.from_numpy(spad)), [es, et], [ts, tt])


def test_transformer_unbatched_and_init():
    e_mod = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                           dim_feedforward=16, dropout=0.0)
    out = e_mod(ember.randn(5, 8), ember.randn(3, 8))
    assert tuple(out.shape) == (3, 8)
    # xavier-uniform on every matrix: bound sqrt(6 / (fan_in + fan_out))
    w = e_mod.encoder.layers[0].linear1.weight
    assert float(w.abs().max()) <= (6 / (8 + 16)) ** 0.5
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.dtype == ember.float32
    assert mask.numpy().tolist() == [[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]]


def test_transformer_errors():
    m = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        m(ember.randn(5, 2, 8), ember.randn(3, 3, 8))
    with pytest.raises(RuntimeError, match="feature number of src and tgt must be equal to d_model"):
        m(ember.randn(5, 2, 8), ember.randn(3, 2, 6))


def test_custom_encoder_decoder_and_train_dropout():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1)
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 1)
    m = nn.Transformer(d_model=8, nhead=2, custom_encoder=enc, custom_decoder=dec)
    assert m.encoder is enc and m.decoder is dec
    src, tgt = ember.randn(4, 2, 8), ember.randn(3, 2, 8)
    m.train()
    a, b = m(src, tgt), m(src, tgt)
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())  # dropout active
    m.eval()
    a, b = m(src, tgt), m(src, tgt)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
