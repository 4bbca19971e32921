"""The deployment runtime against what users would pick instead (issue 17, item 4).

Three models with the same weights everywhere: the digits MLP and CNN of
examples/train_digits.py and a small transformer encoder (nn.TransformerEncoder,
d_model 128, 4 heads, feed-forward 512, 2 layers, sequence 32, batch_first). Each at
batch 1 (latency: µs per call) and batch 64 (throughput: samples per second), in one
process, gradients off, every library on the same number of threads:

  - ember eager (the nn.Module, under no_grad), from Python;
  - ember traced, saved and loaded, called from Python and from C++
    (jit::Module::forward in a C++ loop: what a deployed C++ program does);
  - onnxruntime (CPUExecutionProvider, intra_op_num_threads = ember's threads, all graph
    optimizations) on ember's own ONNX export, called through an IO binding (the
    least Python per call onnxruntime's Python API allows);
  - PyTorch: eager and TorchScript (traced and frozen), from Python, the faster one
    reported; TorchScript from C++ too where a libtorch extension can be built.

Peak memory of one run: the CPU caching allocator's peak of allocated bytes during
one call, less what was allocated before it (so: the run's intermediates, its arena
and its outputs; not the weights or the input), after warm-up calls, for ember eager
and ember traced with and without memory planning.

    PYTHONPATH=python .venv/bin/python bench/deploy_runtime.py [--threads N] [--quick] [--write docs/PERF.md]
"""
import argparse
import pathlib
import sys
import tempfile
import time

import numpy as np
import torch

import ember

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "examples"))
from deploy_latency import torch_cpp_timer  # noqa: E402
from harness import write_marked_section  # noqa: E402
from run_all import machine  # noqa: E402
from train_digits import make_cnn, make_mlp  # noqa: E402

_jit = ember._C._jit
D_MODEL, HEADS, FF, LAYERS, SEQ = 128, 4, 512, 2, 32


def make_encoder(nn):
    layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, dim_feedforward=FF, batch_first=True)
    if nn is torch.nn:
        return nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
    return nn.TransformerEncoder(layer, LAYERS)


MODELS = {
    "digits MLP": (make_mlp, lambda b: (b, 1, 8, 8)),
    "digits CNN": (make_cnn, lambda b: (b, 1, 8, 8)),
    f"transformer encoder (d {D_MODEL}, ff {FF}, {LAYERS} layers, seq {SEQ})":
        (make_encoder, lambda b: (b, SEQ, D_MODEL)),
}


def twin_models(make):
    """The torch and ember versions of one model, with the same (random) weights and
    non-trivial batch-norm statistics, in eval mode."""
    torch.manual_seed(0)
    tmodel = make(torch.nn).eval()
    with torch.no_grad():
        for m in tmodel.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
    emodel = make(ember.nn).eval()
    emodel.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                            for k, v in tmodel.state_dict().items()})
    return tmodel, emodel


def python_block(fn, block=0.15):
    """A timer of fn called from Python: each call times one block of calls (about
    `block` seconds) and returns seconds per call."""
    for _ in range(3):
        fn()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < block / 4:
        fn()
        n += 1
    iters = max(1, n * 4)

    def timed():
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        return (time.perf_counter() - start) / iters
    return timed


def cpp_block(loaded, x, block=0.15):
    """A timer of jit::Module::forward in a C++ loop (no Python per call)."""
    per_call = _jit._time_forward(loaded._c, [x], 3, 1)
    iters = max(1, int(block / max(per_call, 1e-7)))
    return lambda: _jit._time_forward(loaded._c, [x], iters, 1)


def switched_off(switch, timer):
    """The timer run with one of the runtime's switches off."""
    def timed():
        switch(False)
        try:
            return timer()
        finally:
            switch(True)
    return timed


def best_of_rounds(timers, rounds):
    """Each system's best block over `rounds` rounds, the systems taking turns in each
    round: a load that comes and goes on the machine then hits them all alike."""
    best = {label: float("inf") for label in timers}
    for _ in range(rounds):
        for label, timer in timers.items():
            best[label] = min(best[label], timer())
    return best


def run_peak(fn, x):
    """The allocator's peak during one call, above what was allocated before it."""
    fn(x)
    fn(x)
    ember.reset_peak_memory_stats()
    base = ember.memory_stats()["allocated_bytes"]
    out = fn(x)
    peak = ember.memory_stats()["peak_allocated_bytes"] - base
    del out
    return peak


def ort_runner(path, x_np, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    binding = session.io_binding()
    binding.bind_cpu_input(session.get_inputs()[0].name, x_np)
    out_name = session.get_outputs()[0].name
    binding.bind_output(out_name)

    def run():
        session.run_with_iobinding(binding)
    run()
    result = binding.copy_outputs_to_cpu()[0]
    return run, result


def measure(name, make, shape_of, batch, threads, tmp, cpp_timer, rounds):
    tmodel, emodel = twin_models(make)
    x_np = np.random.default_rng(batch).standard_normal(shape_of(batch)).astype(np.float32)
    ex, tx = ember.from_numpy(x_np.copy()), torch.from_numpy(x_np.copy())
    stem = tmp / f"{name.split()[0]}_{name.split()[1]}_{batch}"
    with ember.no_grad():
        traced = ember.jit.trace(emodel, ex)
        traced.save(f"{stem}.ember")
        ember.jit.freeze(traced).save(f"{stem}.frozen.ember")
        ember.onnx.export(emodel, ex, f"{stem}.onnx")
    loaded = ember.jit.load(f"{stem}.ember")
    frozen = ember.jit.load(f"{stem}.frozen.ember")  # weights folded, as the frozen TorchScript
    with torch.no_grad():
        tscript = torch.jit.freeze(torch.jit.trace(tmodel, tx))
        tscript.save(f"{stem}.pt")
        want = tmodel(tx).numpy()
    ort_run, ort_out = ort_runner(f"{stem}.onnx", x_np, threads)
    peaks = {}
    with torch.no_grad(), ember.no_grad():
        for label, got in (("ember eager", emodel(ex).numpy()), ("ember traced", loaded(ex).numpy()),
                           ("onnxruntime", ort_out), ("TorchScript", tscript(tx).numpy())):
            assert np.allclose(got, want, atol=2e-4, rtol=1e-3), f"{name}: {label} differs from torch"
        timers = {
            "ember traced and frozen, from C++": cpp_block(frozen, ex),
            "ember traced, from C++": cpp_block(loaded, ex),
            "ember traced, from C++, fusion off": switched_off(_jit._set_fusion, cpp_block(loaded, ex)),
            "ember traced, from C++, planning off":
                switched_off(_jit._set_memory_planning, cpp_block(loaded, ex)),
            "ember traced, from Python": python_block(lambda: loaded(ex)),
            "ember eager, from Python": python_block(lambda: emodel(ex)),
            "onnxruntime (ember's ONNX), from Python": python_block(ort_run),
            "PyTorch eager, from Python": python_block(lambda: tmodel(tx)),
            "PyTorch TorchScript, from Python": python_block(lambda: tscript(tx)),
        }
        if cpp_timer is not None:
            cpp_timer(f"{stem}.pt", tx, 3, 1)  # TorchScript's profiling runs
            per_call = cpp_timer(f"{stem}.pt", tx, 3, 1)
            iters = max(1, int(0.15 / max(per_call, 1e-7)))
            timers["PyTorch TorchScript, from C++"] = lambda: cpp_timer(f"{stem}.pt", tx, iters, 1)
        rows = best_of_rounds(timers, rounds)
        # PyTorch from Python: the faster of eager and TorchScript, as the issue asks.
        t_eager, t_script = rows.pop("PyTorch eager, from Python"), rows.pop("PyTorch TorchScript, from Python")
        torch_row = f"PyTorch {'eager' if t_eager <= t_script else 'TorchScript'} (the faster), from Python"
        torch_cpp = rows.pop("PyTorch TorchScript, from C++", None)
        rows[torch_row] = min(t_eager, t_script)
        if torch_cpp is not None:
            rows["PyTorch TorchScript, from C++"] = torch_cpp
        peaks["ember eager"] = run_peak(emodel, ex)
        peaks["ember traced, planned"] = run_peak(ember.jit.load(f"{stem}.ember"), ex)
        _jit._set_memory_planning(False)
        peaks["ember traced, planning off"] = run_peak(ember.jit.load(f"{stem}.ember"), ex)
        _jit._set_memory_planning(True)
    return rows, peaks


def fmt_bytes(n):
    return f"{n / 1024:.0f} KiB" if n < (1 << 20) else f"{n / (1 << 20):.2f} MiB"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="batch 1 only")
    ap.add_argument("--rounds", type=int, default=7, help="rounds of timing blocks (best kept)")
    ap.add_argument("--write", help="markdown file whose deploy-runtime table is replaced")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    ember.set_num_threads(args.threads)
    cpp_timer = torch_cpp_timer()
    batches = (1,) if args.quick else (1, 64)
    lines, summary = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (make, shape_of) in MODELS.items():
            for batch in batches:
                rows, peaks = measure(name, make, shape_of, batch, args.threads, pathlib.Path(tmp),
                                      cpp_timer, args.rounds)
                cpp = rows["ember traced, from C++"]
                unit = "µs per call" if batch == 1 else "samples/s"
                lines.append(f"\n**{name}, batch {batch}**\n")
                lines.append(f"| how it runs | {unit} | ratio (this / ember traced from C++, time) |")
                lines.append("|---|---|---|")
                for label, sec in rows.items():
                    value = f"{sec * 1e6:.1f}" if batch == 1 else f"{batch / sec:,.0f}"
                    lines.append(f"| {label} | {value} | {sec / cpp:.2f} |")
                eager = peaks["ember eager"]
                lines.append("")
                lines.append("| peak memory of one run | bytes | ratio to ember eager |")
                lines.append("|---|---|---|")
                for label, b in peaks.items():
                    lines.append(f"| {label} | {fmt_bytes(b)} | {b / eager:.2f} |")
                ort = rows["onnxruntime (ember's ONNX), from Python"]
                # The targets compare the deployed form: traced and frozen, as TorchScript is.
                summary.append((name, batch, rows["ember traced and frozen, from C++"], ort,
                                rows["ember eager, from Python"],
                                peaks["ember traced, planned"] / eager))
    header = (f"{args.threads} thread(s) for every library, float32, gradients off; each time is the "
              f"best of {args.rounds} blocks of ~0.15 s, the systems taking turns in each round. "
              f"Measured {time.strftime('%Y-%m-%d')} on {machine()}.\n")
    targets = ["", "| model | batch | time: ember frozen, C++ / onnxruntime | time: ember frozen, "
               "C++ / ember eager | peak: planned / eager |", "|---|---|---|---|---|"]
    for name, batch, cpp, ort, eager, peak in summary:
        targets.append(f"| {name.split(' (')[0]} | {batch} | {cpp / ort:.2f} | {cpp / eager:.2f} | "
                       f"{peak:.2f} |")
    table = "\n".join(lines + targets)
    print(header)
    print(table)
    if args.write:
        write_marked_section(args.write, "deploy-runtime", "The deployment runtime (issue 17)",
                             header + table)


if __name__ == "__main__":
    main()
