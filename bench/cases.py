"""The benchmark cases of issue 2: small-op overhead, large elementwise ops,
reductions, matmul and conv2d. Inputs are made with numpy and handed to both
libraries, so both compute on the same values."""
import numpy as np

import ember
import torch

from harness import Case
from training import training
from training_epoch import training_epochs

rng = np.random.default_rng(0)


def pair(*shape, dtype=np.float32):
    a = rng.standard_normal(shape).astype(dtype)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def small_ops():
    cases = []
    for n in (1, 1000):
        (ea, ta), (eb, tb) = pair(n), pair(n)
        cases += [
            Case("small ops", f"a + b, {n} float32", lambda: ea + eb, lambda: ta + tb),
            Case("small ops", f"a * 2.0, {n} float32", lambda: ea * 2.0, lambda: ta * 2.0),
            Case("small ops", f"a.sum(), {n} float32", lambda: ea.sum(), lambda: ta.sum()),
            Case("small ops", f"a.relu(), {n} float32", lambda: ea.relu(), lambda: ta.relu()),
        ]
    (ex, tx) = pair(4, 8)
    cases.append(Case("small ops", "x.view(8, 4)", lambda: ex.view(8, 4), lambda: tx.view(8, 4)))
    cases.append(Case("small ops", "x[1]", lambda: ex[1], lambda: tx[1]))
    # Small products: a kernel's own overhead shows here (it once dispatched views).
    (em, tm), (ew, tw), (eb4, tb4) = pair(4, 4), pair(4, 4), pair(4)
    cases.append(Case("small ops", "m @ w, 4x4 float32", lambda: em @ ew, lambda: tm @ tw))
    cases.append(Case("small ops", "F.linear(m, w, b), 4x4 float32",
                      lambda: ember.nn.functional.linear(em, ew, eb4),
                      lambda: torch.nn.functional.linear(tm, tw, tb4)))
    return cases


def elementwise(n=1 << 24):
    (ea, ta), (eb, tb) = pair(n), pair(n)
    out_e, out_t = ember.empty(n), torch.empty(n)
    three = 12.0 * n  # two reads and a write of 4 bytes
    two = 8.0 * n
    return [
        Case("elementwise 16M", "a + b", lambda: ea + eb, lambda: ta + tb, three, "GB/s"),
        Case("elementwise 16M", "a * b", lambda: ea * eb, lambda: ta * tb, three, "GB/s"),
        Case("elementwise 16M", "a.add_(b)", lambda: ea.add_(eb), lambda: ta.add_(tb), three, "GB/s"),
        Case("elementwise 16M", "a * 0.5", lambda: ea * 0.5, lambda: ta * 0.5, two, "GB/s"),
        Case("elementwise 16M", "exp", lambda: ea.exp(), lambda: ta.exp(), two, "GB/s"),
        Case("elementwise 16M", "tanh", lambda: ea.tanh(), lambda: ta.tanh(), two, "GB/s"),
        Case("elementwise 16M", "sigmoid", lambda: ea.sigmoid(), lambda: ta.sigmoid(), two, "GB/s"),
        Case("elementwise 16M", "relu", lambda: ea.relu(), lambda: ta.relu(), two, "GB/s"),
        Case("elementwise 16M", "gelu", lambda: ember.nn.functional.gelu(ea),
             lambda: torch.nn.functional.gelu(ta), two, "GB/s"),
        Case("elementwise 16M", "a > b", lambda: ea > eb, lambda: ta > tb, 9.0 * n, "GB/s"),
        Case("elementwise 16M", "copy float32->float16", lambda: ea.half(), lambda: ta.half(), 6.0 * n, "GB/s"),
    ]


def reductions():
    n = 1 << 24
    ea, ta = pair(n)
    em, tm = pair(4096, 4096)
    b = 4.0 * n
    return [
        Case("reductions", "sum 16M", lambda: ea.sum(), lambda: ta.sum(), b, "GB/s"),
        Case("reductions", "mean 16M", lambda: ea.mean(), lambda: ta.mean(), b, "GB/s"),
        Case("reductions", "amax 16M", lambda: ea.amax(), lambda: ta.amax(), b, "GB/s"),
        Case("reductions", "argmax 16M", lambda: ea.argmax(), lambda: ta.argmax(), b, "GB/s"),
        Case("reductions", "var 16M", lambda: ea.var(), lambda: ta.var(), b, "GB/s"),
        Case("reductions", "sum [4096,4096] dim 0", lambda: em.sum(0), lambda: tm.sum(0), b, "GB/s"),
        Case("reductions", "sum [4096,4096] dim 1", lambda: em.sum(1), lambda: tm.sum(1), b, "GB/s"),
        Case("reductions", "softmax [4096,4096] dim 1", lambda: em.softmax(1), lambda: tm.softmax(1), 2 * b, "GB/s"),
        Case("reductions", "logsumexp [4096,4096] dim 1", lambda: em.logsumexp(1), lambda: tm.logsumexp(1), b, "GB/s"),
    ]


def matmul():
    cases = []
    for n in (256, 512, 1024, 2048):
        (ea, ta), (eb, tb) = pair(n, n), pair(n, n)
        cases.append(Case("matmul float32", f"{n}x{n} @ {n}x{n}", lambda ea=ea, eb=eb: ea @ eb,
                          lambda ta=ta, tb=tb: ta @ tb, 2.0 * n ** 3, "GFLOP/s"))
    (ex, tx), (ew, tw) = pair(64, 784), pair(512, 784)
    cases.append(Case("matmul float32", "linear 64x784 -> 512", lambda: ember.nn.functional.linear(ex, ew),
                      lambda: torch.nn.functional.linear(tx, tw), 2.0 * 64 * 784 * 512, "GFLOP/s"))
    (ep, tp), (eq, tq) = pair(32, 128, 64), pair(32, 64, 128)
    cases.append(Case("matmul float32", "bmm 32x128x64 @ 32x64x128", lambda: ep @ eq, lambda: tp @ tq,
                      2.0 * 32 * 128 * 64 * 128, "GFLOP/s"))
    return cases


def conv():
    cases = []
    for (n, c, h, w, k) in ((32, 3, 32, 32, 16), (8, 64, 56, 56, 64), (64, 16, 14, 14, 32)):
        (ex, tx), (ew, tw) = pair(n, c, h, w), pair(k, c, 3, 3)
        flops = 2.0 * n * k * c * 9 * h * w
        cases.append(Case("conv2d", f"[{n},{c},{h},{w}] -> {k}, 3x3 pad 1",
                          lambda ex=ex, ew=ew: ember.nn.functional.conv2d(ex, ew, padding=1),
                          lambda tx=tx, tw=tw: torch.nn.functional.conv2d(tx, tw, padding=1),
                          flops, "GFLOP/s"))
    ex, tx = pair(32, 16, 32, 32)
    cases.append(Case("conv2d", "max_pool2d [32,16,32,32] 2x2",
                      lambda: ember.nn.functional.max_pool2d(ex, 2), lambda: torch.nn.functional.max_pool2d(tx, 2)))
    return cases


ALL = {"small": small_ops, "elementwise": elementwise, "reductions": reductions, "matmul": matmul,
       "conv": conv, "training": training, "epoch": training_epochs}
