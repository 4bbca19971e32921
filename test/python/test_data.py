"""ember.utils.data: datasets, samplers, default_collate and the DataLoader, in
the main process and with worker processes (tiny datasets, so the worker tests
stay fast)."""
import collections
import gc
import os
import random
import time
import warnings

import numpy as np
import pytest

import ember
from ember.utils import data
from ember.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset, IterableDataset,
                              RandomSampler, SequentialSampler, Subset, SubsetRandomSampler, TensorDataset,
                              default_collate, default_convert, get_worker_info, random_split)


def gen(seed):
    return ember.Generator().manual_seed(seed)


class Range(Dataset):
    """Sample i is i (a Python int)."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i

    def __len__(self):
        return self.n


def flat(batches):
    return [v for b in batches for v in b.tolist()]


# ---- datasets --------------------------------------------------------------------------

def test_tensor_dataset():
    x = ember.arange(12).reshape(6, 2)
    y = ember.arange(6) * 10
    ds = TensorDataset(x, y)
    assert len(ds) == 6
    a, b = ds[4]
    assert a.tolist() == [8, 9] and b.item() == 40
    with pytest.raises(ValueError):
        TensorDataset(x, ember.zeros(5))
    with pytest.raises(ValueError):
        TensorDataset()


def test_subset_concat_and_chain():
    sub = Subset(Range(10), [7, 2, 5])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [7, 2, 5]
    assert sub.__getitems__([2, 0]) == [5, 7]
    cat = ConcatDataset([Range(3), Range(2), Range(4)])
    assert len(cat) == 9
    assert [cat[i] for i in range(9)] == [0, 1, 2, 0, 1, 0, 1, 2, 3]
    assert cat[-1] == 3 and cat[-9] == 0
    with pytest.raises(ValueError):
        cat[-10]
    with pytest.raises(IndexError):
        cat[9]
    assert len(Range(2) + Range(3)) == 5
    with pytest.raises(ValueError):
        ConcatDataset([])
    with pytest.raises(TypeError):
        ConcatDataset([Range(2), Stream(3)])
    chained = Stream(2) + Stream(3)
    assert isinstance(chained, ChainDataset) and list(chained) == [0, 1, 0, 1, 2] and len(chained) == 5
    with pytest.raises(NotImplementedError):
        Dataset()[0]


def test_random_split_sizes_disjoint_and_reproducible():
    ds = Range(10)
    parts = random_split(ds, [3, 7], generator=gen(0))
    assert [len(p) for p in parts] == [3, 7]
    items = [[p[i] for i in range(len(p))] for p in parts]
    assert sorted(items[0] + items[1]) == list(range(10))
    again = random_split(ds, [3, 7], generator=gen(0))
    assert [[p[i] for i in range(len(p))] for p in again] == items
    assert [len(p) for p in random_split(ds, [0.3, 0.7], generator=gen(1))] == [3, 7]
    # floor(10 * 0.33) = 3 each, the remainder goes round-robin from the first
    assert [len(p) for p in random_split(ds, [0.33, 0.33, 0.34], generator=gen(1))] == [4, 3, 3]
    ember.manual_seed(5)
    a = random_split(ds, [5, 5])[0].indices
    ember.manual_seed(5)
    assert random_split(ds, [5, 5])[0].indices == a
    with pytest.raises(ValueError):
        random_split(ds, [3, 3])
    with pytest.raises(ValueError):
        random_split(ds, [1.5, -0.5])
    with pytest.warns(UserWarning):
        assert [len(p) for p in random_split(Range(2), [0.0, 1.0])] == [0, 2]


# ---- samplers --------------------------------------------------------------------------

def test_sequential_and_random_sampler():
    assert list(SequentialSampler(Range(4))) == [0, 1, 2, 3]
    s = RandomSampler(Range(10), generator=gen(3))
    e1, e2 = list(s), list(s)
    assert sorted(e1) == list(range(10)) and sorted(e2) == list(range(10)) and e1 != e2
    assert list(RandomSampler(Range(10), generator=gen(3))) == e1
    assert len(s) == 10
    # unseeded: follows ember.manual_seed
    ember.manual_seed(1)
    a = list(RandomSampler(Range(10)))
    ember.manual_seed(1)
    assert list(RandomSampler(Range(10))) == a


def test_random_sampler_replacement_and_num_samples():
    s = RandomSampler(Range(5), replacement=True, num_samples=70, generator=gen(0))
    draws = list(s)
    assert len(s) == 70 and len(draws) == 70 and set(draws) <= set(range(5)) and len(set(draws)) == 5
    long = list(RandomSampler(Range(4), num_samples=10, generator=gen(0)))
    assert len(long) == 10 and sorted(long[:4]) == [0, 1, 2, 3] and sorted(long[4:8]) == [0, 1, 2, 3]
    with pytest.raises(TypeError):
        RandomSampler(Range(3), replacement=1)
    with pytest.raises(ValueError):
        RandomSampler(Range(3), num_samples=0)
    with pytest.raises(ValueError):
        RandomSampler(Range(0))


def test_subset_random_and_batch_sampler():
    s = SubsetRandomSampler([10, 20, 30, 40], generator=gen(0))
    assert sorted(s) == [10, 20, 30, 40] and len(s) == 4
    assert list(BatchSampler(SequentialSampler(Range(7)), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(SequentialSampler(Range(7)), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(SequentialSampler(Range(7)), 3, False)) == 3
    assert len(BatchSampler(SequentialSampler(Range(7)), 3, True)) == 2
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError):
            BatchSampler(SequentialSampler(Range(7)), bad, False)
    with pytest.raises(ValueError):
        BatchSampler(SequentialSampler(Range(7)), 2, 1)


# ---- default_collate -------------------------------------------------------------------

Point = collections.namedtuple("Point", ["x", "y"])


def test_default_collate_nested_structures():
    samples = [{"img": ember.full((2, 2), float(i)), "label": i, "w": 0.5 * i, "name": f"s{i}",
                "pair": (ember.tensor([i]), np.array([i, -i], dtype=np.int32)), "pt": Point(i, [i, i + 1]),
                "flag": i % 2 == 0, "np": np.float32(i)}
               for i in range(3)]
    b = default_collate(samples)
    assert b["img"].shape == (3, 2, 2) and b["img"][2, 1, 1].item() == 2.0
    assert b["label"].dtype == ember.int64 and b["label"].tolist() == [0, 1, 2]
    assert b["w"].dtype == ember.float64 and b["w"].tolist() == [0.0, 0.5, 1.0]
    assert b["name"] == ["s0", "s1", "s2"]
    assert isinstance(b["pair"], list)  # a tuple becomes a list, as in PyTorch
    assert b["pair"][0].tolist() == [[0], [1], [2]]
    assert b["pair"][1].dtype == ember.int32 and b["pair"][1].tolist() == [[0, 0], [1, -1], [2, -2]]
    assert isinstance(b["pt"], Point) and b["pt"].x.tolist() == [0, 1, 2]
    assert [t.tolist() for t in b["pt"].y] == [[0, 1, 2], [1, 2, 3]]
    assert b["flag"].dtype == ember.bool and b["flag"].tolist() == [True, False, True]
    assert b["np"].dtype == ember.float32 and b["np"].tolist() == [0.0, 1.0, 2.0]
    od = default_collate([collections.OrderedDict(a=1), collections.OrderedDict(a=2)])
    assert isinstance(od, collections.OrderedDict) and od["a"].tolist() == [1, 2]


def test_default_collate_errors():
    with pytest.raises(RuntimeError):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError):
        default_collate([object(), object()])
    with pytest.raises(TypeError):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_default_convert():
    out = default_convert({"a": np.arange(3), "b": (np.float64(2.0), "s"), "c": [1, 2]})
    assert isinstance(out["a"], ember.Tensor) and out["a"].tolist() == [0, 1, 2]
    assert isinstance(out["b"], list) and out["b"][0].item() == 2.0 and out["b"][1] == "s"
    assert out["c"] == [1, 2]


def test_default_collate_matches_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.data import default_collate as torch_collate

    samples = [{"a": np.full((2,), i, dtype=np.float32), "b": (i, 1.5 * i, f"x{i}"), "c": [True, i]}
               for i in range(4)]
    ours, theirs = default_collate(samples), torch_collate(samples)

    def same(o, t):
        if isinstance(t, torch.Tensor):
            assert isinstance(o, ember.Tensor) and str(o.dtype)[6:] == str(t.dtype)[6:]
            assert o.tolist() == t.tolist()
        elif isinstance(t, dict):
            assert type(o) is type(t) and o.keys() == t.keys()
            for k in t:
                same(o[k], t[k])
        elif isinstance(t, (list, tuple)):
            assert type(o) is type(t) and len(o) == len(t)
            for a, b in zip(o, t):
                same(a, b)
        else:
            assert o == t

    same(ours, theirs)


# ---- DataLoader, main process ---------------------------------------------------------

def test_dataloader_order_and_len():
    loader = DataLoader(Range(10), batch_size=4)
    batches = list(loader)
    assert [b.tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert len(loader) == 3
    loader = DataLoader(Range(10), batch_size=4, drop_last=True)
    assert [b.tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7]] and len(loader) == 2
    assert [b.tolist() for b in DataLoader(Range(3))] == [[0], [1], [2]]


def test_dataloader_tensor_dataset_batches():
    x = ember.arange(20, dtype=ember.float32).reshape(10, 2)
    y = ember.arange(10)
    xb, yb = next(iter(DataLoader(TensorDataset(x, y), batch_size=4)))
    assert xb.shape == (4, 2) and xb.tolist() == x[:4].tolist() and yb.tolist() == [0, 1, 2, 3]


def test_tensor_dataset_batches_gathered_at_once_equal_sample_by_sample():
    x = ember.randn(9, 2, 3, generator=gen(0))
    y = ember.arange(9)
    ds = TensorDataset(x, y)
    slow = lambda batch: default_collate(batch)  # noqa: E731  (not default_collate itself: no fast path)
    for dataset, sampler in ((ds, [4, 0, 8, 8, 3]), (Subset(ds, [8, 1, 5, 2]), [3, 0, 1]),
                             (ds, [-1, 2, -9])):  # negative indices take the sample path
        fast = list(DataLoader(dataset, batch_size=2, sampler=sampler))
        ref = list(DataLoader(dataset, batch_size=2, sampler=sampler, collate_fn=slow))
        assert len(fast) == len(ref)
        for a, b in zip(fast, ref):
            assert isinstance(a, list) and len(a) == 2
            assert a[0].shape == b[0].shape and a[0].tolist() == b[0].tolist()
            assert a[1].dtype == b[1].dtype and a[1].tolist() == b[1].tolist()


def test_shuffle_reproducible_by_seed_and_different_across_epochs():
    loader = DataLoader(Range(20), batch_size=5, shuffle=True, generator=gen(42))
    e1, e2 = flat(loader), flat(loader)
    assert sorted(e1) == list(range(20)) and sorted(e2) == list(range(20))
    assert e1 != e2 and e1 != list(range(20))
    again = DataLoader(Range(20), batch_size=5, shuffle=True, generator=gen(42))
    assert flat(again) == e1 and flat(again) == e2
    # without a generator, ember.manual_seed decides
    ember.manual_seed(3)
    a = flat(DataLoader(Range(20), batch_size=5, shuffle=True))
    ember.manual_seed(3)
    assert flat(DataLoader(Range(20), batch_size=5, shuffle=True)) == a


def test_batch_size_none_and_custom_samplers():
    loader = DataLoader(ArrayDataset(3), batch_size=None)
    items = list(loader)
    assert len(loader) == 3 and isinstance(items[0], ember.Tensor) and items[2].tolist() == [2, 2]
    loader = DataLoader(Range(6), sampler=[5, 4, 3], batch_size=2)
    assert [b.tolist() for b in loader] == [[5, 4], [3]]
    loader = DataLoader(Range(6), batch_sampler=[[0, 5], [1]])
    assert [b.tolist() for b in loader] == [[0, 5], [1]] and len(loader) == 2
    loader = DataLoader(Range(4), batch_size=2, collate_fn=lambda b: sum(b))
    assert list(loader) == [1, 5]


def test_iterable_dataset_in_main_process():
    assert [b.tolist() for b in DataLoader(Stream(5), batch_size=2)] == [[0, 1], [2, 3], [4]]
    assert [b.tolist() for b in DataLoader(Stream(5), batch_size=2, drop_last=True)] == [[0, 1], [2, 3]]
    assert len(DataLoader(Stream(5), batch_size=2)) == 3
    assert len(DataLoader(Stream(5), batch_size=2, drop_last=True)) == 2
    assert list(DataLoader(Stream(3), batch_size=None)) == [0, 1, 2]  # default_convert keeps ints


def test_dataloader_argument_errors():
    cases = [
        dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2),
        dict(persistent_workers=True), dict(shuffle=True, sampler=[0, 1]),
        dict(batch_sampler=[[0]], batch_size=2), dict(batch_sampler=[[0]], shuffle=True),
        dict(batch_sampler=[[0]], drop_last=True), dict(batch_size=None, drop_last=True),
        dict(batch_size=0), dict(num_workers=1, prefetch_factor=-1),
        dict(multiprocessing_context="fork"), dict(num_workers=1, multiprocessing_context="nonsense"),
    ]
    for kwargs in cases:
        with pytest.raises(ValueError):
            DataLoader(Range(4), **kwargs)
    for kwargs in (dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])):
        with pytest.raises(ValueError):
            DataLoader(Stream(4), **kwargs)
    with pytest.raises(TypeError):
        DataLoader(Range(4), num_workers=1, multiprocessing_context=3)
    loader = DataLoader(Range(4))
    for attr in ("batch_size", "sampler", "dataset", "drop_last", "batch_sampler", "persistent_workers"):
        with pytest.raises(ValueError):
            setattr(loader, attr, None)
    loader.num_workers = 0  # other attributes stay settable


def test_dataloader_errors_match_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader as TorchLoader

    for kwargs in (dict(num_workers=-1), dict(shuffle=True, sampler=[0, 1]), dict(batch_size=None, drop_last=True),
                   dict(persistent_workers=True), dict(batch_size=0), dict(batch_size=True)):
        with pytest.raises(Exception) as theirs:
            TorchLoader(list(range(4)), **kwargs)
        with pytest.raises(theirs.type):
            DataLoader(Range(4), **kwargs)


def test_pin_memory_is_accepted_and_warns_without_an_accelerator():
    with pytest.warns(UserWarning, match="pin_memory"):
        loader = DataLoader(Range(4), batch_size=2, pin_memory=True)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3]]


def test_get_worker_info_in_main_process():
    assert get_worker_info() is None


# ---- DataLoader, worker processes ------------------------------------------------------

class ArrayDataset(Dataset):
    """Sample i is np.array([i, i])."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return np.array([i, i])

    def __len__(self):
        return self.n


class Stream(IterableDataset):
    """0..n-1; with workers each worker yields its own share when shard=True."""

    def __init__(self, n, shard=False):
        self.n, self.shard = n, shard

    def __iter__(self):
        info = get_worker_info()
        if self.shard and info is not None:
            return iter(range(info.id, self.n, info.num_workers))
        return iter(range(self.n))

    def __len__(self):
        return self.n


class WhoAmI(Dataset):
    """Sample i: (i, worker id, pid, a draw of ember's, Python's and numpy's generators)."""

    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "worker": info.id, "pid": os.getpid(), "seed": info.seed,
                "ember": ember.rand(1).item(), "py": random.random(), "np": float(np.random.rand())}

    def __len__(self):
        return 8


class Failing(Dataset):
    def __init__(self, bad, exc=ValueError):
        self.bad, self.exc = bad, exc

    def __getitem__(self, i):
        if i == self.bad:
            raise self.exc(f"sample {i} is broken")
        return i

    def __len__(self):
        return 8


class Slow(Dataset):
    def __getitem__(self, i):
        time.sleep(0.05 if i else 0.5)
        return i

    def __len__(self):
        return 4


class Dying(Dataset):
    def __getitem__(self, i):
        if i == 3:
            os._exit(1)
        return i

    def __len__(self):
        return 8


def assert_workers_exit(workers, within=5.0):
    deadline = time.time() + within
    for w in workers:
        w.join(timeout=max(0.0, deadline - time.time()))
        assert not w.is_alive()


def test_workers_give_the_same_batches_as_the_main_process():
    x = ember.randn(23, 3, generator=gen(0))
    y = ember.arange(23)
    ds = TensorDataset(x, y)
    for kwargs in (dict(batch_size=4), dict(batch_size=4, drop_last=True), dict(batch_size=5, shuffle=True)):
        main = list(DataLoader(ds, generator=gen(1), **kwargs))
        workers = list(DataLoader(ds, num_workers=2, generator=gen(1), **kwargs))
        assert len(main) == len(workers)
        for (xa, ya), (xb, yb) in zip(main, workers):
            assert xa.tolist() == xb.tolist() and ya.tolist() == yb.tolist()


def test_workers_keep_order_with_prefetching_and_slow_samples():
    loader = DataLoader(Slow(), batch_size=1, num_workers=2, prefetch_factor=3)
    assert [b.item() for b in loader] == [0, 1, 2, 3]


def test_worker_error_is_reraised_with_its_traceback():
    loader = DataLoader(Failing(5), batch_size=2, num_workers=2)
    it = iter(loader)
    assert next(it).tolist() == [0, 1] and next(it).tolist() == [2, 3]
    with pytest.raises(ValueError) as err:
        next(it)
    msg = str(err.value)
    assert "Caught ValueError in DataLoader worker process" in msg
    assert "sample 5 is broken" in msg and "__getitem__" in msg and "Traceback" in msg
    assert next(it).tolist() == [6, 7]  # the loader goes on after a failed batch, as PyTorch's
    with pytest.raises(KeyError) as err:
        list(DataLoader(Failing(0, KeyError), num_workers=1))
    assert "Caught KeyError" in str(err.value)


def test_worker_error_of_a_local_exception_class_arrives_as_runtime_error():
    class LocalError(Exception):
        pass

    class Broken(Range):
        def __getitem__(self, i):
            raise LocalError("local failure")

    with pytest.raises(RuntimeError, match="LocalError: local failure"):
        next(iter(DataLoader(Broken(4), num_workers=1, timeout=10)))


def test_worker_init_fn_error_is_reraised():
    def init(worker_id):
        raise RuntimeError(f"init of {worker_id} failed")

    with pytest.raises(RuntimeError, match="init of 0 failed"):
        list(DataLoader(Range(4), num_workers=1, worker_init_fn=init))


def test_early_break_and_garbage_collection_shut_workers_down():
    loader = DataLoader(Range(1000), batch_size=2, num_workers=2)
    it = iter(loader)
    assert next(it).tolist() == [0, 1]
    workers = list(it._workers)
    assert all(w.is_alive() for w in workers)
    start = time.time()
    del it
    gc.collect()
    assert_workers_exit(workers)
    assert time.time() - start < 3
    # a for loop left early
    it = iter(DataLoader(Range(1000), batch_size=2, num_workers=2))
    workers = list(it._workers)
    for _ in it:
        break
    del it
    gc.collect()
    assert_workers_exit(workers)
    # an iterator that dies in a reference cycle (as one held by a traceback does)
    it = iter(DataLoader(Range(1000), batch_size=2, num_workers=2))
    next(it)
    workers = list(it._workers)
    it.cycle = it
    del it
    start = time.time()
    gc.collect()
    assert_workers_exit(workers)
    assert time.time() - start < 3


def test_workers_exit_after_a_full_epoch():
    it = iter(DataLoader(Range(6), batch_size=2, num_workers=2))
    assert flat(it) == list(range(6))
    assert_workers_exit(it._workers)


def test_worker_info_and_per_worker_seeding():
    ember.manual_seed(0)
    rows = flat_dicts(DataLoader(WhoAmI(), batch_size=None, num_workers=2, generator=gen(7)))
    assert [r["i"] for r in rows] == list(range(8))
    by_worker = {}
    for r in rows:
        by_worker.setdefault(r["worker"], []).append(r)
    assert sorted(by_worker) == [0, 1]
    r0, r1 = by_worker[0][0], by_worker[1][0]
    assert r0["pid"] != r1["pid"] != os.getpid()
    assert r1["seed"] == r0["seed"] + 1
    for key in ("ember", "py", "np"):  # random ops differ between workers
        assert r0[key] != r1[key]
    # the same generator gives the same seeds and draws
    again = flat_dicts(DataLoader(WhoAmI(), batch_size=None, num_workers=2, generator=gen(7)))
    assert [(r["ember"], r["py"], r["np"]) for r in again] == [(r["ember"], r["py"], r["np"]) for r in rows]


def flat_dicts(loader):
    return [{k: (v.item() if isinstance(v, ember.Tensor) else v) for k, v in d.items()} for d in loader]


def test_worker_init_fn_runs_in_each_worker():
    def init(worker_id):
        info = get_worker_info()
        assert info.id == worker_id and info.num_workers == 3 and isinstance(info.dataset, Range)
        info.dataset.n = 100 + worker_id  # the worker's own copy of the dataset

    class Tagged(Range):
        def __getitem__(self, i):
            return self.n

    loader = DataLoader(Tagged(6), num_workers=3, worker_init_fn=init)
    assert flat(loader) == [100, 101, 102, 100, 101, 102]  # round-robin over the workers
    assert loader.dataset.n == 6


def test_iterable_dataset_with_workers():
    # sharded by get_worker_info: every sample once
    got = sorted(flat(DataLoader(Stream(10, shard=True), batch_size=3, num_workers=2)))
    assert got == list(range(10))
    # not sharded: each worker yields the whole stream (as in PyTorch)
    got = sorted(flat(DataLoader(Stream(5), batch_size=2, num_workers=2)))
    assert got == sorted(list(range(5)) * 2)


def test_persistent_workers_keep_their_processes_across_epochs():
    loader = DataLoader(Range(7), batch_size=2, num_workers=2, persistent_workers=True,
                        shuffle=True, generator=gen(4))
    e1 = flat(loader)
    pids = [w.pid for w in loader._iterator._workers]
    e2 = flat(loader)
    assert [w.pid for w in loader._iterator._workers] == pids and all(w.is_alive() for w in loader._iterator._workers)
    assert sorted(e1) == sorted(e2) == list(range(7)) and e1 != e2
    it = iter(loader)  # an epoch left early, then a full one
    next(it)
    assert sorted(flat(loader)) == list(range(7))
    stream = DataLoader(Stream(6, shard=True), batch_size=2, num_workers=2, persistent_workers=True)
    assert sorted(flat(stream)) == sorted(flat(stream)) == list(range(6))
    workers = loader._iterator._workers + stream._iterator._workers
    del loader, stream, it
    gc.collect()
    assert_workers_exit(workers)


def test_timeout():
    loader = DataLoader(Slow(), batch_size=1, num_workers=1, timeout=0.2)
    with pytest.raises(RuntimeError, match="timed out"):
        next(iter(loader))


def test_dead_worker_is_reported(monkeypatch):
    from ember.utils.data import dataloader as dl

    monkeypatch.setattr(dl, "MP_STATUS_CHECK_INTERVAL", 0.2)
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        list(DataLoader(Dying(), batch_size=1, num_workers=1))


def test_multiprocessing_context_by_name():
    loader = DataLoader(Range(4), batch_size=2, num_workers=1, multiprocessing_context="fork")
    assert flat(loader) == [0, 1, 2, 3]


def test_module_exports():
    for name in data.__all__:
        assert hasattr(data, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DataLoader(Range(2))
