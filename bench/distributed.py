"""ember.distributed beside torch.distributed (gloo), the same process count, one run:
all_reduce from 4 KiB to 256 MiB (bus bandwidth), and a DistributedDataParallel training
step of the digits CNN and of a 10M-parameter MLP (with the fraction of the gradients'
all-reduce hidden behind backward).

    PYTHONPATH=python .venv/bin/python bench/distributed.py [--world 2|4] [--write docs/PERF.md]
        [--all-reduce-only] [--sizes BYTES,BYTES] [--reps N]

(--write fills the <!-- distributed --> table for 2 processes, <!-- distributed-N --> for N.)

`world` spawned processes on loopback, one thread each; every process joins three
groups, ember's (with the agreement checks, the default), ember's with
EMBER_DISTRIBUTED_CHECKS=0, and torch's, and times them interleaved, in a rotating
order, each after its own barrier: the best time of each, the slowest rank's.
Bus bandwidth is NCCL's convention: bytes * 2 (n - 1) / n / time. The hidden fraction is
1 - (DDP step - local step) / (all-reduce of all gradients alone): 1 when the reduction
costs nothing beyond the local step, 0 when it runs after backward.
"""
import argparse
import multiprocessing
import os
import pathlib
import socket
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from harness import write_marked_section  # noqa: E402

SIZES = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _best_interleaved(fns, reps):
    """{name: (fn, barrier)} -> {name: best seconds}, the names taking turns first."""
    names = list(fns)
    best = dict.fromkeys(names, float("inf"))
    for name in names:
        fns[name][0]()  # warm up
    for i in range(reps):
        for name in names[i % len(names):] + names[:i % len(names)]:
            fn, barrier = fns[name]
            barrier()
            t = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t)
    return best


def _mlp_10m(nn):
    # 1000*2500 + 2500*2500 + 2500*500 + biases: 10.0M parameters.
    return nn.Sequential(nn.Linear(1000, 2500), nn.ReLU(), nn.Linear(2500, 2500), nn.ReLU(),
                         nn.Linear(2500, 500))


def _training_steps(lib, make, x, y):
    """(DDP step, local step, all-reduce of a gradient-sized buffer) callables."""
    lib.manual_seed(0)
    model = make(lib.nn)
    local = make(lib.nn)
    local.load_state_dict(model.state_dict())
    ddp = lib.nn.parallel.DistributedDataParallel(model)

    def step(m):
        opt = lib.optim.SGD(m.parameters(), lr=0.01)

        def run():
            opt.zero_grad()
            lib.nn.functional.cross_entropy(m(x), y).backward()
            opt.step()
        return run

    flat = lib.zeros(sum(p.numel() for p in model.parameters()))
    return step(ddp), step(local), lambda: lib.distributed.all_reduce(flat)


def _worker(rank, world, ports, sizes, with_ddp, reps_override, queue):
    os.environ.update(OMP_NUM_THREADS="1")
    import ember
    import torch
    import ember.distributed as edist
    import torch.distributed as tdist
    libs = {"ember": ember, "torch": torch}
    for lib in libs.values():
        lib.set_num_threads(1)
    edist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{ports[0]}", rank=rank,
                             world_size=world)
    os.environ["EMBER_DISTRIBUTED_CHECKS"] = "0"  # read when a group is made
    unchecked = edist.new_group(list(range(world)))
    del os.environ["EMBER_DISTRIBUTED_CHECKS"]
    tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{ports[1]}", rank=rank,
                             world_size=world)
    out = {"all_reduce": {}, "ddp": {}}
    for nbytes in sizes:
        et, tt = ember.ones(nbytes // 4), torch.ones(nbytes // 4)
        reps = reps_override or (30 if nbytes <= (1 << 20) else 8 if nbytes <= (16 << 20) else 3)
        out["all_reduce"][nbytes] = _best_interleaved({
            "ember": (lambda: edist.all_reduce(et), edist.barrier),
            "ember unchecked": (lambda: edist.all_reduce(et, group=unchecked),
                                lambda: edist.barrier(group=unchecked)),
            "torch": (lambda: tdist.all_reduce(tt), tdist.barrier)}, reps)
    from train_digits import make_cnn
    cases = [("digits CNN, batch 32 per process", make_cnn, lambda lib: (
                 lib.randn(32, 1, 8, 8), lib.randint(0, 10, (32,))), 20),
             ("MLP 10M parameters, batch 32 per process", _mlp_10m, lambda lib: (
                 lib.randn(32, 1000), lib.randint(0, 500, (32,))), 5)]
    for name, make, data, reps in cases if with_ddp else []:
        fns = {}
        for lib_name, lib in libs.items():
            lib.manual_seed(rank)
            ddp, local, reduce_all = _training_steps(lib, make, *data(lib))
            barrier = lib.distributed.barrier
            fns.update({(lib_name, "ddp"): (ddp, barrier), (lib_name, "local"): (local, barrier),
                        (lib_name, "reduce"): (reduce_all, barrier)})
        best = _best_interleaved(fns, reps)
        out["ddp"][name] = {lib: tuple(best[(lib, k)] for k in ("ddp", "local", "reduce"))
                            for lib in libs}
    edist.destroy_process_group()
    tdist.destroy_process_group()
    queue.put((rank, out))


def run(world, sizes=SIZES, with_ddp=True, reps=None):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    ports = (_free_port(), _free_port())
    procs = [ctx.Process(target=_worker, args=(r, world, ports, sizes, with_ddp, reps, queue)) for r in range(world)]
    for p in procs:
        p.start()
    results = dict(queue.get(timeout=1800) for _ in procs)
    for p in procs:
        p.join()
    # The slowest rank's time is the collective's.
    merged = {"all_reduce": {}, "ddp": {}}
    for n in sizes:
        merged["all_reduce"][n] = {k: max(results[r]["all_reduce"][n][k] for r in results)
                                   for k in results[0]["all_reduce"][n]}
    for name in results[0]["ddp"]:
        merged["ddp"][name] = {lib: tuple(max(results[r]["ddp"][name][lib][i] for r in results)
                                          for i in range(3)) for lib in results[0]["ddp"][name]}
    return merged


def _size(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def table(r, world):
    import platform
    lines = [f"{world} processes on loopback (gloo), each in ember's group, ember's group with "
             f"EMBER_DISTRIBUTED_CHECKS=0 and torch's, timed interleaved, 1 thread, float32; measured "
             f"{time.strftime('%Y-%m-%d')} on {platform.processor() or platform.machine()}, "
             f"{os.cpu_count()} cores (shared with builds: each time is the best of several).", "",
             "| all_reduce | ember µs | ember unchecked µs | torch µs | ember bus GB/s | "
             "torch bus GB/s | torch / ember (time) |",
             "|---|---|---|---|---|---|---|"]
    factor = 2 * (world - 1) / world
    for n in r["all_reduce"]:
        e, u, t = (r["all_reduce"][n][k] for k in ("ember", "ember unchecked", "torch"))
        lines.append(f"| {_size(n)} | {e * 1e6:,.0f} | {u * 1e6:,.0f} | {t * 1e6:,.0f} | "
                     f"{n * factor / e / 1e9:.2f} | {n * factor / t / 1e9:.2f} | {t / e:.2f} |")
    if not r["ddp"]:
        return "\n".join(lines)
    lines += ["", "| DDP step | ember ms | torch ms | torch / ember | ember hidden | torch hidden |",
              "|---|---|---|---|---|---|"]
    for name, times in r["ddp"].items():
        (ed, el, ea), (td, tl, ta) = times["ember"], times["torch"]
        hid = lambda d, l, a: max(0.0, min(1.0, 1 - (d - l) / a))  # noqa: E731
        lines.append(f"| {name} | {ed * 1e3:.2f} | {td * 1e3:.2f} | {td / ed:.2f} | "
                     f"{hid(ed, el, ea):.0%} | {hid(td, tl, ta):.0%} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--world", type=int, default=2)
    parser.add_argument("--sizes", help="comma-separated all_reduce sizes in bytes (default: 4 KiB..256 MiB)")
    parser.add_argument("--reps", type=int, help="all_reduce repeats at every size (default: 30 to 3)")
    parser.add_argument("--all-reduce-only", action="store_true", help="skip the DDP steps")
    parser.add_argument("--write", help="replace the table between <!-- distributed --> markers")
    args = parser.parse_args()
    sizes = [int(v) for v in args.sizes.split(",")] if args.sizes else SIZES
    text = table(run(args.world, sizes, not args.all_reduce_only, args.reps), args.world)
    print(text)
    if args.write:
        marker = "distributed" if args.world == 2 else f"distributed-{args.world}"
        write_marked_section(args.write, marker, f"Distributed: all_reduce and DDP, {args.world} processes",
                             text)


if __name__ == "__main__":
    main()
