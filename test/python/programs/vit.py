"""A small Vision Transformer (patches by a strided Conv2d and by einops-style reshapes with
torch.einsum, a class token, learned positions, nn.MultiheadAttention(batch_first=True),
pre-norm blocks with GELU) trained with AdamW, warmup + cosine LR (LambdaLR) and label
smoothing on generated 16x16 images of stripes."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def make_images(n, generator):
    """Class k = stripes at angle k*45 degrees, with noise."""
    y = torch.randint(0, 4, (n,), generator=generator)
    ii, jj = torch.meshgrid(torch.arange(16.), torch.arange(16.), indexing="ij")
    angle = y.float() * math.pi / 4
    phase = torch.rand(n, generator=generator) * 2 * math.pi
    proj = ii[None] * torch.cos(angle)[:, None, None] + jj[None] * torch.sin(angle)[:, None, None]
    x = torch.sin(proj * 1.2 + phase[:, None, None]) + 0.3 * torch.randn(n, 16, 16, generator=generator)
    return x.unsqueeze(1), y


class PatchEmbed(nn.Module):
    def __init__(self, patch=4, in_chans=1, dim=48):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, dim, kernel_size=patch, stride=patch)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)  # (B, N, D)


class Block(nn.Module):
    def __init__(self, dim, heads, mlp_ratio=2.0, drop=0.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, dropout=drop, batch_first=True)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, int(dim * mlp_ratio)), nn.GELU(approximate="tanh"),
                                 nn.Dropout(drop), nn.Linear(int(dim * mlp_ratio), dim))

    def forward(self, x, need_weights=False):
        h = self.norm1(x)
        a, w = self.attn(h, h, h, need_weights=need_weights, average_attn_weights=True)
        x = x + a
        return x + self.mlp(self.norm2(x)), w


class ViT(nn.Module):
    def __init__(self, num_classes=4, dim=48, depth=3, heads=4, patch=4, img=16):
        super().__init__()
        self.patch_embed = PatchEmbed(patch, 1, dim)
        n = (img // patch) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, n + 1, dim))
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x, return_attn=False):
        x = self.patch_embed(x)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, x), dim=1) + self.pos_embed
        attn = None
        for i, blk in enumerate(self.blocks):
            x, w = blk(x, need_weights=return_attn and i == len(self.blocks) - 1)
            attn = w if w is not None else attn
        logits = self.head(self.norm(x)[:, 0])
        return (logits, attn) if return_attn else logits


def patchify_einsum(imgs, p):
    """The same patches as the strided conv sees, by reshape and einsum (MAE's patchify)."""
    b, c, h, w = imgs.shape
    x = imgs.reshape(b, c, h // p, p, w // p, p)
    x = torch.einsum("nchpwq->nhwpqc", x)
    return x.reshape(b, (h // p) * (w // p), p * p * c)


g = torch.Generator().manual_seed(0)
x_train, y_train = make_images(1024, g)
x_test, y_test = make_images(256, g)
loader = DataLoader(TensorDataset(x_train, y_train), batch_size=64, shuffle=True, drop_last=True)

model = ViT()
# The conv patch embedding is a linear map of einsum patches: check they agree.
w = model.patch_embed.proj.weight  # (D, C, p, p)
via_einsum = torch.einsum("bnk,dk->bnd", patchify_einsum(x_train[:2], 4),
                          w.permute(0, 2, 3, 1).reshape(w.shape[0], -1)) + model.patch_embed.proj.bias
assert torch.allclose(via_einsum, model.patch_embed(x_train[:2]), atol=1e-5)

decay = [p for n, p in model.named_parameters() if p.ndim >= 2 and "embed" not in n]
no_decay = [p for n, p in model.named_parameters() if p.ndim < 2 or "embed" in n]
optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05},
                               {"params": no_decay, "weight_decay": 0.0}], lr=2e-3, betas=(0.9, 0.999))
epochs, steps = 6, len(loader)
warmup = steps


def lr_lambda(step):
    if step < warmup:
        return (step + 1) / warmup
    return 0.5 * (1 + math.cos(math.pi * (step - warmup) / (epochs * steps - warmup)))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
for epoch in range(epochs):
    model.train()
    running = 0.0
    for xb, yb in loader:
        loss = criterion(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        running += loss.item()
    model.eval()
    with torch.inference_mode():
        logits, attn = model(x_test, return_attn=True)
        acc = (logits.argmax(-1) == y_test).float().mean().item()
    print(f"epoch {epoch} loss {running / steps:.4f} test acc {acc:.3f} lr {scheduler.get_last_lr()[0]:.2e}")
print("attention map", tuple(attn.shape), "rows sum to", round(attn[0].sum(-1).mean().item(), 4))
assert acc > 0.8, acc
print("OK")
