"""DistributedSampler: each process of a distributed job takes its own share of a
map-style dataset (torch.utils.data.distributed.DistributedSampler).

Every rank draws the same permutation (seeded with seed + epoch, so call set_epoch at
the start of each epoch for a new order) and keeps every num_replicas-th index from
its rank on. The index list is padded by repeating its start, so that every rank gets
the same number of samples (drop_last=False), or cut to a multiple of num_replicas
(drop_last=True), as PyTorch's. The permutation comes from ember's generator, whose
stream differs from torch's: with shuffle=True the shares are a different (equally
valid) split than torch's; with shuffle=False they are the same.
"""
import math

import ember

from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            import ember.distributed as dist
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if isinstance(num_replicas, bool) or not isinstance(num_replicas, int) or num_replicas <= 0:
            raise ValueError(f"num_replicas should be a positive integer, but got "
                             f"num_replicas={num_replicas!r}")
        if isinstance(rank, bool) or not isinstance(rank, int):
            raise TypeError(f"rank should be an integer, but got rank={rank!r}")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            # The tail that does not fill a round is dropped: every rank gets the same count.
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            generator = ember.Generator()
            generator.manual_seed(self.seed + self.epoch)
            indices = ember.randperm(n, generator=generator).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            elif indices:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """The permutation of the next iteration is seeded with seed + epoch: the same on
        every rank, different from one epoch to the next."""
        self.epoch = epoch
