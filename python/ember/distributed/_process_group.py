"""Process groups: init_process_group, new_group, the default (world) group and the
queries on groups, as in torch.distributed.

A ProcessGroup here wraps the C++ group (ranks 0..size-1 within it) and knows the
global ranks of its members; the collectives (_collectives.py) translate global
src/dst ranks into group ranks through it.
"""
from datetime import timedelta

from .._C import _distributed as _dist
from ._rendezvous import rendezvous
from ._store import PrefixStore, Store

ReduceOp = _dist.ReduceOp
Work = _dist.Work

default_pg_timeout = timedelta(minutes=30)


class Backend(str):
    """A backend name: Backend("GLOO") == "gloo"."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"
    UCC = "ucc"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend name must be a string, but got: {name!r}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return super().__new__(cls, value)


class ProcessGroup:
    """A group of processes; rank() and size() are within the group."""

    def __init__(self, pg, global_ranks, backend, store):
        self._pg = pg
        self._global_ranks = list(global_ranks)
        self._group_rank_of = {g: i for i, g in enumerate(self._global_ranks)}
        self._backend = backend
        self._store = store

    def rank(self):
        return self._pg.rank()

    def size(self):
        return self._pg.size()

    def name(self):
        return self._backend

    def __repr__(self):
        return (f"<ember.distributed.ProcessGroup backend={self._backend} rank={self.rank()} "
                f"size={self.size()} ranks={self._global_ranks}>")


class _WorldMeta(type):
    @property
    def WORLD(cls):
        return _world.default_pg


class GroupMember(metaclass=_WorldMeta):
    """GroupMember.WORLD: the default group; NON_GROUP_MEMBER: what new_group returns
    to the ranks it does not include."""

    NON_GROUP_MEMBER = -100


class group(metaclass=_WorldMeta):
    """group.WORLD: the default group (None before init_process_group)."""


class _World:
    def __init__(self):
        self.default_pg = None
        self.store = None
        self.groups = []          # every group of this process, the default first
        # new_group calls so far, in this process's life: each group's store prefix. Never
        # reset, so a group made after destroy_process_group and a new init with the same
        # store does not meet under an old group's keys (every rank counts the same calls).
        self.group_count = 0


_world = _World()


def is_available():
    """True when ember has a distributed backend (Gloo; NCCL is not built yet)."""
    return _dist.is_gloo_available()


def is_gloo_available():
    return _dist.is_gloo_available()


def is_nccl_available():
    return False


def is_mpi_available():
    return False


def is_ucc_available():
    return False


def is_backend_available(backend):
    return Backend(backend) == Backend.GLOO and is_gloo_available()


def is_initialized():
    return _world.default_pg is not None


def is_torchelastic_launched():
    import os
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def _check_backend(backend):
    name = Backend(backend) if backend is not None else Backend.GLOO
    # "cpu:gloo,cuda:nccl": ember runs the CPU part.
    if "," in name or ":" in name:
        parts = dict(p.split(":", 1) for p in name.split(",") if ":" in p)
        name = Backend(parts.get("cpu", "gloo"))
    if name == Backend.NCCL:
        raise RuntimeError("ember was built without NCCL (Distributed package doesn't have NCCL "
                           "built in); use backend=\"gloo\" for CPU tensors")
    if name != Backend.GLOO:
        raise ValueError(f"Unknown backend type {backend!r} (ember has \"gloo\")")
    if not is_gloo_available():
        raise RuntimeError("ember was built without Gloo, so the \"gloo\" backend is not available; "
                           "install libgloo-dev and rebuild ember (docs/distributed.md)")
    return name


def _check_timeout(timeout):
    if timeout is None:
        return default_pg_timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got "
                        f"{type(timeout).__name__}")
    return timeout


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Initializes the default process group (torch.distributed.init_process_group)."""
    if is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    backend = _check_backend(backend)
    timeout = _check_timeout(timeout)
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    if store is not None:
        if not isinstance(store, Store):
            raise TypeError(f"store must be an ember.distributed.Store, got {type(store).__name__}")
        if world_size <= 0:
            raise ValueError("world_size must be positive if using store")
        if rank < 0:
            raise ValueError("rank must be non-negative if using store")
    else:
        store, rank, world_size = rendezvous(init_method or "env://", rank, world_size, timeout)
        store.set_timeout(timeout)
    if not 0 <= rank < world_size:
        raise ValueError(f"init_process_group: rank {rank} is out of range for world_size {world_size}")
    _dist.init_process_group(backend, store, rank, world_size, timeout)
    pg = ProcessGroup(_dist.default_process_group(), range(world_size), backend, store)
    _world.default_pg = pg
    _world.store = store
    _world.groups = [pg]


def _default_group():
    if _world.default_pg is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return _world.default_pg


def _resolve(group):
    """The ProcessGroup for group= (None: the default)."""
    if group is None or group is GroupMember.WORLD:
        return _default_group()
    if isinstance(group, ProcessGroup):
        if group not in _world.groups:
            raise ValueError("the process group was destroyed (destroy_process_group)")
        return group
    if _is_non_member(group):
        return group
    raise TypeError(f"group must be an ember.distributed.ProcessGroup or None, got "
                    f"{type(group).__name__}")


def _is_non_member(group):
    """True for what new_group gave the ranks it left out."""
    return not isinstance(group, ProcessGroup) and group == GroupMember.NON_GROUP_MEMBER


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None):
    """A group of some of the world's ranks; every rank of the world must call it (in the
    same order as its other new_group calls). Ranks outside get GroupMember.NON_GROUP_MEMBER."""
    world = _default_group()
    world_size = world.size()
    backend = _check_backend(backend if backend is not None else world._backend)
    timeout = _check_timeout(timeout)
    if ranks is None:
        ranks = list(range(world_size))
    ranks = sorted(int(r) for r in ranks)
    if len(ranks) > world_size:
        raise ValueError("the new group's world size should be less or equal to the world size set "
                         "by init_process_group")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: ranks must be distinct, got {ranks}")
    for r in ranks:
        if not 0 <= r < world_size:
            raise ValueError(f"new_group: rank {r} is out of range for world size {world_size}")
    _world.group_count += 1
    prefix = f"group_{_world.group_count}"
    me = world.rank()
    if me not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    store = PrefixStore(prefix, _world.store)
    pg = _dist.make_gloo_process_group(store, ranks.index(me), len(ranks), timeout)
    group_ = ProcessGroup(pg, ranks, backend, store)
    _world.groups.append(group_)
    return group_


def destroy_process_group(group=None):
    """Destroys group (None: every group, the default one included)."""
    if group is None or group is GroupMember.WORLD:
        _default_group()
        _world.groups = []
        _world.default_pg = None
        _world.store = None
        _dist.destroy_process_group()
        return
    if isinstance(group, ProcessGroup) and group in _world.groups:
        _world.groups.remove(group)
        return
    raise ValueError("Invalid process group specified")


def get_rank(group=None):
    """This process's rank in group (-1 when it is not a member)."""
    g = _resolve(group)
    if _is_non_member(g):
        return -1
    return g.rank()


def get_world_size(group=None):
    g = _resolve(group)
    if _is_non_member(g):
        return -1
    return g.size()


def get_backend(group=None):
    g = _resolve(group)
    if _is_non_member(g):
        raise ValueError("Invalid process group specified")
    return g._backend


def get_process_group_ranks(group):
    g = _resolve(group)
    if _is_non_member(g):
        raise ValueError("Invalid process group specified")
    return list(g._global_ranks)


def get_group_rank(group, global_rank):
    g = _resolve(group)
    if _is_non_member(g):
        raise ValueError("Invalid process group specified")
    if global_rank not in g._group_rank_of:
        raise ValueError(f"Global rank {global_rank} is not part of group {g}")
    return g._group_rank_of[global_rank]


def get_global_rank(group, group_rank):
    g = _resolve(group)
    if _is_non_member(g):
        raise ValueError("Invalid process group specified")
    if not 0 <= group_rank < g.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {g}")
    return g._global_ranks[group_rank]


def get_default_store():
    _default_group()
    return _world.store
