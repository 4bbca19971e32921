"""ember.distributed: torch.distributed's process groups, stores and collectives.

CPU tensors go over Gloo (libgloo-dev; is_gloo_available() says whether this build
has it). DistributedDataParallel is ember.nn.parallel.DistributedDataParallel; the
launcher is ``python -m ember.distributed.run``; NCCL for CUDA tensors is not built
yet. docs/distributed.md says what exists.

    import ember.distributed as dist
    dist.init_process_group("gloo")  # env://: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
    x = ember.ones(4) * dist.get_rank()
    dist.all_reduce(x)               # the sum over every rank, on every rank
"""
from .._C import _distributed as _dist
from ._collectives import (P2POp, all_gather, all_gather_into_tensor, all_reduce, all_to_all,
                           all_to_all_single, barrier, batch_isend_irecv, broadcast, gather, irecv,
                           isend, recv, reduce, reduce_scatter, reduce_scatter_tensor, scatter, send)
from ._object_collectives import (all_gather_object, broadcast_object_list, gather_object,
                                  scatter_object_list)
from ._process_group import (Backend, GroupMember, ProcessGroup, ReduceOp, Work, default_pg_timeout,
                             destroy_process_group, get_backend, get_default_store,
                             get_global_rank, get_group_rank, get_process_group_ranks, get_rank,
                             get_world_size, group, init_process_group, is_available,
                             is_backend_available, is_gloo_available, is_initialized,
                             is_mpi_available, is_nccl_available, is_torchelastic_launched,
                             is_ucc_available, new_group)
from ._store import FileStore, HashStore, PrefixStore, Store, TCPStore


def _work_future(work):
    """Work.get_future(): a Future of the collective's outputs (a list of tensors)."""
    from ..futures import _WorkFuture
    return _WorkFuture(work)


Work.get_future = _work_future  # the Work type is C++'s; its future is ember.futures'

DistError = _dist.DistError
DistStoreError = _dist.DistStoreError
DistNetworkError = _dist.DistNetworkError
DistBackendError = _dist.DistBackendError

__all__ = [
    "Backend", "DistBackendError", "DistError", "DistNetworkError", "DistStoreError",
    "FileStore", "GroupMember", "HashStore", "P2POp", "PrefixStore", "ProcessGroup",
    "ReduceOp", "Store", "TCPStore", "Work", "all_gather", "all_gather_into_tensor",
    "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "barrier",
    "batch_isend_irecv", "broadcast", "broadcast_object_list", "default_pg_timeout",
    "destroy_process_group", "gather", "gather_object", "get_backend", "get_default_store",
    "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank",
    "get_world_size", "group", "init_process_group", "irecv", "is_available",
    "is_backend_available", "is_gloo_available", "is_initialized", "is_mpi_available",
    "is_nccl_available", "is_torchelastic_launched", "is_ucc_available", "isend", "new_group",
    "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter",
    "scatter_object_list", "send",
]

from . import algorithms  # noqa: E402,F401  (DDP communication hooks)
from ..nn.parallel.distributed import GradBucket  # noqa: E402,F401
