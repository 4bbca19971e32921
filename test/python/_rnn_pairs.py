"""Shared by the recurrent-layer tests (test_rnn_layer_inference.py,
test_rnn_layer_training.py): ember and torch modules with the same weights, the
layer configurations they walk, and small readers of their outputs."""
import ember
import ember.nn as nn

CONFIGS = [
    dict(num_layers=1),
    dict(num_layers=2),
    dict(num_layers=2, bidirectional=True),
    dict(num_layers=3, bidirectional=True, batch_first=True),
    dict(num_layers=2, bias=False),
    dict(num_layers=1, bidirectional=True, bias=False, batch_first=True),
]


def pair_modules(kind, dtype, *args, **kw):
    """An ember and a torch nn.LSTM / nn.GRU (or cell) with the same weights."""
    import torch

    tm = getattr(torch.nn, kind)(*args, **kw).to(getattr(torch, dtype))
    em = getattr(nn, kind)(*args, **kw).to(getattr(ember, dtype))
    with ember.no_grad():
        for name, p in em.named_parameters():
            p.copy_(ember.from_numpy(getattr(tm, name).detach().numpy().copy()))
    return em, tm


def counts(prof):
    """How many times each op ran under an ember profiler."""
    return {avg.key: avg.count for avg in prof.key_averages()}


def flat(out):
    """(output, h_n, c_n) of an LSTM, (output, h_n) of a GRU."""
    o, h = out
    return [o] + (list(h) if isinstance(h, tuple) else [h])
