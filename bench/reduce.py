"""Reductions, softmax and logsumexp: ember side by side with PyTorch in one process.

    PYTHONPATH=python .venv/bin/python bench/reduce.py [--threads N] [--small] [--rows]

Prints a markdown table of the best time of each (rounds alternate between the
two libraries, so a busy machine slows both alike) and the ratio torch / ember
(> 1: ember is faster). Large cases: 16M float32 elements and [4096, 4096]
along dim 0 and dim 1; --small adds per-call times on 1 and 1000 elements; --rows,
many short rows along the last dim (attention scores of a batch-1 transformer).
"""
import argparse

import torch

import ember
from harness import best_per_call


def compare(ft, fe, reps, rounds):
    ft(), fe()
    bt = be = float("inf")
    for _ in range(rounds):
        bt = min(bt, best_per_call(ft, reps, 1, warmup=1))
        be = min(be, best_per_call(fe, reps, 1, warmup=1))
    return bt, be


LARGE = {
    "sum": lambda x, d: x.sum() if d is None else x.sum(d),
    "mean": lambda x, d: x.mean() if d is None else x.mean(d),
    "max": lambda x, d: x.max() if d is None else x.max(d),
    "amax": lambda x, d: x.amax() if d is None else x.amax(d),
    "argmax": lambda x, d: x.argmax() if d is None else x.argmax(d),
    "var": lambda x, d: x.var() if d is None else x.var(d),
    "softmax": lambda x, d: x.softmax(0 if d is None else d),
    "logsumexp": lambda x, d: x.logsumexp(0 if d is None else d),
}

SMALL = {
    "sum()": lambda x: x.sum(), "mean()": lambda x: x.mean(), "max()": lambda x: x.max(),
    "max(0)": lambda x: x.max(0), "argmax()": lambda x: x.argmax(), "var()": lambda x: x.var(),
    "softmax(0)": lambda x: x.softmax(0), "logsumexp(0)": lambda x: x.logsumexp(0),
    "cumsum(0)": lambda x: x.cumsum(0),
}

# Many short rows along the last dim: [heads * queries, keys] at batch 1.
ROWS = {
    "softmax(-1)": lambda x: x.softmax(-1), "log_softmax(-1)": lambda x: x.log_softmax(-1),
    "amax(-1)": lambda x: x.amax(-1), "logsumexp(-1)": lambda x: x.logsumexp(-1),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=0, help="threads for both (0: default)")
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--rows", action="store_true", help="only the short-rows table")
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)  # ember: set OMP_NUM_THREADS as well
    torch.manual_seed(0)
    if args.rows:
        print("| op | input | torch us | ember us | torch / ember |")
        print("|---|---|---|---|---|")
        for shape in ((1, 4, 32, 32), (128, 64), (1, 4, 32, 256)):
            t, e = torch.randn(*shape), ember.randn(*shape)
            for name, fn in ROWS.items():
                bt, be = compare(lambda: fn(t), lambda: fn(e), 2000, 5)
                print(f"| {name} | {list(shape)} | {bt * 1e6:.2f} | {be * 1e6:.2f} | {bt / be:.2f} |",
                      flush=True)
        return
    n = 16 * 1024 * 1024
    tx, ex = torch.randn(n), ember.randn(n)
    tm, em = torch.randn(4096, 4096), ember.randn(4096, 4096)
    print("| op | input | torch ms | ember ms | torch / ember |")
    print("|---|---|---|---|---|")
    for name, fn in LARGE.items():
        for label, t, e, d in (("16M", tx, ex, None), ("[4096, 4096] dim 0", tm, em, 0),
                               ("[4096, 4096] dim 1", tm, em, 1)):
            bt, be = compare(lambda: fn(t, d), lambda: fn(e, d), 3, args.rounds)
            print(f"| {name} | {label} | {bt * 1e3:.3f} | {be * 1e3:.3f} | {bt / be:.2f} |", flush=True)
    if args.small:
        print("\n| op | numel | torch us | ember us | torch / ember |")
        print("|---|---|---|---|---|")
        for numel in (1, 1000):
            t, e = torch.randn(numel), ember.randn(numel)
            for name, fn in SMALL.items():
                bt, be = compare(lambda: fn(t), lambda: fn(e), 2000, 5)
                print(f"| {name} | {numel} | {bt * 1e6:.2f} | {be * 1e6:.2f} | {bt / be:.2f} |", flush=True)


if __name__ == "__main__":
    main()
