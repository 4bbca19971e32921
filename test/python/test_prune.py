"""ember.nn.utils.prune against torch.nn.utils.prune with the same weights: the
deterministic methods' masks and pruned weights exactly, the random ones by their
properties; the reparametrization (weight_orig, weight_mask, the pre-hook), chaining
in PruningContainer, global pruning, remove, and torch's errors."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.utils.prune as prune

torch = pytest.importorskip("torch")
tprune = pytest.importorskip("torch.nn.utils.prune")


def _pair(kind="linear", seed=0):
    """An ember module and a torch module holding the same weights."""
    rng = np.random.default_rng(seed)
    if kind == "linear":
        ours, theirs = nn.Linear(6, 5), torch.nn.Linear(6, 5)
    else:
        ours, theirs = nn.Conv2d(3, 4, 3), torch.nn.Conv2d(3, 4, 3)
    for name in ("weight", "bias"):
        value = rng.standard_normal(tuple(getattr(theirs, name).shape)).astype(np.float32)
        with torch.no_grad():
            getattr(theirs, name).copy_(torch.from_numpy(value))
        getattr(ours, name).data = ember.from_numpy(value.copy())
    return ours, theirs


def _np(t):
    return t.detach().numpy()


def _same_state(ours, theirs, name="weight"):
    assert sorted(n for n, _ in ours.named_parameters()) == sorted(n for n, _ in theirs.named_parameters())
    assert sorted(n for n, _ in ours.named_buffers()) == sorted(n for n, _ in theirs.named_buffers())
    np.testing.assert_array_equal(_np(getattr(ours, name + "_mask")), _np(getattr(theirs, name + "_mask")))
    np.testing.assert_array_equal(_np(getattr(ours, name)), _np(getattr(theirs, name)))


@pytest.mark.parametrize("amount", [0, 3, 0.0, 0.3, 0.5, 1.0])
def test_l1_unstructured_matches_torch(amount):
    ours, theirs = _pair()
    assert prune.l1_unstructured(ours, "weight", amount=amount) is ours
    tprune.l1_unstructured(theirs, "weight", amount=amount)
    _same_state(ours, theirs)
    assert isinstance(ours.weight_orig, nn.Parameter) and not isinstance(ours.weight, nn.Parameter)
    assert prune.is_pruned(ours)


@pytest.mark.parametrize("n,dim", [(1, 0), (2, 0), (2, 1), (float("inf"), -1), ("fro", 0), (1, 1)])
def test_ln_structured_matches_torch(n, dim):
    for kind in ("linear", "conv"):
        ours, theirs = _pair(kind, seed=3)
        prune.ln_structured(ours, "weight", amount=0.5, n=n, dim=dim)
        tprune.ln_structured(theirs, "weight", amount=0.5, n=n, dim=dim)
        _same_state(ours, theirs)


def test_custom_from_mask_identity_and_importance_scores():
    ours, theirs = _pair()
    mask = (np.arange(30).reshape(5, 6) % 3 != 0).astype(np.float32)
    prune.custom_from_mask(ours, "bias", mask=ember.from_numpy(mask[0, :5].copy()))
    tprune.custom_from_mask(theirs, "bias", mask=torch.from_numpy(mask[0, :5].copy()))
    _same_state(ours, theirs, "bias")
    prune.identity(ours, "weight")
    tprune.identity(theirs, "weight")
    _same_state(ours, theirs)
    scores = np.random.default_rng(1).standard_normal((5, 6)).astype(np.float32)
    a, b = _pair()
    prune.l1_unstructured(a, "weight", amount=7, importance_scores=ember.from_numpy(scores.copy()))
    tprune.l1_unstructured(b, "weight", amount=7, importance_scores=torch.from_numpy(scores))
    _same_state(a, b)


def test_pruning_twice_builds_a_container_like_torch():
    ours, theirs = _pair("conv", seed=5)
    for module, p in ((ours, prune), (theirs, tprune)):
        p.l1_unstructured(module, "weight", amount=0.3)
        p.ln_structured(module, "weight", amount=1, n=2, dim=0)
        p.l1_unstructured(module, "weight", amount=5)
    _same_state(ours, theirs)
    hooks = [h for h in ours._forward_pre_hooks.values() if isinstance(h, prune.BasePruningMethod)]
    assert len(hooks) == 1 and isinstance(hooks[0], prune.PruningContainer) and len(hooks[0]) == 3
    assert [type(m).__name__ for m in hooks[0]] == ["L1Unstructured", "LnStructured", "L1Unstructured"]


def test_forward_pre_hook_recomputes_the_weight_and_gradients_reach_orig():
    ours, theirs = _pair()
    prune.l1_unstructured(ours, "weight", amount=0.5)
    tprune.l1_unstructured(theirs, "weight", amount=0.5)
    with ember.no_grad():
        ours.weight_orig.add_(1.0)
    with torch.no_grad():
        theirs.weight_orig.add_(1.0)
    x = np.random.default_rng(2).standard_normal((3, 6)).astype(np.float32)
    out = ours(ember.from_numpy(x.copy()))
    ref = theirs(torch.from_numpy(x))
    np.testing.assert_allclose(_np(out), _np(ref), rtol=1e-6, atol=1e-6)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(_np(ours.weight_orig.grad), _np(theirs.weight_orig.grad), rtol=1e-6, atol=1e-6)
    assert (_np(ours.weight_orig.grad)[_np(ours.weight_mask) == 0] == 0).all()


def test_remove_makes_pruning_permanent():
    ours, theirs = _pair()
    for module, p in ((ours, prune), (theirs, tprune)):
        p.l1_unstructured(module, "weight", amount=0.4)
        assert p.remove(module, "weight") is module
    assert isinstance(ours.weight, nn.Parameter)
    assert not hasattr(ours, "weight_orig") and not hasattr(ours, "weight_mask")
    assert not prune.is_pruned(ours)
    np.testing.assert_array_equal(_np(ours.weight), _np(theirs.weight))
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(ours, "weight")


def test_global_unstructured_matches_torch():
    ours_a, theirs_a = _pair(seed=7)
    ours_b, theirs_b = _pair("conv", seed=8)
    prune.global_unstructured([(ours_a, "weight"), (ours_b, "weight"), (ours_b, "bias")],
                              pruning_method=prune.L1Unstructured, amount=0.4)
    tprune.global_unstructured([(theirs_a, "weight"), (theirs_b, "weight"), (theirs_b, "bias")],
                               pruning_method=tprune.L1Unstructured, amount=0.4)
    _same_state(ours_a, theirs_a)
    _same_state(ours_b, theirs_b)
    _same_state(ours_b, theirs_b, "bias")
    with pytest.raises(TypeError, match="Only \"unstructured\" PRUNING_TYPE"):
        prune.global_unstructured([(ours_a, "bias")], pruning_method=prune.RandomStructured, amount=0.1)
    with pytest.raises(TypeError, match="parameters is not an Iterable"):
        prune.global_unstructured(3, pruning_method=prune.L1Unstructured, amount=0.1)


@pytest.mark.parametrize("amount,count", [(0.3, 9), (7, 7), (0, 0)])
def test_random_unstructured_properties(amount, count):
    ours, _ = _pair()
    before = _np(ours.weight).copy()
    prune.random_unstructured(ours, "weight", amount=amount)
    mask = _np(ours.weight_mask)
    assert set(np.unique(mask)) <= {0.0, 1.0} and int((mask == 0).sum()) == count
    np.testing.assert_array_equal(_np(ours.weight), before * mask)
    np.testing.assert_array_equal(_np(ours.weight_orig), before)


def test_random_structured_properties():
    ours, _ = _pair("conv")
    prune.random_structured(ours, "weight", amount=2, dim=0)
    mask = _np(ours.weight_mask)
    per_channel = mask.reshape(4, -1)
    assert all(row.min() == row.max() for row in per_channel)  # whole channels
    assert int((per_channel[:, 0] == 0).sum()) == 2


def test_prune_method_on_a_tensor():
    t = ember.tensor([[0.1, -3.0, 2.0], [0.5, -0.2, 4.0]])
    pruned = prune.L1Unstructured(amount=2).prune(t)
    expected = tprune.L1Unstructured(amount=2).prune(torch.tensor([[0.1, -3.0, 2.0], [0.5, -0.2, 4.0]]))
    np.testing.assert_array_equal(_np(pruned), _np(expected))


@pytest.mark.parametrize("call,exc", [
    (lambda p, m: p.l1_unstructured(m, "weight", amount=-1), ValueError),
    (lambda p, m: p.l1_unstructured(m, "weight", amount=1.5), ValueError),
    (lambda p, m: p.l1_unstructured(m, "weight", amount="a"), TypeError),
    (lambda p, m: p.l1_unstructured(m, "weight", amount=100), ValueError),
    (lambda p, m: p.ln_structured(m, "bias", amount=1, n=2, dim=0), ValueError),
    (lambda p, m: p.ln_structured(m, "weight", amount=1, n=2, dim=3), IndexError),
])
def test_errors_match_torch_and_leave_the_module_unchanged(call, exc):
    ours, theirs = _pair()
    with pytest.raises(exc) as mine:
        call(prune, ours)
    with pytest.raises(exc) as ref:
        call(tprune, theirs)
    assert str(mine.value).split(" of ")[0].replace("ember.", "torch.") == \
        str(ref.value).split(" of ")[0].replace("torch.Size", "torch.Size")
    assert sorted(n for n, _ in ours.named_parameters()) == ["bias", "weight"]
    assert not prune.is_pruned(ours)


def test_container_rejects_other_parameters():
    a = prune.L1Unstructured(amount=1)
    a._tensor_name = "weight"
    b = prune.L1Unstructured(amount=1)
    b._tensor_name = "bias"
    container = prune.PruningContainer(a)
    with pytest.raises(ValueError, match="Can only add pruning methods acting on the parameter named 'weight'"):
        container.add_pruning_method(b)
    with pytest.raises(TypeError, match="is not a BasePruningMethod subclass"):
        container.add_pruning_method(3)


def test_module_path_under_import_alias():
    ns = {}
    exec("import ember as torch\nimport torch.nn.utils.prune as prune", ns)
    assert ns["prune"] is prune
