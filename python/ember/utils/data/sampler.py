"""Samplers: iterables of dataset indices (or, for BatchSampler, of lists of
indices) that decide the order a DataLoader visits a map-style dataset in.
Random samplers draw from an ember.Generator, so a seeded generator gives the
same order every run and a new order every epoch."""
import ember

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler",
           "WeightedRandomSampler"]


class Sampler:
    """Base class: subclasses define __iter__ (and __len__ where they can)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _fresh_generator():
    # A generator seeded from the default one: an unseeded sampler still follows
    # ember.manual_seed, and draws the same numbers whatever else uses the default.
    seed = int(ember.empty((), dtype=ember.int64).random_().item())
    return ember.Generator().manual_seed(seed)


class RandomSampler(Sampler):
    """A random permutation of the indices (each epoch a new one), or with
    replacement=True num_samples independent uniform draws. num_samples
    (default len(data_source)) may exceed the length without replacement: then
    it continues with further permutations."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if isinstance(self.num_samples, bool) or not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        # data_source may change size after the sampler is made (as in PyTorch).
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = _fresh_generator() if self.generator is None else self.generator
        if self.replacement:
            # In chunks of 32 so that a long epoch does not hold every index at once.
            for _ in range(self.num_samples // 32):
                yield from ember.randint(high=n, size=(32,), dtype=ember.int64, generator=generator).tolist()
            yield from ember.randint(high=n, size=(self.num_samples % 32,), dtype=ember.int64,
                                     generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from ember.randperm(n, generator=generator).tolist()
            yield from ember.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (a new one each epoch)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in ember.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups the indices of sampler into lists of batch_size; the last, shorter
    one is dropped when drop_last."""

    def __init__(self, sampler, batch_size, drop_last):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


def _weighted_draw(weights, num_samples, replacement, generator):
    """num_samples indices drawn with probability proportional to weights (torch.multinomial's
    rules and errors), from ember's generator so that ember.manual_seed fixes the draw."""
    n = weights.numel()
    if n == 0:
        raise RuntimeError("cannot sample from an empty probability distribution")
    if not bool(weights.isfinite().all()):
        raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    if bool((weights < 0).any()):
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    nonzero = int((weights > 0).sum().item())
    if nonzero == 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement:
        if num_samples > n:
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        # Exponential race: the k smallest E_i / w_i (E_i ~ Exp(1)) are a weighted draw
        # without replacement. Zero weights give inf: as in torch they come only after
        # every non-zero one.
        u = ember.rand(n, dtype=ember.float64, generator=generator)
        keys = -(1.0 - u).log() / weights
        return keys.argsort(stable=True)[:num_samples].tolist()
    cdf = weights.cumsum(0)
    cdf = cdf / cdf[-1]
    out = []
    # Inverse CDF: the index of a uniform u is the count of cdf entries <= u. In chunks
    # so that the (chunk, n) comparison stays small.
    chunk = max(1, (1 << 20) // n)
    for start in range(0, num_samples, chunk):
        u = ember.rand(min(chunk, num_samples - start), dtype=ember.float64, generator=generator)
        idx = (cdf.unsqueeze(0) <= u.unsqueeze(1)).sum(1).clamp(max=n - 1)
        out.extend(idx.tolist())
    return out


class WeightedRandomSampler(Sampler):
    """num_samples indices in [0, len(weights)) drawn with probabilities proportional to
    weights (with replacement by default); each epoch a new draw from generator (default:
    seeded from ember's default generator, so ember.manual_seed fixes it)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = ember.as_tensor(weights, dtype=ember.float64)
        if weights.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        generator = _fresh_generator() if self.generator is None else self.generator
        yield from _weighted_draw(self.weights, self.num_samples, self.replacement, generator)

    def __len__(self):
        return self.num_samples
