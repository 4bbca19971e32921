"""CUDA elementwise benchmarks, ember and PyTorch side by side in one process on
the same GPU (issue 5):

- launch overhead: a loop of small adds (1024 floats) queued from Python, time per
  op once the queue is steady (host-bound: what one op costs the host);
- bandwidth of large elementwise ops (add, mul, relu, a cast) over 2^26 floats, as a
  fraction of the measured device-to-device copy bandwidth of the same size;
- a steady training loop (a small MLP with AdamW): cudaMalloc calls after its first
  iteration (the caching allocator's num_raw_allocs; must be 0).

    PYTHONPATH=python python bench/cuda_elementwise.py [--write docs/PERF.md]

Prints "skipped: ..." and exits 0 when no GPU (or no CUDA torch) is present.
"""
import argparse
import sys
import time

import ember

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def gpu_ready():
    if not ember.cuda.is_available():
        return "ember sees no CUDA GPU"
    if torch is None or not torch.cuda.is_available():
        return "PyTorch with CUDA is not available"
    return None


def timed(lib, fn, iters, repeats=5):
    """Best seconds per call of fn over `repeats` runs of `iters` calls, the
    device synchronized before and after each run."""
    best = float("inf")
    fn()
    lib.cuda.synchronize()
    for _ in range(repeats):
        lib.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        lib.cuda.synchronize()
        best = min(best, (time.perf_counter() - start) / iters)
    return best


def launch_overhead():
    rows = []
    for name, make in [("ember", lambda: ember.ones(1024, device="cuda")),
                       ("torch", lambda: torch.ones(1024, device="cuda"))]:
        lib = ember if name == "ember" else torch
        x, y = make(), make()
        rows.append((name, timed(lib, lambda: x.add(y), 20000)))
    return rows


def bandwidth():
    n = 1 << 26
    results = []
    for lib in (ember, torch):
        a = lib.ones(n, device="cuda")
        b = lib.ones(n, device="cuda")
        out = lib.empty(n, device="cuda")
        copy_s = timed(lib, lambda: out.copy_(a), 50)
        copy_bw = 2 * 4 * n / copy_s  # bytes read + written
        cases = [
            ("add", lambda: lib.add(a, b, out=out), 3 * 4 * n),
            ("mul", lambda: lib.mul(a, b, out=out), 3 * 4 * n),
            ("relu", lambda: lib.relu(a), 2 * 4 * n),
            ("to(float16)", lambda: a.to(lib.float16), (4 + 2) * n),
        ]
        for name, fn, nbytes in cases:
            s = timed(lib, fn, 50)
            results.append((lib.__name__, name, nbytes / s / 1e9, nbytes / s / copy_bw))
        results.append((lib.__name__, "copy", copy_bw / 1e9, 1.0))
    return results


def steady_training_mallocs(iters=20):
    model = ember.nn.Sequential(ember.nn.Linear(256, 512), ember.nn.ReLU(),
                                ember.nn.Linear(512, 10)).to("cuda")
    opt = ember.optim.AdamW(model.parameters(), lr=1e-3)
    x = ember.randn(128, 256, device="cuda")
    y = ember.randint(0, 10, (128,), device="cuda")
    raw_after_first = None
    for i in range(iters):
        opt.zero_grad()
        loss = ember.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if i == 0:
            ember.cuda.synchronize()
            raw_after_first = ember.cuda.memory_stats()["num_raw_allocs"]
    ember.cuda.synchronize()
    return ember.cuda.memory_stats()["num_raw_allocs"] - raw_after_first


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", help="append the table to this markdown file")
    args = parser.parse_args()
    reason = gpu_ready()
    if reason:
        print(f"skipped: {reason}")
        return 0
    lines = [f"GPU: {torch.cuda.get_device_name()}", ""]
    lines += ["| launch overhead (1024-float add) | time per op | ratio (ember / torch) |",
              "|---|---|---|"]
    overhead = dict(launch_overhead())
    for name in ("ember", "torch"):
        lines.append(f"| {name} | {overhead[name] * 1e6:.2f} µs | "
                     f"{overhead[name] / overhead['torch']:.2f} |")
    lines += ["", "| op (2^26 float32) | library | GB/s | fraction of its copy bandwidth |",
              "|---|---|---|---|"]
    for lib, name, gbs, frac in bandwidth():
        lines.append(f"| {name} | {lib} | {gbs:.0f} | {frac:.2f} |")
    mallocs = steady_training_mallocs()
    lines += ["", f"Steady training loop (MLP + AdamW, 20 iterations): {mallocs} cudaMalloc "
              "calls after the first iteration."]
    text = "\n".join(lines)
    print(text)
    if args.write:
        with open(args.write, "a") as f:
            f.write("\n" + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
