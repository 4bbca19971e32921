"""bfloat16 / float16 on the CPU (issue 18, item 3), ember beside PyTorch in one process.

    PYTHONPATH=python .venv/bin/python bench/half_precision.py [--threads N] [--quick] [--write]

Rows: bfloat16 matmul (oneDNN's matmul with the CPU's BF16 instructions) against
torch's bfloat16 and against ember's own float32 product; elementwise add/mul/gelu
on 16M elements in float32, bfloat16 and float16 (block-converted loops) with the
bandwidth each reaches (bytes read + written / time) and its fraction of float32's;
sum over 16M elements; one training step of an MLP 784-2048-2048-10 under
bfloat16 autocast (forward, cross-entropy, backward, SGD update).
ratio = torch time / ember time (> 1: ember is faster). --write puts the tables
into docs/PERF.md under "bfloat16 and float16 on the CPU (issue 18)".
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import ember  # noqa: E402
import ember.nn.functional as EF  # noqa: E402
import torch.nn.functional as TF  # noqa: E402
from harness import Case, markdown_table, measure, write_marked_section  # noqa: E402

DT = {"float32": (ember.float32, torch.float32), "bfloat16": (ember.bfloat16, torch.bfloat16),
      "float16": (ember.float16, torch.float16)}


def pair(a, dtype):
    e_dt, t_dt = DT[dtype]
    return ember.from_numpy(a.copy()).to(e_dt), torch.from_numpy(a.copy()).to(t_dt)


def matmul_cases(sizes):
    out = []
    for n in sizes:
        rng = np.random.default_rng(n)
        a, b = rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32)
        for dtype in ("float32", "bfloat16"):
            ea, ta = pair(a, dtype)
            eb, tb = pair(b, dtype)
            out.append(Case("matmul", f"{dtype} {n}x{n} @ {n}x{n}", lambda ea=ea, eb=eb: ea @ eb,
                            lambda ta=ta, tb=tb: ta @ tb, 2.0 * n ** 3, "GFLOP/s"))
    return out


def elementwise_cases(n):
    out = []
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    for dtype in ("float32", "bfloat16", "float16"):
        ex, tx = pair(x, dtype)
        ey, ty = pair(y, dtype)
        size = 4 if dtype == "float32" else 2
        # Plain calls, each returning a fresh 64 MB (float32) result: ember's allocator
        # reuses its blocks, torch's returns them to the OS and pays page faults again
        # (its out= variant avoids that; ember's out= costs more than the plain call here,
        # 12.8 against 7.0 ms for float32: not the loop measured here).
        out.append(Case("elementwise", f"add {dtype}", lambda ex=ex, ey=ey: ex + ey,
                        lambda tx=tx, ty=ty: tx + ty, 3.0 * n * size, "GB/s"))
        out.append(Case("elementwise", f"mul {dtype}", lambda ex=ex, ey=ey: ex * ey,
                        lambda tx=tx, ty=ty: tx * ty, 3.0 * n * size, "GB/s"))
        out.append(Case("elementwise", f"gelu {dtype}", lambda ex=ex: EF.gelu(ex),
                        lambda tx=tx: TF.gelu(tx), 2.0 * n * size, "GB/s"))
        out.append(Case("reduction", f"sum {dtype}", lambda ex=ex: ex.sum(), lambda tx=tx: tx.sum(),
                        1.0 * n * size, "GB/s"))
    return out


def mlp_case(batch):
    rng = np.random.default_rng(1)
    dims = [784, 2048, 2048, 10]
    ws = [(rng.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32) for i, o in zip(dims, dims[1:])]
    bs = [np.zeros(o, dtype=np.float32) for o in dims[1:]]
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    y = rng.integers(0, 10, batch)

    def make(lib, F, from_np, autocast):
        params = [from_np(p.copy()).requires_grad_() for pr in zip(ws, bs) for p in pr]
        xs, ys = from_np(x.copy()), from_np(y.copy())

        def step():
            with autocast("cpu", dtype=lib.bfloat16):
                h = xs
                for i in range(3):
                    h = F.linear(h, params[2 * i], params[2 * i + 1])
                    if i < 2:
                        h = F.relu(h)
                loss = F.cross_entropy(h, ys)
            loss.backward()
            with lib.no_grad():
                for p in params:
                    p.sub_(p.grad, alpha=0.01)
                    p.grad = None
        return step

    e = make(ember, EF, ember.from_numpy, ember.autocast)
    t = make(torch, TF, torch.from_numpy, torch.autocast)
    flops = 6.0 * batch * sum(i * o for i, o in zip(dims, dims[1:]))
    return Case("training", f"MLP 784-2048-2048-10 step, batch {batch}, bf16 autocast", e, t, flops, "GFLOP/s")


SEPARATE = r"""
import sys, time, numpy as np
lib_name, batch, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lib = __import__(lib_name)
F = __import__(lib_name + ".nn.functional", fromlist=["x"])
lib.set_num_threads(threads)
rng = np.random.default_rng(1)
dims = [784, 2048, 2048, 10]
ps = []
for i, o in zip(dims, dims[1:]):
    ps += [lib.from_numpy((rng.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32)),
           lib.from_numpy(np.zeros(o, dtype=np.float32))]
ps = [p.requires_grad_() for p in ps]
x = lib.from_numpy(rng.standard_normal((batch, 784)).astype(np.float32))
y = lib.from_numpy(rng.integers(0, 10, batch))
def step():
    with lib.autocast("cpu", dtype=lib.bfloat16):
        h = x
        for i in range(3):
            h = F.linear(h, ps[2 * i], ps[2 * i + 1])
            h = F.relu(h) if i < 2 else h
        loss = F.cross_entropy(h, y)
    loss.backward()
    with lib.no_grad():
        for p in ps:
            p.sub_(p.grad, alpha=0.01)
            p.grad = None
step()
best = 1e9
for _ in range(5):
    t = time.perf_counter()
    for _ in range(5):
        step()
    best = min(best, (time.perf_counter() - t) / 5)
print(best)
"""


def mlp_separate(batch, threads):
    """The MLP step timed in its own process per library: in one process the two
    libraries' idle threads spin beside each other's work on 2 cores."""
    times = {}
    for lib in ("ember", "torch"):
        out = subprocess.run([sys.executable, "-c", SEPARATE, lib, str(batch), str(threads)],
                             capture_output=True, text=True, check=True)
        times[lib] = float(out.stdout.split()[-1])
    return times


EXPLAIN = """What runs: bfloat16 products go to oneDNN's matmul primitive (brg:avx512_core_bf16 here:
vdpbf16ps, float32 accumulation, one rounding; lib/cpu/onednn_matmul.cpp), blocks of rows over
ember's thread pool; float16 products still widen to float32 and call sgemm. Elementwise ops and
casts on float16/bfloat16 widen blocks of 512 values with F16C / AVX-512 (vcvtneps2bf16 where
the CPU has AVX512-BF16) and run the float32 loop (lib/cpu/reduced_float_loops.h): float32
math and one rounding, as before (the vectorized clones may fuse a multiply-add, as the float32
loops do), checked against torch in test/python/test_half_fast_paths.py. gelu is compute-bound
(erf per element): bfloat16 runs at float32's element rate, so half its bytes per second. For
the memory-bound ops (add, mul) the 90% target held in most of six runs (bfloat16 82-126%,
float16 73-116%; alone in a process, best of 30: float32 add 6.6 ms, bfloat16 2.7 ms, float16
3.1 ms for 16M elements: 124% and 106%); the shared machine's noise is as large as the margin. torch's elementwise times include page faults of a fresh 64 MB
result (its allocator returns big blocks to the OS); ember's allocator reuses them. The
in-process MLP ratio and the separate-process one differ: the two libraries' idle threads
spin beside each other's work on 2 cores, and the machine is shared."""


def machine():
    try:
        model = [ln.split(":", 1)[1].strip() for ln in subprocess.run(["lscpu"], capture_output=True, text=True)
                 .stdout.splitlines() if ln.startswith("Model name")][0]
    except Exception:  # lscpu missing: the platform string
        model = platform.processor()
    return model


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--quick", action="store_true", help="small sizes, to check the script")
    p.add_argument("--write", action="store_true", help="write the tables into docs/PERF.md")
    p.add_argument("--blocks", type=int, default=5)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    ember.set_num_threads(args.threads)
    sizes = [256] if args.quick else [1024, 2048, 4096]
    n = 1 << 16 if args.quick else 1 << 24
    load_start = os.getloadavg()[0]
    cases = matmul_cases(sizes) + elementwise_cases(n) + [mlp_case(32 if args.quick else 256)]
    results = []
    for c in cases:
        big = c.group == "matmul" and "4096" in c.name
        # Blocks of >= 0.2 s for the short ops: the 2-core machine is shared and noisy.
        r = measure(c, blocks=2 if big else args.blocks, min_seconds=0.05 if c.group == "matmul" else 0.2)
        results.append(r)
        print(f"{c.group:12s} {c.name:55s} ember {r.ember_s * 1e3:9.3f} ms  torch {r.torch_s * 1e3:9.3f} ms  "
              f"ratio {r.ratio:5.2f}", flush=True)
    by = {r.case.name: r for r in results}
    notes = []
    for s in sizes:
        f32, bf16 = by[f"float32 {s}x{s} @ {s}x{s}"], by[f"bfloat16 {s}x{s} @ {s}x{s}"]
        notes.append(f"- matmul {s}: ember bfloat16 is {f32.ember_s / bf16.ember_s:.2f}x ember float32 "
                     f"(target >= 1.6), {bf16.ratio:.2f}x torch bfloat16 (target >= 1)")
    for op in ("add", "mul", "gelu", "sum"):
        f32 = by[f"{op} float32"]
        for dtype in ("bfloat16", "float16"):
            r = by[f"{op} {dtype}"]
            frac = (r.case.work / r.ember_s) / (f32.case.work / f32.ember_s)
            notes.append(f"- {op} {dtype}: {r.case.work / r.ember_s / 1e9:.1f} GB/s, "
                         f"{100 * frac:.0f}% of ember float32's {f32.case.work / f32.ember_s / 1e9:.1f} GB/s"
                         + (" (target >= 90%)" if op != "sum" else ""))
    mlp = results[-1]
    notes.append(f"- {mlp.case.name}: {mlp.ratio:.2f}x torch (target >= 1)")
    sep = mlp_separate(32 if args.quick else 256, args.threads)
    notes.append(f"- the same step, each library in its own process: ember {sep['ember'] * 1e3:.1f} ms, "
                 f"torch {sep['torch'] * 1e3:.1f} ms, {sep['torch'] / sep['ember']:.2f}x torch")
    table = markdown_table(results)
    print(table)
    print("\n".join(notes))
    if args.write:
        busy = subprocess.run(["flock", "-n", "/tmp/ember_build.lock", "true"]).returncode != 0
        load = os.getloadavg()[0]
        body = (f"Measured {datetime.date.today()} on {machine()}, {args.threads} threads, "
                f"`bench/half_precision.py --write` (best of {args.blocks} blocks; torch {torch.__version__})"
                + (", the machine busy with a build" if busy else ", no build running")
                + f", load average {load_start:.1f} at the start and {load:.1f} at the end (other sessions'"
                + " work: times vary by up to 2x between runs)."
                + "\n\n"
                + table + "\n\n" + "\n".join(notes) + "\n\n" + EXPLAIN)
        here = os.path.dirname(os.path.abspath(__file__))
        write_marked_section(os.path.join(here, "..", "docs", "PERF.md"), "half-precision-cpu",
                             "bfloat16 and float16 on the CPU (issue 18)", body)


if __name__ == "__main__":
    main()
