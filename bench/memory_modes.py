"""Peak memory against step time for ember's three memory modes (issue 18): plain,
activation checkpointing, and a memory budget with automatic rematerialization
(ember.memory.set_budget, DTR), on a 24-layer MLP and a small transformer encoder.

For each model and mode: the peak of the allocator's allocated bytes during a
training step (forward, backward), above what parameters, gradients and data hold;
the step time (best of a few steps, after a warm-up step); whether the gradients are
bit-identical to the plain run's. PyTorch's plain and checkpointed steps run beside
them as the reference. Then the budget's other promise: at the plain run's memory, a
batch 2.5x as large.

    PYTHONPATH=python .venv/bin/python bench/memory_modes.py [--quick] [--plot docs/memory_modes.png]
"""
import argparse
import gc
import time

import numpy as np
import torch

import ember
import ember.nn as enn
from ember.utils.checkpoint import checkpoint as e_checkpoint
from torch.utils.checkpoint import checkpoint as t_checkpoint


# ---- the models, built the same way in both libraries ----

def mlp(lib, depth, width):
    layers = []
    for _ in range(depth):
        layers += [lib.nn.Linear(width, width), lib.nn.GELU()]
    return lib.nn.Sequential(*layers, lib.nn.Linear(width, 10))


def encoder(lib, layers, width):
    layer = lib.nn.TransformerEncoderLayer(width, 8, 4 * width, dropout=0.1, batch_first=True)
    return lib.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


def copy_weights(src, dst):
    with torch.no_grad():
        for p, q in zip(src.parameters(), dst.parameters()):
            q.copy_(torch.from_numpy(p.detach().numpy()))


# ---- one training step in each mode ----

def forward(lib, model, x, mode):
    if mode == "checkpoint":
        ckpt = e_checkpoint if lib is ember else t_checkpoint
        if isinstance(model, (enn.Sequential, torch.nn.Sequential)):
            # Every 4 layers (Linear + GELU): each block of 8 modules checkpointed.
            stages = list(model)
            h = x
            for i in range(0, len(stages) - 1, 8):
                block = lib.nn.Sequential(*stages[i:i + 8])
                h = ckpt(block, h, use_reentrant=False)
            return stages[-1](h)
        h = x
        for layer in model.layers:
            h = ckpt(layer, h, use_reentrant=False)
        return h
    return model(x)


def loss_of(lib, model, x, target, mode):
    out = forward(lib, model, x, mode)
    if target is not None:
        return lib.nn.functional.cross_entropy(out, target)
    return out.square().mean()


def memory(lib):
    if lib is ember:
        return ember.memory_stats()["allocated_bytes"]
    return None  # torch's CPU allocator keeps no statistics


def run_step(lib, model, x, target, mode, seed):
    lib.manual_seed(seed)
    for p in model.parameters():
        p.grad = None
    loss = loss_of(lib, model, x, target, mode)
    loss.backward()
    return loss.item()


def measure(lib, model, x, target, mode, steps, budget=None):
    """(step seconds, peak bytes above the start, the gradients as numpy arrays)."""
    def step():
        return run_step(lib, model, x, target, mode, seed=0)

    if budget is not None:
        ember.memory.set_budget(budget)
    try:
        step()  # warm-up: allocator caches, oneDNN primitives
        gc.collect()
        if lib is ember:
            # What parameters, gradients (from the warm-up step) and data hold.
            start = ember.memory_stats()["allocated_bytes"]
            ember.reset_peak_memory_stats()
            ember.reset_accumulated_memory_stats()
        best = float("inf")
        for _ in range(steps):
            t0 = time.perf_counter()
            step()
            best = min(best, time.perf_counter() - t0)
        peak = ember.memory_stats()["peak_allocated_bytes"] - start if lib is ember else None
        stats = ember.memory_stats() if lib is ember else {}
    finally:
        if budget is not None:
            ember.memory.set_budget(None)
    grads = [p.grad.detach().numpy().copy() for p in model.parameters()]
    return best, peak, grads, stats


def fmt_mib(n):
    return "-" if n is None else f"{n / 2**20:.0f} MiB"


def compare(name, e_model, t_model, make_data, steps, batch, rows, points):
    x, target = make_data(batch)
    tx = torch.from_numpy(x.numpy())
    ttarget = None if target is None else torch.from_numpy(target.numpy())
    copy_weights(e_model, t_model)
    t_model.train()
    e_model.train()

    # plain: the reference for gradients, memory and time
    t_plain, peak_plain, grads_plain, _ = measure(ember, e_model, x, target, "plain", steps)
    tt_plain, _, _, _ = measure(torch, t_model, tx, ttarget, "plain", steps)
    rows.append((name, "plain", fmt_mib(peak_plain), f"{t_plain:.2f} s", "1.00",
                 f"{tt_plain:.2f} s", "reference", "-"))
    points.append((name, "ember plain", peak_plain, t_plain))

    t_ck, peak_ck, grads_ck, _ = measure(ember, e_model, x, target, "checkpoint", steps)
    tt_ck, _, _, _ = measure(torch, t_model, tx, ttarget, "checkpoint", steps)
    same = all((a == b).all() for a, b in zip(grads_plain, grads_ck))
    rows.append((name, "checkpointing", fmt_mib(peak_ck), f"{t_ck:.2f} s", f"{t_ck / t_plain:.2f}",
                 f"{tt_ck:.2f} s", "bit-identical" if same else "differ", "-"))
    points.append((name, "ember checkpointing", peak_ck, t_ck))

    # the budget: what the step needs besides activations + a third of its activations
    gc.collect()
    held = ember.memory_stats()["allocated_bytes"]  # parameters, gradients, data
    budget = held + peak_plain // 3
    label = f"budget ({fmt_mib(peak_plain // 3)} of activations)"
    try:
        t_b, peak_b, grads_b, st = measure(ember, e_model, x, target, "plain", steps, budget=budget)
        same = all((a == b).all() for a, b in zip(grads_plain, grads_b))
        rows.append((name, label, fmt_mib(peak_b), f"{t_b:.2f} s", f"{t_b / t_plain:.2f}", "-",
                     "bit-identical" if same else "differ",
                     f"{st['num_evictions'] // steps} / {st['num_recomputations'] // steps}"))
        points.append((name, "ember budget (1/3)", peak_b, t_b))
    except ember.OutOfMemoryError as e:
        rows.append((name, label, "-", "-", "-", "-", f"does not fit: {str(e)[:90]}", "-"))

    # at the plain run's memory, a batch 2.5x as large
    big = int(batch * 2.5)
    xb, targetb = make_data(big)
    x = target = None
    gc.collect()
    budget_big = ember.memory_stats()["allocated_bytes"] + peak_plain
    try:
        t_big, peak_big, _, st = measure(ember, e_model, xb, targetb, "plain", 1, budget=budget_big)
        rows.append((name, f"budget = plain's memory, batch {big}", fmt_mib(peak_big), f"{t_big:.2f} s",
                     f"{t_big / t_plain / 2.5:.2f} per sample", "-", "fits",
                     f"{st['num_evictions']} / {st['num_recomputations']}"))
    except ember.OutOfMemoryError as e:
        rows.append((name, f"budget = plain's memory, batch {big}", "-", "-", "-", "-",
                     f"does not fit: {str(e)[:60]}", "-"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller models, for a smoke run")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--plot", help="write the memory-time plot here (png)")
    ap.add_argument("--only", choices=["mlp", "transformer"])
    args = ap.parse_args()
    rows, points = [], []

    if args.only in (None, "mlp"):
        depth, width, batch = (8, 256, 512) if args.quick else (24, 1024, 2048)
        ember.manual_seed(0)
        e_model = mlp(ember, depth, width)
        t_model = mlp(torch, depth, width)

        def mlp_data(b):
            ember.manual_seed(1)
            return ember.randn(b, width), ember.randint(0, 10, (b,))

        compare(f"MLP {depth}x{width}, batch {batch}", e_model, t_model, mlp_data, args.steps, batch,
                rows, points)
        del e_model, t_model
        gc.collect()

    if args.only in (None, "transformer"):
        layers, width, seq, batch = (2, 128, 128, 4) if args.quick else (6, 512, 512, 16)
        ember.manual_seed(0)
        e_model = encoder(ember, layers, width)
        t_model = encoder(torch, layers, width)

        def enc_data(b):
            ember.manual_seed(1)
            return ember.randn(b, seq, width), None

        compare(f"encoder {layers}x{width}, seq {seq}, batch {batch}", e_model, t_model, enc_data,
                args.steps, batch, rows, points)

    header = ("model", "mode", "peak above params+grads+data", "ember step", "time / plain",
              "torch step", "gradients vs plain", "evictions / recomputes per step")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(r) + " |")

    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        models = sorted({p[0] for p in points})
        fig, axes = plt.subplots(1, len(models), figsize=(6 * len(models), 4))
        axes = np.atleast_1d(axes)
        for ax, m in zip(axes, models):
            for (_, mode, peak, t) in [p for p in points if p[0] == m]:
                ax.scatter(t, peak / 2**20, s=60)
                ax.annotate(mode, (t, peak / 2**20), textcoords="offset points", xytext=(6, 4))
            ax.set_title(m)
            ax.set_xlabel("step time (s)")
            ax.set_ylabel("peak activation memory (MiB)")
            ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print("plot:", args.plot)


if __name__ == "__main__":
    main()
