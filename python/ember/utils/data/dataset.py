"""Datasets: the map-style Dataset (indexable, with a length) and the iterable
IterableDataset, plus the ways of combining them (TensorDataset, Subset,
ConcatDataset, ChainDataset, random_split), with torch.utils.data's names and
behaviour."""
import bisect
import itertools
import math
import warnings

import ember

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "ChainDataset",
           "random_split", "StackDataset"]


class Dataset:
    """A map-style dataset: dataset[i] is sample i. Subclasses define __getitem__
    and usually __len__ (which samplers and len(DataLoader) need)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: subclasses define __iter__. With num_workers > 0 each
    worker iterates its own copy; use get_worker_info() in __iter__ to give each
    worker its own share, or every sample is produced once per worker."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class _SizeMismatchError(AssertionError, ValueError):
    """torch's TensorDataset asserts the sizes (AssertionError); it is also the ValueError it is."""


class TensorDataset(Dataset):
    """Sample i is (t[i] for t in tensors): tensors share their first dimension."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        n = tensors[0].size(0)
        if any(t.size(0) != n for t in tensors):
            raise _SizeMismatchError("Size mismatch between tensors: first dimensions "
                                     f"{[t.size(0) for t in tensors]}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)

    def _collated_batch(self, indices):
        # default_collate([self[i] for i in indices]), gathered with one op per tensor
        # (the DataLoader's fast path); NotImplemented where indexing would differ.
        if any(isinstance(i, bool) or not isinstance(i, int) or i < 0 for i in indices):
            return NotImplemented
        index = ember.tensor(indices, dtype=ember.int64)
        return [t.index_select(0, index) for t in self.tensors]


class Subset(Dataset):
    """The samples of dataset at the given indices, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        # The DataLoader fetches a whole batch at once where the dataset can.
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)

    def _collated_batch(self, indices):
        gather = getattr(self.dataset, "_collated_batch", None)
        if gather is None:
            return NotImplemented
        return gather([self.indices[i] for i in indices])


class ConcatDataset(Dataset):
    """The samples of several map-style datasets, one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        if dataset_idx == len(self.datasets):
            raise IndexError(f"index {idx} is out of range for a dataset of length {len(self)}")
        start = self.cumulative_sizes[dataset_idx - 1] if dataset_idx > 0 else 0
        return self.datasets[dataset_idx][idx - start]


class ChainDataset(IterableDataset):
    """The samples of several iterable datasets, one stream after the other."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise TypeError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise TypeError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


def _lengths_from_fractions(fractions, n):
    # floor(n * fraction) each, then the remainder one by one round-robin, as PyTorch.
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
    lengths = [int(math.floor(n * frac)) for frac in fractions]
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
    return lengths


def random_split(dataset, lengths, generator=None):
    """Splits dataset into non-overlapping Subsets of the given lengths, or of the
    given fractions of len(dataset) (summing to 1), drawn with randperm from
    generator (default: ember.default_generator)."""
    lengths = list(lengths)
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, n)
    if any(isinstance(length, bool) or not isinstance(length, int) or length < 0 for length in lengths):
        raise ValueError(f"random_split: lengths must be non-negative integers or fractions, got {lengths}")
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    gen = ember.default_generator if generator is None else generator
    indices = ember.randperm(n, generator=gen).tolist()
    ends = itertools.accumulate(lengths)
    return [Subset(dataset, indices[end - length:end]) for end, length in zip(ends, lengths)]


class StackDataset(Dataset):
    """Sample i of several equally long datasets together: a tuple when they are given
    positionally, a dict keyed like the keyword arguments when given by name."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self.datasets = args if args else kwargs
        parts = list(args if args else kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def _batch_of(self, dataset, indices):
        # A whole batch at once from the datasets that can, sample by sample otherwise.
        getitems = getattr(dataset, "__getitems__", None)
        if not callable(getitems):
            return [dataset[i] for i in indices]
        items = getitems(indices)
        if len(items) != len(indices):
            raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(items)}")
        return items

    def __getitems__(self, indices):
        if isinstance(self.datasets, dict):
            columns = {k: self._batch_of(d, indices) for k, d in self.datasets.items()}
            return [{k: col[j] for k, col in columns.items()} for j in range(len(indices))]
        columns = [self._batch_of(d, indices) for d in self.datasets]
        return [tuple(col[j] for col in columns) for j in range(len(indices))]

    def __len__(self):
        return self._length
