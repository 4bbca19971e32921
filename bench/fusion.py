"""Pointwise fusion (lib/jit/runtime/fusion.h): pointwise chains of 5 ops traced and
run by ember's deployment runtime (the traced module's forward, called in a C++ loop:
ember._C._jit._time_forward) with fusion on and off (ember._C._jit._set_fusion; memory
planning on in both), side by side with PyTorch eager on the same chain (a Python
loop; at 1e3 elements its per-op Python cost dominates). Before timing, the fused and
unfused results are checked equal bit for bit. Same data, float32, gradients off, one
process, the thread count of both libraries set alike.

    PYTHONPATH=python .venv/bin/python bench/fusion.py [--threads N] [--write docs/PERF.md]
"""
import argparse
import pathlib
import sys
import time

import numpy as np
import torch

import ember
import ember.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from harness import best_per_call, write_marked_section  # noqa: E402
from run_all import machine  # noqa: E402

ROW = 1000  # elements per row; the bias is one row
SIZES = (1_000, 100_000, 10_000_000)


# The chains, written once per library: (name, ember function, torch function).
def _chains():
    return [
        ("MLP tail: (x * 0.5 + bias) -> gelu -> * s - x",
         lambda x, b, s: F.gelu(x * 0.5 + b) * s - x,
         lambda x, b, s: torch.nn.functional.gelu(x * 0.5 + b) * s - x),
        ("x + bias -> silu -> * x -> tanh -> * s",
         lambda x, b, s: ember.tanh(F.silu(x + b) * x) * s,
         lambda x, b, s: torch.tanh(torch.nn.functional.silu(x + b) * x) * s),
    ]


def _iters(numel):
    return max(3, min(3000, int(3e7 // numel)))


def _time_runtime(traced, inputs, fuse, iters, repeats):
    """Seconds per forward of the traced module from C++, fusion on or off."""
    before = ember._C._jit._fusion_enabled()
    ember._C._jit._set_fusion(fuse)
    try:
        ember._C._jit._time_forward(traced._c, inputs, max(1, iters // 10), 1)  # warm-up, plans
        return ember._C._jit._time_forward(traced._c, inputs, iters, repeats)
    finally:
        ember._C._jit._set_fusion(before)


def measure(repeats):
    rng = np.random.default_rng(0)
    rows = []
    for name, efn, tfn in _chains():
        for numel in SIZES:
            xs = rng.standard_normal((numel // ROW, ROW)).astype(np.float32)
            bs = rng.standard_normal(ROW).astype(np.float32)
            ex, eb, es = ember.from_numpy(xs.copy()), ember.from_numpy(bs.copy()), ember.tensor(1.5)
            tx, tb, ts = torch.from_numpy(xs), torch.from_numpy(bs), torch.tensor(1.5)
            traced = ember.jit.trace(efn, (ex, eb, es))
            graph, inputs = traced.graph, [ex, eb, es]
            groups = ember._C._jit._fusion_groups(graph)
            assert len(groups) == 1 and len(groups[0]) == 5, groups
            iters = _iters(numel)
            with ember.no_grad(), torch.no_grad():
                fused, n_fused, _ = ember._C._jit._fusion_run(graph, inputs, True)
                plain, _, _ = ember._C._jit._fusion_run(graph, inputs, False)
                assert n_fused == 1
                assert np.array_equal(fused[0].numpy(), plain[0].numpy()), "fused != unfused"
                assert np.allclose(fused[0].numpy(), tfn(tx, tb, ts).numpy(), atol=1e-5, rtol=1e-5)
                t_fused = _time_runtime(traced, inputs, True, iters, repeats)
                t_plain = _time_runtime(traced, inputs, False, iters, repeats)
                t_torch = best_per_call(lambda: tfn(tx, tb, ts), iters, repeats)
            rows.append((name, numel, t_fused, t_plain, t_torch))
            print(f"{name:48s} {numel:>10,d}  fused {t_fused * 1e6:10.1f} µs  unfused {t_plain * 1e6:10.1f} µs"
                  f"  torch {t_torch * 1e6:10.1f} µs", flush=True)
    return rows


def table(rows):
    lines = ["| chain (5 ops) | elements | ember, fusion on (µs) | ember, fusion off (µs) | torch eager (µs) "
             "| unfused / fused | torch / fused |", "|---|---|---|---|---|---|---|"]
    for name, numel, f, p, t in rows:
        lines.append(f"| {name} | {numel:,} | {f * 1e6:.1f} | {p * 1e6:.1f} | {t * 1e6:.1f} "
                     f"| {p / f:.2f} | {t / f:.2f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None, help="threads for both libraries")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--write", help="markdown file whose fusion table is replaced")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
        ember.set_num_threads(args.threads)
    else:
        ember.set_num_threads(torch.get_num_threads())
    rows = measure(args.repeats)
    header = (f"float32, gradients off, the bias a [{ROW}] row and s a 0-dim tensor; best of {args.repeats} "
              f"blocks. ember: the traced module's forward through the deployment runtime, timed in "
              f"C++ (no Python per call); torch: its eager ops from a Python loop. "
              f"Measured {time.strftime('%Y-%m-%d')} on {machine()}, ember with "
              f"{ember.get_num_threads()} threads.\n")
    text_table = table(rows)
    print()
    print(header)
    print(text_table)
    if args.write:
        write_marked_section(args.write, "fusion", "Pointwise fusion (issue 17)",
                             header + "\n" + text_table)


if __name__ == "__main__":
    main()
