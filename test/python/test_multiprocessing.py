"""ember.multiprocessing: the standard multiprocessing API, torch's spawn/start_processes
with its failure reports, sharing strategies, and what is shared across fork/spawn."""
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


def test_spawned_child_gets_a_copy_even_of_a_shared_tensor():
    # What the module docstring states: arguments of a spawned process are pickled.
    tensor = ember.zeros(3)
    tensor.share_memory_()
    assert tensor.is_shared()
    queue = std_mp.get_context("spawn").SimpleQueue()
    mp.spawn(_add_one, args=(tensor, queue), nprocs=1)
    assert queue.get() == [1.0, 1.0, 1.0]      # the child's copy changed
    assert tensor.tolist() == [0.0, 0.0, 0.0]  # the parent's did not


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
