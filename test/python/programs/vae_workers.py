"""pytorch/examples vae, fed by a custom map-style Dataset through a DataLoader with worker
processes (num_workers, worker_init_fn, persistent_workers, a generator for the shuffle)."""
import math
import numpy as np
import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F
from torch.utils.data import Dataset, DataLoader, get_worker_info


class BlobImages(Dataset):
    """28x28 images of one bright blob each, drawn on the fly from the index."""

    def __init__(self, n, seed):
        rng = np.random.RandomState(seed)
        self.centers = rng.uniform(6, 22, size=(n, 2)).astype(np.float32)
        self.grid = np.stack(np.meshgrid(np.arange(28), np.arange(28), indexing="ij"), -1)

    def __len__(self):
        return len(self.centers)

    def __getitem__(self, idx):
        d2 = ((self.grid - self.centers[idx]) ** 2).sum(-1)
        img = np.exp(-d2 / 18.0).astype(np.float32)[None]
        return torch.from_numpy(img), int(self.centers[idx, 0] > 14)


def worker_init_fn(worker_id):
    info = get_worker_info()
    assert info.id == worker_id and isinstance(info.dataset, BlobImages)
    np.random.seed(info.seed % 2**32)


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(784, 200)
        self.fc21 = nn.Linear(200, 8)
        self.fc22 = nn.Linear(200, 8)
        self.fc3 = nn.Linear(8, 200)
        self.fc4 = nn.Linear(200, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5*logvar)
        eps = torch.randn_like(std)
        return mu + eps*std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


# Reconstruction + KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction='sum')
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def train(epoch, model, optimizer, train_loader):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    avg = train_loss / len(train_loader.dataset)
    print('====> Epoch: {} Average loss: {:.4f}'.format(epoch, avg))
    return avg


def test(model, test_loader):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i, (data, _) in enumerate(test_loader):
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
    test_loss /= len(test_loader.dataset)
    print('====> Test set loss: {:.4f}'.format(test_loss))
    return test_loss


if __name__ == "__main__":
    torch.manual_seed(1)
    kwargs = {'num_workers': 2, 'worker_init_fn': worker_init_fn, 'persistent_workers': True}
    train_loader = DataLoader(BlobImages(1024, 0), batch_size=128, shuffle=True,
                              generator=torch.Generator().manual_seed(0), **kwargs)
    test_loader = DataLoader(BlobImages(256, 1), batch_size=128, shuffle=False, **kwargs)
    model = VAE()
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    losses = [train(epoch, model, optimizer, train_loader) for epoch in range(1, 6)]
    test_loss = test(model, test_loader)
    assert losses[-1] < losses[0] and math.isfinite(test_loss)
    with torch.no_grad():
        sample = model.decode(torch.randn(64, 8))
    print(tuple(sample.view(64, 1, 28, 28).shape))
    print("OK")
