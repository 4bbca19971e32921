"""pytorch/examples mnist_forward_forward: Hinton's Forward-Forward algorithm, each layer
trained on its own with positive (true label overlaid) and negative (wrong label) data,
on generated MNIST-shaped data."""
import torch
import torch.nn as nn
from torch.optim import Adam


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 10, (n,), generator=g)
    prototypes = torch.rand(10, 784, generator=torch.Generator().manual_seed(123))
    x = prototypes[y] + 0.3 * torch.randn(n, 784, generator=g)
    x = (x - x.mean()) / x.std()
    return x, y


def overlay_y_on_x(x, y):
    """Replace the first 10 pixels of data [x] with one-hot-encoded label [y]."""
    x_ = x.clone()
    x_[:, :10] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Net(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers += [Layer(dims[d], dims[d + 1])]

    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness += [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = torch.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print('training layer', i, '...')
            h_pos, h_neg = layer.train(h_pos, h_neg)


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=0.03)
        self.threshold = 2.0
        self.num_epochs = 60

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            # The following loss pushes pos (neg) samples to values larger (smaller) than the
            # self.threshold.
            loss = torch.log(1 + torch.exp(torch.cat([-g_pos + self.threshold,
                                                      g_neg - self.threshold]))).mean()
            self.opt.zero_grad()
            # this backward just compute the derivative and hence is not considered backpropagation.
            loss.backward()
            self.opt.step()
            if i % 20 == 0:
                print('  epoch', i, 'loss {:.4f}'.format(loss.item()))
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


if __name__ == "__main__":
    torch.manual_seed(1234)
    x, y = make_data(1000, 0)
    x_te, y_te = make_data(500, 1)

    net = Net([784, 200, 200])
    x_pos = overlay_y_on_x(x, y)
    rnd = torch.randperm(x.size(0))
    x_neg = overlay_y_on_x(x, y[rnd])

    net.train(x_pos, x_neg)
    train_error = 1.0 - net.predict(x).eq(y).float().mean().item()
    print('train error:', train_error)
    test_error = 1.0 - net.predict(x_te).eq(y_te).float().mean().item()
    print('test error:', test_error)
    assert test_error < 0.5, test_error
    print("OK")
