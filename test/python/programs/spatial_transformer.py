"""The Spatial Transformer Networks tutorial: a localization net regresses a 2x3 affine
matrix (initialised to identity via .data.zero_() / .copy_()), F.affine_grid and
F.grid_sample warp the input, on generated digits that are shifted and rotated."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)


def make_data(n, generator):
    """A class-specific 8x8 glyph placed in a 28x28 canvas, then randomly rotated/shifted."""
    glyphs = (torch.rand(10, 1, 8, 8, generator=torch.Generator().manual_seed(7)) > 0.5).float()
    y = torch.randint(0, 10, (n,), generator=generator)
    canvas = torch.zeros(n, 1, 28, 28)
    canvas[:, :, 10:18, 10:18] = glyphs[y]
    angle = (torch.rand(n, generator=generator) - 0.5) * math.pi / 6
    shift = (torch.rand(n, 2, generator=generator) - 0.5) * 0.3
    theta = torch.stack([torch.stack([angle.cos(), -angle.sin(), shift[:, 0]], 1),
                         torch.stack([angle.sin(), angle.cos(), shift[:, 1]], 1)], 1)
    grid = F.affine_grid(theta, canvas.size(), align_corners=False)
    return F.grid_sample(canvas, grid, align_corners=False), y


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)
        # Spatial transformer localization-network
        self.localization = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=7), nn.MaxPool2d(2, stride=2), nn.ReLU(True),
            nn.Conv2d(8, 10, kernel_size=5), nn.MaxPool2d(2, stride=2), nn.ReLU(True))
        # Regressor for the 3 * 2 affine matrix
        self.fc_loc = nn.Sequential(nn.Linear(10 * 3 * 3, 32), nn.ReLU(True), nn.Linear(32, 3 * 2))
        # Initialize the weights/bias with identity transformation
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    # Spatial transformer network forward function
    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 10 * 3 * 3)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size())
        x = F.grid_sample(x, grid)
        return x

    def forward(self, x):
        x = self.stn(x)
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


g = torch.Generator().manual_seed(1)
train_loader = DataLoader(TensorDataset(*make_data(1280, g)), batch_size=64, shuffle=True)
test_loader = DataLoader(TensorDataset(*make_data(320, g)), batch_size=64, shuffle=False)
model = Net().to(device)
with torch.no_grad():  # the identity initialisation leaves the input as it is
    x0 = train_loader.dataset.tensors[0][:4]
    assert torch.allclose(model.stn(x0), x0, atol=1e-5)
optimizer = optim.Adam(model.parameters(), lr=1e-3)


def train(epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 10 == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))


def test():
    with torch.no_grad():
        model.eval()
        test_loss = 0
        correct = 0
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, size_average=False).item()
            pred = output.max(1, keepdim=True)[1]
            correct += pred.eq(target.view_as(pred)).sum().item()
        test_loss /= len(test_loader.dataset)
        print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'
              .format(test_loss, correct, len(test_loader.dataset), 100. * correct / len(test_loader.dataset)))
        return correct / len(test_loader.dataset)


for epoch in range(1, 9):
    train(epoch)
accuracy = test()
assert accuracy > 0.5, accuracy
with torch.no_grad():
    transformed = model.stn(test_loader.dataset.tensors[0][:16])
print("warped batch", tuple(transformed.shape))
print("OK")
