"""F.embedding_bag / nn.EmbeddingBag / torch.embedding_bag / torch.embedding_renorm_ against
torch: values and gradients (weight and per_sample_weights) in float64 for every mode, with
offsets, include_last_offset, padding_idx, max_norm, empty bags, and torch's errors."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as EF

from _torch_compare import assert_same, check_same, module_pair

torch = pytest.importorskip("torch")

rng = np.random.default_rng(5)
W = rng.standard_normal((10, 3))
IDX = np.array([1, 2, 4, 5, 4, 3, 2, 9])
OFF = np.array([0, 2, 2, 5])


def lib(F):
    return ember if F is EF else torch


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
@pytest.mark.parametrize("include_last_offset", [False, True])
def test_embedding_bag_offsets(mode, padding_idx, include_last_offset):
    check_same(torch, lambda F, i, w, o: F.embedding_bag(
        i, w, o, mode=mode, padding_idx=padding_idx, include_last_offset=include_last_offset),
        IDX, W, OFF)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_input(mode):
    idx = rng.integers(0, 10, size=(4, 3))
    check_same(torch, lambda F, i, w: F.embedding_bag(i, w, mode=mode), idx, W)
    # batch size 1, and a transposed (non-contiguous) weight
    check_same(torch, lambda F, i, w: F.embedding_bag(i, w, mode=mode), idx[:1], W.T.copy(),
               transpose=(1,))


def test_embedding_bag_per_sample_weights():
    psw = rng.standard_normal(IDX.shape)
    check_same(torch, lambda F, i, w, o, p: F.embedding_bag(i, w, o, mode="sum",
                                                            per_sample_weights=p),
               IDX, W, OFF, psw)
    check_same(torch, lambda F, i, w, o, p: F.embedding_bag(i, w, o, mode="sum",
                                                            per_sample_weights=p, padding_idx=4),
               IDX, W, OFF, psw)
    idx = rng.integers(0, 10, size=(3, 4))
    check_same(torch, lambda F, i, w, p: F.embedding_bag(i, w, mode="sum", per_sample_weights=p),
               idx, W, rng.standard_normal((3, 4)))


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_scale_grad_by_freq(mode):
    idx = np.array([1, 1, 1, 3, 3, 7])
    check_same(torch, lambda F, i, w, o: F.embedding_bag(i, w, o, mode=mode,
                                                         scale_grad_by_freq=True),
               idx, W, np.array([0, 4]))


def test_embedding_bag_empty_bags_and_int32():
    # trailing empty bags, an all-padding bag
    idx, off = np.array([3, 3, 2, 5]), np.array([0, 2, 4, 4])
    for mode in ("sum", "mean", "max"):
        check_same(torch, lambda F, i, w, o: F.embedding_bag(i, w, o, mode=mode, padding_idx=3),
                   idx, W, off)
        check_same(torch, lambda F, i, w, o: F.embedding_bag(i, w, o, mode=mode),
                   idx.astype(np.int32), W, off.astype(np.int32))
        # no indices at all
        check_same(torch, lambda F, i, w, o: F.embedding_bag(i, w, o, mode=mode),
                   np.zeros(0, dtype=np.int64), W, np.array([0, 0]))
        # no bags at all (torch's kernel crashes on this): an empty (0, dim) result
        out = EF.embedding_bag(ember.from_numpy(idx), ember.from_numpy(W),
                               ember.tensor([0]), mode=mode, include_last_offset=True)
        assert tuple(out.shape) == (0, 3)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_max_norm(mode):
    we, wt = ember.from_numpy(W.copy() * 3), torch.from_numpy(W.copy() * 3)
    e = EF.embedding_bag(ember.from_numpy(IDX), we, ember.from_numpy(OFF), max_norm=1.5,
                         norm_type=1.0, mode=mode)
    t = torch.nn.functional.embedding_bag(torch.from_numpy(IDX), wt, torch.from_numpy(OFF),
                                          max_norm=1.5, norm_type=1.0, mode=mode)
    assert_same(e, t)
    assert_same(we, wt)  # the looked-up rows were renormalized in place


def test_torch_embedding_bag_outputs():
    for dtype in (np.float64, np.float32):
        w = W.astype(dtype)
        for mode in (0, 1, 2):
            for padding_idx in (None, 2):
                for idx_dtype in (np.int64, np.int32):
                    args = (np.array([2, 2, 1, 2, 5, 6], dtype=idx_dtype),
                            np.array([0, 2, 2], dtype=idx_dtype))
                    e = ember.embedding_bag(ember.from_numpy(w), *map(ember.from_numpy, args),
                                            False, mode, False, None, False, padding_idx)
                    t = torch.embedding_bag(torch.from_numpy(w), *map(torch.from_numpy, args),
                                            False, mode, False, None, False, padding_idx)
                    assert len(e) == 4
                    assert_same(e[0], t[0], 1e-6)
                    for a, b in zip(e[1:], t[1:]):
                        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
                        assert a.numpy().tolist() == b.numpy().tolist()


def test_embedding_renorm_():
    for norm_type in (2.0, 1.0, 3.0):
        we, wt = ember.from_numpy(W.copy()), torch.from_numpy(W.copy())
        out = ember.embedding_renorm_(we, ember.tensor([[1, 2], [2, 7]]), 0.8, norm_type)
        torch.embedding_renorm_(wt, torch.tensor([[1, 2], [2, 7]]), 0.8, norm_type)
        assert out is we
        assert_same(we, wt)


def test_embedding_bag_module():
    e, t = module_pair(torch, lambda: nn.EmbeddingBag(10, 3, mode="max", padding_idx=2),
                       lambda: torch.nn.EmbeddingBag(10, 3, mode="max", padding_idx=2))
    assert repr(e) == repr(t)
    assert_same(e.weight, t.weight)
    oe = e(ember.from_numpy(IDX), ember.from_numpy(OFF))
    ot = t(torch.from_numpy(IDX), torch.from_numpy(OFF))
    assert_same(oe, ot)
    oe.sum().backward()
    ot.sum().backward()
    assert_same(e.weight.grad, t.weight.grad)
    for kw in ({}, {"max_norm": 2.0, "norm_type": 1.0, "scale_grad_by_freq": True},
               {"include_last_offset": True, "mode": "sum"}):
        assert repr(nn.EmbeddingBag(5, 2, **kw)) == repr(torch.nn.EmbeddingBag(5, 2, **kw))
    m = nn.EmbeddingBag(5, 2, padding_idx=-2)
    assert m.padding_idx == 3 and float(m.weight[3].abs().sum()) == 0
    with pytest.raises(AssertionError):
        nn.EmbeddingBag(5, 2, padding_idx=5)
    from ember.nn.modules.sparse import EmbeddingBag
    assert EmbeddingBag is nn.EmbeddingBag


def test_embedding_bag_from_pretrained():
    for freeze in (True, False):
        e = nn.EmbeddingBag.from_pretrained(ember.from_numpy(W.copy()), freeze=freeze,
                                            mode="sum", include_last_offset=True)
        t = torch.nn.EmbeddingBag.from_pretrained(torch.from_numpy(W.copy()), freeze=freeze,
                                                  mode="sum", include_last_offset=True)
        assert e.weight.requires_grad == t.weight.requires_grad == (not freeze)
        assert repr(e) == repr(t)
        assert_same(e(ember.from_numpy(IDX), ember.from_numpy(OFF)),
                    t(torch.from_numpy(IDX), torch.from_numpy(OFF)))
    with pytest.raises(AssertionError):
        nn.EmbeddingBag.from_pretrained(ember.zeros(3))


@pytest.mark.parametrize("case,exc", [
    (lambda F, L, i, w, o: F.embedding_bag(i, w, L.tensor([1, 2])), RuntimeError),
    (lambda F, L, i, w, o: F.embedding_bag(i, w, L.tensor([0, 2, 9])), RuntimeError),
    (lambda F, L, i, w, o: F.embedding_bag(L.tensor([1, 12]), w, L.tensor([0])), RuntimeError),
    (lambda F, L, i, w, o: F.embedding_bag(L.tensor([1, -1]), w, L.tensor([0])), RuntimeError),
    (lambda F, L, i, w, o: F.embedding_bag(i.float(), w, o), RuntimeError),
    (lambda F, L, i, w, o: F.embedding_bag(i, w, o.float()), RuntimeError),
    (lambda F, L, i, w, o: F.embedding_bag(i, w, o, padding_idx=10), RuntimeError),
    (lambda F, L, i, w, o: F.embedding_bag(i, w, o, padding_idx=-11), RuntimeError),
    (lambda F, L, i, w, o: F.embedding_bag(i, w, o, mode="max", scale_grad_by_freq=True),
     ValueError),
    (lambda F, L, i, w, o: F.embedding_bag(i, w, o, mode="max", sparse=True), ValueError),
    (lambda F, L, i, w, o: F.embedding_bag(i, w, o, mode="foo"), ValueError),
    (lambda F, L, i, w, o: F.embedding_bag(i, w, o, mode="mean",
                                           per_sample_weights=L.ones(8, dtype=L.float64)),
     NotImplementedError),
    (lambda F, L, i, w, o: F.embedding_bag(i, w, o, mode="sum",
                                           per_sample_weights=L.ones(7, dtype=L.float64)),
     ValueError),
    (lambda F, L, i, w, o: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=L.ones(8)),
     RuntimeError),
    (lambda F, L, i, w, o: F.embedding_bag(i.view(2, 4), w, o), ValueError),
    (lambda F, L, i, w, o: F.embedding_bag(i, w), ValueError),
    (lambda F, L, i, w, o: F.embedding_bag(i, w, o.view(2, 2)), ValueError),
    (lambda F, L, i, w, o: F.embedding_bag(i.view(2, 2, 2), w), ValueError),
    (lambda F, L, i, w, o: F.embedding_bag(i, w[0], o), ValueError),
    (lambda F, L, i, w, o: L.embedding_bag(w, i, o, False, 3, False, None, False), RuntimeError),
    (lambda F, L, i, w, o: L.embedding_bag(w, i, o, False, 1, False, L.ones(8, dtype=L.float64),
                                           False), RuntimeError),
    (lambda F, L, i, w, o: L.embedding_renorm_(w.clone(), i.float(), 1.0, 2.0), RuntimeError),
    (lambda F, L, i, w, o: L.embedding_renorm_(w.clone(), L.tensor([1, 22]), 1.0, 2.0),
     IndexError),
    (lambda F, L, i, w, o: L.embedding_renorm_(w.clone()[0], i, 1.0, 2.0), RuntimeError),
    (lambda F, L, i, w, o: L.embedding_renorm_(w.clone().requires_grad_(), i, 1.0, 2.0),
     RuntimeError),
])
def test_embedding_bag_errors(case, exc):
    msgs = []
    for F, L in ((torch.nn.functional, torch), (EF, ember)):
        with pytest.raises(exc) as info:
            case(F, L, L.from_numpy(IDX), L.from_numpy(W), L.from_numpy(OFF))
        msgs.append(str(info.value))
    if "torch" not in msgs[0] and "Tensor" not in msgs[0]:
        assert msgs[1] == msgs[0]
