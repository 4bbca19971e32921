"""ember.distributed beside torch.distributed (gloo), the same process count, one run:
all_reduce from 4 KiB to 256 MiB (bus bandwidth), and a DistributedDataParallel training
step of the digits CNN and of a 10M-parameter MLP (with the fraction of the gradients'
all-reduce hidden behind backward).

    PYTHONPATH=python .venv/bin/python bench/distributed.py [--world 2] [--write docs/PERF.md]

Each library runs in its own `world` spawned processes on loopback, one thread each.
Bus bandwidth is NCCL's convention: bytes * 2 (n - 1) / n / time. The hidden fraction is
1 - (DDP step - local step) / (all-reduce of all gradients alone): 1 when the reduction
costs nothing beyond the local step, 0 when it runs after backward.
"""
import argparse
import importlib
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


def _best(fn, reps, barrier):
    fn()
    best = float("inf")
    for _ in range(reps):
        barrier()
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _mlp_10m(nn):
    # 1000*2500 + 2500*2500 + 2500*500 + biases: 10.0M parameters.
    return nn.Sequential(nn.Linear(1000, 2500), nn.ReLU(), nn.Linear(2500, 2500), nn.ReLU(),
                         nn.Linear(2500, 500))


def _step_times(lib, dist, make, x, y, reps):
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

    ddp_step = _best(step(ddp), reps, dist.barrier)
    local_step = _best(step(local), reps, dist.barrier)
    flat = lib.zeros(sum(p.numel() for p in model.parameters()))
    reduce_all = _best(lambda: dist.all_reduce(flat), reps, dist.barrier)
    return ddp_step, local_step, reduce_all


def _worker(lib_name, rank, world, port, queue):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(world), OMP_NUM_THREADS="1")
    lib = importlib.import_module(lib_name)
    lib.set_num_threads(1)
    dist = lib.distributed
    dist.init_process_group("gloo")
    out = {"all_reduce": {}, "ddp": {}}
    for nbytes in SIZES:
        t = lib.ones(nbytes // 4)
        reps = 20 if nbytes <= (1 << 20) else 5 if nbytes <= (16 << 20) else 3
        out["all_reduce"][nbytes] = _best(lambda: dist.all_reduce(t), reps, dist.barrier)
    from train_digits import make_cnn
    lib.manual_seed(rank)
    cnn_x, cnn_y = lib.randn(32, 1, 8, 8), lib.randint(0, 10, (32,))
    mlp_x, mlp_y = lib.randn(32, 1000), lib.randint(0, 500, (32,))
    out["ddp"]["digits CNN, batch 32 per process"] = _step_times(lib, dist, make_cnn, cnn_x, cnn_y, 20)
    out["ddp"]["MLP 10M parameters, batch 32 per process"] = _step_times(lib, dist, _mlp_10m, mlp_x, mlp_y, 5)
    dist.destroy_process_group()
    queue.put((rank, out))


def run(lib_name, world):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    port = _free_port()
    procs = [ctx.Process(target=_worker, args=(lib_name, r, world, port, queue)) for r in range(world)]
    for p in procs:
        p.start()
    results = dict(queue.get(timeout=900) for _ in procs)
    for p in procs:
        p.join()
    # The slowest rank's time is the collective's.
    merged = {"all_reduce": {}, "ddp": {}}
    for n in SIZES:
        merged["all_reduce"][n] = max(results[r]["all_reduce"][n] for r in results)
    for name in results[0]["ddp"]:
        merged["ddp"][name] = tuple(max(results[r]["ddp"][name][i] for r in results) for i in range(3))
    return merged


def _size(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def table(ember_r, torch_r, world):
    import platform
    lines = [f"{world} processes per library on loopback (gloo), 1 thread each, float32; "
             f"measured {time.strftime('%Y-%m-%d')} on {platform.processor() or platform.machine()}, "
             f"{os.cpu_count()} cores (shared with builds: each time is the best of several).", "",
             "| all_reduce | ember µs | torch µs | ember bus GB/s | torch bus GB/s | torch / ember (time) |",
             "|---|---|---|---|---|---|"]
    factor = 2 * (world - 1) / world
    for n in SIZES:
        e, t = ember_r["all_reduce"][n], torch_r["all_reduce"][n]
        lines.append(f"| {_size(n)} | {e * 1e6:,.0f} | {t * 1e6:,.0f} | {n * factor / e / 1e9:.2f} | "
                     f"{n * factor / t / 1e9:.2f} | {t / e:.2f} |")
    lines += ["", "| DDP step | ember ms | torch ms | torch / ember | ember hidden | torch hidden |",
              "|---|---|---|---|---|---|"]
    for name in ember_r["ddp"]:
        (ed, el, ea), (td, tl, ta) = ember_r["ddp"][name], torch_r["ddp"][name]
        hid = lambda d, l, a: max(0.0, min(1.0, 1 - (d - l) / a))  # noqa: E731
        lines.append(f"| {name} | {ed * 1e3:.2f} | {td * 1e3:.2f} | {td / ed:.2f} | "
                     f"{hid(ed, el, ea):.0%} | {hid(td, tl, ta):.0%} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--world", type=int, default=2)
    parser.add_argument("--write", help="replace the table between <!-- distributed --> markers")
    args = parser.parse_args()
    ember_r = run("ember", args.world)
    torch_r = run("torch", args.world)
    text = table(ember_r, torch_r, args.world)
    print(text)
    if args.write:
        write_marked_section(args.write, "distributed", "Distributed: all_reduce and DDP",
                             text)


if __name__ == "__main__":
    main()
