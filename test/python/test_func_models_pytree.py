"""ember.func on models (functional_call, per-sample gradients, ensembles with
stack_module_state, batch-norm replacement, functionalize), ember.utils._pytree, and
the surface (signatures, import paths, compositions), against torch.func."""
import collections

import numpy as np
import pytest

import ember
import ember.func as EF
from ember.utils import _pytree as epytree

torch = pytest.importorskip("torch")
from func_helpers import (  # noqa: F401
    TF, _arrays, _both, _pair, _same, _same_error, matrix_fn, scalar_fn, two_arg_fn, vector_fn)


# ---------------------------------------------------------------- models: functional_call


class _MLP:
    """The same small MLP in each library (weights copied from torch's)."""

    @staticmethod
    def make(L):
        return L.nn.Sequential(L.nn.Linear(6, 8), L.nn.Tanh(), L.nn.Linear(8, 3))


def _copied_models(seed=0):
    torch.manual_seed(seed)
    t_model = _MLP.make(torch).double()
    e_model = _MLP.make(ember).double()
    e_model.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t_model.state_dict().items()})
    return e_model, t_model


def test_per_sample_gradients_mlp():
    """The torch.func tutorial: vmap(grad(loss)) with functional_call over a batch."""
    e_model, t_model = _copied_models()
    (data, targets_f), _ = _pair((16, 6), (16,), seed=36)
    targets = np.random.default_rng(37).integers(0, 3, 16)

    def per_sample(lib, transforms, model, x, y):
        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}

        def loss(params, buffers, sample, target):
            pred = transforms.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
            return lib.nn.functional.cross_entropy(pred, target.unsqueeze(0))
        return transforms.vmap(transforms.grad(loss), in_dims=(None, None, 0, 0))(params, buffers, x, y)

    e_out = per_sample(ember, EF, e_model, ember.tensor(data.numpy()), ember.tensor(targets))
    t_out = per_sample(torch, TF, t_model, torch.tensor(data.numpy()), torch.tensor(targets))
    _same(e_out, t_out)
    # Against the loop over samples with ordinary backward.
    for i in range(3):
        e_model.zero_grad()
        loss = ember.nn.functional.cross_entropy(e_model(ember.tensor(data.numpy()[i:i + 1])),
                                                 ember.tensor(targets[i:i + 1]))
        loss.backward()
        for name, p in e_model.named_parameters():
            np.testing.assert_allclose(e_out[name][i].numpy(), p.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_model_ensemble_with_stack_module_state():
    torch.manual_seed(1)
    t_models = [_MLP.make(torch).double() for _ in range(3)]
    e_models = [_MLP.make(ember).double() for _ in range(3)]
    for e_m, t_m in zip(e_models, t_models):
        e_m.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t_m.state_dict().items()})
    (x,), (tx,) = _pair((5, 6), seed=38)
    e_params, e_buffers = EF.stack_module_state(e_models)
    t_params, t_buffers = TF.stack_module_state(t_models)
    _same(e_params, t_params)
    assert all(p.requires_grad and p.is_leaf for p in e_params.values())
    e_base, t_base = e_models[0], t_models[0]
    e_out = EF.vmap(lambda p, b, x: EF.functional_call(e_base, (p, b), (x,)), in_dims=(0, 0, None))(
        e_params, e_buffers, x)
    t_out = TF.vmap(lambda p, b, x: TF.functional_call(t_base, (p, b), (x,)), in_dims=(0, 0, None))(
        t_params, t_buffers, tx)
    _same(e_out, t_out)
    e_out.sum().backward()
    t_out.sum().backward()
    for k in t_params:
        _same(e_params[k].grad, t_params[k].grad)


def test_functional_call_arguments_and_errors():
    e_model, t_model = _copied_models(seed=2)
    (x, w), (tx, tw) = _pair((6,), (3, 8), seed=39)
    _same(EF.functional_call(e_model, {"2.weight": w}, x), TF.functional_call(t_model, {"2.weight": tw}, tx))
    _same(EF.functional_call(e_model, [{"2.weight": w}, {}], (x,), {}),
          TF.functional_call(t_model, [{"2.weight": tw}, {}], (tx,), {}))
    # The module's own tensors are back afterwards.
    _same(e_model(x), t_model(tx))
    _same_error(lambda: EF.functional_call(e_model, ({"2.weight": w}, {"2.weight": w}), x),
                lambda: TF.functional_call(t_model, ({"2.weight": tw}, {"2.weight": tw}), tx))
    _same_error(lambda: EF.functional_call(e_model, 3, x), lambda: TF.functional_call(t_model, 3, tx))
    _same_error(lambda: EF.functional_call(e_model, [3], x), lambda: TF.functional_call(t_model, [3], tx))
    _same_error(lambda: EF.functional_call(e_model, {"2.weight": w}, x, strict=True),
                lambda: TF.functional_call(t_model, {"2.weight": tw}, tx, strict=True))


def test_stack_module_state_errors():
    _same_error(lambda: EF.stack_module_state([]), lambda: TF.stack_module_state([]))
    _same_error(lambda: EF.stack_module_state([ember.nn.Linear(2, 2), ember.nn.Linear(2, 2).eval()]),
                lambda: TF.stack_module_state([torch.nn.Linear(2, 2), torch.nn.Linear(2, 2).eval()]))
    _same_error(lambda: EF.stack_module_state([ember.nn.Linear(2, 2), ember.nn.Conv1d(2, 2, 1)]),
                lambda: TF.stack_module_state([torch.nn.Linear(2, 2), torch.nn.Conv1d(2, 2, 1)]))
    e_frozen = ember.nn.Linear(2, 2)
    e_frozen.weight.requires_grad_(False)
    t_frozen = torch.nn.Linear(2, 2)
    t_frozen.weight.requires_grad_(False)
    _same_error(lambda: EF.stack_module_state([ember.nn.Linear(2, 2), e_frozen]),
                lambda: TF.stack_module_state([torch.nn.Linear(2, 2), t_frozen]))
    bn = [ember.nn.BatchNorm1d(3), ember.nn.BatchNorm1d(3)]
    params, buffers = EF.stack_module_state(bn)
    assert sorted(buffers) == ["num_batches_tracked", "running_mean", "running_var"]
    assert tuple(buffers["running_mean"].shape) == (2, 3) and not buffers["running_mean"].requires_grad


def test_replace_all_batch_norm_modules():
    e_model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4))
    t_model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    assert EF.replace_all_batch_norm_modules_(e_model) is e_model
    TF.replace_all_batch_norm_modules_(t_model)
    for e_m, t_m in zip(e_model.modules(), t_model.modules()):
        if isinstance(t_m, torch.nn.BatchNorm1d):
            assert e_m.running_mean is None and e_m.running_var is None and not e_m.track_running_stats
            assert t_m.running_mean is None


def test_functionalize_and_debug_unwrap():
    (x,), (tx,) = _pair((3,), seed=40)

    def f(L, a):
        b = a.clone()
        b.add_(1)
        a.mul_(2)
        return b * a
    ex, tx2 = x.clone(), tx.clone()
    _same(EF.functionalize(lambda a: f(ember, a))(ex), TF.functionalize(lambda a: f(torch, a))(tx2))
    _same(ex, tx2)
    _same_error(lambda: EF.functionalize(lambda a: a, remove="x"), lambda: TF.functionalize(lambda a: a, remove="x"))
    assert EF.debug_unwrap(x) is x


# ---------------------------------------------------------------- pytree


def test_pytree_against_torch():
    import torch.utils._pytree as tpytree
    Point = collections.namedtuple("Point", "x y")
    trees = [1, None, (1, 2), [1, (2, 3)], {"b": 1, "a": [2, None]},
             collections.OrderedDict(z=1, y=(2,)), Point(1, [2, 3]), ((), [], {})]
    for tree in trees:
        e_leaves, e_spec = epytree.tree_flatten(tree)
        t_leaves, t_spec = tpytree.tree_flatten(tree)
        assert e_leaves == t_leaves
        assert e_spec.num_leaves == t_spec.num_leaves
        assert epytree.tree_unflatten(e_leaves, e_spec) == tree
        assert type(epytree.tree_unflatten(e_leaves, e_spec)) is type(tree)
        assert epytree.tree_map(lambda v: v, tree) == tpytree.tree_map(lambda v: v, tree)
    assert repr(epytree.tree_structure([1, (2, 3)])) == repr(tpytree.tree_structure([1, (2, 3)]))
    assert epytree.tree_map(lambda a, b: a + b, {"x": (1, 2)}, {"x": (10, 20)}) == {"x": (11, 22)}
    assert epytree.tree_map_only(int, lambda v: v * 2, (1, "a", [3])) == (2, "a", [6])
    spec = epytree.tree_structure((1, (2, 3)))
    assert epytree._broadcast_to_and_flatten((0, None), spec) == [0, None, None]
    assert epytree._broadcast_to_and_flatten((0,), spec) is None
    assert epytree.tree_all(lambda v: v > 0, [1, (2,)]) and epytree.tree_any(lambda v: v > 1, [1, (2,)])
    with pytest.raises(ValueError):
        epytree.tree_unflatten([1], spec)


def test_pytree_register_node():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b
    epytree.register_pytree_node(Pair, lambda p: ([p.a, p.b], None), lambda ch, _: Pair(*ch))
    try:
        leaves, spec = epytree.tree_flatten(Pair(1, (2, 3)))
        assert leaves == [1, 2, 3]
        rebuilt = epytree.tree_unflatten([4, 5, 6], spec)
        assert isinstance(rebuilt, Pair) and rebuilt.a == 4 and rebuilt.b == (5, 6)
        with pytest.raises(ValueError):
            epytree.register_pytree_node(Pair, lambda p: ([], None), lambda ch, _: Pair())
        # vmap over a registered node type.
        (x,), _ = _pair((2, 3), seed=41)
        out = EF.vmap(lambda p: p.a * p.b)(Pair(x, x))
        np.testing.assert_allclose(out.numpy(), (x * x).numpy())
    finally:
        del epytree.SUPPORTED_NODES[Pair]


# ---------------------------------------------------------------- surface


def test_signatures_match_torch():
    import inspect
    for name in EF.__all__:
        ours = [(p.name, p.kind, p.default) for p in inspect.signature(getattr(EF, name)).parameters.values()]
        theirs = [(p.name, p.kind, p.default) for p in inspect.signature(getattr(TF, name)).parameters.values()]
        assert ours == theirs, name


def test_import_torch_func_under_ember_alias():
    scope = {"torch": ember}
    exec("import torch.func\nfrom torch.func import vmap, grad\nfrom torch.utils._pytree import tree_map\n"
         "result = torch.func is ember.func and vmap is ember.func.vmap", {**scope, "ember": ember}, scope)
    assert scope["result"] and scope["tree_map"] is epytree.tree_map


def test_vmap_chunk_size_same_values():
    e, t = _pair((7, 3), seed=42)
    _both("vmap", lambda L, x: x.softmax(0), [e[0]], [t[0]], chunk_size=3)


def _compositions(L, F, x, v, m):
    g = lambda y: (y.sin() * y.cos().sum()).exp().sum()  # noqa: E731
    r = {}
    r["jvp_of_grad"] = F.jvp(F.grad(g), (x,), (v,))
    r["linearize_of_grad"] = F.linearize(F.grad(g), x)[1](v)
    _, vjp_fn = F.vjp(lambda y: (m @ y).tanh(), x)
    r["vmap_of_vjp_fn"] = F.vmap(vjp_fn)(L.eye(5, dtype=L.float64))
    r["grad_of_jacrev"] = F.grad(lambda y: F.jacrev(lambda z: (m @ z).sin())(y).sum())(x)
    r["vmap_of_jacfwd"] = F.vmap(F.jacfwd(lambda z, w: z.sin() * w), in_dims=(0, None))(m, x)
    r["vjp_of_vmap"] = F.vjp(lambda y: F.vmap(lambda row: (row * y).sum().sin())(m), x)[1](
        L.ones(5, dtype=L.float64))
    r["grad_of_grad_other_arg"] = F.grad(
        lambda y, z: F.grad(lambda p, q: (p * q).sin().sum() * p.sum())(y, z).sum(), argnums=1)(x, v)
    for name in ("jacrev", "jacfwd"):
        w = v.clone().requires_grad_()
        (getattr(F, name)(lambda y: (y * w).sin())(x) ** 2).sum().backward()
        r[f"backward_through_{name}_closure"] = w.grad
    return r


def test_compositions():
    e, t = _pair((4,), (4,), (5, 4), seed=43)
    _same(_compositions(ember, EF, *e), _compositions(torch, TF, *t))
