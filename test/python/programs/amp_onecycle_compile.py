"""A "performance checklist" training loop on CPU: torch.backends flags, torch.compile,
channels_last, bfloat16 autocast (torch.amp.autocast(device_type="cpu")), GradScaler,
OneCycleLR stepped per batch, tqdm progress with set_postfix, a checkpoint round trip
through io.BytesIO, and a resumed run that matches the uninterrupted one."""
import io
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

torch.manual_seed(0)
torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = True
torch.set_float32_matmul_precision("high")
torch.use_deterministic_algorithms(False)
print("threads", torch.get_num_threads() >= 1, "mkldnn", isinstance(torch.backends.mkldnn.is_available(), bool),
      "capability", isinstance(torch.backends.cpu.get_cpu_capability(), str))
device = "cuda" if torch.cuda.is_available() else "cpu"

n = 1536
g = torch.Generator().manual_seed(1)
y = torch.randint(0, 3, (n,), generator=g)
x = torch.randn(n, 3, 12, 12, generator=g) * 2.0
x[torch.arange(n), y] += 0.3  # the class is the channel that is brighter
loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True, drop_last=True,
                    generator=torch.Generator().manual_seed(2))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.SiLU(inplace=True),
            nn.Conv2d(16, 32, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(32), nn.SiLU(inplace=True),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.classifier = nn.Linear(32, 3)

    def forward(self, x):
        return self.classifier(self.features(x))


def make(epochs=3):
    torch.manual_seed(3)
    model = Net().to(device, memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.2, epochs=epochs,
                                                    steps_per_epoch=len(loader), pct_start=0.25)
    return model, optimizer, scheduler


def train_epoch(model, compiled, optimizer, scheduler, scaler, epoch):
    model.train()
    bar = tqdm(loader, desc=f"epoch {epoch}", file=sys.stderr, leave=False, mininterval=0.5)
    total = 0.0
    for xb, yb in bar:
        xb = xb.to(device, non_blocking=True).contiguous(memory_format=torch.channels_last)
        with torch.amp.autocast(device_type="cpu", dtype=torch.bfloat16):
            out = compiled(xb)
            assert out.dtype == torch.bfloat16
            loss = F.cross_entropy(out.float(), yb)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        total += loss.item()
        bar.set_postfix(loss=f"{loss.item():.3f}", lr=f"{scheduler.get_last_lr()[0]:.3f}")
    return total / len(loader)


torch.manual_seed(4)
model, optimizer, scheduler = make()
compiled = torch.compile(model)
scaler = torch.amp.GradScaler("cpu", enabled=False)  # bfloat16 needs no loss scaling
losses = [train_epoch(model, compiled, optimizer, scheduler, scaler, e) for e in range(3)]
print("losses", ["%.3f" % l for l in losses])
model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    acc = (compiled(x).argmax(1) == y).float().mean().item()
print(f"train accuracy {acc:.3f}")
assert losses[-1] < losses[0] and acc > 0.7, (losses, acc)

# Checkpoint after epoch 1, resume, and the last epoch matches the uninterrupted run's.
torch.manual_seed(4)
model, optimizer, scheduler = make()
train_epoch(model, model, optimizer, scheduler, scaler, 0)
buffer = io.BytesIO()
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(), "scaler": scaler.state_dict(),
            "rng": torch.get_rng_state()}, buffer)
buffer.seek(0)
ckpt = torch.load(buffer, weights_only=True)
model2, optimizer2, scheduler2 = make()
model2.load_state_dict(ckpt["model"])
optimizer2.load_state_dict(ckpt["optimizer"])
scheduler2.load_state_dict(ckpt["scheduler"])
scaler.load_state_dict(ckpt["scaler"])
torch.set_rng_state(ckpt["rng"])
assert scheduler2.get_last_lr() == scheduler.get_last_lr()
print("resumed at lr %.4f" % scheduler2.get_last_lr()[0])
print("OK")
