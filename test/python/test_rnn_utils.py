"""ember.nn.utils.rnn (pad_sequence, pack_padded_sequence, pad_packed_sequence,
pack_sequence, unpad_sequence, unpack_sequence, PackedSequence) and RNN / LSTM / GRU on
packed input, against torch on the same data and weights: values, batch_sizes and
permutations, final states, gradients, and the errors torch raises."""
import numpy as np
import pytest

import ember
from ember.nn.utils import rnn as ER

torch = pytest.importorskip("torch")
TR = torch.nn.utils.rnn


def _np(x):
    return x.detach().numpy()


def _close(e, t, tol=1e-6):
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(_np(e), _np(t), rtol=tol, atol=tol)


def _seqs(lengths, feat=(3,), dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal((n,) + feat).astype(dtype) for n in lengths]
    return ([ember.tensor(a, requires_grad=True) for a in arrs],
            [torch.tensor(a, requires_grad=True) for a in arrs])


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence(batch_first, padding_side):
    es, ts = _seqs([2, 4, 1], feat=(2, 3))
    e = ER.pad_sequence(es, batch_first=batch_first, padding_value=-1.5, padding_side=padding_side)
    t = TR.pad_sequence(ts, batch_first=batch_first, padding_value=-1.5, padding_side=padding_side)
    _close(e, t)
    w = np.random.default_rng(1).standard_normal(tuple(t.shape))
    (e * ember.tensor(w)).sum().backward()
    (t * torch.tensor(w)).sum().backward()
    for a, b in zip(es, ts):
        _close(a.grad, b.grad)
    # unpad_sequence gives the sequences back (right padding)
    if padding_side == "right":
        lengths = torch.tensor([2, 4, 1])
        for a, b in zip(ER.unpad_sequence(e, ember.tensor([2, 4, 1]), batch_first=batch_first),
                        TR.unpad_sequence(t, lengths, batch_first=batch_first)):
            _close(a, b)


def test_pad_sequence_dtype_and_tensor_input():
    e = ER.pad_sequence([ember.ones(2, 3), ember.ones(3, 3, dtype=ember.float64)])
    t = TR.pad_sequence([torch.ones(2, 3), torch.ones(3, 3, dtype=torch.float64)])
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1] == "float32"
    _close(ER.pad_sequence(ember.ones(2, 3)), TR.pad_sequence(torch.ones(2, 3)))


@pytest.mark.parametrize("call", [
    lambda L, R: R.pad_sequence([]),
    lambda L, R: R.pad_sequence(5),
    lambda L, R: R.pad_sequence([L.ones(2, 3), L.ones(3, 4)]),
    lambda L, R: R.pad_sequence([L.ones(2, 3)], padding_side="middle"),
    lambda L, R: R.pack_padded_sequence(L.ones(4, 3, 2), [2, 3, 1]),
    lambda L, R: R.pack_padded_sequence(L.ones(4, 3, 2), [2, 0, 1], enforce_sorted=False),
    lambda L, R: R.pack_padded_sequence(L.ones(4, 3, 2), [3, 1]),
    lambda L, R: R.pack_padded_sequence(L.ones(4, 3, 2), L.tensor([[3, 2, 1]])),
])
def test_bad_calls_raise_runtime_error(call):
    with pytest.raises(RuntimeError):
        call(torch, TR)
    with pytest.raises(RuntimeError):
        call(ember, ER)


def test_pad_packed_total_length_error():
    for L, R in ((torch, TR), (ember, ER)):
        p = R.pack_padded_sequence(L.ones(4, 3, 2), [3, 2, 1])
        with pytest.raises(ValueError, match="total_length=2"):
            R.pad_packed_sequence(p, total_length=2)


@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_pad_roundtrip(enforce_sorted, batch_first):
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 5, 2) if batch_first else (5, 4, 2))
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ep = ER.pack_padded_sequence(ex, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    tp = TR.pack_padded_sequence(tx, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    assert isinstance(ep, ER.PackedSequence) and isinstance(ep, tuple)
    _close(ep.data, tp.data)
    assert ep.batch_sizes.tolist() == tp.batch_sizes.tolist()
    assert str(ep.batch_sizes.dtype) == "ember.int64"
    for a, b in ((ep.sorted_indices, tp.sorted_indices), (ep.unsorted_indices, tp.unsorted_indices)):
        assert (a is None and b is None) or a.tolist() == b.tolist()
    epad, elen = ER.pad_packed_sequence(ep, batch_first=batch_first, padding_value=9.0, total_length=6)
    tpad, tlen = TR.pad_packed_sequence(tp, batch_first=batch_first, padding_value=9.0, total_length=6)
    _close(epad, tpad)
    assert elen.tolist() == tlen.tolist() and str(elen.dtype) == "ember.int64"
    w = rng.standard_normal(tuple(tpad.shape))
    (epad * ember.tensor(w)).sum().backward()
    (tpad * torch.tensor(w)).sum().backward()
    _close(ex.grad, tx.grad)


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_and_unpack_sequence(enforce_sorted):
    lengths = [4, 2, 1] if enforce_sorted else [2, 4, 1]
    es, ts = _seqs(lengths)
    ep = ER.pack_sequence(es, enforce_sorted=enforce_sorted)
    tp = TR.pack_sequence(ts, enforce_sorted=enforce_sorted)
    _close(ep.data, tp.data)
    assert ep.batch_sizes.tolist() == tp.batch_sizes.tolist()
    for a, b in zip(ER.unpack_sequence(ep), TR.unpack_sequence(tp)):
        _close(a, b)
    assert _np(ER.invert_permutation(ember.tensor([2, 0, 1]))).tolist() == \
        TR.invert_permutation(torch.tensor([2, 0, 1])).tolist()


def test_packed_sequence_conversions():
    ep = ER.pack_sequence([ember.ones(2, 3), ember.ones(1, 3)])
    assert ep.double().data.dtype == ember.float64
    assert ep.to(ember.float64).batch_sizes.tolist() == [2, 1]
    assert ep.to("cpu") is ep and not ep.is_cuda


def _rnn_pair(mode, bidirectional, num_layers, bias=True, batch_first=False):
    torch.manual_seed(0)
    kw = dict(num_layers=num_layers, bidirectional=bidirectional, bias=bias, batch_first=batch_first)
    if mode == "RNN_RELU":
        t, e = torch.nn.RNN(3, 4, nonlinearity="relu", **kw), ember.nn.RNN(3, 4, nonlinearity="relu", **kw)
    else:
        t, e = getattr(torch.nn, mode)(3, 4, **kw), getattr(ember.nn, mode)(3, 4, **kw)
    t.double()
    e.double()
    e.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return e, t


def _states(h):
    return h if isinstance(h, tuple) else (h,)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN", "RNN_RELU"])
@pytest.mark.parametrize("bidirectional,num_layers", [(False, 1), (True, 2), (False, 3)])
@pytest.mark.parametrize("enforce_sorted,with_hx", [(True, False), (False, True)])
def test_rnn_on_packed_sequence(mode, bidirectional, num_layers, enforce_sorted, with_hx):
    e, t = _rnn_pair(mode, bidirectional, num_layers)
    lengths = [6, 4, 4, 1] if enforce_sorted else [4, 1, 6, 4]
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 4, 3))
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ep = ER.pack_padded_sequence(ex, lengths, enforce_sorted=enforce_sorted)
    tp = TR.pack_padded_sequence(tx, lengths, enforce_sorted=enforce_sorted)
    eh = th = None
    if with_hx:
        shape = (num_layers * (2 if bidirectional else 1), 4, 4)
        hs = [rng.standard_normal(shape) for _ in range(2 if mode == "LSTM" else 1)]
        eh = tuple(ember.tensor(h, requires_grad=True) for h in hs)
        th = tuple(torch.tensor(h, requires_grad=True) for h in hs)
        if mode != "LSTM":
            eh, th = eh[0], th[0]
    eo, ehn = e(ep, eh)
    to, thn = t(tp, th)
    assert isinstance(eo, ER.PackedSequence)
    _close(eo.data, to.data, 1e-10)
    assert eo.batch_sizes.tolist() == to.batch_sizes.tolist()
    for a, b in zip(_states(ehn), _states(thn)):
        _close(a, b, 1e-10)
    # gradients through output and final states, to the input, initial state and weights
    w = rng.standard_normal(tuple(to.data.shape))
    loss_e = (eo.data * ember.tensor(w)).sum() + sum((s * s).sum() for s in _states(ehn))
    loss_t = (to.data * torch.tensor(w)).sum() + sum((s * s).sum() for s in _states(thn))
    loss_e.backward()
    loss_t.backward()
    _close(ex.grad, tx.grad, 1e-9)
    if with_hx:
        for a, b in zip(_states(eh), _states(th)):
            _close(a.grad, b.grad, 1e-9)
    for (name, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters()):
        _close(pe.grad, pt.grad, 1e-9)


def test_rnn_packed_no_bias_and_unpacked_output():
    e, t = _rnn_pair("GRU", True, 1, bias=False, batch_first=True)
    es, ts = _seqs([3, 5, 2])
    eo, eh = e(ER.pack_sequence(es, enforce_sorted=False))
    to, th = t(TR.pack_sequence(ts, enforce_sorted=False))
    epad, elen = ER.pad_packed_sequence(eo, batch_first=True)
    tpad, tlen = TR.pad_packed_sequence(to, batch_first=True)
    _close(epad, tpad, 1e-10)
    _close(eh, th, 1e-10)
    assert elen.tolist() == tlen.tolist()


def test_rnn_packed_errors():
    for mod, R, L in ((ember.nn.LSTM(3, 4), ER, ember), (torch.nn.LSTM(3, 4), TR, torch)):
        p = R.pack_sequence([L.ones(2, 3), L.ones(1, 3)])
        with pytest.raises(RuntimeError):  # torch's message here is a broadcasting one
            mod(p, (L.zeros(1, 3, 4), L.zeros(1, 2, 4)))
        with pytest.raises(RuntimeError):  # torch's message here is addmm's
            mod(R.pack_sequence([L.ones(2, 5), L.ones(1, 5)]))
        with pytest.raises(RuntimeError, match="must have the same dtype"):
            mod(R.pack_sequence([L.ones(2, 3, dtype=L.float64)]))
    for mod, R, L in ((ember.nn.GRU(3, 4), ER, ember), (torch.nn.GRU(3, 4), TR, torch)):
        p = R.pack_sequence([L.ones(2, 3), L.ones(1, 3)])
        with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"):
            mod(p, L.zeros(1, 3, 4))
