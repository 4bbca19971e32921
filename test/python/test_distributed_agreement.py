"""The agreement check of ember's Gloo groups (lib/distributed/call_exchange.h): an
all_reduce of at most 1 MiB (up to 4 ranks) sends its data in the same message as its
call record and each rank reduces in rank order; a larger one sends the record first,
then runs Gloo's ring. Both give numpy's values, the same bits on every rank, and a
call that differs between ranks (dtype, element count, op, collective, on either
side of the inline limit) raises DistBackendError on every rank, never aborting,
hanging or returning a wrong result; the group works afterwards.
"""
import os
from datetime import timedelta

import numpy as np

from test_distributed_gloo import _Checker, _input, needs_gloo, run_job

import ember
import ember.distributed as dist

LARGE = 300_000  # float32 elements: more than fit one message, at every world size


def _inline_floats(world):
    """The most float32 elements that travel with the call record."""
    return min(1 << 20, (3 << 20) // (world - 1)) // 64 * 64 // 4


def _same_bits_everywhere(c, name, x, world):
    everyone = [ember.empty_like(x) for _ in range(world)]
    dist.all_gather(everyone, x)
    c.true(f"{name}: every rank has the same bits",
           all(np.array_equal(e.numpy().view(np.uint8), x.numpy().view(np.uint8)) for e in everyone))


def _scenario_values(rank, world, port, tmpdir):
    c = _Checker(rank)
    dist.init_process_group("gloo", timeout=timedelta(seconds=30))
    for n in (1, 1000, _inline_floats(world), _inline_floats(world) + 1, LARGE):
        inputs = [_input(r, (n,), salt=n % 97) for r in range(world)]
        for op, ref in (("SUM", np.sum), ("AVG", np.mean), ("MAX", np.max), ("PRODUCT", np.prod)):
            x = ember.tensor(inputs[rank])
            dist.all_reduce(x, op=getattr(dist.ReduceOp, op))
            want = ref(np.stack(inputs).astype(np.float64), axis=0).astype(np.float32)
            c.close(f"all_reduce {op} of {n}", x, want, tol=1e-4)
            _same_bits_everywhere(c, f"all_reduce {op} of {n}", x, world)
    # int64 and a non-contiguous view, on both sides of the limit.
    for n in (10, LARGE):
        ints = [_input(r, (n,), np.int64, salt=3) for r in range(world)]
        x = ember.tensor(ints[rank])
        dist.all_reduce(x, op=dist.ReduceOp.MIN)
        c.close(f"all_reduce MIN int64 of {n}", x, np.min(np.stack(ints), axis=0))
        base = ember.tensor(_input(rank, (2, n), salt=4))
        view = base[:, ::2]
        dist.all_reduce(view)
        want = np.sum([_input(r, (2, n), salt=4)[:, ::2] for r in range(world)], axis=0)
        c.close(f"all_reduce of a non-contiguous view of {n}", view, want, tol=1e-4)
        c.close("the rest of the base is untouched", base[:, 1::2], _input(rank, (2, n), salt=4)[:, 1::2])
    # Async calls queue in order.
    xs = [ember.full((n,), float(rank + 1)) for n in (5, LARGE, 7)]
    works = [dist.all_reduce(x, async_op=True) for x in xs]
    for w in works:
        w.wait()
    for x in xs:
        c.close("queued all_reduce", x, np.full(x.shape, world * (world + 1) / 2, dtype=np.float32))
    dist.destroy_process_group()
    return c.errors


def _scenario_disagree(rank, world, port, tmpdir):
    c = _Checker(rank)
    dist.init_process_group("gloo", timeout=timedelta(seconds=20))
    odd = rank == world - 1  # one rank differs from the others

    def disagree(name, fn, untouched=None):
        before = untouched.numpy().copy() if untouched is not None else None
        try:
            fn()
            c.errors.append(f"rank {rank} {name}: did not raise")
        except dist.DistBackendError as e:
            c.true(f"{name} names the op and the calls ({e})",
                   "ProcessGroupGloo" in str(e) and "rank 0" in str(e))
        except Exception as e:  # noqa: BLE001
            c.errors.append(f"rank {rank} {name}: raised {type(e).__name__} ({e})")
        if untouched is not None and not np.array_equal(untouched.numpy(), before):
            c.errors.append(f"rank {rank} {name}: the tensor changed although it raised")

    x = ember.ones(4)
    # Same bytes, different dtypes: only the record tells them apart.
    y = ember.ones(4, dtype=ember.int32 if odd else ember.float32)
    disagree("dtypes of the same size", lambda: dist.all_reduce(y), y)
    disagree("element counts", lambda: dist.all_reduce(ember.ones(5 if odd else 4)))
    disagree("ops", lambda: dist.all_reduce(x, op=dist.ReduceOp.MAX if odd else dist.ReduceOp.SUM), x)
    # One rank's data fits the message, the other's does not.
    big = ember.ones(LARGE if odd else 4)
    disagree("inline against record-first", lambda: dist.all_reduce(big), big)
    big2 = ember.ones(LARGE + (1 if odd else 0))
    disagree("two large element counts", lambda: dist.all_reduce(big2), big2)
    disagree("all_reduce against broadcast",
             lambda: dist.broadcast(x, src=0) if odd else dist.all_reduce(x))
    disagree("all_reduce against all_gather",
             lambda: dist.all_gather([ember.empty(4) for _ in range(world)], x) if odd
             else dist.all_reduce(ember.ones(4 * world)))
    disagree("all_reduce against barrier", lambda: dist.barrier() if odd else dist.all_reduce(x))
    z = ember.ones(3)
    dist.all_reduce(z)
    c.close("the group works afterwards", z, np.full(3, float(world), dtype=np.float32))
    z = ember.ones(LARGE)
    dist.all_reduce(z)
    c.close("large all_reduce works afterwards", z, np.full(LARGE, float(world), dtype=np.float32))
    dist.destroy_process_group()
    return c.errors


def _scenario_unchecked(rank, world, port, tmpdir):
    c = _Checker(rank)
    dist.init_process_group("gloo", timeout=timedelta(seconds=20))
    os.environ["EMBER_DISTRIBUTED_CHECKS"] = "0"  # read when a group is made
    plain = dist.new_group(list(range(world)))
    del os.environ["EMBER_DISTRIBUTED_CHECKS"]
    for n in (4, LARGE):
        inputs = [_input(r, (n,), salt=9) for r in range(world)]
        x = ember.tensor(inputs[rank])
        dist.all_reduce(x, group=plain)
        c.close(f"unchecked all_reduce of {n}", x, np.sum(inputs, axis=0), tol=1e-4)
        y = ember.tensor(inputs[rank])
        dist.all_reduce(y)
        c.close(f"checked all_reduce of {n}", y, np.sum(inputs, axis=0), tol=1e-4)
    dist.destroy_process_group()
    return c.errors


@needs_gloo
def test_values_world_2(tmp_path):
    run_job(_scenario_values, 2, tmp_path)


@needs_gloo
def test_values_world_3(tmp_path):
    run_job(_scenario_values, 3, tmp_path)


@needs_gloo
def test_disagreeing_ranks_raise_everywhere_world_2(tmp_path):
    run_job(_scenario_disagree, 2, tmp_path)


@needs_gloo
def test_disagreeing_ranks_raise_everywhere_world_3(tmp_path):
    run_job(_scenario_disagree, 3, tmp_path)


@needs_gloo
def test_checks_off_group(tmp_path):
    run_job(_scenario_unchecked, 2, tmp_path)
