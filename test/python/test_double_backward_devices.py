"""Double backward of nll_loss, cross_entropy and embedding (the derivative rows of
their backward primitives, lib/autograd/derivatives/nn_backward.cpp and nn.cpp) on
every device: the first gradients and the gradients of a weighted sum of them
against PyTorch's (float64), with class weights, ignore_index, label smoothing,
probability targets, every reduction, padding_idx and scale_grad_by_freq; plus
ember's gradgradcheck on the CPU. The rows used to make some tensors on the CPU
whatever the inputs' device (a factory without the input's device), which a CUDA
input's op refused: on a GPU these tests run on "cuda" too (the `device` fixture)."""
import numpy as np
import pytest

import ember
import ember.nn.functional as EF

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

REDUCTIONS = ["none", "mean", "sum"]


def _tensor(lib, value, device, requires_grad=False):
    value = np.asarray(value)
    if lib is torch:
        return torch.tensor(value, requires_grad=requires_grad)
    return ember.tensor(value, device=device, requires_grad=requires_grad)


def second_order(lib, device, fn, diff, fixed, seed):
    """fn(lib, *diff, *fixed) -> out. The first gradients g_i of out (for fixed random
    grad_output go) wrt the float64 inputs `diff`, with create_graph; then the
    gradients of sum_i (g_i * w_i) wrt each input and go (zeros where unused). All
    as CPU numpy arrays."""
    rng = np.random.default_rng(seed)
    xs = [_tensor(lib, v, device, requires_grad=True) for v in diff]
    out = fn(lib, *xs, *[_tensor(lib, v, device) for v in fixed])
    go = _tensor(lib, rng.standard_normal(tuple(out.shape)), device, requires_grad=True)
    firsts = lib.autograd.grad(out, xs, go, create_graph=True, allow_unused=True)
    firsts = [lib.zeros_like(x) if g is None else g for g, x in zip(firsts, xs)]
    total = sum((g * _tensor(lib, rng.standard_normal(tuple(g.shape)), device)).sum() for g in firsts)
    seconds = lib.autograd.grad(total, xs + [go], allow_unused=True)
    seconds = [lib.zeros_like(x) if g is None else g for g, x in zip(seconds, xs + [go])]
    for g in list(firsts) + list(seconds):
        if lib is ember:
            assert g.device.type == device, f"a gradient on {g.device}, expected {device}"
    return [g.detach().cpu().numpy() for g in list(firsts) + list(seconds)]


def check_against_torch(device, fn, diff, fixed=(), seed=0, adjust=None):
    got = second_order(ember, device, fn, diff, fixed, seed)
    expected = second_order(torch, "cpu", fn, diff, fixed, seed)
    if adjust:
        expected = adjust(expected)
    names = [f"d out / d input {i}" for i in range(len(diff))] + \
        [f"second order wrt input {i}" for i in range(len(diff))] + ["second order wrt grad_output"]
    for g, e, name in zip(got, expected, names):
        np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-10, err_msg=name)


def functional(lib):
    return EF if lib is ember else TF


# ---- nll_loss -------------------------------------------------------------------------------

NLL_CASES = [  # (input shape, target shape)
    ((5, 4), (5,)), ((4,), ()), ((3, 4, 2, 2), (3, 2, 2)),
]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True], ids=["no_weight", "weight"])
@pytest.mark.parametrize("ignore_index", [-100, 1])
@pytest.mark.parametrize("shapes", NLL_CASES, ids=str)
def test_nll_loss_double_backward(device, shapes, ignore_index, weighted, reduction):
    rng = np.random.default_rng(1)
    (xs, ts) = shapes
    C = xs[1] if len(xs) > 1 else xs[0]
    x = rng.standard_normal(xs)
    t = rng.integers(0, C, size=ts)
    w = rng.uniform(0.5, 2.0, size=C)

    def fn(lib, x, t, w):
        return functional(lib).nll_loss(x, t, weight=w if weighted else None, ignore_index=ignore_index,
                                        reduction=reduction)
    check_against_torch(device, fn, [x], [t, w])


# ---- cross_entropy --------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True], ids=["no_weight", "weight"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("ignore_index", [-100, 2])
@pytest.mark.parametrize("shapes", NLL_CASES, ids=str)
def test_cross_entropy_indices_double_backward(device, shapes, ignore_index, smoothing, weighted, reduction):
    rng = np.random.default_rng(2)
    (xs, ts) = shapes
    C = xs[1] if len(xs) > 1 else xs[0]
    x = rng.standard_normal(xs)
    t = rng.integers(0, C, size=ts)
    w = rng.uniform(0.5, 2.0, size=C)

    def fn(lib, x, t, w):
        return functional(lib).cross_entropy(x, t, weight=w if weighted else None, ignore_index=ignore_index,
                                             reduction=reduction, label_smoothing=smoothing)
    check_against_torch(device, fn, [x], [t, w])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True], ids=["no_weight", "weight"])
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
@pytest.mark.parametrize("shape", [(5, 4), (4,), (2, 3, 2)], ids=str)
def test_cross_entropy_probabilities_double_backward(device, shape, smoothing, weighted, reduction):
    rng = np.random.default_rng(3)
    C = shape[1] if len(shape) > 1 else shape[0]
    x = rng.standard_normal(shape)
    p = rng.random(shape)
    p = p / p.sum(axis=1 if len(shape) > 1 else 0, keepdims=True)
    w = rng.uniform(0.5, 2.0, size=C)

    def fn(lib, x, p, w):
        return functional(lib).cross_entropy(x, p, weight=w if weighted else None, reduction=reduction,
                                             label_smoothing=smoothing)
    check_against_torch(device, fn, [x, p], [w])


def test_cross_entropy_empty_batch(device):
    def fn(lib, x, t):
        return functional(lib).cross_entropy(x, t, reduction="sum")
    check_against_torch(device, fn, [np.zeros((0, 3))], [np.zeros((0,), dtype=np.int64)])


# ---- embedding ------------------------------------------------------------------------------

@pytest.mark.parametrize("scale_grad_by_freq", [False, True])
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
@pytest.mark.parametrize("index_shape", [(4, 5), (6,), ()], ids=str)
def test_embedding_double_backward(device, index_shape, padding_idx, scale_grad_by_freq):
    rng = np.random.default_rng(4)
    weight = rng.standard_normal((7, 3))
    idx = rng.integers(0, 7, size=index_shape)
    if idx.size > 2:
        idx.flat[:3] = [2, 2, 6]  # repeats, and the padding row (2, or 6 as -1)

    def fn(lib, weight, idx):
        return functional(lib).embedding(idx, weight, padding_idx=padding_idx,
                                         scale_grad_by_freq=scale_grad_by_freq)

    def divide_by_count(expected):
        # PyTorch's double backward leaves out the 1 / count that its own first backward
        # applies (torch.autograd.gradcheck of that first backward wrt grad_output fails);
        # ember's is the exact adjoint (gradgradcheck below): PyTorch's divided by the count
        # of each position's index.
        count = np.bincount(idx.ravel(), minlength=7)[idx][..., None]
        return expected[:-1] + [expected[-1] / np.maximum(count, 1)]
    check_against_torch(device, fn, [weight], [idx], adjust=divide_by_count if scale_grad_by_freq else None)


def test_embedding_backward_of_backward_twice(device):
    # third order: the row of embedding_backward's own derivative is itself differentiated
    # (without scale_grad_by_freq, where PyTorch's double backward is not the adjoint)
    def grads(lib):
        w = _tensor(lib, np.random.default_rng(5).standard_normal((5, 2)), device if lib is ember else "cpu",
                    requires_grad=True)
        idx = _tensor(lib, np.array([[0, 1, 1], [4, 1, 0]]), device if lib is ember else "cpu")
        out = functional(lib).embedding(idx, w, padding_idx=0)
        go = lib.ones_like(out).requires_grad_()
        (g,) = lib.autograd.grad(out, w, go, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), go, create_graph=True)
        (ggg,) = lib.autograd.grad((gg * gg).sum(), go)
        return gg.detach().cpu().numpy(), ggg.detach().cpu().numpy()
    for e, t in zip(grads(ember), grads(torch)):
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)


# ---- gradgradcheck (float64 finite differences), on the CPU ----------------------------------

@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gradgradcheck_class_losses(reduction):
    rng = np.random.default_rng(6)
    x = ember.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    t = ember.tensor(np.array([0, 2, 1, 2]))
    w = ember.tensor(rng.uniform(0.5, 2, size=3))
    p = ember.tensor(rng.dirichlet(np.ones(3), size=4), requires_grad=True)
    assert ember.autograd.gradgradcheck(
        lambda x: EF.cross_entropy(x, t, weight=w, ignore_index=1, reduction=reduction, label_smoothing=0.1), (x,))
    assert ember.autograd.gradgradcheck(
        lambda x, p: EF.cross_entropy(x, p, weight=w, reduction=reduction, label_smoothing=0.2), (x, p))
    assert ember.autograd.gradgradcheck(
        lambda x: EF.nll_loss(x, t, weight=w, ignore_index=2, reduction=reduction), (x,))


@pytest.mark.parametrize("padding_idx", [None, 1])
@pytest.mark.parametrize("scale_grad_by_freq", [False, True])
def test_gradgradcheck_embedding(padding_idx, scale_grad_by_freq):
    weight = ember.tensor(np.random.default_rng(7).standard_normal((4, 2)), requires_grad=True)
    idx = ember.tensor(np.array([[1, 3, 3], [0, 1, 3]]))
    assert ember.autograd.gradgradcheck(
        lambda w: EF.embedding(idx, w, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq), (weight,))
