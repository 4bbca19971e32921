"""ember.autograd.grad(is_grads_batched=True) against torch's: one gradient per row of
the batched grad_outputs, stacked (a Jacobian when grad_outputs is the identity)."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def test_jacobian_rows_match_torch():
    rng = np.random.default_rng(0)
    x_np, w_np = rng.standard_normal(4), rng.standard_normal((3, 4))
    results = []
    for lib in (ember, torch):
        x, w = lib.tensor(x_np, requires_grad=True), lib.tensor(w_np, requires_grad=True)
        y = lib.tanh(w @ x) * 2
        gx, gw = lib.autograd.grad(y, (x, w), lib.eye(3, dtype=lib.float64), is_grads_batched=True)
        results.append((gx.detach().numpy(), gw.detach().numpy()))
    for e, t in zip(*results):
        assert e.shape == t.shape
        np.testing.assert_allclose(e, t, rtol=1e-12, atol=1e-12)


def test_create_graph_gives_second_derivatives():
    x_np = np.array([0.3, -1.2, 2.0])
    out = []
    for lib in (ember, torch):
        x = lib.tensor(x_np, requires_grad=True)
        y = (x ** 3).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (h,) = lib.autograd.grad(g, x, lib.eye(3, dtype=lib.float64), is_grads_batched=True)
        out.append(h.detach().numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-12)
    np.testing.assert_allclose(out[0], np.diag(6 * x_np), rtol=1e-12)


def test_unused_input_and_bad_batches():
    for lib in (ember, torch):
        x = lib.ones(2, requires_grad=True)
        z = lib.ones(2, requires_grad=True)
        y = x * 2
        gx, gz = lib.autograd.grad(y, (x, z), lib.eye(2), is_grads_batched=True, allow_unused=True)
        assert gz is None and gx.tolist() == [[2.0, 0.0], [0.0, 2.0]]
        with pytest.raises(RuntimeError):
            lib.autograd.grad(x * 2, x, lib.ones(3, 5), is_grads_batched=True)


def test_second_backward_without_retain_graph_as_torch():
    """A second backward through released nodes fails only where it reads a freed saved
    tensor: expand + sum save nothing (allowed twice in torch), mul saves its inputs."""
    for lib in (ember, torch):
        x = lib.ones(3, requires_grad=True)
        y = x.expand(2, 3).sum()
        assert lib.autograd.grad(y, x)[0].tolist() == [2.0, 2.0, 2.0]
        assert lib.autograd.grad(y, x)[0].tolist() == [2.0, 2.0, 2.0]
        z = (x * x).sum()
        lib.autograd.grad(z, x)
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            lib.autograd.grad(z, x)


def test_accumulated_grad_takes_the_leafs_layout():
    """sum's backward gives an expanded gradient; .grad gets its own dense copy laid out
    as the leaf (torch's layout contract), so a second backward accumulates into it."""
    for lib in (ember, torch):
        loc = lib.zeros(3, requires_grad=True)
        for _ in range(2):
            (loc + lib.ones(3)).sum().backward()
        assert loc.grad.tolist() == [2.0, 2.0, 2.0] and loc.grad.stride() == (1,)
        w = lib.zeros(4, 3).t().requires_grad_()
        (w * 2).sum().backward()
        assert w.grad.stride() == w.stride()
        (w * 2).sum().backward()
        assert w.grad.tolist() == [[4.0] * 4] * 3
