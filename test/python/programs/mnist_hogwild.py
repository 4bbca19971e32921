"""pytorch/examples mnist_hogwild: a model in shared memory trained by several processes at
once (torch.multiprocessing, model.share_memory()), on generated MNIST-shaped data."""
import argparse
import os
import torch
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(20, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 20)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def make_dataset(n, seed):
    g = torch.Generator().manual_seed(seed)
    target = torch.randint(0, 10, (n,), generator=g)
    data = torch.rand(n, 1, 16, 16, generator=g) * 0.3
    for digit in range(10):  # each class lights up its own band of rows
        data[target == digit, :, digit:digit + 4, 2:14] += 0.7
    return TensorDataset((data - 0.1307) / 0.3081, target)


def train(rank, args, model, device, dataset, dataloader_kwargs):
    torch.manual_seed(args.seed + rank)
    train_loader = DataLoader(dataset, **dataloader_kwargs)
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    for epoch in range(1, args.epochs + 1):
        train_epoch(epoch, args, model, device, train_loader, optimizer)


def train_epoch(epoch, args, model, device, data_loader, optimizer):
    model.train()
    pid = os.getpid()
    for batch_idx, (data, target) in enumerate(data_loader):
        optimizer.zero_grad()
        output = model(data.to(device))
        loss = F.nll_loss(output, target.to(device))
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('{}\tTrain Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                pid, epoch, batch_idx * len(data), len(data_loader.dataset),
                100. * batch_idx / len(data_loader), loss.item()), flush=True)


def test(args, model, device, dataset, dataloader_kwargs):
    torch.manual_seed(args.seed)
    test_loader = DataLoader(dataset, **dataloader_kwargs)
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data.to(device))
            test_loss += F.nll_loss(output, target.to(device), reduction='sum').item()
            pred = output.max(1)[1]
            correct += pred.eq(target.to(device)).sum().item()
    test_loss /= len(test_loader.dataset)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset), 100. * correct / len(test_loader.dataset)))
    return correct / len(test_loader.dataset)


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='PyTorch MNIST Hogwild Example')
    parser.add_argument('--batch-size', type=int, default=32)
    parser.add_argument('--epochs', type=int, default=3)
    parser.add_argument('--lr', type=float, default=0.05)
    parser.add_argument('--momentum', type=float, default=0.5)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--log-interval', type=int, default=10)
    parser.add_argument('--num-processes', type=int, default=2)
    args = parser.parse_args([])

    device = torch.device("cpu")
    dataset1 = make_dataset(640, 0)
    dataset2 = make_dataset(200, 1)
    kwargs = {'batch_size': args.batch_size, 'shuffle': True}

    torch.manual_seed(args.seed)
    mp.set_start_method('spawn', force=True)

    model = Net().to(device)
    model.share_memory()  # gradients are allocated lazily, so they are not shared here
    before = model.fc2.bias.clone()

    processes = []
    for rank in range(args.num_processes):
        p = mp.Process(target=train, args=(rank, args, model, device, dataset1, kwargs))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
        assert p.exitcode == 0, p.exitcode

    # The workers trained the parent's parameters in place, through the shared memory.
    assert not torch.equal(before, model.fc2.bias)
    accuracy = test(args, model, device, dataset2, kwargs)
    assert accuracy > 0.5, accuracy
    print("OK")
