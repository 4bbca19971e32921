"""Cross-device checks for the CUDA kernels: run one function on CPU tensors and on
CUDA copies of them, and compare what comes out, values and gradients.

    check_against_cpu(lambda x, y: x + y, np_array, ember_tensor, grad=True)

- Inputs may be numpy arrays, ember tensors (any device; copied to each device with
  their dtype and shape, and a permuted input stays permuted), Python numbers and
  other values (passed through unchanged). For sliced or expanded inputs, make the
  view inside fn (`lambda x: op(x[:, ::2])`), so both devices see the same view.
- `grad=True`: every floating-point tensor input requires grad on both devices; the
  outputs are reduced to a scalar with fixed random weights, backward runs, and the
  input gradients are compared too.
- Outputs may be a tensor or a tuple/list of them (or non-tensors, compared with ==).
- Integer and bool results must match exactly; floats within atol/rtol (defaults by
  dtype: float16/bfloat16 loose, float32 1e-5, float64 1e-10).
"""
import numpy as np

import ember

_TOLERANCES = {
    ember.float16: (1e-2, 1e-2),
    ember.bfloat16: (5e-2, 5e-2),
    ember.float32: (1e-5, 1e-5),
    ember.float64: (1e-10, 1e-10),
}


def _same_layout_copy(t, device):
    """t on `device` with its dtype, shape and strides (a view of a fresh base)."""
    t = t.detach()
    if t.is_contiguous() or t.numel() == 0:
        return t.to(device).clone()
    order = sorted(range(t.dim()), key=lambda d: -t.stride(d))
    permuted = t.permute(order).contiguous().to(device)
    inverse = [order.index(d) for d in range(t.dim())]
    return permuted.permute(inverse)


def _to_device(value, device):
    if isinstance(value, np.ndarray):
        return ember.from_numpy(value.copy()).to(device)
    if isinstance(value, ember.Tensor):
        return _same_layout_copy(value, device)
    return value


def _tensors(out):
    if isinstance(out, ember.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        result = []
        for o in out:
            result.extend(_tensors(o))
        return result
    return []


def _assert_close(actual, expected, atol, rtol, what):
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert tuple(actual.shape) == tuple(expected.shape), \
        f"{what}: shape {tuple(actual.shape)} != {tuple(expected.shape)}"
    a = actual.detach().cpu()
    e = expected.detach().cpu()
    if a.dtype.is_floating_point:
        tol = _TOLERANCES.get(a.dtype, (1e-5, 1e-5))
        np.testing.assert_allclose(a.to(ember.float64).numpy(), e.to(ember.float64).numpy(),
                                   atol=atol if atol is not None else tol[0],
                                   rtol=rtol if rtol is not None else tol[1],
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(a.numpy(), e.numpy(), err_msg=what)


def _run(fn, args, device, grad):
    inputs = [_to_device(a, device) for a in args]
    leaves = []
    if grad:
        for i, t in enumerate(inputs):
            if isinstance(t, ember.Tensor) and t.dtype.is_floating_point:
                t = t.detach().requires_grad_(True)
                inputs[i] = t
                leaves.append(t)
    out = fn(*inputs)
    return inputs, leaves, out


def check_against_cpu(fn, *args, grad=False, atol=None, rtol=None, seed=0):
    """Runs fn on CPU and CUDA copies of args; asserts outputs (and grads) agree."""
    _, cpu_leaves, cpu_out = _run(fn, args, "cpu", grad)
    _, cuda_leaves, cuda_out = _run(fn, args, "cuda", grad)
    cpu_tensors, cuda_tensors = _tensors(cpu_out), _tensors(cuda_out)
    assert len(cpu_tensors) == len(cuda_tensors)
    if not cpu_tensors:
        assert cpu_out == cuda_out
    for i, (c, g) in enumerate(zip(cpu_tensors, cuda_tensors)):
        assert g.is_cuda, f"output {i} is on {g.device}, expected cuda"
        _assert_close(g, c, atol, rtol, f"output {i}")
    if not grad or not cpu_leaves:
        return cuda_out
    rng = np.random.default_rng(seed)
    cpu_loss, cuda_loss = None, None
    for c, g in zip(cpu_tensors, cuda_tensors):
        if not c.requires_grad:
            continue
        w = rng.standard_normal(tuple(c.shape)).astype(np.float64)
        wc = ember.from_numpy(w).to(c.dtype)
        term_c = (c * wc).sum().to(ember.float64)
        term_g = (g * wc.to("cuda")).sum().to(ember.float64)
        cpu_loss = term_c if cpu_loss is None else cpu_loss + term_c
        cuda_loss = term_g if cuda_loss is None else cuda_loss + term_g
    if cpu_loss is None:
        return cuda_out
    cpu_loss.backward()
    cuda_loss.backward()
    for i, (c, g) in enumerate(zip(cpu_leaves, cuda_leaves)):
        if c.grad is None:
            assert g.grad is None, f"grad of input {i}: cuda has one, cpu has none"
            continue
        assert g.grad is not None, f"grad of input {i}: missing on cuda"
        _assert_close(g.grad, c.grad, atol, rtol, f"grad of input {i}")
    return cuda_out
