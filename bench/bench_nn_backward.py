"""nn backward primitives, ember vs PyTorch side by side in one process: time per call.

    PYTHONPATH=python python bench/bench_nn_backward.py            # all threads, wall clock
    OMP_NUM_THREADS=1 PYTHONPATH=python python bench/bench_nn_backward.py --single
        # one thread each, timed with the thread's CPU clock: the per-core cost,
        # unaffected by other processes on a shared machine

torch's side is its own backward primitive (torch.ops.aten.*_backward) where it
has one. cross_entropy has none in torch: its autograd runs log_softmax's and
nll_loss's backwards (timed as those two aten calls, from the saved log-softmax).
"""
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as TF

import ember

C = ember._C
aten = torch.ops.aten
SINGLE = "--single" in sys.argv
CLOCK = time.thread_time if SINGLE else time.perf_counter
if SINGLE:
    assert os.environ.get("OMP_NUM_THREADS") == "1", "--single needs OMP_NUM_THREADS=1"
    torch.set_num_threads(1)
rng = np.random.default_rng(0)


def pair(*shape, scale=1.0, shift=0.0):
    a = (rng.standard_normal(shape) * scale + shift).astype(np.float32)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def ints(high, *shape):
    a = rng.integers(0, high, shape).astype(np.int64)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def median_time(fn, reps, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = CLOCK()
        fn()
        times.append(CLOCK() - t0)
    return float(np.median(times))


def row(name, ember_fn, torch_fn, reps=50):
    te, tt = [], []
    for _ in range(5):  # interleaved, to share the machine's noise fairly
        te.append(median_time(ember_fn, max(1, reps // 5)))
        tt.append(median_time(torch_fn, max(1, reps // 5)))
    e, t = min(te), min(tt)
    print(f"{name:52s} ember {e * 1e6:10.1f} us   torch {t * 1e6:10.1f} us   torch/ember {t / e:5.2f}x", flush=True)


def layer_norm_rows():
    for shape in [(64, 512), (256, 1024), (4096, 768)]:
        (xe, xt), (ge, gt) = pair(*shape), pair(*shape)
        n = shape[-1]
        (we, wt), (be, bt) = pair(n), pair(n)
        _, me, re = ember.native_layer_norm(xe, [n], we, be, 1e-5)
        _, mt, rt = aten.native_layer_norm(xt, [n], wt, bt, 1e-5)
        row(f"layer_norm_backward {list(shape)}",
            lambda: C._native_layer_norm_backward(ge, xe, [n], me, re, we, be, [True] * 3),
            lambda: aten.native_layer_norm_backward(gt, xt, [n], mt, rt, wt, bt, [True] * 3))


def batch_norm_rows():
    for shape in [(256, 1024), (32, 64, 28, 28), (8, 256, 14, 14)]:
        c = shape[1]
        (xe, xt), (ge, gt) = pair(*shape), pair(*shape)
        (we, wt) = pair(c)
        rme, rmt = ember.zeros(c), torch.zeros(c)
        rve, rvt = ember.ones(c), torch.ones(c)
        _, sme, sie = ember.native_batch_norm(xe, we, None, rme, rve, True, 0.1, 1e-5)
        _, smt, sit = aten.native_batch_norm(xt, wt, None, rmt, rvt, True, 0.1, 1e-5)
        row(f"batch_norm_backward train {list(shape)}",
            lambda: C._native_batch_norm_backward(ge, xe, we, rme, rve, sme, sie, True, 1e-5, [True] * 3),
            lambda: aten.native_batch_norm_backward(gt, xt, wt, rmt, rvt, smt, sit, True, 1e-5, [True] * 3))
        row(f"batch_norm_backward eval {list(shape)}",
            lambda: C._native_batch_norm_backward(ge, xe, we, rme, rve, None, None, False, 1e-5, [True] * 3),
            lambda: aten.native_batch_norm_backward(gt, xt, wt, rmt, rvt, None, None, False, 1e-5, [True] * 3))
    shape = (32, 64, 28, 28)
    (xe, xt), (ge, gt) = pair(*shape), pair(*shape)
    (we, wt) = pair(64)
    _, me, re = ember.native_group_norm(xe, we, None, 32, 64, 784, 8, 1e-5)
    _, mt, rt = aten.native_group_norm(xt, wt, None, 32, 64, 784, 8, 1e-5)
    row(f"group_norm_backward {list(shape)} 8 groups",
        lambda: C._native_group_norm_backward(ge, xe, me, re, we, 32, 64, 784, 8, [True] * 3),
        lambda: aten.native_group_norm_backward(gt, xt, mt, rt, wt, 32, 64, 784, 8, [True] * 3))


def cross_entropy_rows():
    for n, c in [(64, 10), (256, 1000), (512, 32000)]:
        (xe, xt) = pair(n, c, scale=2.0)
        te, tt = ints(c, n)
        one_e, one_t = ember.ones([]), torch.ones([])
        lsm = torch.log_softmax(xt, 1)

        def torch_bwd():
            gl = aten.nll_loss_backward(one_t, lsm, tt, None, 1, -100, torch.tensor(float(n)))
            return aten._log_softmax_backward_data(gl, lsm, 1, torch.float32)

        row(f"cross_entropy_backward [{n}, {c}]", lambda: C._cross_entropy_backward(one_e, xe, te, None, 1),
            torch_bwd, reps=20 if c > 10000 else 50)
    (xe, xt) = pair(8, 21, 64, 64)
    te, tt = ints(21, 8, 64, 64)
    lsm = torch.log_softmax(xt, 1)
    one_e, one_t = ember.ones([]), torch.ones([])
    row("cross_entropy_backward [8, 21, 64, 64] (segmentation)",
        lambda: C._cross_entropy_backward(one_e, xe, te, None, 1),
        lambda: aten._log_softmax_backward_data(
            aten.nll_loss2d_backward(one_t, lsm, tt, None, 1, -100, torch.tensor(float(8 * 64 * 64))), lsm, 1,
            torch.float32))


def embedding_rows():
    for v, d, ishape in [(30000, 256, (32, 128)), (50000, 768, (16, 512)), (1000, 64, (256, 64))]:
        ie, it = ints(v, *ishape)
        ge, gt = pair(*ishape, d)
        row(f"embedding_dense_backward [{v}, {d}] idx {list(ishape)}",
            lambda: C._embedding_dense_backward(ge, ie, v, -1, False),
            lambda: aten.embedding_dense_backward(gt, it, v, -1, False), reps=20)


def misc_rows():
    (ae, at), (be, bt) = pair(1024, 1024), pair(1024, 1024)
    p = rng.random((1024, 1024)).astype(np.float32) * 0.98 + 0.01
    pe, pt, qe, qt = ember.from_numpy(p.copy()), torch.from_numpy(p.copy()), ember.from_numpy(p.T.copy()), torch.from_numpy(p.T.copy())
    one_e, one_t = ember.ones([]), torch.ones([])
    row("mse_loss_backward [1024, 1024]", lambda: C._mse_loss_backward(one_e, ae, be, 1),
        lambda: aten.mse_loss_backward(one_t, at, bt, 1))
    row("binary_cross_entropy_backward [1024, 1024]",
        lambda: C._binary_cross_entropy_backward(one_e, pe, qe, None, 1),
        lambda: aten.binary_cross_entropy_backward(one_t, pt, qt, None, 1))
    ge, gt = pair(8, 64, 58, 58)
    row("pad_backward reflect [8, 64, 56, 56] (1,1,1,1)",
        lambda: C._pad_backward(ge, [8, 64, 56, 56], [1, 1, 1, 1], "reflect"),
        lambda: aten.reflection_pad2d_backward(gt, torch.empty(8, 64, 56, 56), [1, 1, 1, 1]))
    ge, gt = pair(8, 64, 64, 64)
    row("interpolate_backward nearest x2 [8, 64, 32, 32]",
        lambda: C._interpolate_backward(ge, [8, 64, 32, 32], "nearest", False, [2.0, 2.0]),
        lambda: aten.upsample_nearest2d_backward(gt, [64, 64], [8, 64, 32, 32], 2.0, 2.0))
    row("interpolate_backward bilinear x2 [8, 64, 32, 32]",
        lambda: C._interpolate_backward(ge, [8, 64, 32, 32], "bilinear", False, [2.0, 2.0]),
        lambda: aten.upsample_bilinear2d_backward(gt, [64, 64], [8, 64, 32, 32], False, 2.0, 2.0))
    (ge, gt) = pair(256, 1024)
    me, mt = ember.from_numpy(rng.random((256, 1024)) > 0.1), None
    mt = torch.from_numpy(me.numpy().copy())
    row("native_dropout_backward [256, 1024]", lambda: C._native_dropout_backward(ge, me, 1 / 0.9),
        lambda: aten.native_dropout_backward(gt, mt, 1 / 0.9))


def main():
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"{'single thread, CPU time' if SINGLE else 'wall clock'}")
    layer_norm_rows()
    batch_norm_rows()
    cross_entropy_rows()
    embedding_rows()
    misc_rows()


if __name__ == "__main__":
    main()
