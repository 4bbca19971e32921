"""Recurrent layers and attention (lib/ops/rnn.cpp, lib/ops/attention.cpp), ember vs
PyTorch side by side in one process: time per call, forward and forward + backward.

    PYTHONPATH=python python bench/bench_seq.py            # all threads, wall clock
    OMP_NUM_THREADS=1 PYTHONPATH=python python bench/bench_seq.py --single
        # one thread each, timed with the thread's CPU clock
"""
import numpy as np
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from bench_nn import row  # same timing and interleaving as the other nn benchmarks

rng = np.random.default_rng(0)


def pair(*shape):
    a = rng.standard_normal(shape).astype(np.float32)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def bench_recurrent(kind, T, B, I, H, layers, bidirectional=False, batch_first=False, train=True):
    """kind: "lstm" or "gru" (torch.nn.LSTM / GRU against ember._C._lstm / _gru)."""
    mod = (torch.nn.LSTM if kind == "lstm" else torch.nn.GRU)(I, H, layers, bidirectional=bidirectional,
                                                               batch_first=batch_first)
    params = [ember.from_numpy(p.detach().numpy().copy()).requires_grad_() for p in mod._flat_weights]
    seq = ember._C._lstm if kind == "lstm" else ember._C._gru
    xe, xt = pair(*((B, T, I) if batch_first else (T, B, I)))
    name = f"{kind} T={T} B={B} {I}->{H} x{layers}" + (" bidir" if bidirectional else "") + \
        (" batch_first" if batch_first else "")
    args = (True, layers, 0.0, False, bidirectional, batch_first)  # has_biases, ..., train, ...

    def e_fwd():
        with ember.no_grad():
            seq(xe, None, params, *args)

    def t_fwd():
        with torch.no_grad():
            mod(xt)

    def e_train():
        seq(xe, None, params, *args)[0].sum().backward()

    def t_train():
        mod(xt)[0].sum().backward()

    row(name + " fwd", e_fwd, t_fwd, reps=20)
    if train:
        row(name + " fwd+bwd", e_train, t_train, reps=20)


def bench_sdpa(B, H, L, E):
    (qe, qt), (ke, kt), (ve, vt) = pair(B, H, L, E), pair(B, H, L, E), pair(B, H, L, E)
    row(f"sdpa [{B}, {H}, {L}, {E}] causal", lambda: F.scaled_dot_product_attention(qe, ke, ve, is_causal=True),
        lambda: TF.scaled_dot_product_attention(qt, kt, vt, is_causal=True), reps=50)


def main():
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}")
    for kind in ("lstm", "gru"):
        bench_recurrent(kind, 50, 32, 64, 128, 2)
        bench_recurrent(kind, 20, 8, 32, 32, 1)
        # inference shapes: one long sequence at batch 1, a bidirectional tagger
        bench_recurrent(kind, 100, 1, 128, 256, 1, train=False)
        bench_recurrent(kind, 40, 16, 64, 64, 2, bidirectional=True, batch_first=True, train=False)
    bench_sdpa(8, 4, 128, 32)


if __name__ == "__main__":
    main()
