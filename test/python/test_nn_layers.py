"""ember.nn layers: outputs against numpy references (always) and against torch
with the same weights (when torch is importable); Bilinear's gradients by
gradcheck; an MLP trained end to end with ember.optim.SGD."""
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck

RNG = np.random.default_rng(0)


def t(a, requires_grad=False):
    return ember.tensor(np.asarray(a), requires_grad=requires_grad)


def randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def close(e, ref, atol=1e-5, rtol=1e-4):
    np.testing.assert_allclose(e.detach().numpy(), np.asarray(ref), atol=atol, rtol=rtol)


# ---- numpy references ----------------------------------------------------------------

def test_linear_matches_numpy():
    m = nn.Linear(4, 3)
    x = randn(5, 4)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    close(m(t(x)), x @ w.T + b)
    nb = nn.Linear(4, 3, bias=False)
    assert nb.bias is None and [n for n, _ in nb.named_parameters()] == ["weight"]
    close(nb(t(x)), x @ nb.weight.detach().numpy().T)


def test_linear_default_init_bounds():
    m = nn.Linear(100, 50)
    bound = 1 / math.sqrt(100)  # kaiming_uniform(a=sqrt(5)) and the bias rule agree
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(b).max() <= bound
    assert m.weight.requires_grad and isinstance(m.weight, nn.Parameter)


def test_factory_kwargs_dtype():
    m = nn.Linear(2, 3, dtype=ember.float64)
    assert m.weight.dtype == ember.float64 and m.bias.dtype == ember.float64
    bn = nn.BatchNorm1d(3, dtype=ember.float64)
    assert bn.running_mean.dtype == ember.float64 and bn.num_batches_tracked.dtype == ember.int64


def test_bilinear_matches_numpy_and_gradcheck():
    m = nn.Bilinear(3, 4, 2)
    x1, x2 = randn(2, 5, 3), randn(2, 5, 4)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    close(m(t(x1), t(x2)), np.einsum("...i,kij,...j->...k", x1, w, x2) + b)
    args = [ember.randn(3, 3, dtype=ember.float64).requires_grad_(),
            ember.randn(3, 4, dtype=ember.float64).requires_grad_(),
            ember.randn(2, 3, 4, dtype=ember.float64).requires_grad_(),
            ember.randn(2, dtype=ember.float64).requires_grad_()]
    assert gradcheck(F.bilinear, args)
    assert gradcheck(lambda a, b, w: F.bilinear(a, b, w), args[:3])
    with pytest.raises(RuntimeError, match="input1 size does not match"):
        m(ember.randn(5, 2), ember.randn(5, 4))


def _conv2d_numpy(x, w, b, stride=1, padding=0):
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    n, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out + b[None, :, None, None]


def test_conv2d_matches_numpy():
    m = nn.Conv2d(2, 3, 3, stride=2, padding=1)
    assert m.weight.shape == (3, 2, 3, 3)
    x = randn(2, 2, 7, 6)
    ref = _conv2d_numpy(x, m.weight.detach().numpy(), m.bias.detach().numpy(), 2, 1)
    close(m(t(x)), ref)


def test_conv_argument_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="not supported for strided"):
        nn.Conv2d(2, 2, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="Invalid padding string"):
        nn.Conv1d(2, 2, 3, padding="full")
    assert nn.ConvTranspose2d(4, 6, 3, groups=2).weight.shape == (4, 3, 3, 3)


def test_pooling_matches_numpy():
    x = randn(2, 3, 4, 6)
    blocks = x.reshape(2, 3, 2, 2, 3, 2)
    close(nn.MaxPool2d(2)(t(x)), blocks.max(axis=(3, 5)))
    close(nn.AvgPool2d(2)(t(x)), blocks.mean(axis=(3, 5)))
    close(nn.AdaptiveAvgPool2d(1)(t(x)), x.mean(axis=(2, 3), keepdims=True))
    close(nn.AdaptiveAvgPool2d((2, 3))(t(x)), blocks.mean(axis=(3, 5)))


def test_batchnorm_training_and_running_stats():
    bn = nn.BatchNorm1d(3, momentum=0.1)
    x = randn(8, 3) * 2 + 1
    y = bn(t(x))
    mean, var = x.mean(0), x.var(0)
    close(y, (x - mean) / np.sqrt(var + 1e-5), atol=1e-4)
    close(bn.running_mean, 0.9 * 0 + 0.1 * mean)
    close(bn.running_var, 0.9 * 1 + 0.1 * x.var(0, ddof=1))  # unbiased, as torch
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    close(bn(t(x)), (x - bn.running_mean.numpy()) / np.sqrt(bn.running_var.numpy() + 1e-5),
          atol=1e-4)
    assert bn.num_batches_tracked.item() == 1


def test_batchnorm_cumulative_average_when_momentum_none():
    bn = nn.BatchNorm2d(2, momentum=None)
    batches = [randn(4, 2, 3, 3) + i for i in range(3)]
    for b in batches:
        bn(t(b))
    means = [b.mean(axis=(0, 2, 3)) for b in batches]
    close(bn.running_mean, np.mean(means, axis=0), atol=1e-5)
    assert bn.num_batches_tracked.item() == 3


def test_batchnorm_without_running_stats_uses_batch_stats_in_eval():
    bn = nn.BatchNorm1d(3, affine=False, track_running_stats=False).eval()
    assert bn.running_mean is None and list(bn.state_dict()) == []
    x = randn(6, 3)
    close(bn(t(x)), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), atol=1e-4)
    with pytest.raises(ValueError, match=r"expected 4D input \(got 2D input\)"):
        nn.BatchNorm2d(3)(t(x))


def test_layer_norm_and_group_norm_match_numpy():
    x = randn(2, 4, 3)
    ln = nn.LayerNorm([4, 3])
    mu, var = x.mean(axis=(1, 2), keepdims=True), x.var(axis=(1, 2), keepdims=True)
    close(ln(t(x)), (x - mu) / np.sqrt(var + 1e-5), atol=1e-4)
    gn = nn.GroupNorm(2, 4)
    g = x.reshape(2, 2, 6)
    ref = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5))
    close(gn(t(x)), ref.reshape(2, 4, 3), atol=1e-4)
    with pytest.raises(ValueError, match="divisible"):
        nn.GroupNorm(3, 4)


def test_dropout_train_and_eval():
    d = nn.Dropout(0.5)
    x = ember.ones(1000)
    y = d(x).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 300 < (y == 0).sum() < 700
    assert np.array_equal(d.eval()(x).numpy(), np.ones(1000))
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)


def test_embedding_padding_idx_and_from_pretrained():
    e = nn.Embedding(5, 3, padding_idx=-1)
    assert e.padding_idx == 4 and np.all(e.weight[4].detach().numpy() == 0)
    idx = ember.tensor([[0, 4], [2, 2]])
    out = e(idx)
    close(out, e.weight.detach().numpy()[[[0, 4], [2, 2]]])
    out.sum().backward()
    assert np.all(e.weight.grad[4].numpy() == 0) and np.all(e.weight.grad[2].numpy() == 2)
    w = t(randn(4, 2))
    p = nn.Embedding.from_pretrained(w)
    assert not p.weight.requires_grad and np.array_equal(p.weight.detach().numpy(), w.numpy())
    assert nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad
    with pytest.raises(AssertionError):
        nn.Embedding(3, 2, padding_idx=3)


def test_flatten_unflatten_identity():
    x = ember.randn(2, 3, 4)
    assert nn.Flatten()(x).shape == (2, 12)
    assert nn.Flatten(0, -1)(x).shape == (24,)
    assert nn.Unflatten(2, (2, 2))(x).shape == (2, 3, 2, 2)
    assert nn.Identity(3, foo=1)(x) is x


def test_activations_match_numpy():
    x = randn(3, 4)
    close(nn.ReLU()(t(x)), np.maximum(x, 0))
    close(nn.LeakyReLU(0.2)(t(x)), np.where(x > 0, x, 0.2 * x))
    close(nn.Sigmoid()(t(x)), 1 / (1 + np.exp(-x)))
    close(nn.Tanh()(t(x)), np.tanh(x))
    close(nn.SiLU()(t(x)), x / (1 + np.exp(-x)))
    erf = np.vectorize(math.erf)
    close(nn.GELU()(t(x)), 0.5 * x * (1 + erf(x / math.sqrt(2))))
    e = np.exp(x - x.max(1, keepdims=True))
    close(nn.Softmax(dim=1)(t(x)), e / e.sum(1, keepdims=True))
    close(nn.LogSoftmax(dim=1)(t(x)), np.log(e / e.sum(1, keepdims=True)))
    y = t(x.copy())
    assert nn.ReLU(inplace=True)(y) is not None and np.all(y.numpy() >= 0)


def test_losses_match_numpy():
    logits, target = randn(4, 3), np.array([0, 2, 1, 2])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    close(nn.CrossEntropyLoss()(t(logits), t(target)), -logp[range(4), target].mean())
    w = np.array([1.0, 2.0, 0.5], np.float32)
    ce = nn.CrossEntropyLoss(weight=t(w), reduction="sum")
    assert "weight" in dict(ce.named_buffers())
    close(ce(t(logits), t(target)), -(w[target] * logp[range(4), target]).sum())
    ign = nn.NLLLoss(ignore_index=2)(t(logp), t(target))
    close(ign, -logp[[0, 2], [0, 1]].mean())
    smooth = nn.CrossEntropyLoss(label_smoothing=0.1)(t(logits), t(target))
    q = np.full((4, 3), 0.1 / 3)
    q[range(4), target] += 0.9
    close(smooth, -(q * logp).sum(1).mean())
    a, b = randn(5), randn(5)
    close(nn.MSELoss()(t(a), t(b)), ((a - b) ** 2).mean())
    close(nn.L1Loss(reduction="sum")(t(a), t(b)), np.abs(a - b).sum())
    d = np.abs(a - b)
    close(nn.SmoothL1Loss(beta=0.5)(t(a), t(b)), np.where(d < 0.5, 0.5 * d * d / 0.5, d - 0.25).mean())
    p, y = 1 / (1 + np.exp(-a)), (b > 0).astype(np.float32)
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    close(nn.BCELoss()(t(p), t(y)), bce.mean())
    pw = np.float32(3.0)
    bcel = nn.BCEWithLogitsLoss(pos_weight=t(np.array([pw])), reduction="none")
    close(bcel(t(a), t(y)), -(pw * y * np.log(p) + (1 - y) * np.log(1 - p)), atol=1e-5)
    assert set(dict(bcel.named_buffers())) == {"pos_weight"}
    assert nn.MSELoss(size_average=False).reduction == "sum"
    assert nn.MSELoss(reduce=False).reduction == "none"


def test_containers_in_a_model_train_end_to_end():
    ember.manual_seed(0)
    x = ember.randn(64, 2)
    y = (x[:, 0] * x[:, 1] > 0).long()
    model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
    opt = ember.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    first = None
    for _ in range(300):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    assert first > 0.6 and loss.item() < 0.15


# ---- against torch with the same weights ---------------------------------------------

def _to_ember(tmod, emod):
    """Copies torch module tmod's state into ember module emod via load_state_dict."""
    state = {k: ember.tensor(v.detach().cpu().numpy()) for k, v in tmod.state_dict().items()}
    result = emod.load_state_dict(state)
    assert result.missing_keys == [] and result.unexpected_keys == []


def _compare(torch, tmod, emod, *inputs, atol=1e-5, grads=True):
    _to_ember(tmod, emod)
    tin = [torch.tensor(a, requires_grad=grads and a.dtype.kind == "f") for a in inputs]
    ein = [ember.tensor(a, requires_grad=grads and a.dtype.kind == "f") for a in inputs]
    tout, eout = tmod(*tin), emod(*ein)
    np.testing.assert_allclose(eout.detach().numpy(), tout.detach().numpy(), atol=atol, rtol=1e-4)
    if grads:
        seed = RNG.standard_normal(tuple(tout.shape)).astype(np.float32)
        tout.backward(torch.tensor(seed))
        eout.backward(ember.tensor(seed))
        tparams = dict(tmod.named_parameters())
        for name, p in emod.named_parameters():
            np.testing.assert_allclose(p.grad.numpy(), tparams[name].grad.numpy(), atol=atol * 10,
                                       rtol=1e-3, err_msg=name)
        for ta, ea in zip(tin, ein):
            if ta.grad is not None:
                np.testing.assert_allclose(ea.grad.numpy(), ta.grad.numpy(), atol=atol * 10,
                                           rtol=1e-3)
    for name, buf in emod.named_buffers():
        np.testing.assert_allclose(buf.numpy(), dict(tmod.named_buffers())[name].numpy(),
                                   atol=atol, rtol=1e-4, err_msg=name)


LAYER_CASES = [
    ("Linear(4, 3)", [(2, 5, 4)]),
    ("Bilinear(3, 4, 2)", [(5, 3), (5, 4)]),
    ("Conv1d(2, 4, 3, padding=1, stride=2)", [(2, 2, 9)]),
    ("Conv1d(2, 4, 3, padding='same', dilation=2, bias=False)", [(2, 2, 9)]),
    ("Conv2d(2, 4, 3, padding=1, groups=2)", [(2, 2, 6, 5)]),
    ("Conv2d(2, 3, (3, 2), padding=(1, 2), padding_mode='reflect')", [(1, 2, 5, 6)]),
    ("Conv2d(2, 3, 3, padding=1, padding_mode='circular')", [(1, 2, 5, 6)]),
    ("Conv2d(2, 3, 4, padding='same')", [(1, 2, 6, 6)]),
    ("ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)", [(2, 4, 3, 4)]),
    ("ConvTranspose2d(4, 6, (2, 3), groups=2, dilation=2, bias=False)", [(1, 4, 3, 3)]),
    ("Conv2d(2, 3, 3, padding=(2, 1), padding_mode='replicate', stride=(1, 2))", [(1, 2, 5, 6)]),
    ("Conv1d(4, 4, 2, groups=4, padding='valid')", [(2, 4, 5)]),
    ("MaxPool2d(3, 2, 1)", [(2, 3, 7, 7)]),
    ("MaxPool2d(2, ceil_mode=True)", [(2, 3, 5, 5)]),
    ("AvgPool2d(3, 2, 1)", [(2, 3, 7, 6)]),
    ("AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False)", [(2, 3, 6, 6)]),
    ("AvgPool2d(2, divisor_override=3)", [(1, 2, 4, 4)]),
    ("AdaptiveAvgPool2d((None, 2))", [(1, 2, 5, 5)]),
    ("AdaptiveAvgPool2d((3, 2))", [(2, 3, 7, 5)]),
    ("BatchNorm1d(3)", [(6, 3)]),
    ("BatchNorm1d(3, momentum=None)", [(6, 3, 4)]),
    ("BatchNorm2d(3, affine=False)", [(4, 3, 2, 2)]),
    ("LayerNorm([3, 4])", [(2, 3, 4)]),
    ("GroupNorm(2, 4)", [(3, 4, 5)]),
    ("Flatten(1, 2)", [(2, 3, 4, 5)]),
    ("Unflatten(1, (2, 3))", [(4, 6)]),
    ("ReLU()", [(3, 4)]),
    ("LeakyReLU(0.1)", [(3, 4)]),
    ("GELU()", [(3, 4)]),
    ("GELU(approximate='tanh')", [(3, 4)]),
    ("SiLU()", [(3, 4)]),
    ("Sigmoid()", [(3, 4)]),
    ("Tanh()", [(3, 4)]),
    ("Softmax(dim=0)", [(3, 4)]),
    ("LogSoftmax(dim=1)", [(3, 4)]),
    ("Identity()", [(3, 4)]),
]


@pytest.mark.parametrize("expr,shapes", LAYER_CASES, ids=[c[0] for c in LAYER_CASES])
def test_layer_matches_torch(expr, shapes):
    torch = pytest.importorskip("torch")
    tmod, emod = eval("nn." + expr, {"nn": torch.nn}), eval("nn." + expr, {"nn": nn})
    assert repr(emod) == repr(tmod)
    _compare(torch, tmod, emod, *[randn(*s) for s in shapes])
    if any(b is not None for b in tmod.buffers()):  # eval mode uses the running statistics
        tmod.eval(), emod.eval()
        _compare(torch, tmod, emod, *[randn(*s) for s in shapes])


def test_batchnorm_several_steps_match_torch():
    torch = pytest.importorskip("torch")
    for momentum in (0.3, None):
        tbn, ebn = torch.nn.BatchNorm2d(3, momentum=momentum), nn.BatchNorm2d(3, momentum=momentum)
        for _ in range(3):
            _compare(torch, tbn, ebn, randn(4, 3, 2, 2) * 3 + 1, grads=False)
            tbn.weight.data.mul_(1.5)  # ember gets the new weight through load_state_dict


def test_conv_transpose_output_size_matches_torch():
    torch = pytest.importorskip("torch")
    tm, em = torch.nn.ConvTranspose2d(2, 3, 3, stride=2), nn.ConvTranspose2d(2, 3, 3, stride=2)
    _to_ember(tm, em)
    x = randn(1, 2, 4, 4)
    out_t = tm(torch.tensor(x), output_size=[10, 10])
    out_e = em(ember.tensor(x), output_size=[10, 10])
    np.testing.assert_allclose(out_e.detach().numpy(), out_t.detach().numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="requested an output size"):
        em(ember.tensor(x), output_size=[12, 12])


def test_max_pool_return_indices_matches_torch():
    torch = pytest.importorskip("torch")
    x = randn(1, 2, 5, 5)
    tout, tidx = torch.nn.MaxPool2d(2, return_indices=True)(torch.tensor(x))
    eout, eidx = nn.MaxPool2d(2, return_indices=True)(ember.tensor(x))
    np.testing.assert_array_equal(eout.numpy(), tout.numpy())
    np.testing.assert_array_equal(eidx.numpy(), tidx.numpy())


def test_embedding_matches_torch():
    torch = pytest.importorskip("torch")
    tm, em = torch.nn.Embedding(6, 3, padding_idx=1), nn.Embedding(6, 3, padding_idx=1)
    assert repr(em) == repr(tm)
    _to_ember(tm, em)
    idx = np.array([[0, 1, 5], [1, 1, 2]])
    tout, eout = tm(torch.tensor(idx)), em(ember.tensor(idx))
    np.testing.assert_allclose(eout.detach().numpy(), tout.detach().numpy())
    tout.pow(2).sum().backward()
    eout.pow(2).sum().backward()
    np.testing.assert_allclose(em.weight.grad.numpy(), tm.weight.grad.numpy(), atol=1e-5)


LOSS_CASES = [
    ("CrossEntropyLoss()", "class"),
    ("CrossEntropyLoss(reduction='sum', label_smoothing=0.2)", "class"),
    ("CrossEntropyLoss(weight=W3, ignore_index=1)", "class"),
    ("CrossEntropyLoss(label_smoothing=0.1)", "prob"),
    ("NLLLoss(weight=W3, reduction='none')", "class"),
    ("MSELoss()", "real"),
    ("L1Loss(reduction='none')", "real"),
    ("SmoothL1Loss(beta=0.5)", "real"),
    ("BCELoss(weight=W3)", "binary_prob"),
    ("BCEWithLogitsLoss(pos_weight=W3)", "binary"),
    ("BCEWithLogitsLoss(weight=W3, reduction='sum')", "binary"),
]


@pytest.mark.parametrize("expr,kind", LOSS_CASES, ids=[c[0] for c in LOSS_CASES])
def test_loss_matches_torch(expr, kind):
    torch = pytest.importorskip("torch")
    w = np.array([0.5, 2.0, 1.0], np.float32)
    tmod = eval("nn." + expr, {"nn": torch.nn, "W3": torch.tensor(w)})
    emod = eval("nn." + expr, {"nn": nn, "W3": ember.tensor(w)})
    x = randn(5, 3)
    if kind == "class":
        target = RNG.integers(0, 3, 5)
        if "NLL" in expr:
            x = x - np.log(np.exp(x).sum(1, keepdims=True))
    elif kind == "prob":
        target = RNG.dirichlet(np.ones(3), 5).astype(np.float32)
    elif kind == "real":
        target = randn(5, 3)
    else:
        target = (RNG.random((5, 3)) > 0.5).astype(np.float32)
        if kind == "binary_prob":
            x = 1 / (1 + np.exp(-x))
    tx, ex = torch.tensor(x, requires_grad=True), ember.tensor(x, requires_grad=True)
    tl, el = tmod(tx, torch.tensor(target)), emod(ex, ember.tensor(target))
    np.testing.assert_allclose(el.detach().numpy(), tl.detach().numpy(), atol=1e-5, rtol=1e-5)
    tl.sum().backward()
    el.sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), atol=1e-5, rtol=1e-4)
    assert sorted(dict(emod.named_buffers())) == sorted(dict(tmod.named_buffers()))


def test_constructor_signatures_match_torch():
    torch = pytest.importorskip("torch")
    import inspect

    def default(value):
        # A function default (TransformerEncoderLayer's activation=F.relu) is each
        # library's own function of that name.
        return value.__name__ if inspect.isfunction(value) or inspect.isbuiltin(value) else value

    def signature(cls):
        return [(p.name, default(p.default), p.kind) for p in
                inspect.signature(cls.__init__).parameters.values()]

    for name in nn.modules.__all__:
        assert signature(getattr(nn, name)) == signature(getattr(torch.nn, name)), name


def test_cnn_training_steps_match_torch():
    """A small CNN with every kind of layer, same weights and data in torch and ember:
    three SGD steps leave the same parameters and running statistics."""
    torch = pytest.importorskip("torch")
    build = ("nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.GELU(),"
             " nn.AvgPool2d(2), nn.Conv2d(4, 4, 3, padding='same', groups=2), nn.GroupNorm(2, 4),"
             " nn.SiLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(16, 8),"
             " nn.LayerNorm(8), nn.LeakyReLU(0.1), nn.Linear(8, 3))")
    tm, em = eval(build, {"nn": torch.nn}), eval(build, {"nn": nn})
    _to_ember(tm, em)
    topt = torch.optim.SGD(tm.parameters(), lr=0.1, momentum=0.9)
    eopt = ember.optim.SGD(em.parameters(), lr=0.1, momentum=0.9)
    for step in range(3):
        x, y = randn(6, 2, 8, 8), RNG.integers(0, 3, 6)
        for model, opt, lib, lib_nn in ((tm, topt, torch, torch.nn), (em, eopt, ember, nn)):
            opt.zero_grad()
            loss = lib_nn.CrossEntropyLoss()(model(lib.tensor(x)), lib.tensor(y))
            loss.backward()
            opt.step()
    tstate = tm.state_dict()
    for name, value in em.state_dict().items():
        np.testing.assert_allclose(value.numpy(), tstate[name].numpy(), atol=2e-4, rtol=1e-3,
                                   err_msg=name)
