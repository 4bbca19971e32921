"""ResNet-18's convolutions at a 28x28 input, batch 64, per layer and pass:
ember (the rule, and each backend forced) against PyTorch, side by side in one
process. Issue 19: which layers and which passes make the 28x28 training step
slower than torch's.

    OMP_NUM_THREADS=2 PYTHONPATH=python:bench python bench/conv_resnet_layers.py [--batch 64] [--image 28]

Each cell is the fastest single call of ~0.2 s of calls (conv_backends.best),
alternating ember and torch twice. `n` is how often the layer runs in one step
(the stem's backward-data never runs: the image needs no gradient); the last
rows weight each time by n, a step's total per pass. ratio = torch / ember.
"""
import argparse
import sys

import numpy as np
import torch

import ember
from conv_backends import best


def layers(batch, image):
    """(label, n per step, c_in, h, c_out, kernel, stride, padding) of ResNet-18 at this input."""
    h = (image + 2 * 3 - 7) // 2 + 1
    out = [("stem 7x7/2", 1, 3, image, 64, 7, 2, 3)]
    h = (h + 2 - 3) // 2 + 1  # max_pool2d(3, 2, 1)
    cin = 64
    for c, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        ho = (h + 2 - 3) // stride + 1
        if stride != 1:
            out.append((f"{cin}->{c} 3x3/2 @{h}", 1, cin, h, c, 3, 2, 1))
            out.append((f"{cin}->{c} 1x1/2 @{h}", 1, cin, h, c, 1, 2, 0))
            out.append((f"{c} 3x3 @{ho}", 3, c, ho, c, 3, 1, 1))
        else:
            out.append((f"{c} 3x3 @{ho}", 4, c, ho, c, 3, 1, 1))
        h, cin = ho, c
    return [(label, n, batch, ci, hh, co, k, s, p) for label, n, ci, hh, co, k, s, p in out]


def time_layer(batch, ci, h, co, k, s, p, backends):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, ci, h, h), dtype=np.float32)
    w = rng.standard_normal((co, ci, k, k), dtype=np.float32)
    ex, ew, tx, tw = ember.from_numpy(x), ember.from_numpy(w), torch.from_numpy(x), torch.from_numpy(w)
    ty = torch.nn.functional.conv2d(tx, tw, stride=s, padding=p)
    gy = rng.standard_normal(tuple(ty.shape), dtype=np.float32)
    egy, tgy = ember.from_numpy(gy), torch.from_numpy(gy)
    conv = dict(stride=[s, s], padding=[p, p], dilation=[1, 1], groups=1)
    aten = torch.ops.aten.convolution_backward
    fns = {
        "fwd": (lambda: ember.nn.functional.conv2d(ex, ew, stride=s, padding=p),
                lambda: torch.nn.functional.conv2d(tx, tw, stride=s, padding=p)),
        "bwd-data": (lambda: ember._C._conv2d_backward_input(egy, ew, list(x.shape), **conv),
                     lambda: aten(tgy, tx, tw, None, [s, s], [p, p], [1, 1], False, [0, 0], 1, [True, False, False])),
        "bwd-weights": (lambda: ember._C._conv2d_backward_weight(egy, ex, list(w.shape), **conv),
                        lambda: aten(tgy, tx, tw, None, [s, s], [p, p], [1, 1], False, [0, 0], 1,
                                     [False, True, False])),
    }
    for d, (ef, tf) in fns.items():
        t = {}
        for _ in range(2):
            for be in backends:
                ember._C._set_conv_backend(be)
                t[be] = min(t.get(be, 1e9), best(ef, seconds=0.2))
            t["torch"] = min(t.get("torch", 1e9), best(tf, seconds=0.2))
        ember._C._set_conv_backend("auto")
        yield d, t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--image", type=int, default=28)
    ap.add_argument("--auto-only", action="store_true", help="time only the rule, not each backend")
    args = ap.parse_args()
    backends = ("auto",) if args.auto_only else ("auto", "onednn", "im2col")
    print(f"threads ember {ember.get_num_threads()} / torch {torch.get_num_threads()}; times in ms; "
          f"ratio = torch / ember(auto)")
    cols = " | ".join(backends)
    print(f"| layer | n | pass | {cols} | torch | ratio |")
    print("|---|---|---|" + "---|" * len(backends) + "---|---|")
    totals = {}
    for label, n, batch, ci, h, co, k, s, p in layers(args.batch, args.image):
        for d, t in time_layer(batch, ci, h, co, k, s, p, backends):
            if label.startswith("stem") and d == "bwd-data":
                continue
            for key, v in t.items():
                totals.setdefault(d, {}).setdefault(key, 0.0)
                totals[d][key] += n * v
            cells = " | ".join(f"{t[be] * 1e3:.3f}" for be in backends)
            print(f"| {label} | {n} | {d} | {cells} | {t['torch'] * 1e3:.3f} | {t['torch'] / t['auto']:.2f} |",
                  flush=True)
    for d, t in totals.items():
        cells = " | ".join(f"{t[be] * 1e3:.2f}" for be in backends)
        print(f"| step total | | {d} | {cells} | {t['torch'] * 1e3:.2f} | {t['torch'] / t['auto']:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
