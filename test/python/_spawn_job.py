"""What the multi-process tests share (test_distributed_gloo.py, test_distributed_ddp.py):
a free loopback port, and running one job's processes to their reports."""
import multiprocessing
import socket
import time


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_processes(target, args_of_rank, world, timeout):
    """Spawns target(*args_of_rank(rank), results) for each rank; each puts (rank, errors)
    on results. Fails on any rank's errors, a crash, or a job that outlives timeout."""
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    procs = [ctx.Process(target=target, args=(*args_of_rank(r), results)) for r in range(world)]
    for p in procs:
        p.start()
    deadline = time.monotonic() + timeout
    reports = {}
    try:
        while len(reports) < world:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                rank, errors = results.get(timeout=min(left, 1.0))
                reports[rank] = errors
            except Exception:  # queue.Empty
                if all(not p.is_alive() for p in procs) and results.empty():
                    break
    finally:
        for p in procs:
            p.join(timeout=max(0.1, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join()
    missing = sorted(set(range(world)) - set(reports))
    assert not missing, (f"ranks {missing} did not report within {timeout}s (exit codes "
                         f"{[p.exitcode for p in procs]})")
    failures = [e for r in sorted(reports) for e in reports[r]]
    assert not failures, "\n".join(failures)
