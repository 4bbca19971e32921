"""Side-by-side timing of ember and PyTorch in one process.

A case is two zero-argument callables doing the same work, one with ember and
one with torch, on the same input values. Each is timed in alternating blocks
(so that neither library's OpenMP threads, still spinning after a call, steal
time from the other's measurement for long), and the best block's mean time
per call is kept. ratio = torch time / ember time: above 1 means ember is faster.
"""
import dataclasses
import gc
import time


@dataclasses.dataclass
class Case:
    group: str
    name: str
    ember_fn: object
    torch_fn: object
    work: float = 0.0       # bytes moved or flops done per call, for the throughput column
    unit: str = ""          # "GB/s" or "GFLOP/s"


@dataclasses.dataclass
class Result:
    case: Case
    ember_s: float
    torch_s: float

    @property
    def ratio(self):
        return self.torch_s / self.ember_s


def _block_time(fn, min_seconds):
    """Mean seconds per call over a block of at least min_seconds."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_seconds:
            return dt / n
        n = max(n * 2, int(n * min_seconds / max(dt, 1e-9) * 1.2))


def best_per_call(fn, iters, repeats, warmup=None):
    """Seconds per call of fn: the best of `repeats` blocks of `iters` calls, after
    `warmup` calls (iters // 10 unless given, at least one) that warm caches and allocators."""
    for _ in range(max(1, iters // 10) if warmup is None else warmup):
        fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        best = min(best, (time.perf_counter() - start) / iters)
    return best


def measure(case, blocks=5, min_seconds=0.05):
    case.ember_fn()  # warm up caches and allocators
    case.torch_fn()
    gc.collect()
    gc.disable()
    try:
        e = min(_block_time(case.ember_fn, min_seconds) for _ in range(1))
        t = min(_block_time(case.torch_fn, min_seconds) for _ in range(1))
        for _ in range(blocks - 1):
            e = min(e, _block_time(case.ember_fn, min_seconds))
            t = min(t, _block_time(case.torch_fn, min_seconds))
    finally:
        gc.enable()
    return Result(case, e, t)


def fmt_time(s):
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.2f} µs"
    return f"{s * 1e3:.2f} ms"


def markdown_table(results):
    lines = ["| group | case | ember | torch | ratio (torch time / ember time) | ember throughput |",
             "|---|---|---|---|---|---|"]
    for r in results:
        c = r.case
        thr = f"{c.work / r.ember_s / 1e9:.1f} {c.unit}" if c.work else ""
        lines.append(f"| {c.group} | {c.name} | {fmt_time(r.ember_s)} | {fmt_time(r.torch_s)} | "
                     f"{r.ratio:.2f} | {thr} |")
    return "\n".join(lines)


def write_marked_section(path, marker, heading, body):
    """Replaces what lies between <!-- marker --> and <!-- /marker --> in the markdown file
    at path by body (appending a `## heading` section with the markers if absent)."""
    import pathlib
    path = pathlib.Path(path)
    text = path.read_text()
    start, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    if start not in text:
        text += f"\n## {heading}\n\n{start}\n{end}\n"
    i, j = text.index(start), text.index(end)
    path.write_text(text[:i] + start + "\n" + body + "\n" + text[j:])
