"""The fused optimizer updates on CUDA (lib/cuda/optim/) against the CPU kernels: a
few steps of every optimizer and option combination on the same parameters and
gradients on both devices; parameters and state agree to rounding (the same
expressions in the same order; nvcc may fuse a multiply-add). float32 and float64,
contiguous and non-contiguous parameters and gradients, empty and 0-dim ones.
Skipped without a GPU."""
import numpy as np
import pytest

import ember
import ember.optim as optim

pytestmark = pytest.mark.cuda

STEPS = 4
RNG = np.random.default_rng(0)
SHAPES = [(3, 4), (5,), (), (0, 3), (1000, 33)]

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.9), eps=1e-6, maximize=True)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.05)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, centered=True, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, maximize=True)),
]

# float32: the CUDA loops contract a * b + c into one rounding (FMA) where the CPU rounds
# twice; over the steps that moves near-zero state entries by about 1e-6.
TOL = {ember.float32: (2e-5, 1e-5), ember.float64: (1e-12, 1e-14)}


def grads_for(shape, steps):
    return [RNG.standard_normal(shape) for _ in range(steps)]


def run(name, kwargs, weights, grads, device, dtype, transposed):
    params = []
    for w in weights:
        if transposed and w.ndim == 2:
            t = ember.from_numpy(np.ascontiguousarray(w.T)).to(dtype).to(device).t()
        else:
            t = ember.from_numpy(w.copy()).to(dtype).to(device)
        params.append(t.detach().requires_grad_())
    opt = getattr(optim, name)(params, **kwargs)
    for step in range(STEPS):
        for p, g in zip(params, grads):
            gs = g[step]
            if transposed and gs.ndim == 2:
                p.grad = ember.from_numpy(np.ascontiguousarray(gs.T)).to(dtype).to(device).t()
            else:
                p.grad = ember.from_numpy(gs.copy()).to(dtype).to(device)
        opt.step()
    return params, opt


def state_tensors(opt, p):
    return {k: v for k, v in opt.state[p].items() if isinstance(v, ember.Tensor) and k != "step"}


@pytest.mark.parametrize("name, kwargs", CASES)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("transposed", [False, True])
def test_steps_agree_with_cpu(name, kwargs, dtype, transposed):
    weights = [RNG.standard_normal(s) for s in SHAPES]
    grads = [grads_for(s, STEPS) for s in SHAPES]
    cpu_params, cpu_opt = run(name, kwargs, weights, grads, "cpu", dtype, transposed)
    cuda_params, cuda_opt = run(name, kwargs, weights, grads, "cuda", dtype, transposed)
    rtol, atol = TOL[dtype]
    for c, g in zip(cpu_params, cuda_params):
        assert g.is_cuda and g.dtype == dtype and tuple(g.shape) == tuple(c.shape)
        np.testing.assert_allclose(g.detach().cpu().numpy(), c.detach().numpy(), rtol=rtol, atol=atol)
        cs, gs = state_tensors(cpu_opt, c), state_tensors(cuda_opt, g)
        assert sorted(cs) == sorted(gs)
        for key in cs:
            assert gs[key].is_cuda, key
            np.testing.assert_allclose(gs[key].cpu().numpy(), cs[key].numpy(), rtol=rtol, atol=atol, err_msg=key)
