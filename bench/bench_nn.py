"""nn ops, ember vs PyTorch side by side in one process: time per call.

    PYTHONPATH=python python bench/bench_nn.py            # all threads, wall clock
    OMP_NUM_THREADS=1 PYTHONPATH=python python bench/bench_nn.py --single
        # one thread each, timed with the thread's CPU clock: the per-core cost,
        # unaffected by other processes on a shared machine
"""
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F


SINGLE = "--single" in sys.argv
CLOCK = time.thread_time if SINGLE else time.perf_counter
if SINGLE:
    assert os.environ.get("OMP_NUM_THREADS") == "1", "--single needs OMP_NUM_THREADS=1"
    torch.set_num_threads(1)


def median_time(fn, reps=200, warmup=20):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = CLOCK()
        fn()
        times.append(CLOCK() - t0)
    return float(np.median(times))


def row(name, ember_fn, torch_fn, reps=200):
    # interleave the two to share the machine's noise fairly
    te, tt = [], []
    for _ in range(5):
        te.append(median_time(ember_fn, reps // 5))
        tt.append(median_time(torch_fn, reps // 5))
    e, t = min(te), min(tt)
    print(f"{name:44s} ember {e * 1e6:9.1f} us   torch {t * 1e6:9.1f} us   torch/ember {t / e:5.2f}x")


def main():
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}")
    # per-call overhead from Python
    xs, xts = ember.randn(2, 8), torch.randn(2, 8)
    ts, tts = ember.randint(0, 8, (2,)), torch.randint(0, 8, (2,))
    row("layer_norm [2, 8] (call overhead)", lambda: F.layer_norm(xs, [8]), lambda: TF.layer_norm(xts, [8]), 2000)
    row("cross_entropy [2, 8] (call overhead)", lambda: F.cross_entropy(xs, ts),
        lambda: TF.cross_entropy(xts, tts), 2000)
    for shape in [(64, 512), (256, 1024), (32, 64, 28, 28)]:
        xe, xt = ember.randn(*shape), torch.randn(*shape)
        ns = [shape[-1]]
        we, be = ember.ones(*ns), ember.zeros(*ns)
        wt, bt = torch.ones(*ns), torch.zeros(*ns)
        row(f"layer_norm {list(shape)} over last dim", lambda: F.layer_norm(xe, ns, we, be),
            lambda: TF.layer_norm(xt, ns, wt, bt))
    for shape in [(64, 512), (32, 64, 28, 28), (8, 256, 14, 14)]:
        c = shape[1]
        xe, xt = ember.randn(*shape), torch.randn(*shape)
        rme, rve, rmt, rvt = ember.zeros(c), ember.ones(c), torch.zeros(c), torch.ones(c)
        we, be, wt, bt = ember.ones(c), ember.zeros(c), torch.ones(c), torch.zeros(c)
        row(f"batch_norm train {list(shape)}", lambda: F.batch_norm(xe, rme, rve, we, be, training=True),
            lambda: TF.batch_norm(xt, rmt, rvt, wt, bt, training=True))
        row(f"batch_norm eval {list(shape)}", lambda: F.batch_norm(xe, rme, rve, we, be),
            lambda: TF.batch_norm(xt, rmt, rvt, wt, bt))
    xe, xt = ember.randn(32, 64, 28, 28), torch.randn(32, 64, 28, 28)
    row("group_norm [32, 64, 28, 28] 8 groups", lambda: F.group_norm(xe, 8), lambda: TF.group_norm(xt, 8))
    for n, c in [(64, 512), (256, 1000), (1024, 32000 // 8)]:
        xe, xt = ember.randn(n, c), torch.randn(n, c)
        te = ember.randint(0, c, (n,))
        tt = torch.randint(0, c, (n,))
        row(f"cross_entropy [{n}, {c}]", lambda: F.cross_entropy(xe, te), lambda: TF.cross_entropy(xt, tt))
    xe, xt = ember.randn(64, 512), torch.randn(64, 512)
    te, tt = ember.randint(0, 512, (64,)), torch.randint(0, 512, (64,))
    row("cross_entropy [64, 512] label_smoothing=0.1", lambda: F.cross_entropy(xe, te, label_smoothing=0.1),
        lambda: TF.cross_entropy(xt, tt, label_smoothing=0.1))
    xe, xt = ember.randn(8, 21, 64, 64), torch.randn(8, 21, 64, 64)
    te, tt = ember.randint(0, 21, (8, 64, 64)), torch.randint(0, 21, (8, 64, 64))
    row("cross_entropy [8, 21, 64, 64] (segmentation)", lambda: F.cross_entropy(xe, te),
        lambda: TF.cross_entropy(xt, tt), reps=50)
    ae, be_ = ember.randn(1024, 1024), ember.randn(1024, 1024)
    at, bt_ = torch.randn(1024, 1024), torch.randn(1024, 1024)
    row("mse_loss [1024, 1024]", lambda: F.mse_loss(ae, be_), lambda: TF.mse_loss(at, bt_))
    row("binary_cross_entropy_with_logits [1024, 1024]", lambda: F.binary_cross_entropy_with_logits(ae, be_),
        lambda: TF.binary_cross_entropy_with_logits(at, bt_), reps=50)
    xe, xt = ember.randn(256, 1024), torch.randn(256, 1024)
    row("dropout [256, 1024] p=0.1", lambda: F.dropout(xe, 0.1), lambda: TF.dropout(xt, 0.1), reps=50)
    we, wt = ember.randn(30000, 256), torch.randn(30000, 256)
    ie, it = ember.randint(0, 30000, (32, 128)), torch.randint(0, 30000, (32, 128))
    row("embedding [30000, 256][32, 128]", lambda: F.embedding(ie, we), lambda: TF.embedding(it, wt))
    xe, xt = ember.randn(8, 64, 56, 56), torch.randn(8, 64, 56, 56)
    row("pad [8, 64, 56, 56] (1,1,1,1) constant", lambda: F.pad(xe, (1, 1, 1, 1)), lambda: TF.pad(xt, (1, 1, 1, 1)))
    row("pad [8, 64, 56, 56] (1,1,1,1) reflect", lambda: F.pad(xe, (1, 1, 1, 1), mode="reflect"),
        lambda: TF.pad(xt, (1, 1, 1, 1), mode="reflect"))
    xe, xt = ember.randn(8, 64, 32, 32), torch.randn(8, 64, 32, 32)
    row("interpolate [8, 64, 32, 32] x2 nearest", lambda: F.interpolate(xe, scale_factor=2.0),
        lambda: TF.interpolate(xt, scale_factor=2.0), reps=50)
    row("interpolate [8, 64, 32, 32] x2 bilinear", lambda: F.interpolate(xe, scale_factor=2.0, mode="bilinear"),
        lambda: TF.interpolate(xt, scale_factor=2.0, mode="bilinear"), reps=50)


if __name__ == "__main__":
    main()
