"""F.ctc_loss / nn.CTCLoss / ember.ctc_loss against torch: values and gradients in float64 on
random small problems (padded and concatenated targets, repeated labels, empty targets,
short inputs, impossible alignments, every reduction), unbatched inputs, and errors."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as EF

from _torch_compare import check_same

torch = pytest.importorskip("torch")

rng = np.random.default_rng(11)


def lib(F):
    return ember if F is EF else torch


def log_softmax_np(x, axis=-1):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def problem(T, N, C, S, blank=0, repeats=False):
    """log_probs (T, N, C) and padded targets (N, S) without the blank."""
    lp = log_softmax_np(rng.standard_normal((T, N, C)))
    labels = [c for c in range(C) if c != blank]
    tg = rng.choice(labels, size=(N, S))
    if repeats and S > 1:
        tg[:, 1] = tg[:, 0]  # a repeated label needs a blank between the two
    return lp, tg


def ctc(F, lp, tg, il, tl, **kw):
    L = lib(F)
    return F.ctc_loss(lp, tg, L.tensor(il), L.tensor(tl), **kw)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("blank", [0, 3])
def test_ctc_padded_targets(reduction, blank):
    lp, tg = problem(12, 4, 5, 4, blank=blank, repeats=True)
    il, tl = [12, 10, 7, 12], [4, 2, 3, 0]
    check_same(torch, lambda F, a, t: ctc(F, a, t, il, tl, blank=blank, reduction=reduction),
               lp, tg, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_concatenated_targets(reduction):
    lp, tg = problem(9, 3, 6, 3)
    il, tl = [9, 8, 9], [3, 1, 2]
    flat = np.concatenate([tg[n, :tl[n]] for n in range(3)])
    check_same(torch, lambda F, a, t: ctc(F, a, t, il, tl, reduction=reduction), lp, flat,
               rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("seed", range(6))
def test_ctc_random_problems(seed):
    r = np.random.default_rng(seed)
    T, N, C = int(r.integers(1, 10)), int(r.integers(1, 5)), int(r.integers(2, 6))
    S = int(r.integers(0, 4))
    lp = log_softmax_np(r.standard_normal((T, N, C)))
    tg = r.integers(1, C, size=(N, max(S, 1)))
    il = [int(v) for v in r.integers(0, T + 1, size=N)]
    tl = [int(v) for v in r.integers(0, S + 1, size=N)]
    for zero_infinity in (False, True):
        check_same(torch, lambda F, a, t: ctc(F, a, t, il, tl, reduction="none",
                                              zero_infinity=zero_infinity),
                   lp, tg, rtol=1e-9, atol=1e-10)


def test_ctc_all_repeats_and_single_label():
    lp, _ = problem(10, 2, 3, 4)
    tg = np.array([[1, 1, 1, 1], [2, 2, 1, 1]])
    check_same(torch, lambda F, a, t: ctc(F, a, t, [10, 10], [4, 4], reduction="none"),
               lp, tg, rtol=1e-9, atol=1e-10)
    check_same(torch, lambda F, a, t: ctc(F, a, t, [1, 3], [1, 1], reduction="none"),
               lp, tg, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_impossible_alignment(zero_infinity):
    # sample 1 needs 3 steps (a, blank, a) but has 2: loss inf (nan gradient), or 0 / 0
    lp, _ = problem(6, 3, 4, 3)
    tg = np.array([[1, 2, 3], [2, 2, 0], [3, 1, 1]])
    out = check_same(torch, lambda F, a, t: ctc(F, a, t, [6, 2, 5], [3, 2, 2],
                                                reduction="none", zero_infinity=zero_infinity),
                     lp, tg, rtol=1e-9, atol=1e-10)
    assert np.isinf(out[0].detach().numpy()[1]) != zero_infinity
    for reduction in ("mean", "sum"):
        check_same(torch, lambda F, a, t: ctc(F, a, t, [6, 2, 5], [3, 2, 2],
                                              reduction=reduction, zero_infinity=zero_infinity),
                   lp, tg, rtol=1e-9, atol=1e-10)


def test_ctc_zero_input_length():
    lp, tg = problem(5, 2, 4, 2)
    out = check_same(torch, lambda F, a, t: ctc(F, a, t, [0, 0], [0, 2], reduction="none"),
                     lp, tg)
    assert out[0].detach().numpy()[0] == 0 and np.isinf(out[0].detach().numpy()[1])


def test_ctc_through_log_softmax_and_noncontiguous():
    # logits laid out (N, T, C) and transposed to (T, N, C): a non-contiguous input
    logits = rng.standard_normal((3, 8, 5))
    tg = rng.integers(1, 5, size=(3, 3))
    check_same(torch, lambda F, x, t: ctc(F, x.transpose(0, 1).log_softmax(2), t, [8, 7, 8],
                                          [3, 3, 1]), logits, tg, rtol=1e-9, atol=1e-10)


def test_ctc_batch_size_one_and_unbatched():
    lp, tg = problem(7, 1, 4, 3)
    check_same(torch, lambda F, a, t: ctc(F, a, t, [7], [3]), lp, tg, rtol=1e-9, atol=1e-10)
    for reduction in ("none", "mean", "sum"):
        check_same(torch, lambda F, a, t: F.ctc_loss(a, t, lib(F).tensor(6), lib(F).tensor(3),
                                                     reduction=reduction),
                   lp[:, 0], tg[0], rtol=1e-9, atol=1e-10)


def test_ctc_length_forms_and_int32():
    lp, tg = problem(6, 2, 4, 2)
    e = EF.ctc_loss(ember.from_numpy(lp), ember.from_numpy(tg), [6, 5], (2, 1))
    t = torch.nn.functional.ctc_loss(torch.from_numpy(lp), torch.from_numpy(tg), [6, 5], (2, 1))
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-10)
    e = EF.ctc_loss(ember.from_numpy(lp), ember.from_numpy(tg.astype(np.int32)),
                    ember.tensor([6, 5], dtype=ember.int32), ember.tensor([[2, 1]]))
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-10)


def test_ctc_float32():
    lp, tg = problem(10, 2, 5, 3)
    lp = lp.astype(np.float32)
    check_same(torch, lambda F, a, t: ctc(F, a, t, [10, 9], [3, 2], reduction="sum"),
               lp, tg, rtol=1e-5, atol=1e-5)


def test_ctc_loss_module():
    lp, tg = problem(8, 2, 5, 3, blank=4)
    m = nn.CTCLoss(blank=4, reduction="sum", zero_infinity=True)
    assert repr(m) == repr(torch.nn.CTCLoss(blank=4, reduction="sum", zero_infinity=True))
    assert (m.blank, m.reduction, m.zero_infinity) == (4, "sum", True)
    e = m(ember.from_numpy(lp), ember.from_numpy(tg), ember.tensor([8, 8]), ember.tensor([3, 2]))
    t = torch.nn.CTCLoss(blank=4, reduction="sum", zero_infinity=True)(
        torch.from_numpy(lp), torch.from_numpy(tg), torch.tensor([8, 8]), torch.tensor([3, 2]))
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-10)
    from ember.nn.modules.loss import CTCLoss
    assert CTCLoss is nn.CTCLoss


def test_torch_level_ctc_loss():
    lp, tg = problem(6, 2, 4, 2)
    for reduction in (0, 1, 2):
        e = ember.ctc_loss(ember.from_numpy(lp), ember.from_numpy(tg), [6, 4], [2, 1], 0,
                           reduction, False)
        t = torch.ctc_loss(torch.from_numpy(lp), torch.from_numpy(tg), [6, 4], [2, 1], 0,
                           reduction, False)
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-10)


def _both_raise(fn, exc):
    with pytest.raises(exc) as te:
        fn(torch.nn.functional, torch)
    with pytest.raises(exc) as ee:
        fn(EF, ember)
    return str(te.value), str(ee.value)


@pytest.mark.parametrize("case,exc", [
    (lambda F, L, lp, tg: F.ctc_loss(lp, tg, L.tensor([6, 7]), L.tensor([2, 2])), RuntimeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp, tg, L.tensor([6, 6]), L.tensor([2, 3])), RuntimeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp, tg, L.tensor([6]), L.tensor([2, 2])), RuntimeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp, tg, L.tensor([6, 6]), L.tensor([2])), RuntimeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp, tg, L.tensor([6., 6.]), L.tensor([2, 2])),
     RuntimeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp, tg, L.tensor([6, 6]), L.tensor([2, 2]), blank=5),
     RuntimeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp, tg, L.tensor([6, 6]), L.tensor([2, 2]), blank=-1),
     RuntimeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp, tg, L.tensor([6, 6]), L.tensor([2, 2]),
                                     reduction="foo"), ValueError),
    (lambda F, L, lp, tg: F.ctc_loss(lp, tg.flatten(), L.tensor([6, 6]), L.tensor([2, 3])),
     RuntimeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp[0, 0], tg, L.tensor([6, 6]), L.tensor([2, 2])),
     RuntimeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp, tg[None], L.tensor([6, 6]), L.tensor([2, 2])),
     RuntimeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp, tg, L.tensor([-1, 6]), L.tensor([2, 2])), RuntimeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp, tg, L.tensor([6, 6]), L.tensor([-1, 2])), RuntimeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp[:0], tg, L.tensor([0, 0]), L.tensor([0, 0])),
     RuntimeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp.long(), tg, L.tensor([6, 6]), L.tensor([2, 2])),
     NotImplementedError),
    (lambda F, L, lp, tg: F.ctc_loss(lp, tg, L.tensor([6, 6]), [2, 2]), TypeError),
    (lambda F, L, lp, tg: F.ctc_loss(lp[:, 0], tg[0], 6, 2), TypeError),
])
def test_ctc_errors(case, exc):
    lp, tg = problem(6, 2, 5, 2)
    t_msg, e_msg = _both_raise(lambda F, L: case(F, L, L.from_numpy(lp), L.from_numpy(tg)), exc)
    if exc is not TypeError:
        assert e_msg == t_msg
