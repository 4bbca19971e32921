"""Autograd's debugging aids, compared with PyTorch: anomaly mode (detect_anomaly,
set_detect_anomaly, the torch-level switches), register_post_accumulate_grad_hook,
and the multithreading switch."""
import math
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _nan_backward(lib):
    x = lib.tensor([0.5, 2.0], requires_grad=True)
    y = (x * lib.tensor([float("nan"), 1.0])).sum()
    return x, y


@pytest.mark.parametrize("lib", [ember, torch], ids=["ember", "torch"])
def test_nan_in_backward_raises_naming_the_node_like_torch(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            assert lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()
            x, y = _nan_backward(lib)
            with pytest.raises(RuntimeError, match=r"Function 'MulBackward0' returned nan values "
                                                   r"in its 0th output\."):
                y.backward()
    assert not lib.is_anomaly_enabled()
    assert x.grad is None
    messages = [str(w.message) for w in caught]
    assert any("Anomaly Detection has been enabled" in m for m in messages)
    error = [m for m in messages if m.startswith("Error detected in MulBackward0")]
    assert len(error) == 1
    # The warning shows the forward call: this file and the line that made the node.
    assert "test_anomaly_mode.py" in error[0] and "_nan_backward" in error[0]


def test_without_anomaly_mode_nan_reaches_grad():
    x, y = _nan_backward(ember)
    y.backward()
    assert math.isnan(x.grad[0].item()) and x.grad[1].item() == 1.0


def test_check_nan_false_lets_nan_through():
    with pytest.warns(UserWarning, match="Anomaly Detection"):
        mode = ember.autograd.detect_anomaly(check_nan=False)
    with mode:
        assert ember.is_anomaly_enabled() and not ember.is_anomaly_check_nan_enabled()
        x, y = _nan_backward(ember)
        y.backward()
    assert math.isnan(x.grad[0].item())


def test_an_error_in_a_custom_backward_is_reported_with_its_forward():
    class Bad(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("backward failed on purpose")

    x = ember.randn(3, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ember.autograd.detect_anomaly():
            y = Bad.apply(x).sum()
            with pytest.raises(ValueError, match="on purpose"):
                y.backward()
    error = [str(w.message) for w in caught if "Error detected in" in str(w.message)]
    assert len(error) == 1 and "Bad.apply(x)" in error[0]


def test_node_recorded_outside_anomaly_mode_says_so():
    x, y = _nan_backward(ember)  # the graph is made before the mode is on
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ember.autograd.detect_anomaly():
            with pytest.raises(RuntimeError, match="returned nan"):
                y.backward()
    error = [str(w.message) for w in caught if "Error detected in" in str(w.message)]
    assert len(error) == 1 and "No forward pass information available" in error[0]


def test_set_detect_anomaly_sets_now_and_restores_as_a_context():
    ember.autograd.set_detect_anomaly(True)
    assert ember.is_anomaly_enabled()
    ember.autograd.set_detect_anomaly(False)
    assert not ember.is_anomaly_enabled()
    with ember.autograd.set_detect_anomaly(True, check_nan=False):
        assert ember.is_anomaly_enabled() and not ember.is_anomaly_check_nan_enabled()
    assert not ember.is_anomaly_enabled() and ember.is_anomaly_check_nan_enabled()
    ember.set_anomaly_enabled(True)
    assert ember.is_anomaly_enabled()
    ember.set_anomaly_enabled(False)


def test_detect_anomaly_as_decorator_and_values_unchanged():
    x_np = np.random.default_rng(0).standard_normal((4, 3))

    with pytest.warns(UserWarning, match="Anomaly Detection"):
        @ember.autograd.detect_anomaly()
        def run():
            assert ember.is_anomaly_enabled()
            x = ember.tensor(x_np, requires_grad=True)
            (x.tanh() * x).sum().backward()
            return x.grad.numpy()

    tx = torch.tensor(x_np, requires_grad=True)
    (tx.tanh() * tx).sum().backward()
    with pytest.warns(UserWarning, match="Anomaly Detection"):
        grad = run()
    np.testing.assert_allclose(grad, tx.grad.numpy(), rtol=1e-12)
    assert not ember.is_anomaly_enabled()


def test_post_accumulate_grad_hook_matches_torch():
    seen = {"ember": [], "torch": []}
    for name, lib in (("ember", ember), ("torch", torch)):
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        h = w.register_post_accumulate_grad_hook(lambda t, n=name: seen[n].append(t.grad.tolist()))
        (w * 3).sum().backward()
        (w * w).sum().backward()
        h.remove()
        (w * 5).sum().backward()
        lib.autograd.grad((w * 2).sum(), w)
    assert seen["ember"] == seen["torch"] == [[3.0, 3.0], [5.0, -1.0]]


def test_post_accumulate_grad_hook_can_step_the_parameter_in_backward():
    # The pattern PyTorch documents: an optimizer step per parameter inside backward.
    w = ember.tensor([1.0, 2.0], requires_grad=True)

    def step(p):
        with ember.no_grad():
            p.sub_(0.5 * p.grad)
        p.grad = None

    w.register_post_accumulate_grad_hook(step)
    (w * w).sum().backward()
    assert w.tolist() == [0.0, 0.0] and w.grad is None


def test_post_accumulate_grad_hook_errors_like_torch():
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="doesn't require gradient"):
            lib.ones(2).register_post_accumulate_grad_hook(lambda t: None)
        w = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="non-leaf"):
            (w * 2).register_post_accumulate_grad_hook(lambda t: None)
        w.register_post_accumulate_grad_hook(lambda t: 5)
        with pytest.raises(TypeError):
            (w * 2).sum().backward()


def test_multithreading_switch_like_torch():
    for lib in (ember, torch):
        assert lib.autograd.is_multithreading_enabled()
        with lib.autograd.set_multithreading_enabled(False):
            assert not lib.autograd.is_multithreading_enabled()
            x = lib.ones(2, requires_grad=True)
            (x * 2).sum().backward()
            assert x.grad.tolist() == [2.0, 2.0]
        assert lib.autograd.is_multithreading_enabled()
        with pytest.raises(TypeError):
            lib.autograd.set_multithreading_enabled()
