"""Derivative rows of the remaining elementwise ops, reductions, scans and sorts:
gradients against float64 finite differences (broadcast, non-contiguous, 0-dim and
empty inputs), second derivatives of the smooth ones, and PyTorch's conventions at
ties, bounds and zeros (compared with torch where it is installed)."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

F = ember.nn.functional
rng = np.random.default_rng(0)
NAN, INF = float("nan"), float("inf")


def leaf(*shape, low=None, high=None):
    a = rng.standard_normal(shape) if low is None else rng.uniform(low, high, shape)
    return ember.from_numpy(np.asarray(a, dtype=np.float64)).requires_grad_()


def leaf_t(rows, cols, **kw):
    """A non-contiguous [rows, cols] leaf (the transpose of a contiguous one)."""
    return leaf(cols, rows, **kw).detach().t().requires_grad_()


def tensor(values):
    return ember.tensor(values, dtype=ember.float64).requires_grad_()


# ---- first derivatives ---------------------------------------------------------------------

CASES = {
    # activations
    "gelu": (lambda a: F.gelu(a), lambda: [leaf(3, 4)]),
    "gelu_tanh": (lambda a: F.gelu(a, approximate="tanh"), lambda: [leaf_t(3, 4)]),
    "gelu_0d": (lambda a: F.gelu(a), lambda: [leaf()]),
    "gelu_empty": (lambda a: F.gelu(a, approximate="tanh"), lambda: [leaf(0, 3)]),
    "softplus": (lambda a: F.softplus(a), lambda: [leaf_t(3, 4)]),
    # beta x crosses the threshold inside the input: both branches
    "softplus_beta_threshold": (lambda a: F.softplus(a, beta=2, threshold=1.5), lambda: [leaf(4, 5, low=-2, high=2)]),
    "leaky_relu": (lambda a: F.leaky_relu(a, 0.2), lambda: [leaf_t(4, 3)]),
    "leaky_relu_0d": (lambda a: F.leaky_relu(a), lambda: [leaf()]),
    # clamp: number bounds, tensor bounds (broadcast), one-sided, min > max
    "clamp_numbers": (lambda a: a.clamp(-0.5, 0.5), lambda: [leaf_t(3, 4)]),
    "clamp_min_number": (lambda a: a.clamp(min=0.1), lambda: [leaf(5)]),
    "clamp_max_number_0d": (lambda a: a.clamp(max=0.1), lambda: [leaf()]),
    "clamp_tensors": (lambda a, lo, hi: a.clamp(lo, hi), lambda: [leaf(3, 4), leaf(4, low=-1, high=-0.2),
                                                                 leaf(3, 1, low=0.2, high=1)]),
    "clamp_tensor_min": (lambda a, lo: ember.clamp_min(a, lo), lambda: [leaf_t(3, 4), leaf(4)]),
    "clamp_tensor_max": (lambda a, hi: ember.clamp_max(a, hi), lambda: [leaf(3, 4), leaf()]),
    "clamp_min_above_max": (lambda a, lo, hi: a.clamp(lo, hi), lambda: [leaf(5), leaf(5, low=1, high=2),
                                                                        leaf(5, low=-2, high=-1)]),
    "clamp_empty": (lambda a, lo: a.clamp(min=lo), lambda: [leaf(0, 2), leaf(2)]),
    # binary
    "atan2": (lambda a, b: ember.atan2(a, b), lambda: [leaf_t(3, 4), leaf(4)]),
    "atan2_0d": (lambda a, b: ember.atan2(a, b), lambda: [leaf(), leaf(3)]),
    "remainder": (lambda a, b: ember.remainder(a * 3, b), lambda: [leaf_t(3, 4), leaf(4, low=0.7, high=1.3)]),
    "remainder_negative_divisor": (lambda a, b: a.remainder(b), lambda: [leaf(6, low=-4, high=4),
                                                                         leaf(6, low=-1.6, high=-0.6)]),
    "remainder_number": (lambda a: a % 0.7, lambda: [leaf(5)]),
    "fmod": (lambda a, b: ember.fmod(a * 3, b), lambda: [leaf(3, 4), leaf(3, 1, low=-1.3, high=-0.7)]),
    "fmod_0d": (lambda a, b: ember.fmod(a, b), lambda: [leaf(4, low=-3, high=3), leaf(low=0.6, high=0.9)]),
    "lerp_number_weight": (lambda a, b: ember.lerp(a, b, 0.3), lambda: [leaf_t(3, 4), leaf(4)]),
    "lerp_tensor_weight": (lambda a, b, w: ember.lerp(a, b, w), lambda: [leaf(3, 4), leaf(3, 4), leaf(4)]),
    "lerp_0d": (lambda a, b, w: ember.lerp(a, b, w), lambda: [leaf(), leaf(), leaf()]),
    "nan_to_num": (lambda a: a.nan_to_num(), lambda: [leaf_t(3, 4)]),
    # non-finite elements (which do not depend on a here) get no gradient
    "nan_to_num_nonfinite": (lambda a: ember.where(ember.tensor([True, False, False, False, True]), a,
                                                   ember.tensor([0.0, NAN, INF, -INF, 0.0], dtype=ember.float64))
                             .nan_to_num(posinf=2.0), lambda: [leaf(5)]),
    # reductions
    "max_dim": (lambda a: a.max(1).values, lambda: [leaf_t(3, 4)]),
    "max_dim_keepdim": (lambda a: a.max(0, keepdim=True).values, lambda: [leaf(3, 4)]),
    "min_dim": (lambda a: a.min(-1).values, lambda: [leaf(2, 3, 4)]),
    "max_dim_0d": (lambda a: a.max(0).values, lambda: [leaf()]),
    "min_dim_empty": (lambda a: a.min(1).values, lambda: [leaf(0, 3)]),
    "aminmax": (lambda a: ember.aminmax(a, dim=1), lambda: [leaf_t(3, 4)]),
    "aminmax_all_keepdim": (lambda a: ember.aminmax(a, keepdim=True), lambda: [leaf(2, 3)]),
    "norm2": (lambda a: a.norm(), lambda: [leaf_t(3, 4)]),
    "norm2_dim": (lambda a: a.norm(dim=1, keepdim=True), lambda: [leaf(3, 4)]),
    "norm1": (lambda a: a.norm(p=1, dim=0), lambda: [leaf(3, 4)]),
    "norm_inf": (lambda a: a.norm(p=float("inf"), dim=1), lambda: [leaf_t(3, 4)]),
    "norm_minus_inf": (lambda a: a.norm(p=float("-inf")), lambda: [leaf(3, 4)]),
    "norm_p3": (lambda a: a.norm(p=3, dim=(0, 2)), lambda: [leaf(2, 3, 4)]),
    "norm_p1_5": (lambda a: a.norm(p=1.5, dim=1), lambda: [leaf(3, 4)]),
    "norm_p0_5": (lambda a: a.norm(p=0.5, dim=1), lambda: [leaf(3, 4)]),
    "norm_p_negative": (lambda a: a.norm(p=-2, dim=1), lambda: [leaf(3, 4)]),
    "norm_0d": (lambda a: a.norm(p=3), lambda: [leaf()]),
    "norm_empty": (lambda a: a.norm(dim=1), lambda: [leaf(0, 3)]),
    "prod": (lambda a: a.prod(), lambda: [leaf_t(3, 4)]),
    "prod_dim": (lambda a: a.prod(1, keepdim=True), lambda: [leaf(3, 4)]),
    # torch.prod takes one int dim (a tuple is its TypeError): two dims are two prods
    "prod_dims": (lambda a: ember.prod(ember.prod(a, 2), 0), lambda: [leaf(2, 3, 4)]),
    "prod_0d": (lambda a: a.prod(), lambda: [leaf()]),
    "prod_empty": (lambda a: a.prod(1), lambda: [leaf(2, 0)]),
    "prod_one_zero": (lambda a: a.prod(1), lambda: [tensor([[2.0, 0.0, -3.0, 0.5], [1.0, 2.0, 3.0, 4.0]])]),
    "prod_two_zeros": (lambda a: a.prod(), lambda: [tensor([[2.0, 0.0, -3.0], [0.0, 1.5, 4.0]])]),
    "prod_zero_dims": (lambda a: ember.prod(ember.prod(a, 2), 0),
                       lambda: [ember.from_numpy(np.where(rng.random((2, 3, 2)) < 0.3, 0.0,
                                                          rng.standard_normal((2, 3, 2)))).requires_grad_()]),
    "var_mean": (lambda a: ember.var_mean(a, 1), lambda: [leaf_t(3, 4)]),
    "var_mean_all": (lambda a: ember.var_mean(a, correction=0), lambda: [leaf(3, 4)]),
    "var_mean_only_mean": (lambda a: ember.var_mean(a, 0, keepdim=True)[1], lambda: [leaf(3, 4)]),
    "std_mean": (lambda a: ember.std_mean(a, (0, 1), keepdim=True), lambda: [leaf(2, 3, 2)]),
    "std_mean_only_std": (lambda a: ember.std_mean(a, 1)[0], lambda: [leaf_t(3, 4)]),
    # scans
    "cumsum": (lambda a: a.cumsum(1), lambda: [leaf_t(3, 4)]),
    "cumsum_0d": (lambda a: a.cumsum(0), lambda: [leaf()]),
    "cumsum_empty": (lambda a: a.cumsum(1), lambda: [leaf(2, 0)]),
    "cumprod": (lambda a: a.cumprod(0), lambda: [leaf_t(3, 4)]),
    "cumprod_one_zero": (lambda a: a.cumprod(1), lambda: [tensor([[2.0, 0.0, -3.0, 0.5], [1.0, 2.0, 3.0, 4.0]])]),
    "cumprod_two_zeros": (lambda a: a.cumprod(-1), lambda: [tensor([2.0, 0.0, -3.0, 0.0, 1.5])]),
    "cumprod_0d": (lambda a: a.cumprod(0), lambda: [leaf()]),
    "cumprod_empty": (lambda a: a.cumprod(0), lambda: [leaf(0, 2)]),
    # sorting
    "sort": (lambda a: a.sort(1).values, lambda: [leaf_t(3, 4)]),
    "sort_descending": (lambda a: a.sort(0, descending=True).values, lambda: [leaf(3, 4)]),
    "sort_0d": (lambda a: a.sort().values, lambda: [leaf()]),
    "sort_empty": (lambda a: a.sort().values, lambda: [leaf(0)]),
    "topk": (lambda a: a.topk(2, 1).values, lambda: [leaf_t(3, 4)]),
    "topk_smallest": (lambda a: a.topk(3, 0, largest=False).values, lambda: [leaf(4, 2)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, inputs = CASES[name]
    assert gradcheck(fn, tuple(inputs()))


# ---- second derivatives ---------------------------------------------------------------------

SECOND = {
    "gelu": (lambda a: F.gelu(a), lambda: [leaf(5)]),
    "gelu_tanh": (lambda a: F.gelu(a, approximate="tanh"), lambda: [leaf_t(2, 3)]),
    "softplus": (lambda a: F.softplus(a, beta=2, threshold=1.5), lambda: [leaf(6, low=-2, high=2)]),
    "lerp": (lambda a, b, w: ember.lerp(a, b, w), lambda: [leaf(3), leaf(3), leaf(3)]),
    "atan2": (lambda a, b: ember.atan2(a, b), lambda: [leaf(2, 3), leaf(3)]),
    "norm2": (lambda a: a.norm(dim=1), lambda: [leaf(2, 3)]),
    "norm_p3": (lambda a: a.norm(p=3), lambda: [leaf_t(2, 3)]),
    "norm_p1_5": (lambda a: a.norm(p=1.5, dim=0), lambda: [leaf(3, 2)]),
    "prod": (lambda a: a.prod(1), lambda: [leaf(2, 4)]),
    "prod_all": (lambda a: a.prod(), lambda: [leaf_t(2, 3)]),
    "cumprod_zeros": (lambda a: a.cumprod(1), lambda: [tensor([[2.0, 0.0, -3.0, 0.0], [1.0, 0.5, 0.0, 4.0]])]),
    "var_mean": (lambda a: ember.var_mean(a, 1), lambda: [leaf(2, 3)]),
    "std_mean": (lambda a: ember.std_mean(a), lambda: [leaf(2, 3)]),
}


@pytest.mark.parametrize("name", sorted(SECOND))
def test_gradgradcheck(name):
    fn, inputs = SECOND[name]
    assert gradgradcheck(fn, tuple(inputs()))


@pytest.mark.parametrize("fn, x", [
    (lambda a: a.cumsum(0), lambda: leaf(4, 2)),
    (lambda a: a.cumprod(1), lambda: leaf_t(2, 4)),
    (lambda a: a.prod(1), lambda: tensor([[2.0, 0.0, -3.0], [0.0, 1.5, 0.0]])),
])
def test_gradgradcheck_through_flip_and_cat(fn, x):
    assert gradgradcheck(fn, (x(),))


# ---- conventions at ties, bounds and zeros (no torch needed) --------------------------------

def grad_of(fn, *xs):
    xs = [ember.tensor(x, dtype=ember.float64).requires_grad_() for x in xs]
    fn(*xs).sum().backward()
    return [None if x.grad is None else x.grad.numpy() for x in xs]


def test_max_dim_sends_the_gradient_to_the_first_maximum():
    (g,) = grad_of(lambda a: a.max(1).values, [[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    np.testing.assert_array_equal(g, [[0, 1, 0], [1, 0, 0]])


def test_norm_of_float32_computed_in_float64():
    x = leaf(3, 4)
    x32 = x.detach().float().requires_grad_()
    x32.norm(p=3, dim=1, dtype=ember.float64).sum().backward()
    x.norm(p=3, dim=1).sum().backward()
    assert x32.grad.dtype == ember.float32
    np.testing.assert_allclose(x32.grad.numpy(), x.grad.numpy(), rtol=1e-5)


def test_index_outputs_and_nonzero_do_not_require_grad():
    x = tensor([3.0, 1.0, 2.0])
    assert not x.max(0).indices.requires_grad
    assert not x.sort().indices.requires_grad
    assert not x.topk(2).indices.requires_grad
    assert not x.nonzero().requires_grad


def test_unique_has_no_derivative_as_in_pytorch():
    values = ember.unique(tensor([1.0, 2.0, 2.0]))
    assert values.requires_grad
    with pytest.raises(NotImplementedError, match="unique"):
        values.sum().backward()


def test_prod_and_cumprod_at_zeros():
    (g,) = grad_of(lambda a: a.prod(), [0.0, 1.0, 2.0, 4.0, 3.0])
    np.testing.assert_array_equal(g, [24, 0, 0, 0, 0])
    (g,) = grad_of(lambda a: a.prod(), [0.0, 1.0, 2.0, 0.0, 3.0])
    np.testing.assert_array_equal(g, [0, 0, 0, 0, 0])
    (g,) = grad_of(lambda a: a.cumprod(0) * ember.tensor([1.0, 2.0, 3.0, 4.0], dtype=ember.float64),
                   [2.0, 0.0, 3.0, 4.0])
    np.testing.assert_array_equal(g, [1, 118, 0, 0])


def test_cumprod_at_zeros_with_create_graph_gives_the_same_gradient():
    x = tensor([[2.0, 0.0, 3.0, 0.0, 5.0], [1.0, 2.0, 0.0, 4.0, -1.0]])
    w = ember.from_numpy(rng.standard_normal((2, 5)))
    (g_exact,) = ember.autograd.grad((x.cumprod(1) * w).sum(), x, create_graph=True)
    (g_fast,) = ember.autograd.grad((x.cumprod(1) * w).sum(), x)
    np.testing.assert_allclose(g_exact.detach().numpy(), g_fast.numpy(), rtol=1e-12)


def test_norm_subgradients_at_zero():
    for p in (2.0, 3.0, 1.5, 0.5, 1.0):
        (g,) = grad_of(lambda a: a.norm(p=p), [0.0, 0.0, 0.0])
        np.testing.assert_array_equal(g, [0, 0, 0])
    (g,) = grad_of(lambda a: a.norm(p=0), [0.0, 2.0])
    assert g is None or not g.any()


def test_clamp_number_bounds_pass_the_gradient_strictly_inside():
    (g,) = grad_of(lambda a: a.clamp(0.0, 1.0), [-1.0, 0.0, 0.5, 1.0, 2.0, float("nan")])
    np.testing.assert_array_equal(g, [0, 0, 1, 0, 0, 0])


def test_clamp_tensor_bounds_split_ties():
    gx, glo, ghi = grad_of(lambda a, lo, hi: a.clamp(lo, hi), [-1.0, 0.0, 0.5, 1.0, 2.0], [0.0] * 5, [1.0] * 5)
    np.testing.assert_array_equal(gx, [0, 0.5, 1, 0.5, 0])
    np.testing.assert_array_equal(glo, [1, 0.5, 0, 0, 0])
    np.testing.assert_array_equal(ghi, [0, 0, 0, 0.5, 1])


def test_nan_to_num_and_leaky_relu_edges():
    (g,) = grad_of(lambda a: a.nan_to_num(), [float("nan"), float("inf"), -float("inf"), 1.0])
    np.testing.assert_array_equal(g, [0, 0, 0, 1])
    (g,) = grad_of(lambda a: F.leaky_relu(a, 0.1), [-1.0, 0.0, 2.0])
    np.testing.assert_allclose(g, [0.1, 0.1, 1.0])


def test_inplace_forms_use_the_value_before_the_op():
    x = leaf(5)
    y = x * 1
    y.clamp_(-0.3, 0.3)
    y.sum().backward()
    xv = x.detach().numpy()
    np.testing.assert_array_equal(x.grad.numpy(), ((xv > -0.3) & (xv < 0.3)).astype(float))
    assert gradcheck(lambda a: (a * 1).leaky_relu_(0.2), (leaf(4),))
    assert gradcheck(lambda a, b: (a * 1).lerp_(b, 0.25), (leaf(3), leaf(3)))


# ---- against PyTorch -------------------------------------------------------------------------

torch = None  # imported by the comparison test (CI has no torch)

TORCH_CASES = [
    # (ember fn, torch fn, inputs): ties, bounds, zeros and non-finite values
    (lambda a: a.max(1).values, lambda a: a.max(1).values, [[[1.0, 3.0, 3.0, 1.0], [2.0, 2.0, 0.0, 0.0]]]),
    (lambda a: a.min(0).values, lambda a: a.min(0).values, [[[1.0, 3.0], [1.0, 0.0], [0.0, 0.0]]]),
    (lambda a: sum(ember.aminmax(a, dim=1)), lambda a: sum(a.aminmax(dim=1)),
     [[[1.0, 3.0, 3.0, 1.0], [2.0, 2.0, 0.0, 0.0]]]),
    (lambda a: ember.aminmax(a)[1] * 3, lambda a: a.aminmax()[1] * 3, [[[1.0, 3.0, 3.0], [3.0, 0.0, 0.0]]]),
    (lambda a: a.clamp(0.0, 1.0), lambda a: a.clamp(0.0, 1.0), [[-1.0, 0.0, 0.5, 1.0, 2.0, NAN]]),
    (lambda a: a.clamp(min=0.0), lambda a: a.clamp(min=0.0), [[-1.0, 0.0, 0.5, NAN]]),
    (lambda a: a.clamp(max=1.0), lambda a: a.clamp(max=1.0), [[0.5, 1.0, 2.0]]),
    (lambda a: a.clamp(1.0, 0.0), lambda a: a.clamp(1.0, 0.0), [[-1.0, 0.0, 0.5, 1.0, 2.0]]),
    (lambda a, b: ember.clamp_min(a, b), lambda a, b: torch.clamp_min(a, b), [[-1.0, 0.0, 0.5, NAN], [0.0] * 4]),
    (lambda a, b: ember.clamp_max(a, b), lambda a, b: torch.clamp_max(a, b), [[0.5, 1.0, 2.0, NAN], [1.0] * 4]),
    # every (x, min, max) over {0, 1, 2, nan}: ties, min == max, min > max, nan anywhere
    (lambda a, lo, hi: a.clamp(lo, hi), lambda a, lo, hi: a.clamp(lo, hi),
     [list(v) for v in np.stack(np.meshgrid(*[[0.0, 1.0, 2.0, NAN]] * 3, indexing="ij")).reshape(3, -1)]),
    (lambda a: a.norm(), lambda a: torch.linalg.vector_norm(a), [[0.0, 0.0, 3.0, -4.0]]),
    (lambda a: a.norm(dim=1), lambda a: torch.linalg.vector_norm(a, dim=1), [[[0.0, 0.0], [3.0, -4.0]]]),
    (lambda a: a.norm(p=1), lambda a: torch.linalg.vector_norm(a, 1), [[0.0, 2.0, -2.0]]),
    (lambda a: a.norm(p=INF), lambda a: torch.linalg.vector_norm(a, INF), [[0.0, 2.0, -2.0, 1.0]]),
    (lambda a: a.norm(p=-INF), lambda a: torch.linalg.vector_norm(a, -INF), [[0.5, 2.0, -0.5, 1.0]]),
    (lambda a: a.norm(p=INF), lambda a: torch.linalg.vector_norm(a, INF), [[NAN, 2.0, -2.0]]),
    (lambda a: a.norm(p=3, dim=1), lambda a: torch.linalg.vector_norm(a, 3, dim=1), [[[0.0, 0.0], [1.0, -2.0]]]),
    (lambda a: a.norm(p=1.5), lambda a: torch.linalg.vector_norm(a, 1.5), [[0.0, 1.0, -2.0]]),
    (lambda a: a.norm(p=0.5, dim=1), lambda a: torch.linalg.vector_norm(a, 0.5, dim=1),
     [[[0.0, 1.0, -2.0], [0.0, 0.0, 0.0]]]),
    (lambda a: a.norm(p=-1), lambda a: torch.linalg.vector_norm(a, -1), [[0.0, 2.0, -2.0]]),
    (lambda a: a.norm(p=-1), lambda a: torch.linalg.vector_norm(a, -1), [[1.0, 2.0, -2.0]]),
    (lambda a: a.prod(1), lambda a: a.prod(1), [[[0.0, 1.0, 2.0], [0.0, 2.0, 0.0], [3.0, 2.0, 1.0]]]),
    (lambda a: a.prod(), lambda a: a.prod(), [[[0.0, 1.0], [2.0, 3.0]]]),
    (lambda a: a.prod(), lambda a: a.prod(), [[[0.0, 1.0], [2.0, 0.0]]]),
    (lambda a: a.cumprod(1), lambda a: a.cumprod(1), [[[2.0, 0.0, 2.0, 0.0, 3.0], [1.0, 2.0, 0.0, 4.0, 0.5]]]),
    (lambda a: a.cumsum(0), lambda a: a.cumsum(0), [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]),
    (lambda a: F.leaky_relu(a, 0.1), lambda a: torch.nn.functional.leaky_relu(a, 0.1), [[-1.0, 0.0, 2.0]]),
    (lambda a: a.nan_to_num(posinf=5.0), lambda a: a.nan_to_num(posinf=5.0), [[NAN, INF, -INF, 1.0]]),
    (lambda a: F.softplus(a, beta=2, threshold=2), lambda a: torch.nn.functional.softplus(a, beta=2, threshold=2),
     [[0.999, 1.0, 1.001, -3.0]]),
    (lambda a: F.gelu(a), lambda a: torch.nn.functional.gelu(a), [[-3.0, -0.5, 0.0, 1.0, 4.0]]),
    (lambda a: F.gelu(a, approximate="tanh"), lambda a: torch.nn.functional.gelu(a, approximate="tanh"),
     [[-3.0, -0.5, 0.0, 1.0, 4.0]]),
    (lambda a, b: ember.atan2(a, b), lambda a, b: torch.atan2(a, b), [[0.0, 1.0, 0.0, -2.0], [0.0, 0.0, -1.0, 3.0]]),
    (lambda a, b: ember.remainder(a, b), lambda a, b: torch.remainder(a, b), [[5.0, -5.0, 5.5], [3.0, 3.0, -2.0]]),
    (lambda a, b: ember.fmod(a, b), lambda a, b: torch.fmod(a, b), [[5.0, -5.0, 5.5], [3.0, 3.0, -2.0]]),
    (lambda a, b, w: ember.lerp(a, b, w), lambda a, b, w: torch.lerp(a, b, w), [[1.0, 2.0], [3.0, 5.0], [0.25, 0.5]]),
    (lambda a: ember.std_mean(a, 1)[0], lambda a: torch.std_mean(a, 1)[0], [[[1.0, 1.0], [1.0, 3.0]]]),
    (lambda a: sum(ember.var_mean(a, 0)), lambda a: sum(torch.var_mean(a, 0)), [[[1.0, 2.0], [4.0, 3.0]]]),
    (lambda a: a.sort(dim=1, stable=True).values * ember.arange(4.0, dtype=ember.float64),
     lambda a: a.sort(dim=1, stable=True).values * torch.arange(4.0, dtype=torch.float64),
     [[[1.0, 3.0, 3.0, 1.0], [2.0, 2.0, 0.0, 0.0]]]),
    (lambda a: a.topk(2, 1).values * ember.arange(2.0, dtype=ember.float64),
     lambda a: a.topk(2, 1).values * torch.arange(2.0, dtype=torch.float64), [[[1.0, 3.0, 2.0, 0.0], [2.0, 5.0, 0.0, 4.0]]]),
]


@pytest.mark.parametrize("case", range(len(TORCH_CASES)))
def test_gradients_match_torch(case):
    global torch
    torch = pytest.importorskip("torch")
    ember_fn, torch_fn, values = TORCH_CASES[case]
    ours = grad_of(ember_fn, *values)
    ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    torch_fn(*ts).sum().backward()
    for g, t in zip(ours, ts):
        expected = np.zeros(t.shape) if t.grad is None else t.grad.numpy()
        got = np.zeros(t.shape) if g is None else g
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
