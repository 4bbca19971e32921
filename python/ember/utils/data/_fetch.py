"""Fetchers: turn one entry of the index sampler (an index, a list of indices,
or for an IterableDataset just a count) into one collated batch. The main
process (num_workers=0) and every worker process use the same fetchers."""

from ._collate import default_collate

MAP, ITERABLE = "map", "iterable"


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        if self.collate_fn is default_collate:
            # A dataset that can gather a collated batch at once (TensorDataset: one
            # index_select per tensor) skips the sample-by-sample path; same result.
            gather = getattr(self.dataset, "_collated_batch", None)
            batch = gather(index) if gather is not None else NotImplemented
            if batch is not NotImplemented:
                return batch
        getitems = getattr(self.dataset, "__getitems__", None)
        data = getitems(index) if callable(getitems) else [self.dataset[i] for i in index]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset_iter = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index):
        # Raises StopIteration when the stream has nothing left for this batch.
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in index:  # only the batch size matters: the stream decides the samples
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
    cls = _MapFetcher if kind == MAP else _IterableFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
