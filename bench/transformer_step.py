"""A training step (forward, backward) of a 6-layer transformer encoder (width 512, 8
heads, feed-forward 2048, dropout 0.1, batch_first) beside PyTorch, same weights and
input, alternating steps; ratio = torch time / ember time (issue 19).

    PYTHONPATH=python .venv/bin/python bench/transformer_step.py [--seq 256] [--batch 8]
"""
import argparse
import time

import torch

import ember


def build(lib, width, layers):
    layer = lib.nn.TransformerEncoderLayer(width, 8, 4 * width, dropout=0.1, batch_first=True)
    return lib.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--steps", type=int, default=5)
    args = ap.parse_args()
    ember.manual_seed(0)
    em, tm = build(ember, args.width, args.layers), build(torch, args.width, args.layers)
    with torch.no_grad():
        for p, q in zip(em.parameters(), tm.parameters()):
            q.copy_(torch.from_numpy(p.detach().numpy()))
    x = ember.randn(args.batch, args.seq, args.width)
    tx = torch.from_numpy(x.numpy())

    def ember_step():
        em.zero_grad()
        em(x).square().mean().backward()

    def torch_step():
        tm.zero_grad()
        tm(tx).square().mean().backward()

    ember_step(), torch_step()  # warm-up
    best_e = best_t = float("inf")
    for _ in range(args.steps):
        t0 = time.perf_counter()
        ember_step()
        best_e = min(best_e, time.perf_counter() - t0)
        t0 = time.perf_counter()
        torch_step()
        best_t = min(best_t, time.perf_counter() - t0)
    print(f"| encoder {args.layers}x{args.width}, seq {args.seq}, batch {args.batch}, fwd+bwd | "
          f"{best_e * 1e3:.0f} ms | {best_t * 1e3:.0f} ms | {best_t / best_e:.2f} |")


if __name__ == "__main__":
    main()
