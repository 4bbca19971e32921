"""WeightedRandomSampler and StackDataset (ember.utils.data) against torch.utils.data:
the same structures, lengths and errors; for the sampler (whose random stream differs
from torch's) the distribution of the draws, reproducibility under ember.manual_seed and
a seeded generator, and zero weights never drawn."""
import numpy as np
import pytest

import ember
from ember.utils import data as ed

torch = pytest.importorskip("torch")
td = torch.utils.data


def test_weighted_sampler_distribution_with_replacement():
    w = [0.1, 0.0, 0.6, 0.3]
    s = ed.WeightedRandomSampler(w, 20000, generator=ember.Generator().manual_seed(1))
    draws = list(s)
    assert len(s) == 20000 and len(draws) == 20000
    assert all(isinstance(i, int) for i in draws[:10])
    freq = np.bincount(draws, minlength=4) / len(draws)
    assert freq[1] == 0
    np.testing.assert_allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.015)


def test_weighted_sampler_without_replacement():
    w = ember.tensor([1.0, 0.0, 5.0, 2.0, 0.5])
    g = ember.Generator().manual_seed(3)
    firsts = []
    for _ in range(2000):
        draw = list(ed.WeightedRandomSampler(w, 4, replacement=False, generator=g))
        assert sorted(draw) == [0, 2, 3, 4]  # every non-zero weight once, the zero one never
        firsts.append(draw[0])
    freq = np.bincount(firsts, minlength=5) / len(firsts)
    np.testing.assert_allclose(freq, np.array([1, 0, 5, 2, 0.5]) / 8.5, atol=0.03)
    # More samples than non-zero weights: torch then appends zero-weight ones (no error).
    w = [1.0, 0.0, 0.0, 0.0, 3.0]
    for draw in (list(ed.WeightedRandomSampler(w, 4, replacement=False)),
                 list(td.WeightedRandomSampler(w, 4, replacement=False))):
        assert sorted(draw[:2]) == [0, 4] and set(draw[2:]) <= {1, 2, 3} and len(set(draw)) == 4


def test_weighted_sampler_reproducible():
    w = [1.0, 2.0, 3.0]
    ember.manual_seed(7)
    a = list(ed.WeightedRandomSampler(w, 50))
    ember.manual_seed(7)
    b = list(ed.WeightedRandomSampler(w, 50))
    assert a == b
    s = ed.WeightedRandomSampler(w, 50, generator=ember.Generator().manual_seed(0))
    assert list(s) != list(s)  # a new draw each epoch
    assert list(ed.WeightedRandomSampler(w, 50, generator=ember.Generator().manual_seed(0))) == \
        list(ed.WeightedRandomSampler(w, 50, generator=ember.Generator().manual_seed(0)))


def test_weighted_sampler_in_dataloader():
    ds = ed.TensorDataset(ember.arange(6.0))
    loader = ed.DataLoader(ds, batch_size=4, sampler=ed.WeightedRandomSampler([0, 0, 1, 0, 0, 1], 8))
    batches = [b[0].tolist() for b in loader]
    assert len(batches) == 2 and all(v in (2.0, 5.0) for b in batches for v in b)


@pytest.mark.parametrize("args,kwargs,exc", [
    (([1.0, 2.0], 0), {}, ValueError),
    (([1.0, 2.0], 3.0), {}, ValueError),
    (([1.0, 2.0], True), {}, ValueError),
    (([1.0, 2.0], 3), {"replacement": 1}, ValueError),
    (([[1.0, 2.0]], 3), {}, ValueError),
])
def test_weighted_sampler_bad_args(args, kwargs, exc):
    with pytest.raises(exc):
        td.WeightedRandomSampler(*args, **kwargs)
    with pytest.raises(exc):
        ed.WeightedRandomSampler(*args, **kwargs)


@pytest.mark.parametrize("w,n,replacement", [
    ([1.0, -1.0], 2, True), ([0.0, 0.0], 2, True), ([1.0, 2.0], 3, False),
    ([1.0, float("nan")], 2, True),
])
def test_weighted_sampler_bad_weights(w, n, replacement):
    with pytest.raises(RuntimeError):
        list(td.WeightedRandomSampler(w, n, replacement=replacement))
    with pytest.raises(RuntimeError):
        list(ed.WeightedRandomSampler(w, n, replacement=replacement))


def _plain(x):
    if isinstance(x, (ember.Tensor, torch.Tensor)):
        return x.tolist()
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(_plain(v) for v in x)
    return x


def test_stack_dataset_tuple_and_dict():
    a = np.arange(12.0).reshape(4, 3)
    b = list("wxyz")
    e = ed.StackDataset(ed.TensorDataset(ember.tensor(a)), b)
    t = td.StackDataset(td.TensorDataset(torch.tensor(a)), b)
    assert len(e) == len(t) == 4
    assert _plain(e[2]) == _plain(t[2])
    assert _plain(e.__getitems__([3, 0])) == _plain(t.__getitems__([3, 0]))
    e = ed.StackDataset(x=ember.tensor(a), label=b)
    t = td.StackDataset(x=torch.tensor(a), label=b)
    assert _plain(e[1]) == _plain(t[1])
    assert _plain(e.__getitems__([0, 2])) == _plain(t.__getitems__([0, 2]))
    el = ed.DataLoader(e, batch_size=3)
    tl = td.DataLoader(t, batch_size=3)
    assert [_plain(x) for x in el] == [_plain(x) for x in tl]


@pytest.mark.parametrize("args,kwargs", [((), {}), (([1, 2], [1]), {}), (([1],), {"y": [1]}),
                                         ((), {"x": [1, 2], "y": [1]})])
def test_stack_dataset_errors(args, kwargs):
    with pytest.raises(ValueError):
        td.StackDataset(*args, **kwargs)
    with pytest.raises(ValueError):
        ed.StackDataset(*args, **kwargs)


def test_existing_samplers_and_datasets_present():
    for name in ["ChainDataset", "ConcatDataset", "Subset", "BatchSampler", "SequentialSampler",
                 "RandomSampler", "SubsetRandomSampler", "get_worker_info", "StackDataset",
                 "WeightedRandomSampler"]:
        assert hasattr(ed, name), name
