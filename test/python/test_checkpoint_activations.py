"""ember.utils.checkpoint: both forms' gradients against the plain forward (float64),
dropout with preserve_rng_state, keyword/non-tensor inputs and outputs, autograd.grad,
checkpoint_sequential, the memory saved (the CPU allocator's bytes), and torch's errors."""
import warnings

import pytest

import ember
import ember.nn as nn
from ember.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

torch = pytest.importorskip("torch")

BOTH = [True, False]


def _mlp(depth=4, width=16, dropout=0.0):
    ember.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.Tanh()]
        if dropout:
            layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers).double()


def _grads(model, x):
    return [p.grad.clone() for p in model.parameters()] + [x.grad.clone()]


def _zero(model, x):
    for p in model.parameters():
        p.grad = None
    x.grad = None


def _assert_all_close(a, b):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert u is not None and v is not None
        torch.testing.assert_close(torch.from_numpy(u.numpy()), torch.from_numpy(v.numpy()), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("use_reentrant", BOTH)
def test_gradients_equal_plain_forward(use_reentrant):
    model = _mlp()
    x = ember.randn(5, 16, dtype=ember.float64, requires_grad=True)
    model(x).pow(2).sum().backward()
    expected = _grads(model, x)
    _zero(model, x)
    out = checkpoint(model, x, use_reentrant=use_reentrant)
    assert out.requires_grad
    out.pow(2).sum().backward()
    _assert_all_close(_grads(model, x), expected)


@pytest.mark.parametrize("use_reentrant", BOTH)
def test_dropout_masks_match_with_preserve_rng_state(use_reentrant):
    model = _mlp(dropout=0.5)
    x = ember.randn(6, 16, dtype=ember.float64, requires_grad=True)
    ember.manual_seed(123)
    model(x).sum().backward()
    expected = _grads(model, x)
    _zero(model, x)
    ember.manual_seed(123)
    checkpoint(model, x, use_reentrant=use_reentrant).sum().backward()
    _assert_all_close(_grads(model, x), expected)


@pytest.mark.parametrize("use_reentrant", BOTH)
def test_rng_state_after_backward_is_the_callers(use_reentrant):
    model = _mlp(dropout=0.5)
    x = ember.randn(3, 16, dtype=ember.float64, requires_grad=True)
    out = checkpoint(model, x, use_reentrant=use_reentrant)
    state = ember.get_rng_state()
    out.sum().backward()
    assert ember.equal(ember.get_rng_state(), state)


def test_without_preserve_rng_state_dropout_masks_differ():
    model = _mlp(dropout=0.5)
    x = ember.randn(8, 16, dtype=ember.float64, requires_grad=True)
    ember.manual_seed(7)
    model(x).sum().backward()
    expected = _grads(model, x)
    _zero(model, x)
    ember.manual_seed(7)
    checkpoint(model, x, use_reentrant=False, preserve_rng_state=False).sum().backward()
    assert not ember.allclose(x.grad, expected[-1])


def test_non_reentrant_kwargs_non_tensor_outputs_and_inputs_without_grad():
    lin = nn.Linear(4, 3).double()

    def fn(a, b, *, scale, extra=None):
        return {"y": lin(a) * scale + b.sum(), "tag": "ok", "pair": (a.sum(), 3)}

    a = ember.randn(2, 4, dtype=ember.float64)          # no grad: torch's non-reentrant still works
    b = ember.randn(5, dtype=ember.float64, requires_grad=True)
    out = checkpoint(fn, a, b, scale=2.0, use_reentrant=False)
    assert out["tag"] == "ok" and out["pair"][1] == 3
    assert ember.allclose(out["pair"][0], a.sum())
    (out["y"].sum()).backward()
    expected_w = torch.from_numpy(a.numpy()).sum(0).repeat(3, 1) * 2.0
    torch.testing.assert_close(torch.from_numpy(lin.weight.grad.numpy()), expected_w)
    assert ember.allclose(b.grad, ember.full((5,), 6.0, dtype=ember.float64))


def test_non_reentrant_autograd_grad_returns_parameter_gradients():
    model = _mlp(depth=3)
    x = ember.randn(4, 16, dtype=ember.float64, requires_grad=True)
    params = list(model.parameters())
    expected = ember.autograd.grad(model(x).pow(2).sum(), params + [x])
    got = ember.autograd.grad(checkpoint(model, x, use_reentrant=False).pow(2).sum(), params + [x])
    _assert_all_close(list(got), list(expected))
    assert all(p.grad is None for p in params)  # returned, not accumulated


def test_non_reentrant_first_layer_input_without_grad_still_trains_parameters():
    model = _mlp(depth=2)
    x = ember.randn(3, 16, dtype=ember.float64)
    checkpoint(lambda inp: model(inp), x, use_reentrant=False).sum().backward()
    assert all(p.grad is not None for p in model.parameters())


def test_reentrant_input_without_grad_warns_like_torch():
    model = _mlp(depth=1)
    x = ember.randn(3, 16, dtype=ember.float64)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        out = checkpoint(model, x, use_reentrant=True)
    assert not out.requires_grad


def test_hidden_tensor_gets_its_gradient():
    holder = type("Holder", (), {})()
    holder.w = ember.randn(4, dtype=ember.float64, requires_grad=True)

    def fn(x):
        return (x * holder.w).sum()

    x = ember.randn(4, dtype=ember.float64, requires_grad=True)
    checkpoint(fn, x, use_reentrant=False).backward()
    assert ember.allclose(holder.w.grad, x.detach()) and ember.allclose(x.grad, holder.w.detach())


def test_use_reentrant_not_given_warns_and_means_true():
    x = ember.randn(3, dtype=ember.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        out = checkpoint(ember.sin, x)
    out.sum().backward()
    assert ember.allclose(x.grad, x.detach().cos())


def test_errors_match_torch():
    x = ember.randn(3, requires_grad=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint(ember.sin, x, use_reentrant=True, foo=1)
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        checkpoint(ember.sin, x, use_reentrant=False, determinism_check="bogus")
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        checkpoint(ember.sin, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: bad"):
        checkpoint_sequential([ember.sin], 1, x, use_reentrant=True, bad=2)


def test_determinism_check_catches_a_different_recomputation():
    calls = []

    def fn(x):
        calls.append(1)
        return x[: len(calls)] * 2

    x = ember.randn(4, dtype=ember.float64, requires_grad=True)
    out = checkpoint(fn, x, use_reentrant=False)
    with pytest.raises(CheckpointError):
        out.sum().backward()


@pytest.mark.parametrize("use_reentrant", BOTH)
def test_checkpoint_sequential_matches_plain(use_reentrant):
    model = _mlp(depth=6)
    x = ember.randn(4, 16, dtype=ember.float64, requires_grad=True)
    model(x).sum().backward()
    expected = _grads(model, x)
    _zero(model, x)
    out = checkpoint_sequential(model, 3, x, use_reentrant=use_reentrant)
    out.sum().backward()
    _assert_all_close(_grads(model, x), expected)


def test_decorator_form():
    lin = nn.Linear(3, 3).double()

    @checkpoint(use_reentrant=False)
    def f(x):
        return lin(x).tanh()

    x = ember.randn(2, 3, dtype=ember.float64, requires_grad=True)
    f(x).sum().backward()
    assert x.grad is not None and lin.weight.grad is not None


def _peak_bytes_of_forward(use_checkpoint, use_reentrant=False):
    model = _mlp(depth=12, width=256)
    x = ember.randn(256, 256, dtype=ember.float64, requires_grad=True)
    ember.reset_peak_memory_stats()
    before = ember.memory_stats()["allocated_bytes"]
    if use_checkpoint:
        out = checkpoint_sequential(model, 4, x, use_reentrant=use_reentrant)
    else:
        out = model(x)
    # Bytes still held after the forward: the activations autograd keeps for backward.
    held = ember.memory_stats()["allocated_bytes"] - before
    out.sum().backward()
    return held


@pytest.mark.parametrize("use_reentrant", BOTH)
def test_checkpoint_keeps_fewer_activation_bytes(use_reentrant):
    plain = _peak_bytes_of_forward(False)
    checkpointed = _peak_bytes_of_forward(True, use_reentrant)
    assert plain > 0
    # 24 saved activations of 512 KiB without; ~4 segment inputs + the last segment with.
    assert checkpointed < plain * 0.6, (checkpointed, plain)


def test_module_path_under_import_alias():
    ns = {}
    exec("import ember as torch\nimport torch.utils.checkpoint\ncp = torch.utils.checkpoint.checkpoint", ns)
    assert ns["cp"] is checkpoint


def test_non_reentrant_double_backward_matches_plain():
    model = _mlp(depth=2, width=5)
    x = ember.randn(3, 5, dtype=ember.float64, requires_grad=True)

    def second_order(forward):
        g, = ember.autograd.grad(forward(x).pow(2).sum(), x, create_graph=True)
        return ember.autograd.grad(g.pow(2).sum(), [x] + list(model.parameters()))

    expected = second_order(model)
    got = second_order(lambda inp: checkpoint(model, inp, use_reentrant=False))
    _assert_all_close(list(got), list(expected))


@pytest.mark.cuda
@pytest.mark.parametrize("use_reentrant", BOTH)
def test_cuda_dropout_masks_match_with_preserve_rng_state(use_reentrant):
    model = _mlp(dropout=0.5).to("cuda")
    x = ember.randn(6, 16, dtype=ember.float64, device="cuda", requires_grad=True)
    ember.manual_seed(321)
    model(x).sum().backward()
    expected = [g.cpu() for g in _grads(model, x)]
    _zero(model, x)
    ember.manual_seed(321)
    checkpoint(model, x, use_reentrant=use_reentrant).sum().backward()
    _assert_all_close([g.cpu() for g in _grads(model, x)], expected)


@pytest.mark.parametrize("sequential", [False, True])
def test_checkpoint_leaks_nothing_across_steps(sequential):
    """The recomputed values once formed a cycle through the C++ graph (their history's
    saved tensors' unpack hook held them), which Python's collector cannot break: each
    step leaked its recomputed activations."""
    import gc

    from ember.utils.checkpoint import checkpoint, checkpoint_sequential
    model = ember.nn.Sequential(*[ember.nn.Linear(64, 64) for _ in range(4)])
    x = ember.randn(128, 64)

    def step():
        if sequential:
            out = checkpoint_sequential(model, 2, x, use_reentrant=False)
        else:
            out = checkpoint(model, x, use_reentrant=False)
        out.square().mean().backward()

    step()
    gc.collect()
    before = ember.memory_stats()["allocated_bytes"]
    for _ in range(5):
        step()
    gc.collect()
    assert ember.memory_stats()["allocated_bytes"] == before


def test_checkpointing_every_4_layers_of_24_keeps_at_most_40_percent():
    """Issue 18: a 24-layer MLP checkpointed every 4 layers peaks (forward and backward,
    above what parameters, gradients and data hold) at most 40% of the plain step."""
    import gc

    ember.manual_seed(0)
    blocks = [nn.Sequential(*[m for _ in range(4) for m in (nn.Linear(128, 128), nn.GELU())])
              for _ in range(6)]
    head = nn.Linear(128, 10)
    params = [p for b in blocks for p in b.parameters()] + list(head.parameters())
    x, y = ember.randn(512, 128), ember.randint(0, 10, (512,))

    def peak(checkpointed):
        for p in params:
            p.grad = None
        h = x
        for b in blocks:
            h = checkpoint(b, h, use_reentrant=False) if checkpointed else b(h)
        nn.functional.cross_entropy(head(h), y).backward()  # the gradients exist now
        gc.collect()
        held = ember.memory_stats()["allocated_bytes"]
        ember.reset_peak_memory_stats()
        for p in params:
            p.grad = None
        h = x
        for b in blocks:
            h = checkpoint(b, h, use_reentrant=False) if checkpointed else b(h)
        nn.functional.cross_entropy(head(h), y).backward()
        return ember.memory_stats()["peak_allocated_bytes"] - held

    plain, checkpointed = peak(False), peak(True)
    assert checkpointed <= 0.4 * plain, (checkpointed, plain)
