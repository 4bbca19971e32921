"""A program in the shape of the PyTorch tutorials and popular examples, written for
ember's tests: it runs as it is with PyTorch, and with `import ember as torch`
(test_tutorial_programs.py)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint
torch.backends.cudnn.benchmark = True
torch.set_float32_matmul_precision('high')
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
class SiameseNetwork(nn.Module):
    def __init__(self):
        super(SiameseNetwork, self).__init__()
        self.cnn = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(inplace=True), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d((1, 1)))
        self.fc = nn.Sequential(nn.Linear(16 * 2, 32), nn.ReLU(inplace=True), nn.Linear(32, 1))
        self.sigmoid = nn.Sigmoid()
        self.cnn.apply(self.init_weights)
    def init_weights(self, m):
        if isinstance(m, nn.Linear) or isinstance(m, nn.Conv2d):
            torch.nn.init.xavier_uniform_(m.weight)
            m.bias.data.fill_(0.01)
    def forward_once(self, x):
        output = self.cnn(x)
        output = output.view(output.size()[0], -1)
        return output
    def forward(self, input1, input2):
        output1 = self.forward_once(input1)
        output2 = self.forward_once(input2)
        output = torch.cat((output1, output2), 1)
        output = self.fc(output)
        output = self.sigmoid(output)
        return output
model = SiameseNetwork()
opt = torch.optim.Adadelta(model.parameters(), lr=1.0)
crit = nn.BCELoss()
a, b = torch.randn(8, 1, 16, 16), torch.randn(8, 1, 16, 16)
t = torch.randint(0, 2, (8,)).float()
for _ in range(3):
    opt.zero_grad()
    out = model(a, b).squeeze()
    loss = crit(out, t); loss.backward(); opt.step()
print(loss.item())
anchor, positive, negative = torch.randn(10, 32, requires_grad=True), torch.randn(10, 32), torch.randn(10, 32)
tl = nn.TripletMarginLoss(margin=1.0, p=2)(anchor, positive, negative); tl.backward()
print(F.pairwise_distance(anchor, positive).shape, F.cosine_similarity(anchor, positive).shape, nn.CosineEmbeddingLoss()(anchor, positive, torch.ones(10)).item())
with torch.autocast("cpu", dtype=torch.bfloat16):
    y = nn.Linear(32, 16)(anchor)
print(y.dtype)
m = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 32))
x = torch.randn(4, 32, requires_grad=True)
y = checkpoint(m, x, use_reentrant=False)
y.sum().backward()
print(x.grad.shape)
cm = torch.compile(m)
print(cm(x).shape)
with torch.inference_mode():
    z = m(x)
print(z.requires_grad, torch.is_inference_mode_enabled())
scaler = torch.cuda.amp.GradScaler(enabled=False)
opt = torch.optim.AdamW(m.parameters(), lr=1e-3, fused=None)
loss = m(x).pow(2).mean()
scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
ema = torch.optim.swa_utils.AveragedModel(m)
ema.update_parameters(m)
print(sum(p.numel() for p in m.parameters() if p.requires_grad))
torch.manual_seed(0)
idx = torch.randperm(10)
print(idx, torch.bincount(torch.tensor([1, 1, 3])), torch.unique(torch.tensor([3, 1, 1]), return_counts=True))
x = torch.arange(12.).reshape(3, 4)
print(torch.einsum('ij,kj->ik', x, x), x.flip(0), torch.roll(x, 1, 1), torch.where(x > 5, x, torch.zeros_like(x)))
print(x.clamp(min=2, max=8), x.norm(dim=1), F.normalize(x, dim=1), torch.cdist(x, x))
print(torch.nn.functional.pad(x, (1, 1)), torch.stack([x, x]).shape, x.chunk(2, dim=1)[0].shape, torch.tensor(3.5).round())
print("OK")
