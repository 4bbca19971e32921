"""ember.nn.functional losses against float64 numpy references, and against
PyTorch where it is installed."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from _helpers import to_ember, to_numpy
from nn_refs import (FLOAT_DTYPES, TF, close, log_softmax, make, needs_torch, ref_bce,
                     ref_bce_logits, ref_cross_entropy_probs, ref_nll, ref_pointwise, rounded,
                     torch, torch_of)

rng = np.random.default_rng(99)
REDUCTIONS = ["none", "mean", "sum"]


def randn(*shape, scale=1.0):
    return rng.standard_normal(shape) * scale


def targets(shape, c, ignore=None, frac=0.25):
    t = rng.integers(0, c, size=shape)
    if ignore is not None:
        t = np.where(rng.random(shape) < frac, ignore, t)
    return t


def idx(t):
    return to_ember(np.asarray(t, dtype=np.int64))


# ---- cross_entropy with class indices ---------------------------------------------------

@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 2])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.3])
@pytest.mark.parametrize("shape", [(6, 5), (3, 4, 2), (2, 3, 2, 3), (5,)])
def test_cross_entropy_class_indices(reduction, weighted, ignore_index, label_smoothing, shape):
    x = randn(*shape, scale=3)
    c = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    t = targets(tshape, c, ignore=ignore_index if ignore_index != -100 else None)
    if tshape == () and t == ignore_index:
        t = np.array(0)
    w = rng.uniform(0.2, 2.0, c) if weighted else None
    got = F.cross_entropy(make(x, "float64"), idx(t), None if w is None else make(w, "float64"),
                          ignore_index=ignore_index, reduction=reduction, label_smoothing=label_smoothing)
    exp = ref_nll(log_softmax(x, 0 if len(shape) == 1 else 1), t, w, ignore_index, reduction,
                  label_smoothing)
    close(got, exp, "float64")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_dtypes(dtype, reduction):
    x = randn(8, 7, scale=4)
    t = targets((8,), 7)
    got = F.cross_entropy(make(x, dtype), idx(t), reduction=reduction)
    assert got.dtype == getattr(ember, dtype)
    close(got, ref_nll(log_softmax(rounded(x, dtype), 1), t, reduction=reduction), dtype, scale=2)


def test_cross_entropy_is_stable_for_huge_logits():
    x = np.array([[1000.0, 0.0, -1000.0], [-5e4, 5e4, 0.0]])
    t = np.array([0, 2])
    got = F.cross_entropy(make(x), idx(t), reduction="none")
    close(got, [0.0, 5e4], "float32")


def test_cross_entropy_long_rows_and_minus_inf():
    # long rows take the vectorized exp; -inf logits contribute exp(-inf) = 0
    x = randn(3, 1000, scale=10)
    x[1, 5:] = -np.inf
    t = np.array([3, 2, 999])
    got = F.cross_entropy(make(x), idx(t), reduction="none")
    close(got, ref_nll(log_softmax(rounded(x, "float32"), 1), t, reduction="none"), "float32", scale=10)


def test_cross_entropy_noncontiguous():
    x = randn(5, 4)
    t = targets((5,), 4)
    got = F.cross_entropy(make(x, "float64", noncontig=True), idx(t))
    close(got, ref_nll(log_softmax(x, 1), t), "float64")
    x3 = randn(2, 3, 4)  # [N, C, d] transposed in memory
    t3 = targets((2, 4), 3)
    got = F.cross_entropy(make(x3, "float64", noncontig=True), idx(t3), reduction="none")
    close(got, ref_nll(log_softmax(x3, 1), t3, reduction="none"), "float64")


def test_cross_entropy_all_ignored_and_empty():
    x = make(randn(3, 4))
    t = idx([-100, -100, -100])
    assert np.isnan(to_numpy(F.cross_entropy(x, t)))
    assert to_numpy(F.cross_entropy(x, t, reduction="sum")) == 0
    e = F.cross_entropy(ember.zeros(0, 5), idx(np.zeros(0)))
    assert np.isnan(to_numpy(e))
    assert tuple(F.cross_entropy(ember.zeros(0, 5), idx(np.zeros(0)), reduction="none")._shape) == (0,)
    assert to_numpy(F.cross_entropy(ember.zeros(0, 5), idx(np.zeros(0)), reduction="sum")) == 0


def test_cross_entropy_legacy_reduction_args():
    x, t = randn(4, 3), targets((4,), 3)
    with pytest.warns(UserWarning, match="reduction='none' instead"):
        got = F.cross_entropy(make(x, "float64"), idx(t), reduce=False)
    close(got, ref_nll(log_softmax(x, 1), t, reduction="none"), "float64")
    with pytest.warns(UserWarning, match="reduction='sum' instead"):
        got = F.cross_entropy(make(x, "float64"), idx(t), size_average=False)
    close(got, ref_nll(log_softmax(x, 1), t, reduction="sum"), "float64")


@needs_torch
@pytest.mark.parametrize("kwargs", [{"size_average": False}, {"reduce": False},
                                    {"size_average": True, "reduce": True}])
def test_legacy_reduction_args_warn_as_torch(kwargs):
    # The Spatial Transformer tutorial's F.nll_loss(output, target, size_average=False):
    # torch warns that the flags are deprecated, from F.* and from the loss modules.
    import warnings
    x, t = randn(4, 3), targets((4,), 3)
    messages = []
    import torch
    for lib in (ember, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.nll_loss(lib.tensor(x).log_softmax(1), lib.tensor(t).long(), **kwargs)
            lib.nn.NLLLoss(**kwargs)
            lib.nn.MSELoss(**kwargs)
        messages.append([str(w.message) for w in caught if "size_average" in str(w.message)])
    assert messages[0] == messages[1] and len(messages[0]) == 3


# ---- cross_entropy with class probabilities -------------------------------------------------

@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.2])
@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 4), (6,)])
def test_cross_entropy_probabilities(reduction, weighted, label_smoothing, shape):
    x = randn(*shape, scale=2)
    axis = 0 if len(shape) == 1 else 1
    q = np.exp(log_softmax(randn(*shape), axis))
    c = shape[axis]
    w = rng.uniform(0.5, 1.5, c) if weighted else None
    got = F.cross_entropy(make(x, "float64"), make(q, "float64"), None if w is None else make(w, "float64"),
                          reduction=reduction, label_smoothing=label_smoothing)
    close(got, ref_cross_entropy_probs(x, q, w, reduction, label_smoothing), "float64")


def test_cross_entropy_probabilities_promote_and_half():
    x, q = randn(3, 4), np.exp(log_softmax(randn(3, 4), 1))
    got = F.cross_entropy(make(x, "float32"), make(q, "float64"))
    assert got.dtype == ember.float64
    close(got, ref_cross_entropy_probs(rounded(x, "float32"), q), "float64")
    got = F.cross_entropy(make(x, "float16"), make(q, "float16"))
    assert got.dtype == ember.float16
    close(got, ref_cross_entropy_probs(x, q), "float16")


# ---- nll_loss -----------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", [(5, 4), (2, 4, 3), (4,)])
def test_nll_loss(reduction, weighted, shape):
    c = shape[0] if len(shape) == 1 else shape[1]
    logp = log_softmax(randn(*shape), 0 if len(shape) == 1 else 1)
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    t = targets(tshape, c, ignore=1 if len(shape) > 1 else None)
    w = rng.uniform(0.5, 2.0, c) if weighted else None
    got = F.nll_loss(make(logp, "float64"), idx(t), None if w is None else make(w, "float64"),
                     ignore_index=1, reduction=reduction)
    close(got, ref_nll(logp, t, w, 1, reduction), "float64")


def test_nll_loss_uint8_target_and_arbitrary_input():
    x = randn(4, 3)  # nll_loss does not need log-probabilities
    t = np.array([0, 2, 1, 2])
    got = F.nll_loss(make(x, "float64"), to_ember(t.astype(np.uint8)))
    close(got, -x[np.arange(4), t].mean(), "float64")
    got = F.cross_entropy(make(x, "float64"), to_ember(t.astype(np.uint8)))
    close(got, ref_nll(log_softmax(x, 1), t), "float64")


@needs_torch
@pytest.mark.parametrize("label_smoothing", [0.0, 0.25])
def test_cross_entropy_matches_torch(label_smoothing):
    x = randn(6, 5, 3)
    t = targets((6, 3), 5, ignore=4)
    w = rng.uniform(0.5, 2, 5)
    for red in REDUCTIONS:
        got = F.cross_entropy(make(x), idx(t), make(w), ignore_index=4, reduction=red,
                              label_smoothing=label_smoothing)
        exp = TF.cross_entropy(torch_of(x), torch.tensor(t), torch_of(w), ignore_index=4, reduction=red,
                               label_smoothing=label_smoothing)
        close(got, exp.double().numpy(), "float32", scale=2)
    q = np.exp(log_softmax(randn(6, 5, 3), 1))
    got = F.cross_entropy(make(x), make(q), make(w), label_smoothing=label_smoothing)
    exp = TF.cross_entropy(torch_of(x), torch_of(q), torch_of(w), label_smoothing=label_smoothing)
    close(got, exp.double().numpy(), "float32", scale=2)


# ---- element-wise losses ---------------------------------------------------------------------

POINTWISE = [("mse", F.mse_loss, None), ("l1", F.l1_loss, None), ("smooth_l1", F.smooth_l1_loss, "beta"),
             ("huber", F.huber_loss, "delta")]


@pytest.mark.parametrize("kind, fn, pname", POINTWISE)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_pointwise_losses(kind, fn, pname, reduction, dtype):
    x, y = randn(4, 5, scale=2), randn(4, 5, scale=2)
    for param in ([1.0] if pname is None else [0.5, 1.0, 2.5]):
        kw = {} if pname is None else {pname: param}
        got = fn(make(x, dtype), make(y, dtype), reduction=reduction, **kw)
        assert got.dtype == getattr(ember, dtype)
        exp = ref_pointwise(kind, rounded(x, dtype), rounded(y, dtype), reduction, param)
        close(got, exp, dtype, scale=4)


@pytest.mark.parametrize("kind, fn, pname", POINTWISE)
def test_pointwise_losses_broadcast_noncontig_promote(kind, fn, pname):
    x, y = randn(3, 1, 4), randn(5, 4)
    got = fn(make(x, "float64"), make(y, "float32", noncontig=True), reduction="none")
    assert got.dtype == ember.float64 and tuple(got._shape) == (3, 5, 4)
    close(got, ref_pointwise(kind, x, rounded(y, "float32"), "none"), "float64")
    got = fn(make(x, "float64"), make(y, "float64", noncontig=True), reduction="mean")
    close(got, ref_pointwise(kind, x, y, "mean"), "float64")
    # a large contiguous pair takes the fused, threaded path
    a, b = randn(300, 257), randn(300, 257)
    got = fn(make(a, "float64"), make(b, "float64"), reduction="sum")
    close(got, ref_pointwise(kind, a, b, "sum"), "float64", scale=100)


def test_smooth_l1_beta_zero_is_l1():
    x, y = randn(10), randn(10)
    close(F.smooth_l1_loss(make(x, "float64"), make(y, "float64"), beta=0.0), np.abs(x - y).mean(), "float64")


def test_pointwise_empty():
    assert np.isnan(to_numpy(F.mse_loss(ember.zeros(0), ember.zeros(0))))
    assert to_numpy(F.l1_loss(ember.zeros(0, 3), ember.zeros(0, 3), reduction="sum")) == 0


# ---- binary cross entropy ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight_shape", [None, (4, 5), (5,), (1, 1)])
def test_binary_cross_entropy(dtype, reduction, weight_shape):
    p = rng.uniform(0.01, 0.99, (4, 5))
    p[0, 0], p[0, 1] = 0.0, 1.0  # log(0) clamped to -100
    t = rng.uniform(0, 1, (4, 5))
    w = None if weight_shape is None else rng.uniform(0.5, 2, weight_shape)
    got = F.binary_cross_entropy(make(p, dtype), make(t, dtype), None if w is None else make(w, dtype),
                                 reduction=reduction)
    exp = ref_bce(rounded(p, dtype), rounded(t, dtype), None if w is None else rounded(w, dtype), reduction)
    close(got, exp, dtype, scale=4)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("pos_weighted", [False, True])
def test_binary_cross_entropy_with_logits(dtype, reduction, weighted, pos_weighted):
    x = randn(3, 4, scale=5)
    t = rng.uniform(0, 1, (3, 4))
    w = rng.uniform(0.5, 2, (3, 1)) if weighted else None
    pw = rng.uniform(0.5, 3, (4,)) if pos_weighted else None
    got = F.binary_cross_entropy_with_logits(
        make(x, dtype), make(t, dtype), None if w is None else make(w, dtype), reduction=reduction,
        pos_weight=None if pw is None else make(pw, dtype))
    exp = ref_bce_logits(rounded(x, dtype), rounded(t, dtype), None if w is None else rounded(w, dtype),
                         None if pw is None else rounded(pw, dtype), reduction)
    close(got, exp, dtype, scale=4)


def test_binary_cross_entropy_with_logits_stable_and_noncontig():
    x = np.array([[-1000.0, 1000.0], [80.0, -80.0]])
    t = np.array([[1.0, 0.0], [0.0, 1.0]])
    got = F.binary_cross_entropy_with_logits(make(x, noncontig=True), make(t, noncontig=True), reduction="none")
    close(got, [[1000.0, 1000.0], [80.0, 80.0]], "float32")
    got = F.binary_cross_entropy_with_logits(make(x[:1], "float32"), make(t[:1], "float64"))
    assert got.dtype == ember.float64


@needs_torch
def test_binary_losses_match_torch():
    x, t = randn(5, 3, scale=3), rng.uniform(0, 1, (5, 3))
    w, pw = rng.uniform(0.5, 2, (3,)), rng.uniform(0.5, 2, (3,))
    got = F.binary_cross_entropy_with_logits(make(x), make(t), make(w), pos_weight=make(pw))
    exp = TF.binary_cross_entropy_with_logits(torch_of(x), torch_of(t), torch_of(w), pos_weight=torch_of(pw))
    close(got, exp.double().numpy(), "float32", scale=2)
    p = 1 / (1 + np.exp(-x))
    got = F.binary_cross_entropy(make(p), make(t), make(w), reduction="sum")
    exp = TF.binary_cross_entropy(torch_of(p), torch_of(t), torch_of(w), reduction="sum")
    close(got, exp.double().numpy(), "float32", scale=2)
