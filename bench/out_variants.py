"""out= calls (`ember.add(a, b, out=c)`): ember side by side with PyTorch in one process.

    PYTHONPATH=python .venv/bin/python bench/out_variants.py

ember's out= computes the result into a new tensor and copies it into out
(python/ember/_out_variants.py); PyTorch writes into out directly. This measures what
that costs, and that a call without out= pays nothing for the wrapper that takes it:
`add` and `exp` on float32 tensors of 16 and 1M elements, with and without out=.
Prints a markdown table; ratio = torch time / ember time (> 1: ember is faster).
"""
import numpy as np
import torch

import ember
from harness import Case, measure


def cases():
    out = []
    for n in (16, 1 << 20):
        a_np = np.random.default_rng(0).standard_normal(n).astype(np.float32)
        b_np = np.random.default_rng(1).standard_normal(n).astype(np.float32)
        ea, eb, eo = ember.tensor(a_np), ember.tensor(b_np), ember.empty(n)
        ta, tb, to = torch.tensor(a_np), torch.tensor(b_np), torch.empty(n)
        # (the tensors bound as defaults: a closure would see the last loop's)
        out += [
            Case("out=", f"add [{n}]", lambda a=ea, b=eb: ember.add(a, b), lambda a=ta, b=tb: torch.add(a, b)),
            Case("out=", f"add [{n}] out=", lambda a=ea, b=eb, o=eo: ember.add(a, b, out=o),
                 lambda a=ta, b=tb, o=to: torch.add(a, b, out=o)),
            Case("out=", f"exp [{n}]", lambda a=ea: ember.exp(a), lambda a=ta: torch.exp(a)),
            Case("out=", f"exp [{n}] out=", lambda a=ea, o=eo: ember.exp(a, out=o),
                 lambda a=ta, o=to: torch.exp(a, out=o)),
        ]
    return out


def main():
    print("| case | ember | torch | ratio |")
    print("|---|---|---|---|")
    for case in cases():
        r = measure(case)
        fmt = lambda s: f"{s * 1e6:.2f} us" if s < 1e-3 else f"{s * 1e3:.3f} ms"  # noqa: E731
        print(f"| {case.name} | {fmt(r.ember_s)} | {fmt(r.torch_s)} | {r.ratio:.2f} |")


if __name__ == "__main__":
    main()
