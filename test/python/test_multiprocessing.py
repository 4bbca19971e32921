"""ember.multiprocessing: the standard multiprocessing API, torch's spawn/start_processes
with its failure reports, sharing strategies, and what is shared across fork/spawn/queues."""
import multiprocessing as std_mp
import signal
import sys

import pytest

import ember
import ember.multiprocessing as mp


# Top-level workers: spawn pickles them by reference.
def _square_into_queue(rank, queue, base):
    queue.put((rank, (ember.arange(3, dtype=ember.float64) + base + rank).pow(2).tolist()))


def _fail_on_rank_one(rank):
    if rank == 1:
        raise ValueError("rank one failed on purpose")


def _exit_with_code(rank, code):
    sys.exit(code)


def _kill_self(rank):
    import os
    os.kill(os.getpid(), signal.SIGKILL)


def _add_one(rank, tensor, queue):
    tensor.add_(1)
    queue.put(tensor.tolist())


def test_reexports_standard_multiprocessing():
    for name in ["Process", "Queue", "SimpleQueue", "Pool", "get_context", "set_start_method",
                 "get_start_method", "Manager", "Pipe", "Event", "Lock", "cpu_count"]:
        assert getattr(mp, name) is getattr(std_mp, name), name
        assert name in mp.__all__
    torch = pytest.importorskip("torch")
    assert set(torch.multiprocessing.__all__) <= set(mp.__all__)


def test_sharing_strategies_match_torch():
    torch = pytest.importorskip("torch")
    assert mp.get_all_sharing_strategies() == torch.multiprocessing.get_all_sharing_strategies()
    assert mp.get_sharing_strategy() == torch.multiprocessing.get_sharing_strategy()
    before = mp.get_sharing_strategy()
    try:
        mp.set_sharing_strategy("file_system")
        assert mp.get_sharing_strategy() == "file_system"
    finally:
        mp.set_sharing_strategy(before)
    with pytest.raises(AssertionError, match="invalid sharing strategy 'bogus'"):
        mp.set_sharing_strategy("bogus")
    assert mp.get_sharing_strategy() == before


def test_spawn_runs_every_rank_and_returns_none():
    ctx = std_mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    assert mp.spawn(_square_into_queue, args=(queue, 1.0), nprocs=2) is None
    results = dict(queue.get() for _ in range(2))
    assert results == {0: [1.0, 4.0, 9.0], 1: [4.0, 9.0, 16.0]}


def test_spawn_reports_the_failing_rank_and_its_traceback():
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.spawn(_fail_on_rank_one, nprocs=2)
    error = info.value
    assert error.error_index == 1
    assert isinstance(error.error_pid, int)
    message = str(error)
    assert message.startswith("\n\n-- Process 1 terminated with the following error:\n")
    assert "Traceback (most recent call last)" in message
    assert "ValueError: rank one failed on purpose" in message


def test_start_processes_exit_code_and_signal():
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3") as info:
        mp.start_processes(_exit_with_code, args=(3,), nprocs=1, start_method="fork")
    assert info.value.exit_code == 3 and info.value.signal_name is None
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with signal SIGKILL") as info:
        mp.start_processes(_kill_self, nprocs=1, start_method="fork")
    assert info.value.exit_code == -signal.SIGKILL and info.value.signal_name == "SIGKILL"


def test_join_false_gives_a_process_context():
    ctx = std_mp.get_context("fork")
    queue = ctx.SimpleQueue()
    context = mp.start_processes(_square_into_queue, args=(queue, 0.0), nprocs=3, join=False,
                                 start_method="fork")
    assert isinstance(context, mp.ProcessContext)
    assert len(context.pids()) == 3 and all(isinstance(p, int) for p in context.pids())
    while not context.join(timeout=30):
        pass
    assert context.join() is True
    assert sorted(queue.get()[0] for _ in range(3)) == [0, 1, 2]


def test_spawn_other_start_method_warns_and_uses_spawn():
    ctx = std_mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    with pytest.warns(FutureWarning, match="only supports start_method=spawn"):
        mp.spawn(_square_into_queue, args=(queue, 2.0), nprocs=1, start_method="fork")
    assert queue.get() == (0, [4.0, 9.0, 16.0])


def test_exceptions_pickle_round_trip():
    import pickle
    raised = pickle.loads(pickle.dumps(mp.ProcessRaisedException("msg", 2, 1234)))
    assert (raised.msg, raised.error_index, raised.error_pid) == ("msg", 2, 1234)
    exited = pickle.loads(pickle.dumps(mp.ProcessExitedException("m", 1, 99, -9, "SIGKILL")))
    assert (exited.exit_code, exited.signal_name) == (-9, "SIGKILL")


def test_spawned_child_shares_a_shared_tensor_and_copies_a_private_one():
    # A shared tensor travels as its memfd (multiprocessing/reductions.py): the child
    # writes the parent's memory. A private one is pickled by value, a copy.
    shared = ember.zeros(3)
    shared.share_memory_()
    assert shared.is_shared()
    private = ember.zeros(3)
    queue = std_mp.get_context("spawn").SimpleQueue()
    mp.spawn(_add_one, args=(shared, queue), nprocs=1)
    mp.spawn(_add_one, args=(private, queue), nprocs=1)
    assert queue.get() == [1.0, 1.0, 1.0] and queue.get() == [1.0, 1.0, 1.0]
    assert shared.tolist() == [1.0, 1.0, 1.0]   # the same memory
    assert private.tolist() == [0.0, 0.0, 0.0]  # the child's copy changed, not this one


def _fill_views(queue, done):
    column, ints = queue.get()
    assert column.is_shared() and ints.is_shared()
    column.fill_(7.0)
    ints.add_(5)
    done.put(column.tolist())


def test_shared_views_through_a_queue_keep_geometry_and_memory():
    # A strided view at an offset, of float64 and int32 storages, sent through a Queue
    # (the descriptor goes by multiprocessing's resource sharer, not a Process argument).
    ctx = std_mp.get_context("spawn")
    base = ember.arange(12, dtype=ember.float64).reshape(3, 4)
    base.share_memory_()
    ints = ember.arange(6, dtype=ember.int32)
    ints.share_memory_()
    queue, done = ctx.Queue(), ctx.Queue()
    child = ctx.Process(target=_fill_views, args=(queue, done))
    child.start()
    queue.put((base[1:, 2], ints[2:4]))
    assert done.get(timeout=60) == [7.0, 7.0]
    child.join(timeout=60)
    assert child.exitcode == 0
    assert base.tolist() == [[0, 1, 2, 3], [4, 5, 7, 7], [8, 9, 7, 11]]
    assert ints.tolist() == [0, 1, 7, 8, 4, 5]


def _train_shared(model):
    optimizer = ember.optim.SGD(model.parameters(), lr=0.5)
    loss = model(ember.ones(1, 2)).sum()
    loss.backward()
    optimizer.step()


def test_module_share_memory_lets_spawned_workers_train_it():
    # pytorch/examples mnist_hogwild: model.share_memory(), then processes train it in place.
    torch = pytest.importorskip("torch")
    model = ember.nn.Linear(2, 1)
    ember.nn.init.zeros_(model.weight)
    ember.nn.init.zeros_(model.bias)
    weight = model.weight
    assert model.share_memory() is model and model.weight is weight
    assert all(p.is_shared() for p in model.parameters())
    reference = torch.nn.Linear(2, 1)
    assert reference.share_memory() is reference
    assert all(p.is_shared() for p in reference.parameters())
    ctx = std_mp.get_context("spawn")
    workers = [ctx.Process(target=_train_shared, args=(model,)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
        assert w.exitcode == 0
    # Each worker's step: gradient 1 for every parameter, lr 0.5; both landed here.
    assert model.weight.tolist() == [[-1.0, -1.0]] and model.bias.tolist() == [-1.0]


def test_shared_non_leaf_that_requires_grad_is_refused_as_torch_does():
    from multiprocessing.reduction import ForkingPickler
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        x = lib.ones(3, requires_grad=True) * 2
        x.share_memory_()
        with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
            ForkingPickler.dumps(x)


def test_fork_shares_a_shared_tensor_and_copies_a_private_one():
    shared = ember.zeros(3)
    shared.share_memory_()
    private = ember.zeros(3)
    queue = std_mp.get_context("fork").SimpleQueue()
    mp.start_processes(_add_one, args=(shared, queue), nprocs=1, start_method="fork")
    mp.start_processes(_add_one, args=(private, queue), nprocs=1, start_method="fork")
    assert queue.get() == [1.0, 1.0, 1.0] and queue.get() == [1.0, 1.0, 1.0]
    assert shared.tolist() == [1.0, 1.0, 1.0]   # MAP_SHARED memory, inherited by the fork
    assert private.tolist() == [0.0, 0.0, 0.0]  # copy-on-write
