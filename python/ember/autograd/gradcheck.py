"""gradcheck and gradgradcheck: autograd's gradients against float64 central
finite differences, computed through numpy views of the inputs."""
import numpy as np

from .. import _C
from .grad_mode import enable_grad, no_grad


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_outputs(fn, inputs):
    return tuple(o for o in _as_tuple(fn(*inputs)) if isinstance(o, _C.Tensor) and o.requires_grad)


def _float_outputs(fn, inputs):
    """The floating outputs, the ones both Jacobians have rows for (an output that does
    not require grad, such as a zero first derivative, has zero rows)."""
    return tuple(o for o in _as_tuple(fn(*inputs)) if isinstance(o, _C.Tensor) and o.is_floating_point())


def _numerical_jacobian(fn, inputs, wrt, eps):
    """Columns: d(flattened outputs) / d(element k of input wrt), k in logical
    (row-major) order. The input is perturbed in place through a numpy view of
    its storage, so non-contiguous inputs are checked as they are."""
    x = inputs[wrt]
    view = x.detach().numpy()
    if any(st == 0 for st, n in zip(view.strides, view.shape) if n > 1):
        raise ValueError("gradcheck: input %d has overlapping memory (an expanded view); "
                         "pass a .contiguous() copy" % wrt)

    def evaluate():
        return [o.detach().numpy().astype(np.float64).reshape(-1).copy() for o in _as_tuple(fn(*inputs))
                if isinstance(o, _C.Tensor) and o.is_floating_point()]

    # fn runs with grad mode as the caller has it (a fn that takes gradients itself,
    # as gradgradcheck's does, needs it); the perturbations are numpy writes that
    # autograd never sees.
    cols = []
    for idx in np.ndindex(view.shape):
        orig = view[idx]
        view[idx] = orig + eps
        plus = evaluate()
        view[idx] = orig - eps
        minus = evaluate()
        view[idx] = orig
        cols.append(np.concatenate([(p - m) / (2 * eps) for p, m in zip(plus, minus)]) if plus else np.zeros(0))
    if not cols:  # an empty input: a Jacobian with no columns
        with no_grad():
            return np.zeros((sum(o.size for o in evaluate()), 0))
    return np.stack(cols, axis=1)


def _analytical_jacobian(outputs, inputs, wrt):
    """Rows: gradient of each flattened output element with respect to input wrt."""
    rows = []
    for o in outputs:
        if not o.requires_grad:  # no path back to the inputs: zero rows
            rows.extend(np.zeros(inputs[wrt].numel()) for _ in range(o.numel()))
            continue
        flat_count = o.numel()
        for j in range(flat_count):
            seed = _C.zeros_like(o)
            seed.reshape(-1)[j] = 1.0
            (g,) = _C._grad((o,), (inputs[wrt],), (seed,), True, False, True)
            rows.append(np.zeros(inputs[wrt].numel()) if g is None
                        else g.detach().to(_C.float64).numpy().reshape(-1).copy())
    return np.stack(rows, axis=0) if rows else np.zeros((0, inputs[wrt].numel()))


def gradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **_ignored):
    """True if autograd's Jacobian of fn at inputs matches finite differences.

    Inputs that require grad must be float64; they may be non-contiguous views but not
    expanded ones (as with torch.autograd.gradcheck).
    """
    inputs = _as_tuple(inputs)
    for i, x in enumerate(inputs):
        if isinstance(x, _C.Tensor) and x.requires_grad and x.dtype != _C.float64:
            raise ValueError(f"gradcheck: input {i} requires grad but is {x.dtype}; use float64")
    outputs = _float_outputs(fn, inputs)
    for i, x in enumerate(inputs):
        if not (isinstance(x, _C.Tensor) and x.requires_grad):
            continue
        numerical = _numerical_jacobian(fn, inputs, i, eps)
        analytical = _analytical_jacobian(outputs, inputs, i)
        if numerical.shape != analytical.shape or not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
            if raise_exception:
                raise RuntimeError(f"Jacobian mismatch for output 0 with respect to input {i},\n"
                                   f"numerical:{numerical}\nanalytical:{analytical}\n")
            return False
    return True


def gradgradcheck(fn, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True, **_ignored):
    """gradcheck of the first derivatives (vector-Jacobian products) of fn."""
    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(fn, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(_C.from_numpy(rng.standard_normal(tuple(o.shape))).requires_grad_()
                             for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    diff_inputs = [i for i, x in enumerate(inputs) if isinstance(x, _C.Tensor) and x.requires_grad]

    def first_derivatives(*args):
        xs, gos = args[:len(inputs)], args[len(inputs):]
        with enable_grad():  # also when gradcheck evaluates this under no_grad
            outs = _differentiable_outputs(fn, xs)
            grads = _C._grad(outs, tuple(xs[i] for i in diff_inputs), gos, True, True, True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
