"""Values, first and second derivatives against PyTorch on the same float64
inputs, for a broad table of expressions. Each expression is written once as
`fn(L, *inputs)` where L is the library (ember or torch): the names are the same,
which is also a check that ember's API matches torch's. Skipped without torch.

Input specs: a shape tuple is a standard-normal float64 leaf; Pos(shape) a
positive one; NC(shape) a non-contiguous (transposed) leaf; Int(shape, high)
an int64 tensor of indices that does not require grad; Mask(shape) a bool one.
"""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


class Pos(tuple):
    pass


class NC(tuple):
    pass


class Int:
    def __init__(self, shape, high, unique=False):
        self.shape, self.high, self.unique = shape, high, unique


class Mask(tuple):
    pass


def make_inputs(specs, seed):
    rng = np.random.default_rng(seed)
    e_in, t_in = [], []
    for s in specs:
        if isinstance(s, Int):
            if s.unique:
                a = rng.permutation(s.high)[:int(np.prod(s.shape))].reshape(s.shape).astype(np.int64)
            else:
                a = rng.integers(0, s.high, s.shape).astype(np.int64)
            e_in.append(ember.from_numpy(a.copy()))
            t_in.append(torch.from_numpy(a.copy()))
            continue
        if isinstance(s, Mask):
            a = rng.random(s) < 0.5
            e_in.append(ember.from_numpy(a.copy()))
            t_in.append(torch.from_numpy(a.copy()))
            continue
        if isinstance(s, NC):
            a = rng.standard_normal(tuple(reversed(s))).T  # a transposed (non-contiguous) view
        else:
            a = rng.standard_normal(tuple(s))
            if isinstance(s, Pos):
                a = np.abs(a) + 0.5
        e = ember.from_numpy(a.copy() if not isinstance(s, NC) else a).requires_grad_()
        t = torch.from_numpy(a.copy() if not isinstance(s, NC) else np.ascontiguousarray(a)).requires_grad_()
        if isinstance(s, NC):
            assert not e.is_contiguous() or e.dim() < 2 or min(e.shape) <= 1
        e_in.append(e)
        t_in.append(t)
    return e_in, t_in


F = "nn.functional"


def f(L):
    return L.nn.functional


CASES = {
    # elementwise
    "add broadcast": (lambda L, a, b: a + b * 2, [(3, 4), (4,)]),
    "sub alpha": (lambda L, a, b: L.sub(a, b, alpha=0.5), [(3, 1), (1, 4)]),
    "mul nc": (lambda L, a, b: a * b, [NC((3, 4)), (3, 4)]),
    "div": (lambda L, a, b: a / b, [(5,), Pos((5,))]),
    "pow tensor": (lambda L, a, b: a ** b, [Pos((4,)), (4,)]),
    "pow scalar": (lambda L, a: a ** 3 + a ** 0.5 * 0, [Pos((4,))]),
    "rpow": (lambda L, a: 2.0 ** a, [(4,)]),
    "exp log": (lambda L, a: a.exp() + a.log(), [Pos((3, 2))]),
    "trig": (lambda L, a: a.sin() * a.cos() + (a * 0.3).tan(), [(6,)]),
    "tanh sigmoid": (lambda L, a: a.tanh() + a.sigmoid(), [(6,)]),
    "sqrt rsqrt": (lambda L, a: a.sqrt() + a.rsqrt() + a.reciprocal(), [Pos((6,))]),
    "log family": (lambda L, a: a.log1p() + a.log2() + a.expm1(), [Pos((6,))]),
    "abs": (lambda L, a: a.abs(), [(7,)]),
    "erf": (lambda L, a: a.erf(), [(7,)]),
    "relu": (lambda L, a: a.relu(), [(7,)]),
    "silu": (lambda L, a: f(L).silu(a), [(7,)]),
    "gelu": (lambda L, a: f(L).gelu(a), [(7,)]),
    "gelu tanh": (lambda L, a: f(L).gelu(a, approximate="tanh"), [(7,)]),
    "softplus": (lambda L, a: f(L).softplus(a, beta=2.0, threshold=1.0), [(7,)]),
    "leaky_relu": (lambda L, a: f(L).leaky_relu(a, 0.1), [(7,)]),
    "clamp": (lambda L, a: a.clamp(-0.5, 0.5), [(9,)]),
    "clamp tensors": (lambda L, a, lo, hi: a.clamp(lo, hi - 10), [(3, 4), (4,), (3, 1)]),
    "clamp_min": (lambda L, a: a.clamp_min(0.1), [(9,)]),
    "lerp": (lambda L, a, b: L.lerp(a, b, 0.3), [(4,), (4,)]),
    "lerp tensor": (lambda L, a, b, w: L.lerp(a, b, w), [(4,), (3, 4), (4,)]),
    "atan2": (lambda L, a, b: L.atan2(a, b), [(5,), (5,)]),
    "remainder": (lambda L, a, b: L.remainder(a, b), [(5,), Pos((5,))]),
    "fmod": (lambda L, a: L.fmod(a * 3, 1.5), [(5,)]),
    "maximum minimum": (lambda L, a, b: L.maximum(a, b) * L.minimum(a, b), [(5,), (5,)]),
    "where": (lambda L, a, b: L.where(a > 0, a, b), [(5,), (1,)]),
    "square": (lambda L, a: a.square(), [(5,)]),
    # reductions
    "sum dims": (lambda L, a: a.sum((0, 2), keepdim=True), [(2, 3, 4)]),
    "mean": (lambda L, a: a.mean(1), [NC((3, 4))]),
    "var std": (lambda L, a: a.var(1) + a.std(0).sum(), [(3, 4)]),
    "var correction": (lambda L, a: a.var(1, correction=0), [(3, 4)]),
    "amax": (lambda L, a: a.amax(1), [(3, 4)]),
    "max dim": (lambda L, a: a.max(1).values, [(3, 4)]),
    "min dim keepdim": (lambda L, a: a.min(0, keepdim=True)[0], [(3, 4)]),
    "max all": (lambda L, a: a.max(), [(3, 4)]),
    "logsumexp": (lambda L, a: a.logsumexp(1), [(3, 4)]),
    "softmax": (lambda L, a: a.softmax(0), [(3, 4)]),
    "log_softmax": (lambda L, a: a.log_softmax(-1), [(3, 4)]),
    "prod": (lambda L, a: a.prod(1), [(3, 4)]),
    "prod all": (lambda L, a: a.prod(), [(2, 3)]),
    "norm": (lambda L, a: a.norm(), [(3, 4)]),
    "norm dim p1": (lambda L, a: a.norm(p=1, dim=1), [(3, 4)]),
    "norm p3": (lambda L, a: a.norm(p=3, dim=0, keepdim=True), [(3, 4)]),
    "cumsum": (lambda L, a: a.cumsum(1), [(3, 4)]),
    "cumprod": (lambda L, a: a.cumprod(0), [(3, 4)]),
    "sort": (lambda L, a: a.sort(1).values, [(3, 5)]),
    "topk": (lambda L, a: a.topk(2, dim=1).values, [(3, 5)]),
    # linalg
    "mm": (lambda L, a, b: a @ b, [(3, 4), (4, 2)]),
    "bmm": (lambda L, a, b: a @ b, [(2, 3, 4), (2, 4, 5)]),
    "matmul broadcast": (lambda L, a, b: L.matmul(a, b), [(2, 3, 4), (4, 5)]),
    "mv": (lambda L, a, b: a @ b, [NC((3, 4)), (4,)]),
    "dot": (lambda L, a, b: L.dot(a, b), [(5,), (5,)]),
    "addmm": (lambda L, a, b, c: L.addmm(a, b, c, beta=0.5, alpha=2.0), [(3,), (2, 4), (4, 3)]),
    "linear": (lambda L, x, w, b: f(L).linear(x, w, b), [(5, 4), (3, 4), (3,)]),
    "outer": (lambda L, a, b: L.outer(a, b), [(3,), (4,)]),
    # shape and indexing
    "views": (lambda L, a: a.t().reshape(-1)[1:7:2].unsqueeze(1).expand(3, 2), [(3, 4)]),
    "permute": (lambda L, a: a.permute(2, 0, 1).flatten(1), [(2, 3, 4)]),
    "cat": (lambda L, a, b: L.cat([a, b], 1), [(2, 3), (2, 2)]),
    "stack": (lambda L, a, b: L.stack([a, b], 0), [(2, 3), (2, 3)]),
    "split": (lambda L, a: a.split(2, 1)[1] * 2, [(3, 5)]),
    "chunk unbind": (lambda L, a: a.chunk(2, 0)[0] + a.unbind(0)[2], [(4, 3)]),
    "flip": (lambda L, a: a.flip(0), [(3, 4)]),
    "roll": (lambda L, a: a.roll(1, 1), [(3, 4)]),
    "tril triu": (lambda L, a: a.tril(-1) + a.triu(1) * 2, [(4, 4)]),
    "repeat": (lambda L, a: a.repeat(2, 3), [(2, 3)]),
    "diagonal": (lambda L, a: a.diagonal(1), [(4, 4)]),
    "gather": (lambda L, a, i: a.gather(1, i), [(3, 5), Int((3, 4), 5)]),
    "index_select": (lambda L, a, i: a.index_select(0, i), [(4, 3), Int((6,), 4)]),
    "take": (lambda L, a, i: a.take(i), [(4, 3), Int((5,), 12)]),
    "scatter": (lambda L, a, i, s: a.scatter(1, i, s), [(3, 5), Int((3, 2), 5, unique=False), (3, 2)]),
    "scatter_add": (lambda L, a, i, s: a.scatter_add(1, i, s), [(3, 5), Int((3, 4), 5), (3, 4)]),
    "index_add": (lambda L, a, i, s: a.index_add(0, i, s, alpha=2), [(4, 3), Int((5,), 4), (5, 3)]),
    "masked_fill": (lambda L, a, m: a.masked_fill(m, 2.0), [(3, 4), Mask((3, 4))]),
    "index tensor": (lambda L, a, i: a[i], [(5, 3), Int((7,), 5)]),
    "index 2d": (lambda L, a, i, j: a[i, j], [(5, 3), Int((4,), 5), Int((4,), 3)]),
    "index mask": (lambda L, a, m: a[m], [(3, 4), Mask((3, 4))]),
    "index slice+tensor": (lambda L, a, i: a[1:, i], [(4, 5), Int((3,), 5)]),
    "index_put accumulate": (lambda L, a, i, v: a.index_put((i,), v, accumulate=True),
                             [(5, 3), Int((4,), 5), (4, 3)]),
    "index_put": (lambda L, a, i, v: a.index_put((i,), v), [(5, 3), Int((3,), 5, unique=True), (3, 3)]),
    # nn
    "cross_entropy": (lambda L, a, t: f(L).cross_entropy(a, t, label_smoothing=0.1), [(4, 5), Int((4,), 5)]),
    "cross_entropy probs": (lambda L, a, b: f(L).cross_entropy(a, b.softmax(1)), [(4, 5), (4, 5)]),
    "nll_loss": (lambda L, a, t: f(L).nll_loss(a.log_softmax(1), t, reduction="sum"), [(4, 5), Int((4,), 5)]),
    "mse_loss": (lambda L, a, b: f(L).mse_loss(a, b), [(3, 4), (3, 4)]),
    "l1_loss": (lambda L, a, b: f(L).l1_loss(a, b, reduction="none"), [(3, 4), (3, 4)]),
    "smooth_l1_loss": (lambda L, a, b: f(L).smooth_l1_loss(a, b * 2, beta=0.7), [(3, 4), (3, 4)]),
    "huber_loss": (lambda L, a, b: f(L).huber_loss(a, b * 2, delta=0.7), [(3, 4), (3, 4)]),
    "bce": (lambda L, a, b: f(L).binary_cross_entropy(a.sigmoid(), b.sigmoid()), [(3, 4), (3, 4)]),
    # (torch refuses a pos_weight that requires grad; ember differentiates it, tested elsewhere)
    "bce logits": (lambda L, a, b: f(L).binary_cross_entropy_with_logits(
        a, b.sigmoid(), pos_weight=L.arange(1.0, 5.0, dtype=L.float64)), [(3, 4), (3, 4)]),
    "layer_norm": (lambda L, a, w, b: f(L).layer_norm(a, (4,), w, b), [(3, 4), (4,), (4,)]),
    "group_norm": (lambda L, a, w, b: f(L).group_norm(a, 2, w, b), [(2, 4, 3), (4,), (4,)]),
    "batch_norm train": (lambda L, a, w, b: f(L).batch_norm(a, None, None, w, b, training=True),
                         [(5, 3, 2), (3,), (3,)]),
    "embedding": (lambda L, w, i: f(L).embedding(i, w), [(5, 3), Int((2, 3), 5)]),
    "pad reflect": (lambda L, a: f(L).pad(a, (1, 2), mode="reflect"), [(2, 3, 5)]),
    "pad constant": (lambda L, a: f(L).pad(a, (1, 2, 0, 1), value=0.5), [(2, 3, 5)]),
    "interpolate linear": (lambda L, a: f(L).interpolate(a, scale_factor=2, mode="linear"), [(2, 3, 4)]),
    "interpolate nearest": (lambda L, a: f(L).interpolate(a, size=(3, 5)), [(1, 2, 4, 4)]),
    "conv2d": (lambda L, x, w, b: f(L).conv2d(x, w, b, padding=1, stride=2), [(2, 3, 5, 5), (4, 3, 3, 3), (4,)]),
    "conv2d groups dilation": (lambda L, x, w: f(L).conv2d(x, w, groups=2, dilation=2),
                               [(1, 4, 6, 6), (4, 2, 2, 2)]),
    "conv_transpose2d": (lambda L, x, w, b: f(L).conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
                         [(2, 3, 3, 3), (3, 2, 3, 3), (2,)]),
    "max_pool2d": (lambda L, x: f(L).max_pool2d(x, 2), [(2, 3, 4, 4)]),
    "max_pool2d pad stride": (lambda L, x: f(L).max_pool2d(x, 3, stride=2, padding=1), [(1, 2, 5, 5)]),
    "avg_pool2d": (lambda L, x: f(L).avg_pool2d(x, 2, stride=1, padding=1, count_include_pad=False),
                   [(2, 3, 4, 4)]),
    "adaptive_avg_pool2d": (lambda L, x: f(L).adaptive_avg_pool2d(x, (2, 3)), [(2, 3, 5, 7)]),
}

# Second derivatives taken through these (a double-backward check against torch).
SECOND_ORDER = [
    "mul nc", "div", "pow tensor", "exp log", "trig", "tanh sigmoid", "gelu", "softplus", "lerp",
    "atan2", "var std", "logsumexp", "softmax", "log_softmax", "prod", "norm", "cumprod", "mm",
    "linear", "cat", "gather", "index tensor", "cross_entropy", "cross_entropy probs", "nll_loss",
    "mse_loss", "smooth_l1_loss", "bce", "bce logits", "layer_norm", "group_norm", "batch_norm train",
    "conv2d", "conv_transpose2d", "avg_pool2d", "max_pool2d", "pad reflect", "interpolate linear",
]


def assert_same(e, t, what):
    if e is None or t is None:
        for side, x in (("ember", e), ("torch", t)):
            largest = 0.0 if x is None else float(np.abs(x.detach().numpy()).max(initial=0))
            if largest != 0:
                pytest.fail(f"{what}: only {side} gives a nonzero gradient (max |g| = {largest:.3g})")
        return
    assert tuple(e.shape) == tuple(t.shape), f"{what}: shape {tuple(e.shape)} vs torch {tuple(t.shape)}"
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-9, err_msg=what)


def grads(lib, out, inputs, seed, create_graph=False):
    diff = [x for x in inputs if x.requires_grad]
    go = np.random.default_rng(seed + 1).standard_normal(tuple(out.shape))
    g = lib.from_numpy(go)
    return diff, lib.autograd.grad(out, diff, g, allow_unused=True, create_graph=create_graph)


@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients_match_torch(name):
    fn, specs = CASES[name]
    e_in, t_in = make_inputs(specs, seed=len(name))
    eo, to = fn(ember, *e_in), fn(torch, *t_in)
    assert_same(eo, to, f"{name}: value")
    _, eg = grads(ember, eo, e_in, len(name))
    _, tg = grads(torch, to, t_in, len(name))
    for k, (a, b) in enumerate(zip(eg, tg)):
        assert_same(a, b, f"{name}: gradient of input {k}")


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivatives_match_torch(name):
    fn, specs = CASES[name]
    e_in, t_in = make_inputs(specs, seed=len(name))
    results = []
    for lib, inputs in ((ember, e_in), (torch, t_in)):
        diff, g = grads(lib, fn(lib, *inputs), inputs, len(name), create_graph=True)
        rng = np.random.default_rng(7)
        total = None
        for gi in g:
            if gi is None or not gi.requires_grad:
                continue
            term = (gi * lib.from_numpy(rng.standard_normal(tuple(gi.shape)))).sum()
            total = term if total is None else total + term
        results.append(lib.autograd.grad(total, diff, allow_unused=True) if total is not None else None)
    e2, t2 = results  # None: the first derivatives do not depend on the inputs (all zero)
    n = len([x for x in e_in if x.requires_grad])
    for k, (a, b) in enumerate(zip(e2 or (None,) * n, t2 or (None,) * n)):
        assert_same(a, b, f"{name}: second derivative wrt input {k}")
