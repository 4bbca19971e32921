"""The pruning tutorial (torch.nn.utils.prune: random/L1/Ln-structured, global, a custom
BasePruningMethod, prune.remove, masks as buffers and forward pre-hooks) and the
parametrizations tutorial (register_parametrization: symmetric and orthogonal weights,
cached, right_inverse, remove_parametrizations), on LeNet."""
import torch
from torch import nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune
import torch.nn.utils.parametrize as parametrize

torch.manual_seed(0)


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


model = LeNet()
module = model.conv1
print(list(module.named_parameters())[0][0], list(module.named_buffers()))
prune.random_unstructured(module, name="weight", amount=0.3)
assert [n for n, _ in module.named_parameters()] == ["bias", "weight_orig"]
assert [n for n, _ in module.named_buffers()] == ["weight_mask"]
assert torch.equal(module.weight, module.weight_orig * module.weight_mask)
print("hooks", list(module._forward_pre_hooks.values())[0].__class__.__name__)
prune.l1_unstructured(module, name="bias", amount=3)
assert int((module.bias == 0).sum()) == 3
prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
zero_channels = (module.weight.flatten(1).abs().sum(1) == 0).sum().item()
print("zero output channels", zero_channels)
assert zero_channels >= 3
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":  # select out the correct hook
        break
print("pruning history", [type(h).__name__ for h in hook])
prune.remove(module, "weight")
assert [n for n, _ in module.named_buffers()] == ["bias_mask"] and "weight" in dict(module.named_parameters())

# Global pruning across layers: 20% of all the weights, lowest L1 first.
model = LeNet()
parameters_to_prune = ((model.conv1, 'weight'), (model.conv2, 'weight'), (model.fc1, 'weight'),
                       (model.fc2, 'weight'), (model.fc3, 'weight'))
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
zeros = sum(float(torch.sum(m.weight == 0)) for m, _ in parameters_to_prune)
total = sum(float(m.weight.nelement()) for m, _ in parameters_to_prune)
print("Global sparsity: {:.2f}%".format(100. * zeros / total))
assert abs(zeros / total - 0.2) < 1e-3


class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor"""
    PRUNING_TYPE = 'unstructured'

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


model = LeNet()
foobar_unstructured(model.fc3, name='bias')
print(model.fc3.bias_mask)
assert model.fc3.bias_mask.tolist() == [0.0, 1.0] * 5
out = model(torch.randn(2, 1, 28, 28))
out.sum().backward()
assert torch.equal(model.fc3.bias_orig.grad == 0, model.fc3.bias_mask == 0)  # masked entries get no gradient


# Parametrizations: a symmetric weight, then an orthogonal one via the matrix exponential.
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)

    def right_inverse(self, A):  # A is skew-symmetric: its upper triangle determines it
        return A.triu(1)


class MatrixExponential(nn.Module):
    def forward(self, X):
        return torch.matrix_exp(X)

    def right_inverse(self, A):  # assigning the identity sets X = 0
        return torch.zeros_like(A)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
A = layer.weight
assert torch.allclose(A, A.T)
print(layer)
layer_orthogonal = nn.Linear(3, 3)
parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
parametrize.register_parametrization(layer_orthogonal, "weight", MatrixExponential())
X = layer_orthogonal.weight
assert torch.dist(X.T @ X, torch.eye(3)) < 1e-5
layer_orthogonal.weight = torch.eye(3)
assert torch.allclose(layer_orthogonal.weight, torch.eye(3))
optimizer = torch.optim.SGD(layer_orthogonal.parameters(), lr=0.1)
for _ in range(5):
    with parametrize.cached():
        loss = (layer_orthogonal(torch.randn(8, 3)) - torch.randn(8, 3)).pow(2).mean() + layer_orthogonal.weight.sum() * 0
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
W = layer_orthogonal.weight
assert torch.dist(W.T @ W, torch.eye(3)) < 1e-4, "still orthogonal after training"
print("parametrized", parametrize.is_parametrized(layer_orthogonal), list(layer_orthogonal.parametrizations.weight))
parametrize.remove_parametrizations(layer_orthogonal, "weight", leave_parametrized=True)
assert not parametrize.is_parametrized(layer_orthogonal) and torch.allclose(layer_orthogonal.weight, W)
print("OK")
