"""Autocast's cost: small ops with autocast off (the dispatcher's one per-thread flag
test, issue 18) and inside a CPU bfloat16 region, ember side by side with PyTorch.

    PYTHONPATH=python .venv/bin/python bench/autocast.py [--threads N]

Rows: per-call time of tiny ops, where the dispatcher's overhead dominates (off:
outside any region; on: inside torch.autocast("cpu") / ember.autocast("cpu"), where
`add` has no policy and passes through, `mm`/`linear` cast to bfloat16), and one
forward of a small MLP under autocast (weights cast once per region: the cache).
ratio = torch time / ember time (> 1: ember is faster).
"""
import argparse
import contextlib
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import ember  # noqa: E402
from harness import Case, markdown_table, measure  # noqa: E402


def region(lib, on):
    return lib.autocast("cpu", dtype=lib.bfloat16) if on else contextlib.nullcontext()


def cases():
    out = []
    a_t, b_t = torch.randn(1), torch.randn(1)
    a_e, b_e = ember.tensor(a_t.tolist()), ember.tensor(b_t.tolist())
    m_t, m_e = torch.randn(8, 8), None
    m_e = ember.tensor(m_t.tolist())
    w_t = torch.randn(16, 8, requires_grad=True)
    w_e = ember.tensor(w_t.tolist()).requires_grad_(True)
    for on in (False, True):
        tag = "on" if on else "off"

        def within(lib, fn, on=on):
            def run():
                with region(lib, on):
                    fn()
            return run

        out.append(Case("autocast " + tag, "add 1 elt (no policy)",
                        within(ember, lambda: a_e + b_e), within(torch, lambda: a_t + b_t)))
        out.append(Case("autocast " + tag, "mm 8x8",
                        within(ember, lambda: ember.mm(m_e, m_e)), within(torch, lambda: torch.mm(m_t, m_t))))
        out.append(Case("autocast " + tag, "linear 8->16, weight requires grad",
                        within(ember, lambda: ember.nn.functional.linear(m_e, w_e)),
                        within(torch, lambda: torch.nn.functional.linear(m_t, w_t))))
        # The region's own cost, amortized over 100 adds.
        out.append(Case("autocast " + tag, "100 x add 1 elt in one region",
                        within(ember, lambda: [a_e + b_e for _ in range(100)]),
                        within(torch, lambda: [a_t + b_t for _ in range(100)])))
    torch.manual_seed(0)
    t_mlp = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
    e_mlp = ember.nn.Sequential(ember.nn.Linear(256, 512), ember.nn.ReLU(), ember.nn.Linear(512, 10))
    x_t = torch.randn(64, 256)
    x_e = ember.tensor(x_t.tolist())

    def mlp(lib, model, x):
        def run():
            with lib.autocast("cpu", dtype=lib.bfloat16):
                model(x).float().sum().backward()
        return run
    out.append(Case("autocast on", "MLP 256-512-10, batch 64: forward+backward",
                    mlp(ember, e_mlp, x_e), mlp(torch, t_mlp, x_t)))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=None)
    args = p.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
        ember.set_num_threads(args.threads)
    print(markdown_table([measure(c) for c in cases()]))


if __name__ == "__main__":
    main()
