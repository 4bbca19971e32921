"""Float -> integer casts (`x.to(dtype)`): ember side by side with PyTorch in one process.

    PYTHONPATH=python .venv/bin/python bench/convert_float_to_int.py [--threads N] [--n N]

A float -> integer cast follows one defined rule for NaN, +-inf and out-of-range
values (lib/kernels/float_to_int.h); this checks that the rule costs nothing on
in-range data. Prints a markdown table of the fastest call of each case (the two
libraries take turns, so a busy machine slows both alike) and the ratio torch / ember
(> 1: ember is faster). Inputs: N (default 10M) uniform values in [-200, 200),
contiguous, and a strided view of every other element.
"""
import argparse
import time

import numpy as np
import torch

import ember


def once(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def compare(ft, fe, rounds):
    """The fastest single call of each, the two libraries taking turns (a busy machine
    slows both alike; the fastest call is the one least disturbed)."""
    ft(), fe()
    bt = be = float("inf")
    for _ in range(rounds):
        bt = min(bt, once(ft))
        be = min(be, once(fe))
    return bt, be


CASES = [  # (source dtype, target dtype, strided)
    ("float32", "int32", False), ("float32", "uint8", False), ("float32", "int64", False),
    ("float32", "int8", False), ("float64", "int32", False), ("float64", "int64", False),
    ("float16", "int16", False), ("bfloat16", "int32", False), ("float32", "int32", True),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=0, help="threads for both (0: default)")
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
        ember.set_num_threads(args.threads)
    values = np.random.default_rng(0).uniform(-200, 200, size=args.n)
    print(f"{args.n} elements, torch {torch.__version__}, threads torch {torch.get_num_threads()} "
          f"ember {ember.get_num_threads()}\n")
    print("| cast | torch ms | ember ms | torch / ember |")
    print("|---|---|---|---|")
    for src, dst, strided in CASES:
        t = torch.from_numpy(values).to(getattr(torch, src))
        e = ember.from_numpy(values).to(getattr(ember, src))
        if strided:
            t, e = t[::2], e[::2]
        td, ed = getattr(torch, dst), getattr(ember, dst)
        assert np.array_equal(e.to(ed).numpy(), t.to(td).numpy()), f"{src} -> {dst}: values differ"
        bt, be = compare(lambda: t.to(td), lambda: e.to(ed), args.rounds)
        name = f"{src} -> {dst}" + (" (strided)" if strided else "")
        print(f"| {name} | {bt * 1e3:.2f} | {be * 1e3:.2f} | {bt / be:.2f} |")


if __name__ == "__main__":
    main()
