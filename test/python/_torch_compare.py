"""Run the same call on ember and torch (same float64 inputs) and compare the values and
the gradients of every floating input. Used by the nnextra tests (losses, layers,
transformer decoder)."""
import numpy as np

import ember


def _pair(torch, a, grad):
    a = np.asarray(a)
    e = ember.from_numpy(a.copy())
    t = torch.from_numpy(a.copy())
    if grad and a.dtype.kind == "f":
        e.requires_grad_()
        t.requires_grad_()
    return e, t


def check_same(torch, fn, *arrays, grad=True, rtol=1e-6, atol=1e-8, transpose=(), nograd=()):
    """fn(F, *tensors) with F the functional module of each library; arrays are numpy.
    Inputs at the positions in `transpose` are passed as transposed (non-contiguous) views;
    those in `nograd` do not require grad (torch's non-differentiable arguments)."""
    import torch.nn.functional as TF

    import ember.nn.functional as EF
    pairs = [_pair(torch, a, grad and i not in nograd) for i, a in enumerate(arrays)]
    e_in = [e.t() if i in transpose else e for i, (e, _) in enumerate(pairs)]
    t_in = [t.t() if i in transpose else t for i, (_, t) in enumerate(pairs)]
    e_out = fn(EF, *e_in)
    t_out = fn(TF, *t_in)
    e_out = e_out if isinstance(e_out, tuple) else (e_out,)
    t_out = t_out if isinstance(t_out, tuple) else (t_out,)
    for eo, to in zip(e_out, t_out):
        assert tuple(eo.shape) == tuple(to.shape), f"shape {tuple(eo.shape)} != {tuple(to.shape)}"
        assert str(eo.dtype).split(".")[-1] == str(to.dtype).split(".")[-1]
        np.testing.assert_allclose(eo.detach().numpy(), to.detach().numpy(), rtol=rtol, atol=atol)
    if grad and e_out[0].requires_grad:
        seed = np.random.default_rng(0).standard_normal(tuple(t_out[0].shape))
        e_out[0].backward(ember.from_numpy(seed.copy()))
        t_out[0].backward(torch.from_numpy(seed.copy()))
        for (e, t) in pairs:
            if t.requires_grad:
                assert (e.grad is None) == (t.grad is None)
                if t.grad is not None:
                    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=rtol * 10,
                                               atol=atol * 10)
    return e_out


def copy_state(torch_module, ember_module):
    """Loads torch_module's state_dict into ember_module (strict: the names must match)."""
    sd = {k: ember.from_numpy(v.detach().numpy().copy()) for k, v in
          torch_module.state_dict().items()}
    ember_module.load_state_dict(sd)


def assert_same(ember_tensor, torch_tensor, tol=1e-10):
    """Equal values (through numpy), within tol both relative and absolute."""
    np.testing.assert_allclose(ember_tensor.detach().numpy(), torch_tensor.detach().numpy(),
                               rtol=tol, atol=tol)


def module_pair(torch, make_ember, make_torch, seed=0):
    """(ember module, torch module) in float64 with the torch one's initial weights
    (torch seeded with seed) copied into the ember one."""
    torch.manual_seed(seed)
    torch_module = make_torch().double()
    ember_module = make_ember().double()
    copy_state(torch_module, ember_module)
    return ember_module, torch_module
