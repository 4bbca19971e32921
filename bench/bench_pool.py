"""Pooling and normalization on small maps (lib/cpu/pool.cpp, pool_backward.cpp,
norm.cpp), ember vs PyTorch side by side in one process: time per call, forward and
forward + backward. On a 4x4 map the work per call is a few thousand elements, so
these rows measure what a call costs besides its arithmetic.

    PYTHONPATH=python python bench/bench_pool.py            # all threads, wall clock
    OMP_NUM_THREADS=1 PYTHONPATH=python python bench/bench_pool.py --single
        # one thread each, timed with the thread's CPU clock
"""
import numpy as np
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from bench_nn import row  # same timing and interleaving as the other nn benchmarks

rng = np.random.default_rng(0)


def pair(*shape, grad=False):
    a = rng.standard_normal(shape).astype(np.float32)
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if grad:
        e.requires_grad_()
        t.requires_grad_()
    return e, t


def fwd_bwd(fn, x):
    def run():
        fn(x).sum().backward()
    return run


def bench_pools(shape):
    xe, xt = pair(*shape)
    ge, gt = pair(*shape, grad=True)
    cases = [
        ("max_pool2d k2", lambda m, x: m.max_pool2d(x, 2)),
        ("max_pool2d k3 s1 p1", lambda m, x: m.max_pool2d(x, 3, 1, 1)),
        ("avg_pool2d k2", lambda m, x: m.avg_pool2d(x, 2)),
        ("adaptive_avg_pool2d 1x1", lambda m, x: m.adaptive_avg_pool2d(x, 1)),
        ("adaptive_avg_pool2d 2x2", lambda m, x: m.adaptive_avg_pool2d(x, 2)),
    ]
    for name, f in cases:
        row(f"{name} {list(shape)} fwd", lambda: f(F, xe), lambda: f(TF, xt), reps=200)
        row(f"{name} {list(shape)} fwd+bwd", fwd_bwd(lambda x: f(F, x), ge), fwd_bwd(lambda x: f(TF, x), gt),
            reps=200)


def bench_norms(shape):
    c = shape[1]
    xe, xt = pair(*shape)
    ge, gt = pair(*shape, grad=True)
    rme, rve, rmt, rvt = ember.zeros(c), ember.ones(c), torch.zeros(c), torch.ones(c)
    we, be = ember.ones(c).requires_grad_(), ember.zeros(c).requires_grad_()
    wt, bt = torch.ones(c).requires_grad_(), torch.zeros(c).requires_grad_()
    row(f"batch_norm train {list(shape)} fwd", lambda: F.batch_norm(xe, rme, rve, we, be, training=True),
        lambda: TF.batch_norm(xt, rmt, rvt, wt, bt, training=True))
    row(f"batch_norm train {list(shape)} fwd+bwd",
        fwd_bwd(lambda x: F.batch_norm(x, rme, rve, we, be, training=True), ge),
        fwd_bwd(lambda x: TF.batch_norm(x, rmt, rvt, wt, bt, training=True), gt))
    row(f"batch_norm eval {list(shape)} fwd", lambda: F.batch_norm(xe, rme, rve, we, be),
        lambda: TF.batch_norm(xt, rmt, rvt, wt, bt))
    ns = list(shape[1:])
    lwe, lbe = ember.ones(*ns).requires_grad_(), ember.zeros(*ns).requires_grad_()
    lwt, lbt = torch.ones(*ns).requires_grad_(), torch.zeros(*ns).requires_grad_()
    row(f"layer_norm {list(shape)} over [C, H, W] fwd", lambda: F.layer_norm(xe, ns, lwe, lbe),
        lambda: TF.layer_norm(xt, ns, lwt, lbt))
    row(f"layer_norm {list(shape)} over [C, H, W] fwd+bwd", fwd_bwd(lambda x: F.layer_norm(x, ns, lwe, lbe), ge),
        fwd_bwd(lambda x: TF.layer_norm(x, ns, lwt, lbt), gt))


def main():
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}")
    for shape in [(32, 64, 4, 4), (32, 16, 8, 8), (32, 64, 28, 28)]:
        bench_pools(shape)
    for shape in [(32, 64, 4, 4), (32, 64, 2, 2)]:
        bench_norms(shape)


if __name__ == "__main__":
    main()
