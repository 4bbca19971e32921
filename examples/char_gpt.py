"""A small GPT trained on characters, written as one writes it for PyTorch: the only
change is the import (`import ember as torch`). It shows that a typical training
script runs unchanged: nn.Module blocks with causal self-attention, AdamW with weight
decay groups, gradient clipping, a cosine schedule, torch.save/torch.load of a
checkpoint, and generation by sampling with torch.multinomial.

    PYTHONPATH=python .venv/bin/python examples/char_gpt.py [--steps N] [--seed S]

The text is what this machine already has: the docstrings of a few standard-library
modules (no download). The script prints the loss every 50 steps, the validation loss
at the end, and a sample of generated text; `--backend torch` runs the same code on
PyTorch for comparison.
"""
import argparse
import inspect
import math
import os
import tempfile
import time


def corpus():
    """About 60 kB of English from the standard library's docstrings."""
    import collections
    import functools
    import itertools
    import json
    import pathlib
    import re
    import statistics
    import string
    import textwrap

    modules = [collections, functools, itertools, json, pathlib, re, statistics, string,
               textwrap, inspect, argparse]
    parts = []
    for module in modules:
        parts.append(inspect.getdoc(module) or "")
        for _, member in inspect.getmembers(module):
            doc = inspect.getdoc(member) if callable(member) else None
            if doc and len(doc) > 80:
                parts.append(doc)
    return "\n\n".join(parts)[:60000]


def build(torch):
    nn = torch.nn
    F = torch.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self, n_embd, n_head, dropout):
            super().__init__()
            self.n_head = n_head
            self.qkv = nn.Linear(n_embd, 3 * n_embd)
            self.proj = nn.Linear(n_embd, n_embd)
            self.dropout = dropout

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.qkv(x).split(C, dim=2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                               dropout_p=self.dropout if self.training else 0.0)
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.proj(y)

    class Block(nn.Module):
        def __init__(self, n_embd, n_head, dropout):
            super().__init__()
            self.ln_1 = nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention(n_embd, n_head, dropout)
            self.ln_2 = nn.LayerNorm(n_embd)
            self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                     nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self, vocab_size, block_size, n_layer=2, n_head=4, n_embd=64, dropout=0.1):
            super().__init__()
            self.block_size = block_size
            self.wte = nn.Embedding(vocab_size, n_embd)
            self.wpe = nn.Embedding(block_size, n_embd)
            self.drop = nn.Dropout(dropout)
            self.blocks = nn.ModuleList([Block(n_embd, n_head, dropout) for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
            self.wte.weight = self.lm_head.weight  # weight tying
            self.apply(self._init_weights)

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            B, T = idx.size()
            pos = torch.arange(0, T, dtype=torch.long, device=idx.device)
            x = self.drop(self.wte(idx) + self.wpe(pos))
            for block in self.blocks:
                x = block(x)
            logits = self.lm_head(self.ln_f(x))
            if targets is None:
                return logits, None
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
            return logits, loss

        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
            for _ in range(max_new_tokens):
                idx_cond = idx[:, -self.block_size:]
                logits, _ = self(idx_cond)
                logits = logits[:, -1, :] / temperature
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                    logits[logits < v[:, [-1]]] = -float("Inf")
                probs = F.softmax(logits, dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx

    return GPT


def train(torch, steps=300, seed=1337, block_size=32, batch_size=16, log=print):
    """Trains the model; returns (first loss, final validation loss, generated text)."""
    torch.manual_seed(seed)
    text = corpus()
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    n = int(0.9 * len(data))
    train_data, val_data = data[:n], data[n:]

    def get_batch(split):
        source = train_data if split == "train" else val_data
        ix = torch.randint(len(source) - block_size, (batch_size,))
        x = torch.stack([source[i:i + block_size] for i in ix])
        y = torch.stack([source[i + 1:i + 1 + block_size] for i in ix])
        return x, y

    model = build(torch)(len(chars), block_size)
    decay = [p for n_, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n_, p in model.named_parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=3e-3, betas=(0.9, 0.95))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / 20) * 0.5 * (1 + math.cos(math.pi * s / steps)))
    first = None
    start = time.time()
    for step in range(steps):
        x, y = get_batch("train")
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        first = loss.item() if first is None else first
        if step % 50 == 0 or step == steps - 1:
            log(f"step {step:4d}  loss {loss.item():.3f}  ({time.time() - start:.1f} s)")

    # A checkpoint round trip, as training scripts save one.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ckpt.pt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "step": steps}, path)
        checkpoint = torch.load(path)
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])

    model.eval()
    with torch.no_grad():
        losses = [model(*get_batch("val"))[1].item() for _ in range(10)]
    val_loss = sum(losses) / len(losses)
    context = torch.tensor([[stoi["T"]]], dtype=torch.long)
    sample = model.generate(context, max_new_tokens=200, temperature=0.8, top_k=20)
    generated = "".join(chars[i] for i in sample[0].tolist())
    return first, val_loss, generated


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1337)
    parser.add_argument("--backend", choices=["ember", "torch"], default="ember")
    args = parser.parse_args()
    if args.backend == "torch":
        import torch
    else:
        import ember as torch
    first, val_loss, generated = train(torch, args.steps, args.seed)
    print(f"first loss {first:.3f}, validation loss {val_loss:.3f}")
    print("sample:\n" + generated)


if __name__ == "__main__":
    main()
