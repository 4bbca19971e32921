"""Deployment latency: a small MLP at batch 1, traced and loaded from its model
file, called from C++ (ember's jit::Module::forward in a C++ loop), side by side
with PyTorch's eager module and its TorchScript-loaded equivalent (torch.jit.trace
-> save -> torch.jit.load), each called from Python and, where a C++ compiler can
build a small libtorch extension, TorchScript from C++ too. Same weights, same
input, gradients off, one process.

    PYTHONPATH=python .venv/bin/python bench/deploy_latency.py [--write docs/PERF.md]
"""
import argparse
import pathlib
import sys
import tempfile
import time

import numpy as np
import torch

import ember

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from harness import best_per_call, write_marked_section  # noqa: E402
from run_all import machine  # noqa: E402

SIZES = (64, 128, 128, 10)
ITERS, REPEATS = 2000, 7

TORCH_CPP = r"""
#include <torch/script.h>
#include <chrono>
double time_forward(const std::string& path, torch::Tensor x, int64_t iters, int64_t repeats) {
  torch::jit::Module m = torch::jit::load(path);
  m.eval();
  torch::NoGradGuard no_grad;
  std::vector<torch::jit::IValue> in{x};
  double best = 1e30;
  for (int64_t r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < iters; ++i) m.forward(in);
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / iters);
  }
  return best;
}
"""


def python_loop(fn, iters=ITERS, repeats=REPEATS):
    return best_per_call(fn, iters, repeats)


def models():
    rng = np.random.default_rng(0)
    t_layers, e_layers = [], []
    for i, (a, b) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        w = (rng.standard_normal((b, a)) / np.sqrt(a)).astype(np.float32)
        bias = (rng.standard_normal(b) * 0.1).astype(np.float32)
        tl, el = torch.nn.Linear(a, b), ember.nn.Linear(a, b)
        with torch.no_grad():
            tl.weight.copy_(torch.from_numpy(w))
            tl.bias.copy_(torch.from_numpy(bias))
        el.load_state_dict({"weight": ember.from_numpy(w.copy()), "bias": ember.from_numpy(bias.copy())})
        t_layers.append(tl)
        e_layers.append(el)
        if i + 2 < len(SIZES):
            t_layers.append(torch.nn.ReLU())
            e_layers.append(ember.nn.ReLU())
    x = rng.standard_normal((1, SIZES[0])).astype(np.float32)
    return (torch.nn.Sequential(*t_layers).eval(), ember.nn.Sequential(*e_layers).eval(),
            torch.from_numpy(x), ember.from_numpy(x.copy()))


def torch_cpp_timer():
    """time_forward from a libtorch extension, or None where it cannot be built."""
    try:
        from torch.utils.cpp_extension import load_inline
        return load_inline("ember_bench_torchscript", cpp_sources=TORCH_CPP,
                           functions=["time_forward"], extra_cflags=["-O2"], verbose=False).time_forward
    except Exception as e:  # no compiler, no headers: report without that row
        print(f"(TorchScript from C++ skipped: {type(e).__name__}: {str(e).splitlines()[0]})")
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", help="markdown file whose deployment table is replaced")
    args = ap.parse_args()
    torch.set_num_threads(1)
    ember.set_num_threads(1)
    tmodel, emodel, tx, ex = models()
    with tempfile.TemporaryDirectory() as tmp:
        epath, tpath = pathlib.Path(tmp) / "mlp.ember", pathlib.Path(tmp) / "mlp.pt"
        with ember.no_grad():
            ember.jit.trace(emodel, ex).save(epath)
        loaded = ember.jit.load(epath)
        with torch.no_grad():
            torch.jit.trace(tmodel, tx).save(str(tpath))
        tscript = torch.jit.load(str(tpath)).eval()
        with torch.no_grad(), ember.no_grad():
            ref = tmodel(tx).numpy()
            assert np.allclose(loaded(ex).numpy(), ref, atol=1e-5), "models differ"
            assert np.allclose(tscript(tx).numpy(), ref, atol=1e-5), "models differ"
            ember._C._jit._time_forward(loaded._c, [ex], ITERS // 10, 1)  # warm-up
            rows = {
                "ember traced, loaded, called from C++":
                    ember._C._jit._time_forward(loaded._c, [ex], ITERS, REPEATS),
                "ember traced, loaded, called from Python": python_loop(lambda: loaded(ex)),
                "ember eager module, from Python": python_loop(lambda: emodel(ex)),
                "torch eager module, from Python": python_loop(lambda: tmodel(tx)),
                "torch TorchScript loaded, from Python": python_loop(lambda: tscript(tx)),
            }
            timer = torch_cpp_timer()
            if timer is not None:
                timer(str(tpath), tx, ITERS // 10, 1)  # warm-up (and TorchScript's profiling runs)
                rows["torch TorchScript loaded, called from C++"] = timer(str(tpath), tx, ITERS, REPEATS)
    ember_cpp = rows["ember traced, loaded, called from C++"]
    lines = ["| how it runs | µs per call | ratio (this / ember from C++) |", "|---|---|---|"]
    for name, sec in rows.items():
        lines.append(f"| {name} | {sec * 1e6:.2f} | {sec / ember_cpp:.2f} |")
    table = "\n".join(lines)
    header = (f"MLP {'-'.join(map(str, SIZES))}, batch 1, float32, 1 thread, gradients off; best of "
              f"{REPEATS} blocks of {ITERS} calls. Measured {time.strftime('%Y-%m-%d')} on {machine()}.\n")
    print(header)
    print(table)
    if args.write:
        write_marked_section(args.write, "deploy", "Deployment latency (issue 6)",
                             header + "\n" + table)


if __name__ == "__main__":
    main()
