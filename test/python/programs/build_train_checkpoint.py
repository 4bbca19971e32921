"""A program in the shape of the PyTorch tutorials and popular examples, written for
ember's tests: it runs as it is with PyTorch, and with `import ember as torch`
(test_tutorial_programs.py)."""
import os, io, tempfile
import torch
from torch import nn
from torch.utils.data import DataLoader, random_split, TensorDataset
from torch.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence
device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")
class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(nn.Linear(28*28, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits
model = NeuralNetwork().to(device)
print(model)
X = torch.rand(1, 28, 28, device=device)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
# train / test loop with scheduler, checkpoint
ds = TensorDataset(torch.randn(512, 28, 28), torch.randint(0, 10, (512,)))
train_ds, test_ds = random_split(ds, [400, 112], generator=torch.Generator().manual_seed(42))
train_dataloader = DataLoader(train_ds, batch_size=64, shuffle=True)
test_dataloader = DataLoader(test_ds, batch_size=64)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9, nesterov=True)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward(); optimizer.step(); optimizer.zero_grad()
        if batch % 5 == 0:
            loss, current = loss.item(), batch * 64 + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")
def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset); num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches; correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
for t in range(3):
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
    scheduler.step()
    print(scheduler.get_last_lr())
d = tempfile.mkdtemp()
torch.save({'epoch': 3, 'model_state_dict': model.state_dict(), 'optimizer_state_dict': optimizer.state_dict(), 'loss': 0.5}, os.path.join(d, 'ckpt.pt'))
ck = torch.load(os.path.join(d, 'ckpt.pt'), weights_only=True)
model2 = NeuralNetwork(); model2.load_state_dict(ck['model_state_dict'])
opt2 = torch.optim.SGD(model2.parameters(), lr=1e-3, momentum=0.9, nesterov=True); opt2.load_state_dict(ck['optimizer_state_dict'])
torch.save(model, os.path.join(d, 'model.pth'))
m3 = torch.load(os.path.join(d, 'model.pth'), weights_only=False)
m3.eval()
assert torch.equal(m3(X), model(X).detach()) or torch.allclose(m3(X), model(X))
buf = io.BytesIO(); torch.save(model.state_dict(), buf); buf.seek(0); sd = torch.load(buf)
# rnn utils
seqs = [torch.randn(5, 3), torch.randn(3, 3), torch.randn(2, 3)]
lengths = torch.tensor([len(s) for s in seqs])
padded = pad_sequence(seqs, batch_first=True)
packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
gru = nn.GRU(3, 4, batch_first=True, bidirectional=True)
out, h = gru(packed)
out, out_lens = pad_packed_sequence(out, batch_first=True)
print(out.shape, out_lens, h.shape)
# text classification with EmbeddingBag
class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super(TextClassificationModel, self).__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()
    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()
    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)
def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(_label)
        processed_text = torch.tensor(_text, dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list.to(device), text_list.to(device), offsets.to(device)
data = [(i % 4, [((i * 7 + j) % 50) for j in range(3 + i % 5)]) for i in range(200)]
dl = DataLoader(data, batch_size=16, shuffle=True, collate_fn=collate_batch)
m = TextClassificationModel(50, 16, 4)
opt = torch.optim.SGD(m.parameters(), lr=5)
sched = torch.optim.lr_scheduler.StepLR(opt, 1.0, gamma=0.1)
crit = torch.nn.CrossEntropyLoss()
for epoch in range(3):
    total_acc, total_count = 0, 0
    for idx, (label, text, offsets) in enumerate(dl):
        opt.zero_grad()
        predicted_label = m(text, offsets)
        loss = crit(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 0.1)
        opt.step()
        total_acc += (predicted_label.argmax(1) == label).sum().item()
        total_count += label.size(0)
    sched.step()
    print(epoch, total_acc / total_count)
# one-cycle, plateau
opt = torch.optim.Adam(m.parameters(), lr=1e-3)
oc = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.01, steps_per_epoch=10, epochs=2)
for _ in range(20):
    opt.step(); oc.step()
pl = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, 'min', patience=1)
for v in [1.0, 1.0, 1.0, 1.0]:
    pl.step(v)
print(opt.param_groups[0]['lr'])
print("OK")
