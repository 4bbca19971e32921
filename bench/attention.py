"""scaled_dot_product_attention on the CPU: ember side by side with PyTorch in one process.

    PYTHONPATH=python .venv/bin/python bench/attention.py [--threads N] [--quick] [--dtype float32]

Rows: causal and not, sequence 128 / 512 / 2048, head dim 64, 8 heads (batch 4, 2 and
1 so that each row does comparable work), the forward alone and forward + backward
(the gradients wrt q, k and v). PyTorch runs its own fused CPU kernel (flash
attention) on these; ember its fused op (lib/cpu/attention_flash*.cpp), or the
composite of matmul / softmax / where when EMBER_SDPA_COMPOSITE=1 is set in the
environment (the numbers before the fused op: the call is traced, and a trace
records the composite's ops, which the traced function then runs).
Prints a markdown table (bench/harness.py): ratio = torch time / ember time.
"""
import argparse
import os

import numpy as np
import torch

import ember
from harness import Case, markdown_table, measure

HEADS, HEAD_DIM = 8, 64
SHAPES = [(4, 128), (2, 512), (1, 2048)]  # (batch, sequence)


def cases(dtype, quick):
    composite = os.environ.get("EMBER_SDPA_COMPOSITE") == "1"
    rng = np.random.default_rng(0)
    out = []
    for batch, seq in SHAPES[:2] if quick else SHAPES:
        shape = (batch, HEADS, seq, HEAD_DIM)
        arrays = [rng.standard_normal(shape).astype(dtype) for _ in range(3)]
        te = [ember.from_numpy(a.copy()) for a in arrays]
        tt = [torch.from_numpy(a.copy()) for a in arrays]
        ge, gt = ember.from_numpy(arrays[0].copy()), torch.from_numpy(arrays[0].copy())
        for causal in (False, True):
            def sdpa(q, k, v, causal=causal):
                return ember.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)

            if composite:
                sdpa = ember.jit.trace(sdpa, tuple(te))
            name = f"[{batch}, {HEADS}, {seq}, {HEAD_DIM}] {'causal' if causal else 'full'}"
            flops = 4.0 * batch * HEADS * seq * seq * HEAD_DIM * (0.5 if causal else 1.0)

            def fwd_e(sdpa=sdpa, te=te):
                with ember.no_grad():
                    sdpa(*te)

            def fwd_t(causal=causal, tt=tt):
                with torch.no_grad():
                    torch.nn.functional.scaled_dot_product_attention(*tt, is_causal=causal)

            out.append(Case("sdpa forward", name, fwd_e, fwd_t, flops, "GFLOP/s"))
            le = [t.detach().requires_grad_() for t in te]
            lt = [t.detach().requires_grad_() for t in tt]

            def both_e(sdpa=sdpa, le=le, ge=ge):
                sdpa(*le).backward(ge)

            def both_t(causal=causal, lt=lt, gt=gt):
                torch.nn.functional.scaled_dot_product_attention(*lt, is_causal=causal).backward(gt)

            out.append(Case("sdpa forward+backward", name, both_e, both_t, 3.5 * flops, "GFLOP/s"))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=0, help="threads for both (0: default)")
    parser.add_argument("--quick", action="store_true", help="sequences 128 and 512 only")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
        ember.set_num_threads(args.threads)
    print(f"threads: ember {ember.get_num_threads()}, torch {torch.get_num_threads()}; torch {torch.__version__}; "
          f"load average {os.getloadavg()[0]:.2f}")
    results = [measure(c, blocks=3, min_seconds=0.1) for c in cases(args.dtype, args.quick)]
    print(markdown_table(results))


if __name__ == "__main__":
    main()
