"""ember.distributed on Gloo: the stores (in this process and across processes),
process groups and every collective in real processes (worlds of 2 and 3, spawned,
on loopback, on ports the OS chose), compared with numpy on the same inputs; bad
calls raise torch's exception types on every rank and leave their tensors alone;
a rank that dies makes the others raise within the group's timeout.

Each multi-process job runs many checks in one spawn (starting a process costs
more than the checks) and every job is bounded by a timeout, so a hang fails.
"""
import multiprocessing
import os
import pickle
import time
import traceback
from datetime import timedelta

import numpy as np
import pytest

from _spawn_job import free_port, run_processes

import ember
import ember.distributed as dist

# The stores need no backend; process groups need Gloo (libgloo-dev at build time).
needs_gloo = pytest.mark.skipif(not dist.is_gloo_available(), reason="ember was built without Gloo")

JOB_TIMEOUT = 60  # seconds for one multi-process job


_free_port = free_port


def _entry(scenario, rank, world, port, tmpdir, results):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(world))
    try:
        errors = scenario(rank, world, port, tmpdir)
    except BaseException:  # noqa: BLE001 - reported to the parent
        errors = [f"rank {rank} raised:\n{traceback.format_exc()}"]
    results.put((rank, errors))


def run_job(scenario, world, tmp_path, timeout=JOB_TIMEOUT):
    """Runs scenario(rank, world, port, tmpdir) in `world` spawned processes; fails on
    any rank's errors, a crash, or a job that outlives timeout."""
    port = _free_port()
    run_processes(_entry, lambda r: (scenario, r, world, port, str(tmp_path)), world, timeout)


# ---- the inputs every rank can compute for every other rank -----------------------------

def _input(rank, shape=(3, 4), dtype=np.float32, salt=0):
    rng = np.random.default_rng(1000 * salt + rank)
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    return rng.integers(-5, 6, shape).astype(dtype) if np.issubdtype(dtype, np.signedinteger) \
        else rng.integers(0, 6, shape).astype(dtype)


def _t(array):
    return ember.from_numpy(np.ascontiguousarray(array).copy())


class _Checker:
    def __init__(self, rank):
        self.rank = rank
        self.errors = []

    def close(self, name, got, want, tol=1e-5):
        got = got.numpy() if isinstance(got, ember.Tensor) else np.asarray(got)
        want = np.asarray(want)
        if got.shape != want.shape or got.dtype != want.dtype:
            self.errors.append(f"rank {self.rank} {name}: got {got.dtype}{list(got.shape)}, "
                               f"want {want.dtype}{list(want.shape)}")
        elif not np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol):
            self.errors.append(f"rank {self.rank} {name}: got\n{got}\nwant\n{want}")

    def true(self, name, cond):
        if not cond:
            self.errors.append(f"rank {self.rank} {name}: check failed")

    def raises(self, name, exc_type, fn, untouched=None):
        before = untouched.numpy().copy() if untouched is not None else None
        try:
            fn()
        except exc_type:
            pass
        except Exception as e:  # noqa: BLE001
            self.errors.append(f"rank {self.rank} {name}: raised {type(e).__name__} ({e}), "
                               f"want {exc_type.__name__}")
        else:
            self.errors.append(f"rank {self.rank} {name}: did not raise {exc_type.__name__}")
        if untouched is not None and not np.array_equal(untouched.numpy(), before):
            self.errors.append(f"rank {self.rank} {name}: the tensor changed although it raised")


_REDUCTIONS = {
    "SUM": lambda xs: np.sum(xs, axis=0),
    "PRODUCT": lambda xs: np.prod(xs, axis=0),
    "MIN": lambda xs: np.min(xs, axis=0),
    "MAX": lambda xs: np.max(xs, axis=0),
    "AVG": lambda xs: np.mean(xs, axis=0),
}


# ---- scenarios (run in every rank of a spawned job) -------------------------------------

def _scenario_collectives(rank, world, port, tmpdir):
    c = _Checker(rank)
    dist.init_process_group("gloo", timeout=timedelta(seconds=30))  # env://
    c.true("is_initialized", dist.is_initialized())
    c.true("get_rank", dist.get_rank() == rank)
    c.true("get_world_size", dist.get_world_size() == world)
    c.true("get_backend", dist.get_backend() == "gloo")
    c.true("group.WORLD", dist.group.WORLD is dist.GroupMember.WORLD and dist.group.WORLD.size() == world)

    # all_reduce: every op, several dtypes, non-contiguous, 0-dim and empty tensors.
    inputs = [_input(r) for r in range(world)]
    for name, ref in _REDUCTIONS.items():
        x = _t(inputs[rank])
        dist.all_reduce(x, op=getattr(dist.ReduceOp, name))
        c.close(f"all_reduce {name}", x, ref(np.stack(inputs)).astype(np.float32))
    for dtype in (np.float64, np.int64, np.int32, np.uint8, np.int8):
        xs = [_input(r, (5,), dtype, salt=1) for r in range(world)]
        for name in ("SUM", "MAX", "MIN"):
            x = _t(xs[rank])
            dist.all_reduce(x, op=getattr(dist.ReduceOp, name))
            c.close(f"all_reduce {name} {np.dtype(dtype).name}", x,
                    _REDUCTIONS[name](np.stack(xs)).astype(dtype))
    bools = [_input(r, (6,), np.bool_, salt=2) for r in range(world)]
    x = _t(bools[rank])
    dist.all_reduce(x, op=dist.ReduceOp.MAX)
    c.close("all_reduce MAX bool", x, np.any(np.stack(bools), axis=0))
    ints = [_input(r, (6,), np.int64, salt=3) for r in range(world)]
    for name, ref in (("BAND", np.bitwise_and.reduce), ("BOR", np.bitwise_or.reduce),
                      ("BXOR", np.bitwise_xor.reduce)):
        x = _t(ints[rank])
        dist.all_reduce(x, op=getattr(dist.ReduceOp, name))
        c.close(f"all_reduce {name}", x, ref(np.stack(ints), axis=0))
    halves = [_input(r, (4,), np.float32, salt=4) for r in range(world)]
    for dtype in (ember.float16, ember.bfloat16):
        x = _t(halves[rank]).to(dtype)
        dist.all_reduce(x)
        want = np.sum([_t(h).to(dtype).float().numpy() for h in halves], axis=0)
        c.close(f"all_reduce SUM {dtype}", x.float(), want, tol=2e-2)
    base = _input(rank, (4, 6), salt=5)
    nc = _t(base).t()  # a transposed view: written back through the view
    dist.all_reduce(nc)
    c.close("all_reduce non-contiguous", nc, np.sum([_input(r, (4, 6), salt=5) for r in range(world)], axis=0).T)
    s = ember.tensor(float(rank + 1))
    dist.all_reduce(s)
    c.close("all_reduce 0-dim", s, np.float32(world * (world + 1) / 2))
    e = ember.zeros(0, 3)
    dist.all_reduce(e)
    c.true("all_reduce empty", tuple(e.shape) == (0, 3))
    x = _t(inputs[rank])
    work = dist.all_reduce(x, async_op=True)
    c.true("async wait", work.wait() is True)
    c.true("async is_completed", work.is_completed() and work.is_success())
    c.close("async all_reduce", x, np.sum(inputs, axis=0))

    # broadcast from every source.
    for src in range(world):
        x = _t(_input(rank, (2, 3), salt=6))
        dist.broadcast(x, src=src)
        c.close(f"broadcast src={src}", x, _input(src, (2, 3), salt=6))
    x = _t(_input(rank, (3, 2), salt=7)).t()
    dist.broadcast(x, src=world - 1)
    c.close("broadcast non-contiguous", x, _input(world - 1, (3, 2), salt=7).T)

    # reduce: dst gets the reduction, the others keep their tensors.
    dst = world - 1
    for name in ("SUM", "MAX", "AVG"):
        x = _t(inputs[rank])
        dist.reduce(x, dst=dst, op=getattr(dist.ReduceOp, name))
        want = _REDUCTIONS[name](np.stack(inputs)).astype(np.float32) if rank == dst else inputs[rank]
        c.close(f"reduce {name}", x, want)

    # all_gather / all_gather_into_tensor (concatenated and stacked).
    outs = [ember.zeros(3, 4) for _ in range(world)]
    dist.all_gather(outs, _t(inputs[rank]))
    for r in range(world):
        c.close(f"all_gather [{r}]", outs[r], inputs[r])
    outs = [ember.zeros(4, 3).t() for _ in range(world)]  # non-contiguous outputs
    dist.all_gather(outs, _t(inputs[rank]))
    c.close("all_gather non-contiguous", ember.stack(outs), np.stack(inputs))
    flat = ember.zeros(world * 3, 4)
    dist.all_gather_into_tensor(flat, _t(inputs[rank]))
    c.close("all_gather_into_tensor", flat, np.concatenate(inputs))
    stacked = ember.zeros(world, 3, 4)
    dist.all_gather_into_tensor(stacked, _t(inputs[rank]).t().contiguous().t())
    c.close("all_gather_into_tensor stacked", stacked, np.stack(inputs))

    # reduce_scatter_tensor / reduce_scatter.
    big = [_input(r, (world * 2, 3), salt=8) for r in range(world)]
    out = ember.zeros(2, 3)
    src_tensor = _t(big[rank])
    dist.reduce_scatter_tensor(out, src_tensor)
    total = np.sum(big, axis=0)
    c.close("reduce_scatter_tensor", out, total[2 * rank:2 * rank + 2])
    c.close("reduce_scatter_tensor leaves its input", src_tensor, big[rank])
    out = ember.zeros(2, 3)
    dist.reduce_scatter_tensor(out, _t(big[rank]), op=dist.ReduceOp.AVG)
    c.close("reduce_scatter_tensor AVG", out, (total / world)[2 * rank:2 * rank + 2])
    out = ember.zeros(2, 3)
    dist.reduce_scatter(out, [_t(big[rank][2 * j:2 * j + 2]) for j in range(world)])
    c.close("reduce_scatter", out, total[2 * rank:2 * rank + 2])

    # all_to_all_single: even splits, then uneven ones (rank r sends r + j + 1 rows to j).
    x = _t(np.arange(world * 2 * 3, dtype=np.float32).reshape(world * 2, 3) + 100 * rank)
    out = ember.zeros(world * 2, 3)
    dist.all_to_all_single(out, x)
    want = np.concatenate([(np.arange(world * 2 * 3, dtype=np.float32).reshape(world * 2, 3) + 100 * j)[2 * rank:2 * rank + 2] for j in range(world)])
    c.close("all_to_all_single", out, want)
    in_splits = [rank + j + 1 for j in range(world)]
    rows = np.concatenate([[[100 * rank + 10 * j + k, -k] for k in range(n)] for j, n in enumerate(in_splits)]).astype(np.int64)
    out_splits = [j + rank + 1 for j in range(world)]
    out = ember.zeros(sum(out_splits), 2, dtype=ember.int64)
    dist.all_to_all_single(out, _t(rows), out_splits, in_splits)
    want = np.concatenate([[[100 * j + 10 * rank + k, -k] for k in range(j + rank + 1)] for j in range(world)]).astype(np.int64)
    c.close("all_to_all_single uneven", out, want)
    # Rank 0 sends nothing; nobody sends anything at all.
    in_splits = [0 if rank == 0 else 1 for _ in range(world)]
    out_splits = [0 if j == 0 else 1 for j in range(world)]
    out = ember.zeros(sum(out_splits), 2)
    dist.all_to_all_single(out, ember.full((sum(in_splits), 2), float(rank)), out_splits, in_splits)
    c.close("all_to_all_single with empty splits", out, np.repeat(np.arange(1, world, dtype=np.float32), 2).reshape(-1, 2))
    out = ember.zeros(0, 2)
    dist.all_to_all_single(out, ember.zeros(0, 2))
    gathered = [ember.zeros(0) for _ in range(world)]
    dist.all_gather(gathered, ember.zeros(0))
    outs = [ember.zeros(j + 1, dtype=ember.int64) for j in range(world)]
    dist.all_to_all(outs, [ember.full((rank + 1,), rank * 10 + j, dtype=ember.int64) for j in range(world)])
    for j in range(world):
        c.close(f"all_to_all [{j}]", outs[j], np.full(j + 1, j * 10 + rank, dtype=np.int64))

    # gather / scatter.
    for root in range(world):
        outs = [ember.zeros(3, 4) for _ in range(world)] if rank == root else None
        dist.gather(_t(inputs[rank]), outs, dst=root)
        if rank == root:
            c.close(f"gather dst={root}", ember.stack(outs), np.stack(inputs))
        out = ember.zeros(4, 3).t()
        pieces = [_t(_input(j, (3, 4), salt=9 + root)) for j in range(world)] if rank == root else None
        dist.scatter(out, pieces, src=root)
        c.close(f"scatter src={root}", out, _input(rank, (3, 4), salt=9 + root))

    # send / recv around the ring, isend / irecv, and a recv from any source.
    nxt, prv = (rank + 1) % world, (rank - 1) % world
    work = dist.isend(ember.full((5,), float(rank)), dst=nxt, tag=3)
    got = ember.zeros(5)
    c.true("recv returns the source", dist.recv(got, src=prv, tag=3) == prv)
    work.wait()
    c.close("send/recv ring", got, np.full(5, float(prv), dtype=np.float32))
    got = ember.zeros(2, 2, dtype=ember.int32)
    rwork = dist.irecv(got, src=prv)
    swork = dist.isend(ember.full((2, 2), rank, dtype=ember.int32), dst=nxt)
    rwork.wait()
    swork.wait()
    c.close("isend/irecv", got, np.full((2, 2), prv, dtype=np.int32))
    got = ember.zeros(3)
    works = dist.batch_isend_irecv([dist.P2POp(dist.irecv, got, prv, tag=5),
                                    dist.P2POp(dist.isend, ember.full((3,), rank * 2.0), nxt, tag=5)])
    for w in works:
        w.wait()
    c.close("batch_isend_irecv", got, np.full(3, prv * 2.0, dtype=np.float32))
    if rank == 0:
        sources = set()
        for _ in range(world - 1):
            got = ember.zeros(1, dtype=ember.int64)
            sources.add(dist.recv(got, tag=9))
            c.true("recv any source value", int(got.item()) in range(1, world))
        c.true("recv any source", sources == set(range(1, world)))
    else:
        dist.send(ember.tensor([rank]), dst=0, tag=9)

    # object collectives.
    objs = [{"rank": 0, "data": [1, 2, 3]}, "text", None] if rank == 0 else [None, None, None]
    dist.broadcast_object_list(objs, src=0)
    c.true("broadcast_object_list", objs == [{"rank": 0, "data": [1, 2, 3]}, "text", None])
    gathered = [None] * world
    dist.all_gather_object(gathered, {"r": rank, "pad": "x" * rank * 7})
    c.true("all_gather_object", gathered == [{"r": r, "pad": "x" * r * 7} for r in range(world)])
    box = [None] * world if rank == world - 1 else None
    dist.gather_object(("from", rank), box, dst=world - 1)
    if rank == world - 1:
        c.true("gather_object", box == [("from", r) for r in range(world)])
    received = [None]
    dist.scatter_object_list(received, [list(range(j + 1)) for j in range(world)] if rank == 0 else None, src=0)
    c.true("scatter_object_list", received[0] == list(range(rank + 1)))
    dist.barrier()
    dist.barrier(async_op=True).wait()

    # Bad calls: every rank raises the same way, without communicating, and leaves its
    # tensors alone; the group keeps working afterwards.
    x = _t(inputs[rank])
    c.raises("broadcast src out of range", RuntimeError, lambda: dist.broadcast(x, src=world), x)
    c.raises("reduce dst out of range", RuntimeError, lambda: dist.reduce(x, dst=world + 3), x)
    c.raises("all_reduce of a list", TypeError, lambda: dist.all_reduce([x]))
    c.raises("all_reduce op", TypeError, lambda: dist.all_reduce(x, op="sum"), x)
    xi = ember.arange(4)
    c.raises("AVG on int64", RuntimeError, lambda: dist.all_reduce(xi, op=dist.ReduceOp.AVG), xi)
    c.raises("BAND on float", RuntimeError, lambda: dist.all_reduce(x, op=dist.ReduceOp.BAND), x)
    outs = [ember.zeros(3, 4) for _ in range(world + 1)]
    c.raises("all_gather list length", RuntimeError, lambda: dist.all_gather(outs, x), outs[0])
    outs = [ember.zeros(3, 4) for _ in range(world - 1)] + [ember.zeros(4, 3)]
    c.raises("all_gather sizes", RuntimeError, lambda: dist.all_gather(outs, x), outs[0])
    outs = [ember.zeros(3, 4, dtype=ember.float64) for _ in range(world)]
    c.raises("all_gather dtypes", ValueError, lambda: dist.all_gather(outs, x), outs[0])
    flat = ember.zeros(world * 3 + 1, 4)
    c.raises("all_gather_into_tensor size", RuntimeError, lambda: dist.all_gather_into_tensor(flat, x), flat)
    out = ember.zeros(5, 4)
    c.raises("reduce_scatter_tensor size", RuntimeError, lambda: dist.reduce_scatter_tensor(out, x), out)
    out = ember.zeros(3, 4)
    c.raises("all_to_all_single split count", RuntimeError,
             lambda: dist.all_to_all_single(out, x, [3], [3]), out)
    c.raises("all_to_all_single split sum", RuntimeError,
             lambda: dist.all_to_all_single(out, x, [2] * world, [2] * world), out)
    c.raises("send to itself", ValueError, lambda: dist.send(x, dst=rank))
    c.raises("broadcast without src", ValueError, lambda: dist.broadcast(x), x)
    c.raises("all_gather_into_tensor dtype", RuntimeError,
             lambda: dist.all_gather_into_tensor(ember.zeros(world * 3, 4, dtype=ember.float64), x))
    c.raises("gather list on a non-destination rank", ValueError,
             lambda: dist.gather(x, [x] * world, dst=(rank + 1) % world))
    c.raises("scatter without a list on the source", ValueError, lambda: dist.scatter(x, None, src=rank))
    c.raises("new_group too many ranks", ValueError, lambda: dist.new_group(list(range(world + 1))))
    c.raises("init twice", ValueError, lambda: dist.init_process_group("gloo"))
    if ember.cuda.is_available():
        xc = ember.ones(3, device="cuda")
        c.raises("a CUDA tensor on gloo", RuntimeError, lambda: dist.all_reduce(xc))
    x = ember.ones(2)
    dist.all_reduce(x)
    c.close("the group works after bad calls", x, np.full(2, float(world), dtype=np.float32))

    dist.destroy_process_group()
    c.true("destroyed", not dist.is_initialized())
    c.raises("get_rank after destroy", ValueError, dist.get_rank)
    return c.errors


def _scenario_subgroups_tcp_init(rank, world, port, tmpdir):
    c = _Checker(rank)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world, timeout=timedelta(seconds=30))
    members = [0, world - 1]
    g = dist.new_group(members)
    if rank in members:
        c.true("subgroup rank", dist.get_rank(g) == members.index(rank))
        c.true("subgroup size", dist.get_world_size(g) == 2)
        c.true("subgroup ranks", dist.get_process_group_ranks(g) == members)
        x = ember.full((3,), float(rank + 1))
        dist.all_reduce(x, group=g)
        c.close("subgroup all_reduce", x, np.full(3, float(1 + world), dtype=np.float32))
        y = ember.full((2,), float(rank))
        dist.broadcast(y, src=world - 1, group=g)  # a global rank
        c.close("subgroup broadcast", y, np.full(2, float(world - 1), dtype=np.float32))
        z = ember.zeros(2)
        dist.broadcast(z if rank else ember.ones(2), group_src=0, group=g)
        if rank:
            c.close("subgroup broadcast group_src", z, np.ones(2, dtype=np.float32))
        c.raises("a global rank outside the subgroup", ValueError, lambda: dist.broadcast(x, src=1, group=g))
    else:
        c.true("non-member", g == dist.GroupMember.NON_GROUP_MEMBER)
        c.true("non-member rank", dist.get_rank(g) == -1)
        x = ember.full((3,), 5.0)
        c.true("non-member all_reduce is a no-op", dist.all_reduce(x, group=g) is None)
        c.close("non-member tensor", x, np.full(3, 5.0, dtype=np.float32))
    # The world group still works, interleaved with the subgroup.
    x = ember.ones(1)
    dist.all_reduce(x)
    c.close("world after subgroup", x, np.full(1, float(world), dtype=np.float32))
    dist.destroy_process_group()
    return c.errors


def _scenario_file_init_and_stores(rank, world, port, tmpdir):
    c = _Checker(rank)
    path = os.path.join(tmpdir, "rendezvous")
    dist.init_process_group("gloo", init_method=f"file://{path}", rank=rank, world_size=world,
                            timeout=timedelta(seconds=30))
    x = ember.full((2,), float(rank))
    dist.all_reduce(x)
    c.close("file:// all_reduce", x, np.full(2, float(sum(range(world))), dtype=np.float32))
    dist.destroy_process_group()
    # Stores across processes: a TCPStore (rank 0 serves) and a FileStore.
    tcp = dist.TCPStore("127.0.0.1", port, world, rank == 0, timedelta(seconds=20))
    fstore = dist.FileStore(os.path.join(tmpdir, "store"), world)
    for store in (tcp, fstore):
        store.set(f"from_{rank}", f"hello {rank}")
        store.wait([f"from_{r}" for r in range(world)])
        c.true("cross-process get", store.get(f"from_{(rank + 1) % world}") == f"hello {(rank + 1) % world}".encode())
        store.add("counter", rank + 1)
        store.set(f"added_{rank}", "1")
        store.wait([f"added_{r}" for r in range(world)])
        c.true("cross-process add", int(store.get("counter")) == world * (world + 1) // 2)
        won = store.compare_set("winner", "", f"rank{rank}")
        c.true("compare_set has one winner", won in [f"rank{r}".encode() for r in range(world)])
        store.set(f"done_{rank}", "1")
        store.wait([f"done_{r}" for r in range(world)])
    # The two stores go away at the same time on every rank (the server with rank 0's).
    tcp.set(f"exit_{rank}", "1")
    tcp.wait([f"exit_{r}" for r in range(world)])
    if rank == 0:
        time.sleep(0.2)
    return c.errors


def _scenario_ranks_disagree(rank, world, port, tmpdir):
    c = _Checker(rank)
    dist.init_process_group("gloo", timeout=timedelta(seconds=20))

    def disagree(name, fn):
        try:
            fn()
            c.errors.append(f"rank {rank} {name}: did not raise")
        except dist.DistBackendError as e:
            c.true(f"{name} names the op ({e})", "ProcessGroupGloo" in str(e))
        except Exception as e:  # noqa: BLE001
            c.errors.append(f"rank {rank} {name}: raised {type(e).__name__} ({e})")

    # Every rank raises, naming what each rank called; nothing aborts the process.
    disagree("sizes", lambda: dist.all_reduce(ember.ones(4 if rank == 0 else 8)))
    disagree("dtypes", lambda: dist.all_reduce(ember.ones(4, dtype=ember.float32 if rank else ember.float64)))
    disagree("ops", lambda: dist.all_reduce(ember.ones(4), op=dist.ReduceOp.SUM if rank else dist.ReduceOp.MAX))
    disagree("roots", lambda: dist.broadcast(ember.ones(3), src=rank))
    disagree("collectives", lambda: dist.barrier() if rank else dist.all_reduce(ember.ones(2)))
    out = ember.zeros(3 + rank)
    disagree("all_to_all splits", lambda: dist.all_to_all_single(out, ember.ones(3), [1 + rank, 2], [1, 2]))
    x = ember.ones(3)
    dist.all_reduce(x)
    c.close("the group works afterwards", x, np.full(3, float(world), dtype=np.float32))
    # A receive nobody answers does not hold up destroy_process_group; its wait raises.
    dist.barrier()
    work = dist.irecv(ember.zeros(2), src=(rank + 1) % world, tag=77)
    start = time.monotonic()
    dist.destroy_process_group()
    c.true("destroy does not wait out the timeout", time.monotonic() - start < 5)
    c.raises("the aborted receive", dist.DistBackendError, work.wait)
    return c.errors


def _scenario_dead_peer(rank, world, port, tmpdir):
    c = _Checker(rank)
    dist.init_process_group("gloo", timeout=timedelta(seconds=10))
    dist.barrier()
    if rank == 1:
        os._exit(0)  # dies without a word
    start = time.monotonic()
    x = ember.ones(1000)
    try:
        dist.all_reduce(x)
        dist.all_reduce(x)
        c.errors.append("all_reduce with a dead peer did not raise")
    except RuntimeError as e:
        c.true(f"the error names the failure ({e})", "ProcessGroupGloo" in str(e))
        c.true("DistBackendError", isinstance(e, dist.DistBackendError))
    c.true("raised within the timeout", time.monotonic() - start < 15)
    dist.destroy_process_group()
    return c.errors


@needs_gloo
def test_collectives_world_2(tmp_path):
    run_job(_scenario_collectives, 2, tmp_path)


@needs_gloo
def test_collectives_world_3(tmp_path):
    run_job(_scenario_collectives, 3, tmp_path)


@needs_gloo
def test_new_group_and_tcp_init_world_3(tmp_path):
    run_job(_scenario_subgroups_tcp_init, 3, tmp_path)


@needs_gloo
def test_file_init_and_stores_across_processes(tmp_path):
    run_job(_scenario_file_init_and_stores, 2, tmp_path)


@needs_gloo
def test_ranks_that_disagree_raise_on_every_rank(tmp_path):
    run_job(_scenario_ranks_disagree, 2, tmp_path)


@needs_gloo
def test_dead_peer_raises_within_timeout(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    port = _free_port()
    procs = [ctx.Process(target=_entry, args=(_scenario_dead_peer, r, 2, port, str(tmp_path), results))
             for r in range(2)]
    for p in procs:
        p.start()
    try:
        rank, errors = results.get(timeout=JOB_TIMEOUT)
        assert rank == 0
        assert not errors, "\n".join(errors)
    finally:
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.kill()


# ---- in this process --------------------------------------------------------------------

def _check_store(store):
    store.set("a", "text")
    assert store.get("a") == b"text"
    store.set("b", b"\x00\xffbytes")
    assert store.get("b") == b"\x00\xffbytes"
    with pytest.raises(TypeError):
        store.set("c", 3)
    assert store.add("n", 2) == 2 and store.add("n", 5) == 7
    assert store.get("n") == b"7"
    with pytest.raises(ValueError):
        store.add("a", 1)
    assert store.compare_set("cs", "", "v") == b"v"
    assert store.compare_set("cs", "x", "y") == b"v"
    assert store.compare_set("cs", b"v", b"w") == b"w"
    assert store.compare_set("missing", "e", "d") == b"e"
    assert store.check(["a", "b"]) and not store.check(["a", "zz"])
    keys = store.num_keys()
    assert store.delete_key("cs") and not store.delete_key("cs")
    assert store.num_keys() == keys - 1
    store.append("log", "ab")
    store.append("log", b"cd")
    assert store.get("log") == b"abcd"
    store.multi_set(["m1", "m2"], ["x", b"y"])
    assert store.multi_get(["m1", "m2"]) == [b"x", b"y"]
    start = time.monotonic()
    with pytest.raises(dist.DistStoreError):
        store.wait(["never"], timedelta(milliseconds=100))
    store.set_timeout(timedelta(milliseconds=100))
    assert store.timeout == timedelta(milliseconds=100)
    with pytest.raises(RuntimeError):  # DistStoreError is a RuntimeError, as in torch
        store.get("never")
    assert time.monotonic() - start < 5


def test_hash_store():
    _check_store(dist.HashStore())


def test_file_store(tmp_path):
    _check_store(dist.FileStore(str(tmp_path / "store"), 1))
    a = dist.FileStore(str(tmp_path / "shared"))
    b = dist.FileStore(str(tmp_path / "shared"))
    a.set("k", "v")
    assert b.get("k") == b"v"


def test_tcp_store():
    master = dist.TCPStore("127.0.0.1", 0, 1, True, timedelta(seconds=10))
    assert master.port > 0 and master.host == "127.0.0.1"
    _check_store(master)
    client = dist.TCPStore("127.0.0.1", master.port, is_master=False, timeout=timedelta(seconds=10))
    client.set("from_client", "x")
    assert master.get("from_client") == b"x"
    with pytest.raises(dist.DistNetworkError, match="already in use"):
        dist.TCPStore("127.0.0.1", master.port, 1, True, timedelta(seconds=1))


def test_tcp_store_without_server_times_out():
    port = _free_port()
    start = time.monotonic()
    with pytest.raises(dist.DistNetworkError):
        dist.TCPStore("127.0.0.1", port, 2, False, timedelta(milliseconds=300))
    assert time.monotonic() - start < 5


def test_prefix_store():
    base = dist.HashStore()
    store = dist.PrefixStore("job", base)
    _check_store(store)
    store.set("k", "v")
    assert base.get("job/k") == b"v" and not base.check(["k"])
    assert store.underlying_store is not None


@needs_gloo
def test_queries_and_bad_init():
    assert dist.is_available() and dist.is_gloo_available()
    assert not dist.is_nccl_available()
    assert not dist.is_initialized()
    assert dist.group.WORLD is None
    assert dist.Backend("GLOO") == "gloo"
    with pytest.raises(ValueError, match="not been initialized"):
        dist.get_rank()
    with pytest.raises(ValueError, match="not been initialized"):
        dist.all_reduce(ember.ones(1))
    with pytest.raises(ValueError, match="Cannot specify both"):
        dist.init_process_group("gloo", init_method="env://", store=dist.HashStore(), rank=0, world_size=1)
    with pytest.raises(ValueError, match="world_size"):
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0)
    with pytest.raises(ValueError):
        dist.init_process_group("gloo", store=dist.HashStore(), rank=2, world_size=2)
    with pytest.raises(ValueError):
        dist.init_process_group("bogus", store=dist.HashStore(), rank=0, world_size=1)
    with pytest.raises(RuntimeError, match="NCCL"):
        dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
    env = {k: os.environ.pop(k) for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT") if k in os.environ}
    try:
        with pytest.raises(ValueError, match="RANK"):
            dist.init_process_group("gloo")
    finally:
        os.environ.update(env)
    assert not dist.is_initialized()


@needs_gloo
def test_world_of_one_in_process():
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1,
                            timeout=timedelta(seconds=10))
    try:
        assert dist.get_rank() == 0 and dist.get_world_size() == 1
        x = ember.arange(4.0)
        dist.all_reduce(x, op=dist.ReduceOp.AVG)
        assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
        objs = [None]
        dist.all_gather_object(objs, {"k": 1})
        assert objs == [{"k": 1}]
        w = dist.all_reduce(x, async_op=True)
        assert isinstance(w, dist.Work) and w.wait() and w.is_completed()
    finally:
        dist.destroy_process_group()


@needs_gloo
def test_init_again_with_the_same_store():
    store = dist.HashStore()
    for round_ in range(2):
        dist.init_process_group("gloo", store=store, rank=0, world_size=1, timeout=timedelta(seconds=10))
        try:
            g = dist.new_group([0])
            x = ember.full((3,), float(round_))
            dist.all_reduce(x, group=g)
            dist.all_reduce(x)
            assert x.tolist() == [float(round_)] * 3
            assert dist.get_process_group_ranks(g) == [0]
        finally:
            dist.destroy_process_group()
    with pytest.raises(ValueError):
        dist.get_process_group_ranks(g)


@needs_gloo
def test_rendezvous_that_never_fills_times_out():
    port = _free_port()
    start = time.monotonic()
    with pytest.raises(RuntimeError):
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=2,
                                timeout=timedelta(seconds=1))
    assert time.monotonic() - start < 10
    assert not dist.is_initialized()


@pytest.mark.skipif(dist.is_gloo_available(), reason="this build has Gloo")
def test_without_gloo_init_raises():
    assert not dist.is_available() and not dist.is_gloo_available()
    with pytest.raises(RuntimeError, match="without Gloo"):
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    assert not dist.is_initialized()
