"""ember.memory's budget (dynamic tensor rematerialization): under a budget, training
gives the same gradients as without one, in less memory, by evicting activations and
recomputing them in backward; bad budgets and impossible ones raise clear errors."""
import numpy as np
import pytest

import ember
import ember.nn as nn


@pytest.fixture(autouse=True)
def no_budget_left_behind():
    yield
    ember.memory.set_budget(None)


def mlp(depth=12, width=256, dropout=0.0, seed=0):
    ember.manual_seed(seed)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.Tanh()]
        if dropout:
            layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers, nn.Linear(width, 10))


def step(model, x, y):
    """One forward and backward: the loss, the gradients (as numpy copies, which the
    allocator does not count) and the peak of allocated bytes during the step."""
    model.zero_grad(set_to_none=True)
    ember.reset_peak_memory_stats()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    peak = ember.memory_stats()["peak_allocated_bytes"]
    return loss.item(), [p.grad.numpy().copy() for p in model.parameters()], peak


def data(batch=2048, width=256, seed=1):
    # Batch 2048: activations (2 MiB a layer) dominate the parameters (256 KiB a layer),
    # as in the models a budget is for.
    ember.manual_seed(seed)
    return ember.randn(batch, width), ember.randint(0, 10, (batch,))


def third_of_activations(peak, fraction=3):
    """The issue's budget: what parameters, gradients and data hold (measured after a
    step, the gradients alive) and a third of the plain step's peak above that."""
    held = ember.memory_stats()["allocated_bytes"]
    return held + (peak - held) // fraction


def assert_same_grads(a, b):
    assert len(a) == len(b)
    for ga, gb in zip(a, b):
        assert (ga == gb).all(), abs(ga - gb).max()


def test_budget_gives_the_same_gradients_in_a_third_of_the_activation_memory():
    model = mlp(depth=24)
    x, y = data()
    loss0, grads0, peak0 = step(model, x, y)
    held = ember.memory_stats()["allocated_bytes"]
    budget = third_of_activations(peak0)
    ember.reset_accumulated_memory_stats()
    with ember.memory.budget(budget):
        loss1, grads1, peak1 = step(model, x, y)
    stats = ember.memory_stats()
    assert loss1 == loss0
    assert_same_grads(grads0, grads1)
    assert stats["num_evictions"] > 0 and stats["num_recomputations"] > 0
    assert stats["recompute_seconds"] > 0
    # The allocator never went past the budget.
    assert peak1 <= budget, (peak1, budget)
    assert peak1 - held < 0.5 * (peak0 - held)


def test_no_eviction_when_the_budget_is_roomy_and_nothing_changes():
    model = mlp(depth=3)
    x, y = data()
    _, grads0, _ = step(model, x, y)
    ember.reset_accumulated_memory_stats()
    with ember.memory.budget(1 << 40):
        _, grads1, _ = step(model, x, y)
    assert ember.memory_stats()["num_evictions"] == 0
    assert_same_grads(grads0, grads1)


def test_dropout_draws_the_same_numbers_when_recomputed():
    model = mlp(depth=8, dropout=0.3)
    x, y = data()
    ember.manual_seed(7)
    _, grads0, peak0 = step(model, x, y)
    after0 = ember.rand(3)
    ember.reset_accumulated_memory_stats()
    with ember.memory.budget(third_of_activations(peak0)):
        ember.manual_seed(7)
        _, grads1, _ = step(model, x, y)
        after1 = ember.rand(3)
    assert ember.memory_stats()["num_recomputations"] > 0
    assert_same_grads(grads0, grads1)
    # Recomputing put the generator back where the forward had left it.
    assert ember.equal(after0, after1)


def test_double_backward_under_a_budget():
    ember.manual_seed(3)
    w = [ember.randn(64, 64, requires_grad=True) for _ in range(16)]
    x = ember.randn(128, 64)

    def grad_norm():
        h = x
        for wi in w:
            h = (h @ wi).sin()
        g = ember.autograd.grad(h.square().sum(), w, create_graph=True)
        return sum((gi * gi).sum() for gi in g)

    held = ember.memory_stats()["allocated_bytes"]
    ember.reset_peak_memory_stats()
    expected = ember.autograd.grad(grad_norm(), w)
    peak = ember.memory_stats()["peak_allocated_bytes"]
    ember.reset_accumulated_memory_stats()
    # Three quarters: the double-backward's pending gradients (not recomputable) are
    # about half of its peak.
    with ember.memory.budget(held + (peak - held) * 3 // 4):
        got = ember.autograd.grad(grad_norm(), w)
    assert ember.memory_stats()["num_recomputations"] > 0
    for a, b in zip(expected, got):
        ember.testing.assert_close(a, b, rtol=0, atol=0)


def test_values_match_torch_under_a_budget():
    torch = pytest.importorskip("torch")
    model = mlp(depth=16, width=64)
    x, y = data(batch=256, width=64)
    tmodel = torch.nn.Sequential(*[
        torch.nn.Linear(m.in_features, m.out_features) if isinstance(m, nn.Linear)
        else torch.nn.Tanh() for m in model])
    with torch.no_grad():
        for tp, p in zip(tmodel.parameters(), model.parameters()):
            tp.copy_(torch.from_numpy(p.detach().numpy()))
    _, _, peak0 = step(model, x, y)
    ember.reset_accumulated_memory_stats()
    with ember.memory.budget(third_of_activations(peak0)):
        loss, grads, _ = step(model, x, y)
    assert ember.memory_stats()["num_recomputations"] > 0
    tloss = torch.nn.functional.cross_entropy(tmodel(torch.from_numpy(x.numpy())),
                                              torch.from_numpy(y.numpy()))
    tloss.backward()
    assert abs(loss - tloss.item()) < 1e-5
    for g, tp in zip(grads, tmodel.parameters()):
        assert abs(g - tp.grad.numpy()).max() < 1e-5


def test_in_place_change_of_a_saved_tensor_is_still_caught():
    with ember.memory.budget(1 << 30):
        a = ember.randn(8, requires_grad=True)
        b = a.exp()
        c = b * 2
        b.add_(1)  # exp's backward needs b
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            (c.sum() + b.sum()).backward()


def test_a_budget_too_small_raises_out_of_memory_and_leaves_things_working():
    model = mlp(depth=2, width=64)
    x, y = data(batch=64, width=64)
    # Less than the parameters and the data hold, which cannot be evicted.
    with ember.memory.budget(4096):
        with pytest.raises(ember.OutOfMemoryError, match="against a budget of 4096 bytes"):
            step(model, x, y)
    loss, grads, _ = step(model, x, y)  # without the budget: fine
    assert all(np.isfinite(g).all() for g in grads)


def test_bad_budgets():
    with pytest.raises(ValueError, match="positive"):
        ember.memory.set_budget(0)
    with pytest.raises(ValueError, match="positive"):
        ember.memory.set_budget(-5)
    with pytest.raises(TypeError):
        ember.memory.set_budget(1.5)
    with pytest.raises(TypeError):
        ember.memory.set_budget("1GB")
    assert ember.memory.get_budget() is None


def test_the_context_manager_restores_the_budget_before_it():
    ember.memory.set_budget(1 << 30)
    with ember.memory.budget(1 << 20):
        assert ember.memory.get_budget() == 1 << 20
    assert ember.memory.get_budget() == 1 << 30
    with pytest.raises(KeyError):
        with ember.memory.budget(1 << 21):
            raise KeyError("x")
    assert ember.memory.get_budget() == 1 << 30


def test_tensors_the_user_holds_are_never_evicted():
    ember.manual_seed(0)
    w = ember.randn(256, 256, requires_grad=True)
    x = ember.randn(512, 256)
    held = ember.memory_stats()["allocated_bytes"]
    ember.reset_accumulated_memory_stats()
    with ember.memory.budget(held + 6 * 2**20):  # 8 layers of 2 x 512 KiB activations
        hs = []
        h = x
        for i in range(8):
            h = (h @ w).tanh()
            if i % 2:
                hs.append(h)  # held: must stay as they are
        copies = [t.detach().numpy().copy() for t in hs]
        h.sum().backward()
    assert ember.memory_stats()["num_evictions"] > 0
    for t, c in zip(hs, copies):
        assert (t.detach().numpy() == c).all()


def cnn(seed=0):
    ember.manual_seed(seed)
    layers = [nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True)]
    for _ in range(5):
        layers += [nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True)]
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))


def test_conv_batch_norm_in_place_relu_under_a_budget():
    """Training-mode batch norm is recomputed without its running statistics (which it
    must update once only), and relu_ on its output is replayed after it."""
    x = ember.randn(32, 3, 16, 16)
    y = ember.randint(0, 10, (32,))
    plain_model, budget_model = cnn(), cnn()
    _, grads0, peak0 = step(plain_model, x, y)
    stats0 = [b.numpy().copy() for b in plain_model.buffers()]
    ember.reset_accumulated_memory_stats()
    # Half: seven layers leave little above one conv's backward working set.
    with ember.memory.budget(third_of_activations(peak0, fraction=2)):
        _, grads1, _ = step(budget_model, x, y)
    stats = ember.memory_stats()
    assert stats["num_evictions"] > 0 and stats["num_recomputations"] > 0
    assert_same_grads(grads0, grads1)
    for a, b in zip(stats0, budget_model.buffers()):
        assert (a == b.numpy()).all()  # running statistics updated once, as in the plain step


def test_at_the_plain_runs_memory_a_budget_fits_two_and_a_half_times_the_batch():
    model = mlp(depth=24)
    x, y = data(batch=2048)
    _, _, peak = step(model, x, y)  # the plain run's peak, everything included
    xb, yb = data(batch=5120)
    ember.reset_accumulated_memory_stats()
    with ember.memory.budget(peak + xb.nbytes + yb.nbytes - x.nbytes - y.nbytes):
        loss, grads, peak_big = step(model, xb, yb)
    assert ember.memory_stats()["num_evictions"] > 0
    assert peak_big <= peak + xb.nbytes + yb.nbytes
    loss_plain, grads_plain, _ = step(model, xb, yb)  # the same batch without a budget
    assert loss == loss_plain
    assert_same_grads(grads_plain, grads)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_dropout_outputs_recomputed_from_their_masks_are_bit_identical(dtype):
    # Dropout on a transposed input (the recompute multiplies the strided input by the
    # mask) between wide layers, so that the budget evicts dropout outputs while their
    # masks, which backward keeps, stay resident.
    ember.manual_seed(5)
    layers = [nn.Linear(128, 512).to(dtype) for _ in range(6)]
    backs = [nn.Linear(512, 128).to(dtype) for _ in range(6)]

    def forward(x):
        h = x
        for a, b in zip(layers, backs):
            u = a(h).t()  # [512, batch]
            u = nn.functional.dropout(u, 0.25, training=True).t()
            h = b(u.relu()).tanh()
        return h.square().mean()

    x = ember.randn(1024, 128, dtype=dtype)
    params = [p for m in layers + backs for p in m.parameters()]

    def grads():
        for p in params:
            p.grad = None
        ember.manual_seed(11)
        forward(x).backward()
        return [p.grad.numpy().copy() for p in params]

    held = ember.memory_stats()["allocated_bytes"]
    ember.reset_peak_memory_stats()
    expected = grads()
    peak = ember.memory_stats()["peak_allocated_bytes"]
    ember.reset_accumulated_memory_stats()
    # Half: the gradients made in backward count against the budget too.
    with ember.memory.budget(held + (peak - held) // 2):
        got = grads()
    assert ember.memory_stats()["num_recomputations"] > 0
    assert_same_grads(expected, got)
