"""The torch.func tutorial "Jacobians, Hessians, hvp, vhp, and more": jacrev / jacfwd,
vmap over a batch, hessian, jvp / vjp, hvp by forward-over-reverse, compared with
torch.autograd.functional and with finite differences."""
from functools import partial
import torch
import torch.nn.functional as F
from torch.func import functional_call, grad, hessian, jacfwd, jacrev, jvp, vjp, vmap

torch.manual_seed(0)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 16
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)  # feature vector

# Jacobian with respect to x: by reverse mode, forward mode, and autograd.functional.
jacobian = jacrev(predict, argnums=2)(weight, bias, x)
jacobian_fwd = jacfwd(predict, argnums=2)(weight, bias, x)
reference = torch.autograd.functional.jacobian(lambda x_: predict(weight, bias, x_), x)
assert torch.allclose(jacobian, reference, atol=1e-6) and torch.allclose(jacobian_fwd, reference, atol=1e-6)
print("jacobian", tuple(jacobian.shape), "max |J|", round(jacobian.abs().max().item(), 4))

# Jacobians with respect to several arguments at once.
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
assert ft_jac_weight.shape == (D, D, D) and ft_jac_bias.shape == (D, D)

# Batch Jacobian: vmap over the batch of inputs.
batch_size = 64
xb = torch.randn(batch_size, D)
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, xb)
# ... and the sum trick: the Jacobian of the batch-summed output.
def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)
batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, xb).movedim(1, 0)
assert torch.allclose(batch_jacobian0, batch_jacobian1, atol=1e-6)
print("batch jacobian", tuple(batch_jacobian0.shape))

# Hessians: hessian(f) is jacfwd(jacrev(f)).
hess_api = hessian(predict, argnums=2)(weight, bias, x)
hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
assert torch.allclose(hess_api, hess_fwdfwd, atol=1e-5)
print("hessian", tuple(hess_api.shape))

# Batch Hessian.
compute_batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))
batch_hess = compute_batch_hessian(weight, bias, xb[:8])
assert batch_hess.shape == (8, D, D, D)


# Hessian-vector products, forward-over-reverse, against the autograd.functional one.
def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


def f(x):
    return x.sin().sum()


v = torch.randn(D)
result = hvp(f, (x,), (v,))
assert torch.allclose(result, -x.sin() * v, atol=1e-6)
assert torch.allclose(result, torch.autograd.functional.hvp(f, x, v)[1], atol=1e-6)
_, vjp_fn = vjp(partial(predict, weight, bias), x)
(vjp_x,) = vjp_fn(torch.ones(D))
assert torch.allclose(vjp_x, jacobian.sum(0), atol=1e-6)

# functional_call: the same Jacobian taken with respect to a module's parameters.
model = torch.nn.Linear(D, D)
params = {k: v.detach() for k, v in model.named_parameters()}
jac_params = jacrev(lambda p, inp: functional_call(model, p, (inp,)).tanh())(params, x)
assert jac_params["weight"].shape == (D, D, D) and jac_params["bias"].shape == (D, D)

# Finite differences in float64 agree with the reverse-mode Jacobian.
w64, b64, x64 = weight.double(), bias.double(), x.double()
eps = 1e-6
fd = torch.stack([(predict(w64, b64, x64 + eps * e) - predict(w64, b64, x64 - eps * e)) / (2 * eps)
                  for e in torch.eye(D, dtype=torch.float64)], dim=1)
assert torch.allclose(fd, jacrev(predict, argnums=2)(w64, b64, x64), atol=1e-8)
print("finite differences agree")
print("OK")
