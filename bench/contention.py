"""Issue 19's contention check: the digits MLP and CNN training epochs (bench/training_epoch.py)
timed on a quiet machine and again while another process keeps one core busy, for
ember and for PyTorch in the same process. Reported per library: the quiet time, the
loaded time and the slowdown (loaded / quiet); issue 19's target is an ember slowdown
of at most 2.5x.

The busy process is a Python loop pinned to the last core (where the OS allows
pinning). Times are the median of several epochs: under load the best epoch says
little about what a user waits for.

    PYTHONPATH=python .venv/bin/python bench/contention.py [--epochs 15] [--threads 2]
"""
import argparse
import multiprocessing
import os
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import ember  # noqa: E402
import torch  # noqa: E402

from training_epoch import training_epochs  # noqa: E402


def _spin(core):
    if core is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {core})
    while True:
        pass


def _median_epoch(fn, epochs):
    fn()  # warm up
    times = []
    for _ in range(epochs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _fmt(s):
    return f"{s * 1e3:.1f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    args = parser.parse_args()
    ember.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)

    cases = training_epochs()
    quiet = {c.name: (_median_epoch(c.ember_fn, args.epochs), _median_epoch(c.torch_fn, args.epochs))
             for c in cases}
    load_before = os.getloadavg()[0]
    core = (os.cpu_count() or 1) - 1
    busy = multiprocessing.get_context("spawn").Process(target=_spin, args=(core,), daemon=True)
    busy.start()
    try:
        time.sleep(0.5)
        loaded = {c.name: (_median_epoch(c.ember_fn, args.epochs), _median_epoch(c.torch_fn, args.epochs))
                  for c in cases}
    finally:
        busy.terminate()
        busy.join()

    print(f"{args.threads} threads, {args.epochs} epochs per median, load average before the busy "
          f"process {load_before:.2f}, busy process on core {core}")
    print()
    print("| case | ember quiet | ember loaded | ember slowdown | torch quiet | torch loaded | torch slowdown |")
    print("|---|---|---|---|---|---|---|")
    for name in quiet:
        (eq, tq), (el, tl) = quiet[name], loaded[name]
        print(f"| {name} | {_fmt(eq)} | {_fmt(el)} | {el / eq:.2f}x | {_fmt(tq)} | {_fmt(tl)} | {tl / tq:.2f}x |")


if __name__ == "__main__":
    main()
