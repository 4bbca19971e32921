"""Training on CUDA end to end: the same model, data and optimizer on CPU and on CUDA
give the same losses (within float tolerance), backward runs on the forward's
streams, and a steady loop makes no cudaMalloc call after its first iteration."""
import numpy as np
import pytest

import ember

pytestmark = pytest.mark.cuda


def make_model(seed):
    ember.manual_seed(seed)
    return ember.nn.Sequential(
        ember.nn.Conv2d(1, 8, 3, padding=1), ember.nn.BatchNorm2d(8), ember.nn.ReLU(),
        ember.nn.MaxPool2d(2), ember.nn.Flatten(), ember.nn.Linear(8 * 4 * 4, 32),
        ember.nn.GELU(), ember.nn.Dropout(0.0), ember.nn.Linear(32, 10))


def data(n=64, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 10, n).astype(np.int64)
    return ember.from_numpy(x), ember.from_numpy(y)


def train(device, optimizer, steps=8):
    model = make_model(0).to(device)
    x, y = data()
    x, y = x.to(device), y.to(device)
    opt = optimizer(model.parameters())
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ember.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, model


@pytest.mark.parametrize("optimizer", [
    lambda p: ember.optim.SGD(p, lr=0.1, momentum=0.9),
    lambda p: ember.optim.AdamW(p, lr=1e-2),
    lambda p: ember.optim.RMSprop(p, lr=1e-3),
    lambda p: ember.optim.Adagrad(p, lr=1e-2),
], ids=["sgd", "adamw", "rmsprop", "adagrad"])
def test_cuda_training_matches_cpu(optimizer):
    ember.backends.cudnn.allow_tf32 = False
    ember.backends.cuda.matmul.allow_tf32 = False
    cpu_losses, cpu_model = train("cpu", optimizer)
    gpu_losses, gpu_model = train("cuda", optimizer)
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-3, atol=1e-4)
    for (name, p_cpu), (_, p_gpu) in zip(cpu_model.named_parameters(), gpu_model.named_parameters()):
        assert p_gpu.is_cuda
        np.testing.assert_allclose(p_gpu.detach().cpu().numpy(), p_cpu.detach().numpy(),
                                   rtol=1e-3, atol=1e-4, err_msg=name)


def test_steady_loop_makes_no_cuda_malloc():
    model = make_model(0).to("cuda")
    x, y = data()
    x, y = x.to("cuda"), y.to("cuda")
    opt = ember.optim.AdamW(model.parameters(), lr=1e-3)
    raw_after_first = None
    for i in range(10):
        opt.zero_grad()
        ember.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        if i == 0:
            ember.cuda.synchronize()
            raw_after_first = ember.cuda.memory_stats()["num_raw_allocs"]
    ember.cuda.synchronize()
    assert ember.cuda.memory_stats()["num_raw_allocs"] == raw_after_first


def test_backward_runs_on_the_forward_stream():
    s = ember.cuda.Stream()
    x = ember.randn(256, 256, device="cuda", requires_grad=True)
    with ember.cuda.stream(s):
        y = (x * 2).relu().sum()
    # backward from the default stream: the engine runs the nodes on `s` and the
    # current stream waits for it before backward() returns.
    y.backward()
    expected = 2.0 * (x.detach() > 0).to(ember.float32)
    np.testing.assert_allclose(x.grad.cpu().numpy(), expected.cpu().numpy())
