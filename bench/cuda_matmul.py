"""Matrix products on one GPU: ember (cuBLAS through lib/cuda/blas/) against PyTorch,
side by side in one process, on the same input values.

    PYTHONPATH=python .venv/bin/python bench/cuda_matmul.py [--sizes 1024,2048,4096,8192]

Cases: C = A @ B (square, n x n) in float32 (full precision), float32 with
TensorFloat-32 allowed (both libraries' allow_tf32 switched on), and bfloat16; plus
nn.Linear's product with a bias (addmm, cuBLASLt's fused bias on both sides).
Each call is timed with CUDA events on the current stream over blocks of calls (no
host synchronization inside a block); the best block's mean is kept, for each library
in alternation. TFLOP/s = 2 n^3 / time; ratio = torch time / ember time (above 1:
ember is faster). Without a GPU (or without torch's CUDA) it says so and exits 0.
"""
import argparse
import sys

import numpy as np

import ember


def _skip(reason):
    print(f"cuda_matmul: skipped: {reason}")
    sys.exit(0)


def _block_ms(lib, fn, calls):
    """Mean milliseconds per call over `calls` calls, timed with lib's CUDA events."""
    start, end = lib.cuda.Event(enable_timing=True), lib.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / calls


def _calls_for(lib, fn, target_ms=200.0):
    """How many calls make a block of about target_ms (at least 3)."""
    one = _block_ms(lib, fn, 1)
    return max(3, int(target_ms / max(one, 1e-3)))


def time_pair(ember_fn, torch_fn, torch, blocks=5):
    """(ember ms, torch ms) per call: the best of `blocks` alternating blocks."""
    for _ in range(3):  # warm up: handles, workspaces, cached memory, algorithm choice
        ember_fn()
        torch_fn()
    ember.cuda.synchronize()
    torch.cuda.synchronize()
    ne, nt = _calls_for(ember, ember_fn), _calls_for(torch, torch_fn)
    e = t = float("inf")
    for _ in range(blocks):
        e = min(e, _block_ms(ember, ember_fn, ne))
        t = min(t, _block_ms(torch, torch_fn, nt))
    return e, t


def _inputs(n, dtype_name, torch, seed):
    """The same values for both libraries: A, B [n, n] and a bias [n]."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((n, n), (n, n), (n,))]
    e_dtype, t_dtype = getattr(ember, dtype_name), getattr(torch, dtype_name)
    ours = [ember.from_numpy(a).to("cuda").to(e_dtype) for a in arrays]
    theirs = [torch.from_numpy(a).to("cuda").to(t_dtype) for a in arrays]
    return ours, theirs


def _set_tf32(torch, allow):
    ember.backends.cuda.matmul.allow_tf32 = allow
    torch.backends.cuda.matmul.allow_tf32 = allow


def bench_size(case, dtype_name, n, torch):
    """The table rows of one case and size: mm, and linear's product with a bias."""
    (ea, eb, ebias), (ta, tb, tbias) = _inputs(n, dtype_name, torch, seed=n)
    flops = 2.0 * n ** 3
    pairs = [(case + " mm", lambda: ember.mm(ea, eb), lambda: torch.mm(ta, tb)),
             (case + " linear+bias", lambda: ember.addmm(ebias, ea, eb.t()),
              lambda: torch.addmm(tbias, ta, tb.t()))]
    rows = []
    for name, ember_fn, torch_fn in pairs:
        e_ms, t_ms = time_pair(ember_fn, torch_fn, torch)
        rows.append(f"| {name} | {n} | {e_ms:.3f} | {t_ms:.3f} | {flops / e_ms / 1e9:.1f} | "
                    f"{flops / t_ms / 1e9:.1f} | {t_ms / e_ms:.2f} |")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1024,2048,4096,8192")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if not ember.cuda.is_available():
        _skip("ember has no CUDA GPU" + ("" if ember.cuda.is_built() else " (built without CUDA)"))
    try:
        import torch
    except ImportError:
        _skip("PyTorch is not installed")
    if not torch.cuda.is_available():
        _skip("PyTorch sees no CUDA GPU")

    print(f"GPU: {torch.cuda.get_device_name()}; torch {torch.__version__}, ember {ember.__version__}")
    print("| case | n | ember ms | torch ms | ember TFLOP/s | torch TFLOP/s | ratio (torch/ember) |")
    print("|---|---|---|---|---|---|---|")
    saved = ember.backends.cuda.matmul.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    try:
        for case, dtype_name, tf32 in [("float32", "float32", False), ("tf32", "float32", True),
                                       ("bfloat16", "bfloat16", False)]:
            _set_tf32(torch, tf32)
            for n in sizes:
                for row in bench_size(case, dtype_name, n, torch):
                    print(row, flush=True)
                ember.cuda.empty_cache()
                torch.cuda.empty_cache()
    finally:
        ember.backends.cuda.matmul.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = saved


if __name__ == "__main__":
    main()
