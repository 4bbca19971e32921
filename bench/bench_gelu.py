"""gelu (erf and tanh forms) forward and backward on in-cache float32 tensors, ember vs
PyTorch side by side in one process (lib/cpu/vec_math.h's gelu / gelu_grad,
lib/cpu/activation.cpp's gelu and gelu_backward kernels).

    OMP_NUM_THREADS=1 PYTHONPATH=python python bench/bench_gelu.py --single
        # one thread each (torch.set_num_threads(1) too)

The backward row times autograd.grad through one gelu node (retain_graph), as a
training step runs it.
"""
import sys

import numpy as np
import torch

import ember
import ember.nn.functional as F
from bench_nn import row  # interleaved, best of 5 medians


def main():
    if "--single" in sys.argv:
        torch.set_num_threads(1)
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}")
    rng = np.random.default_rng(0)
    for n in (1_000, 10_000, 100_000, 1_000_000):
        a = rng.standard_normal(n).astype(np.float32) * 2
        g = rng.standard_normal(n).astype(np.float32)
        reps = max(20, min(2000, 20_000_000 // n))
        for approx in ("none", "tanh"):
            xe, xt = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
            tag = f"gelu{'' if approx == 'none' else ' tanh'} [{n}]"
            row(tag + " fwd", lambda: F.gelu(xe, approximate=approx),
                lambda: torch.nn.functional.gelu(xt, approximate=approx), reps)
            xe.requires_grad_()
            xt.requires_grad_()
            ye, yt = F.gelu(xe, approximate=approx), torch.nn.functional.gelu(xt, approximate=approx)
            ge, gt = ember.from_numpy(g.copy()), torch.from_numpy(g.copy())
            row(tag + " bwd", lambda: ember.autograd.grad(ye, xe, ge, retain_graph=True),
                lambda: torch.autograd.grad(yt, xt, gt, retain_graph=True), reps)


if __name__ == "__main__":
    main()
