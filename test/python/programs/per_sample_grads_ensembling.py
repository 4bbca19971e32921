"""A program in the shape of the PyTorch tutorials and popular examples, written for
ember's tests: it runs as it is with PyTorch, and with `import ember as torch`
(test_tutorial_programs.py)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, vmap, grad, jacrev, jacfwd, hessian, vjp, jvp
torch.manual_seed(0)
class SimpleCNN(nn.Module):
    def __init__(self):
        super(SimpleCNN, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)
    def forward(self, x):
        x = self.conv1(x); x = F.relu(x)
        x = self.conv2(x); x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        x = self.fc1(x); x = F.relu(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output
def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)
device = 'cpu'
num_models = 10
batch_size = 8
data = torch.randn(batch_size, 1, 28, 28, device=device)
targets = torch.randint(10, (8,), device=device)
model = SimpleCNN().to(device=device)
predictions = model(data)
loss = loss_fn(predictions, targets)
loss.backward()
def compute_grad(sample, target):
    sample = sample.unsqueeze(0); target = target.unsqueeze(0)
    prediction = model(sample)
    loss = loss_fn(prediction, target)
    return torch.autograd.grad(loss, list(model.parameters()))
def compute_sample_grads(data, targets):
    sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
    sample_grads = zip(*sample_grads)
    sample_grads = [torch.stack(shards) for shards in sample_grads]
    return sample_grads
per_sample_grads = compute_sample_grads(data, targets)
print(per_sample_grads[1].shape)
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}
def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0); targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    loss = loss_fn(predictions, targets)
    return loss
ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
    assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
torch.manual_seed(0)
def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()
D = 16
weight = torch.randn(D, D); bias = torch.randn(D); x = torch.randn(D)
jacobian = jacrev(predict, argnums=2)(weight, bias, x)
print(jacobian.shape)
jac_fwd = jacfwd(predict, argnums=2)(weight, bias, x)
assert torch.allclose(jacobian, jac_fwd, atol=1e-5)
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
hess_api = hessian(predict, argnums=2)(weight, bias, x)
print(hess_api.shape)
def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]
def f(x):
    return x.sin().sum()
x = torch.randn(2048); tangent = torch.randn(2048)
result = hvp(f, (x,), (tangent,))
assert torch.allclose(result, -x.sin() * tangent, atol=1e-5)
from torch.func import stack_module_state
import copy
models = [nn.Sequential(nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 10)) for _ in range(num_models)]
minibatch = torch.randn(64, 784)
params, buffers = stack_module_state(models)
base_model = copy.deepcopy(models[0])
base_model = base_model.to('meta')
def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))
predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
predictions2 = [model(minibatch) for model in models]
assert torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-3, rtol=1e-5)
print("OK")
