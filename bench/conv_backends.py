"""ember's two CPU convolution backends (im2col + sgemm, oneDNN's primitives)
and PyTorch, side by side in one process, per direction: forward,
backward-data and backward-weights of float32 conv2d. The numbers behind the
selection rule in lib/cpu/onednn_conv.cpp.

    OMP_NUM_THREADS=2 PYTHONPATH=python:bench python bench/conv_backends.py [--quick] [--resnet] [--only LABEL]

--resnet times instead a ResNet-18 training step (fwd + bwd + SGD, the model of
bench/cuda_conv.py on the CPU) at 28x28 and 112x112 on each backend and PyTorch.

Each cell is the fastest single call of ~0.25 s of calls, alternating the
three twice (the machine is shared: a busy second core stalls 2-thread calls
by a time slice, so means and even short blocks measure the neighbours); the
ratio columns are torch time / ember time (above 1: ember is faster).
"""
import argparse
import gc
import sys
import time

import numpy as np
import torch

import ember

# (label, n, c, h, w, k_out, kernel, stride, padding, groups)
SHAPES = [
    ("digits CNN conv1", 32, 1, 8, 8, 16, 3, 1, 1, 1),
    ("digits CNN conv2", 32, 16, 4, 4, 32, 3, 1, 1, 1),
    ("cases [32,3,32,32]->16", 32, 3, 32, 32, 16, 3, 1, 1, 1),
    ("cases [8,64,56,56]->64", 8, 64, 56, 56, 64, 3, 1, 1, 1),
    ("cases [64,16,14,14]->32", 64, 16, 14, 14, 32, 3, 1, 1, 1),
    ("[32,3,32,32]->64 (K=27)", 32, 3, 32, 32, 64, 3, 1, 1, 1),
    ("[32,8,32,32]->16 (K=72)", 32, 8, 32, 32, 16, 3, 1, 1, 1),
    ("[32,16,32,32]->16 (K=144)", 32, 16, 32, 32, 16, 3, 1, 1, 1),
    ("1x1 [8,64,56,56]->256", 8, 64, 56, 56, 256, 1, 1, 0, 1),
    ("1x1 [32,256,14,14]->64", 32, 256, 14, 14, 64, 1, 1, 0, 1),
    ("r18@28 b64 conv1 7x7/2", 64, 3, 28, 28, 64, 7, 2, 3, 1),
    ("r18@28 b64 layer1 64@7", 64, 64, 7, 7, 64, 3, 1, 1, 1),
    ("r18@28 b64 layer2 s2 64->128", 64, 64, 7, 7, 128, 3, 2, 1, 1),
    ("r18@28 b64 layer2 128@4", 64, 128, 4, 4, 128, 3, 1, 1, 1),
    ("r18@28 b64 layer3 256@2", 64, 256, 2, 2, 256, 3, 1, 1, 1),
    ("r18@28 b64 layer4 512@1", 64, 512, 1, 1, 512, 3, 1, 1, 1),
    ("r18@28 b64 down 1x1/2 64->128", 64, 64, 7, 7, 128, 1, 2, 0, 1),
    ("r18@28 b64 down 1x1/2 128->256", 64, 128, 4, 4, 256, 1, 2, 0, 1),
    ("r18@28 b64 layer3 s2 128->256", 64, 128, 4, 4, 256, 3, 2, 1, 1),
    ("r18@28 b64 layer4 s2 256->512", 64, 256, 2, 2, 512, 3, 2, 1, 1),
    ("r18@28 b8 layer1 64@7", 8, 64, 7, 7, 64, 3, 1, 1, 1),
    ("r18@28 b8 layer3 256@2", 8, 256, 2, 2, 256, 3, 1, 1, 1),
    ("r18@224 b8 conv1 7x7/2", 8, 3, 224, 224, 64, 7, 2, 3, 1),
    ("r18@224 b8 layer1 64@56", 8, 64, 56, 56, 64, 3, 1, 1, 1),
    ("r18@224 b8 layer2 128@28", 8, 128, 28, 28, 128, 3, 1, 1, 1),
    ("r18@224 b8 layer3 256@14", 8, 256, 14, 14, 256, 3, 1, 1, 1),
    ("r18@224 b8 layer4 512@7", 8, 512, 7, 7, 512, 3, 1, 1, 1),
    ("depthwise 3x3 [8,32,56,56]", 8, 32, 56, 56, 32, 3, 1, 1, 32),
    ("depthwise 3x3 [32,128,14,14]", 32, 128, 14, 14, 128, 3, 1, 1, 128),
    ("conv1d [16,64,256] k3 (as 2-d)", 16, 64, 1, 256, 64, (1, 3), 1, (0, 1), 1),
]
QUICK = {"digits CNN conv1", "digits CNN conv2", "cases [8,64,56,56]->64", "r18@28 b64 layer1 64@7",
         "r18@28 b64 layer3 256@2", "depthwise 3x3 [8,32,56,56]"}


def best(fn, seconds=0.25, min_calls=5):
    """The fastest single call (after a warm-up one) in about `seconds` of calls: the
    machine is shared, and a call that had both cores to itself is the one to compare."""
    fn()
    gc.collect()
    gc.disable()
    try:
        fastest, spent, calls = float("inf"), 0.0, 0
        while spent < seconds or calls < min_calls:
            t0 = time.perf_counter()
            fn()
            dt = time.perf_counter() - t0
            fastest, spent, calls = min(fastest, dt), spent + dt, calls + 1
        return fastest
    finally:
        gc.enable()


def rows(quick, only=()):
    rng = np.random.default_rng(0)
    for label, n, c, h, w, k, ker, s, p, g in SHAPES:
        if (quick and label not in QUICK) or (only and not any(o in label for o in only)):
            continue
        kh, kw = (ker, ker) if isinstance(ker, int) else ker
        ph, pw = (p, p) if isinstance(p, int) else p
        x = rng.standard_normal((n, c, h, w), dtype=np.float32)
        wt = rng.standard_normal((k, c // g, kh, kw), dtype=np.float32)
        ex, ew, tx, tw = ember.from_numpy(x), ember.from_numpy(wt), torch.from_numpy(x), torch.from_numpy(wt)
        ty = torch.nn.functional.conv2d(tx, tw, stride=s, padding=(ph, pw), groups=g)
        gy = rng.standard_normal(tuple(ty.shape), dtype=np.float32)
        egy, tgy = ember.from_numpy(gy), torch.from_numpy(gy)
        conv = dict(stride=[s, s], padding=[ph, pw], dilation=[1, 1], groups=g)
        ember_fns = {
            "fwd": lambda: ember.nn.functional.conv2d(ex, ew, stride=s, padding=(ph, pw), groups=g),
            "bwd-data": lambda: ember._C._conv2d_backward_input(egy, ew, list(x.shape), **conv),
            "bwd-weights": lambda: ember._C._conv2d_backward_weight(egy, ex, list(wt.shape), **conv),
        }
        aten = torch.ops.aten.convolution_backward
        torch_fns = {
            "fwd": lambda: torch.nn.functional.conv2d(tx, tw, stride=s, padding=(ph, pw), groups=g),
            "bwd-data": lambda: aten(tgy, tx, tw, None, [s, s], [ph, pw], [1, 1], False, [0, 0], g,
                                     [True, False, False]),
            "bwd-weights": lambda: aten(tgy, tx, tw, None, [s, s], [ph, pw], [1, 1], False, [0, 0], g,
                                        [False, True, False]),
        }
        for d in ("fwd", "bwd-data", "bwd-weights"):
            times = {}
            for _ in range(2):  # alternate, keep the best of each
                for be in ("im2col", "onednn"):
                    ember._C._set_conv_backend(be)
                    times[be] = min(times.get(be, 1e9), best(ember_fns[d]))
                times["torch"] = min(times.get("torch", 1e9), best(torch_fns[d]))
            ember._C._set_conv_backend("auto")
            times["auto"] = best(ember_fns[d])
            yield label, d, times


def resnet_rows():
    import cuda_conv
    from cuda_conv import ResNet18, resnet_forward
    for batch, image in ((64, 28), (8, 112)):
        values = ResNet18._init(10)
        ep, tp = {}, {}
        for k, a in values.items():
            a = np.ascontiguousarray(a, dtype=np.float32)
            grad = not (k.endswith(".rm") or k.endswith(".rv"))
            ep[k] = ember.from_numpy(a.copy()).requires_grad_(grad)
            tp[k] = torch.from_numpy(a.copy()).requires_grad_(grad)
        x = cuda_conv.rng.standard_normal((batch, 3, image, image)).astype(np.float32)
        labels = cuda_conv.rng.integers(0, 10, batch)
        ex, tx = ember.from_numpy(x), torch.from_numpy(x)
        ey, ty = ember.from_numpy(labels), torch.from_numpy(labels)
        e_opt = ember.optim.SGD([t for t in ep.values() if t.requires_grad], lr=0.01, momentum=0.9)
        t_opt = torch.optim.SGD([t for t in tp.values() if t.requires_grad], lr=0.01, momentum=0.9)

        def step(lib_f, params, x, y, opt):
            def run():
                opt.zero_grad(set_to_none=True)
                lib_f.cross_entropy(resnet_forward(lib_f, params, x), y).backward()
                opt.step()
            return run
        e_step = step(ember.nn.functional, ep, ex, ey, e_opt)
        t_step = step(torch.nn.functional, tp, tx, ty, t_opt)
        times = {}
        for _ in range(2):
            for be in ("im2col", "onednn", "auto"):
                ember._C._set_conv_backend(be)
                times[be] = min(times.get(be, 1e9), best(e_step, seconds=1.5))
            times["torch"] = min(times.get("torch", 1e9), best(t_step, seconds=1.5))
        ember._C._set_conv_backend("auto")
        yield f"ResNet-18 step [{batch},3,{image},{image}]", "fwd+bwd+SGD", times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--resnet", action="store_true")
    ap.add_argument("--only", action="append", default=[], help="rows whose label contains this (repeatable)")
    args = ap.parse_args()
    print(f"threads {ember.get_num_threads()} / torch {torch.get_num_threads()}, oneDNN available: "
          f"{ember._C._onednn_conv_available()}")
    print("| shape | direction | im2col | onednn | auto | torch | torch/im2col | torch/onednn | torch/auto |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, d, t in (resnet_rows() if args.resnet else rows(args.quick, args.only)):
        ms = {k: v * 1e3 for k, v in t.items()}
        print(f"| {label} | {d} | {ms['im2col']:.3f} | {ms['onednn']:.3f} | {ms['auto']:.3f} | {ms['torch']:.3f} | "
              f"{t['torch'] / t['im2col']:.2f} | {t['torch'] / t['onednn']:.2f} | {t['torch'] / t['auto']:.2f} |",
              flush=True)


if __name__ == "__main__":
    sys.exit(main())
