"""Code written twice, once per backend: runs of identical lines (after whitespace
is normalized) that a CPU kernel file (lib/cpu/) shares with a CUDA kernel file
(lib/cuda/). Shared host-side work belongs in lib/kernels/ (docs/ARCHITECTURE.md);
this lists candidates, worst pair first. It is a finder, not a score: a kernel's
entry lines are expected in both backends (reading the op's Args, calling the meta
step, a dtype switch over each backend's own loop), so look at what the lines do.

    python scripts/backend_twins.py [--window 4] [--lines]
"""
import argparse
import collections
import pathlib
import signal

ROOT = pathlib.Path(__file__).resolve().parent.parent


def normalized(path):
    return [" ".join(line.split()) for line in path.read_text().splitlines()]


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--window", type=int, default=4, help="lines in a run (default 4)")
    ap.add_argument("--lines", action="store_true", help="print the shared lines of each pair")
    args = ap.parse_args()
    k = args.window
    cpu = {p: normalized(p) for p in sorted((ROOT / "lib/cpu").glob("*.cpp"))}
    cuda = {p: normalized(p) for p in sorted((ROOT / "lib/cuda").rglob("*")) if p.suffix in (".cu", ".cpp")}
    # Runs of k lines that carry code (not blank lines, braces or comments alone).
    runs = collections.defaultdict(list)
    for p, lines in cpu.items():
        for i in range(len(lines) - k + 1):
            w = tuple(lines[i:i + k])
            if sum(len(x) for x in w) >= 120 and not w[0].startswith("//"):
                runs[w].append((p, i))
    shared = collections.defaultdict(set)  # (cpu file, cuda file) -> cpu line numbers
    for p, lines in cuda.items():
        for j in range(len(lines) - k + 1):
            for cp, i in runs.get(tuple(lines[j:j + k]), ()):
                shared[(cp, p)].update(range(i, i + k))
    total = 0
    for (cp, p), nums in sorted(shared.items(), key=lambda kv: -len(kv[1])):
        total += len(nums)
        print(f"{len(nums):4d}  {cp.relative_to(ROOT)}  {p.relative_to(ROOT)}")
        if args.lines:
            for n in sorted(nums):
                print(f"        {n + 1}: {cpu[cp][n]}")
    print(f"{total} lines of lib/cpu repeated in lib/cuda (runs of {k} or more)")


if __name__ == "__main__":
    main()
