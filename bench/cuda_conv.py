"""CUDA convolution benchmarks, ember against PyTorch in one process:

- conv2d forward + backward (grad of input and weight) on ResNet-like shapes;
- one training step of a ResNet-18-sized CNN (conv / batch_norm / relu / max_pool /
  adaptive_avg_pool / linear, cross_entropy, backward, SGD with momentum).

Both libraries get the same float32 values, the same cuDNN settings (TF32 allowed,
no benchmarking, PyTorch's defaults), and each timing block ends with a device
synchronization, so the times are of the GPU work. ratio = torch time / ember time:
above 1 means ember is faster. Without a GPU (or without PyTorch's CUDA) it says so
and exits 0.

    PYTHONPATH=python .venv/bin/python bench/cuda_conv.py [--only conv|resnet] [--batch 32]
"""
import argparse
import gc
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402
from harness import Case, Result, markdown_table  # noqa: E402

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - reported below
    torch = None

rng = np.random.default_rng(0)


def _sync_ember():
    ember.cuda.synchronize()


def _sync_torch():
    torch.cuda.synchronize()


def _block_time(fn, sync, min_seconds):
    """Mean seconds per call over a block of at least min_seconds, GPU work included."""
    n = 1
    while True:
        sync()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        dt = time.perf_counter() - t0
        if dt >= min_seconds:
            return dt / n
        n = max(n * 2, int(n * min_seconds / max(dt, 1e-9) * 1.2))


def measure(case, blocks=5, min_seconds=0.1, warmup=3):
    """Best block of each library, blocks alternating between them."""
    for _ in range(warmup):  # algorithm choice, caching allocator, lazy library loading
        case.ember_fn()
        case.torch_fn()
    _sync_ember()
    _sync_torch()
    gc.collect()
    gc.disable()
    try:
        e = t = float("inf")
        for _ in range(blocks):
            e = min(e, _block_time(case.ember_fn, _sync_ember, min_seconds))
            t = min(t, _block_time(case.torch_fn, _sync_torch, min_seconds))
    finally:
        gc.enable()
    return Result(case, e, t)


def _same(*arrays, grad=False):
    """The arrays as float32 CUDA tensors of both libraries (leaves requiring grad if asked)."""
    es, ts = [], []
    for a in arrays:
        a = np.ascontiguousarray(a, dtype=np.float32)
        e = ember.from_numpy(a.copy()).to("cuda")
        t = torch.from_numpy(a.copy()).to("cuda")
        if grad:
            e.requires_grad_()
            t.requires_grad_()
        es.append(e)
        ts.append(t)
    return es, ts


def _kaiming(*shape):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
    return rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)


# ---- conv2d forward + backward ----------------------------------------------------

# (name, batch, C_in, H=W, C_out, kernel, stride, padding): ResNet-18/50 layers.
CONV_SHAPES = [
    ("stem 7x7/2", 32, 3, 224, 64, 7, 2, 3),
    ("layer1 3x3", 32, 64, 56, 64, 3, 1, 1),
    ("layer2 3x3/2", 32, 64, 56, 128, 3, 2, 1),
    ("layer3 3x3", 32, 256, 14, 256, 3, 1, 1),
    ("layer4 3x3", 32, 512, 7, 512, 3, 1, 1),
    ("bottleneck 1x1", 32, 256, 56, 64, 1, 1, 0),
]


def conv_case(name, batch, cin, size, cout, k, stride, pad):
    (ex, ew), (tx, tw) = _same(rng.standard_normal((batch, cin, size, size)), _kaiming(cout, cin, k, k), grad=True)
    out = (size + 2 * pad - k) // stride + 1
    flops = 3 * 2.0 * batch * cout * out * out * cin * k * k  # forward + the two gradients

    def step(lib_f, x, w):
        def run():
            x.grad = None
            w.grad = None
            lib_f.conv2d(x, w, None, stride, pad).sum().backward()
        return run

    return Case("cuda conv2d fwd+bwd", f"{name} [{batch},{cin},{size},{size}] -> {cout}",
                step(F, ex, ew), step(TF, tx, tw), flops, "GFLOP/s")


# ---- ResNet-18 training step ------------------------------------------------------

STAGES = [(64, 1), (128, 2), (256, 2), (512, 2)]  # (channels, first block's stride), 2 blocks each


class ResNet18:
    """ResNet-18's layers as plain tensors of one library (the same values in both):
    parameters (requiring grad) and batch-norm running statistics."""

    def __init__(self, classes, values=None):
        self.values = values if values is not None else self._init(classes)

    @staticmethod
    def _init(classes):
        v = {"stem.w": _kaiming(64, 3, 7, 7)}
        v.update(ResNet18._bn("stem.bn", 64))
        cin = 64
        for s, (c, stride) in enumerate(STAGES):
            for b in range(2):
                p = f"s{s}b{b}"
                v[p + ".conv1"] = _kaiming(c, cin, 3, 3)
                v.update(ResNet18._bn(p + ".bn1", c))
                v[p + ".conv2"] = _kaiming(c, c, 3, 3)
                v.update(ResNet18._bn(p + ".bn2", c))
                if b == 0 and (stride != 1 or cin != c):
                    v[p + ".down"] = _kaiming(c, cin, 1, 1)
                    v.update(ResNet18._bn(p + ".bnd", c))
                cin = c
        v["fc.w"] = _kaiming(classes, 512) * 0.5
        v["fc.b"] = np.zeros(classes)
        return v

    @staticmethod
    def _bn(name, c):
        return {name + ".w": np.ones(c), name + ".b": np.zeros(c), name + ".rm": np.zeros(c), name + ".rv": np.ones(c)}


def resnet_tensors(values):
    """name -> (ember tensor, torch tensor); running statistics do not require grad."""
    out = {}
    for name, a in values.items():
        (e,), (t,) = _same(a, grad=not (name.endswith(".rm") or name.endswith(".rv")))
        out[name] = (e, t)
    return out


def resnet_forward(lib_f, p, x):
    def bn(h, name):
        return lib_f.batch_norm(h, p[name + ".rm"], p[name + ".rv"], p[name + ".w"], p[name + ".b"],
                                training=True, momentum=0.1, eps=1e-5)

    h = lib_f.relu(bn(lib_f.conv2d(x, p["stem.w"], None, 2, 3), "stem.bn"))
    h = lib_f.max_pool2d(h, 3, 2, 1)
    for s, (_, stride) in enumerate(STAGES):
        for b in range(2):
            pre = f"s{s}b{b}"
            st = stride if b == 0 else 1
            y = lib_f.relu(bn(lib_f.conv2d(h, p[pre + ".conv1"], None, st, 1), pre + ".bn1"))
            y = bn(lib_f.conv2d(y, p[pre + ".conv2"], None, 1, 1), pre + ".bn2")
            if pre + ".down" in p:
                h = bn(lib_f.conv2d(h, p[pre + ".down"], None, st, 0), pre + ".bnd")
            h = lib_f.relu(y + h)
    h = lib_f.adaptive_avg_pool2d(h, 1).flatten(1)
    return lib_f.linear(h, p["fc.w"], p["fc.b"])


def resnet_case(batch, image=224, classes=1000):
    values = ResNet18._init(classes)
    both = resnet_tensors(values)
    ep = {k: v[0] for k, v in both.items()}
    tp = {k: v[1] for k, v in both.items()}
    (ex,), (tx,) = _same(rng.standard_normal((batch, 3, image, image)))
    labels = rng.integers(0, classes, batch)
    ey, ty = ember.from_numpy(labels).to("cuda"), torch.from_numpy(labels).to("cuda")
    e_params = [t for k, t in ep.items() if t.requires_grad]
    t_params = [t for k, t in tp.items() if t.requires_grad]
    e_opt = ember.optim.SGD(e_params, lr=0.01, momentum=0.9, weight_decay=1e-4)
    t_opt = torch.optim.SGD(t_params, lr=0.01, momentum=0.9, weight_decay=1e-4)

    def step(lib_f, params, x, y, opt):
        def run():
            opt.zero_grad(set_to_none=True)
            lib_f.cross_entropy(resnet_forward(lib_f, params, x), y).backward()
            opt.step()
        return run

    return Case("cuda training step", f"ResNet-18 [{batch},3,{image},{image}] fwd+bwd+SGD",
                step(F, ep, ex, ey, e_opt), step(TF, tp, tx, ty, t_opt))


def _settings():
    """The same cuDNN settings in both: TF32 allowed, heuristics (PyTorch's defaults)."""
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = False
    torch.backends.cuda.matmul.allow_tf32 = True
    backends = getattr(ember, "backends", None)
    cudnn = getattr(backends, "cudnn", None)
    if cudnn is not None:
        if hasattr(cudnn, "allow_tf32"):
            cudnn.allow_tf32 = True
        if hasattr(cudnn, "benchmark"):
            cudnn.benchmark = False
    matmul = getattr(getattr(backends, "cuda", None), "matmul", None)
    if matmul is not None and hasattr(matmul, "allow_tf32"):
        matmul.allow_tf32 = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["conv", "resnet"], help="run one group")
    parser.add_argument("--batch", type=int, default=32, help="ResNet-18 batch size")
    args = parser.parse_args()
    if torch is None:
        print("cuda_conv: skipped (PyTorch is not installed)")
        return 0
    if not ember.cuda.is_available():
        print("cuda_conv: skipped (ember has no CUDA GPU: ember.cuda.is_available() is False)")
        return 0
    if not torch.cuda.is_available():
        print("cuda_conv: skipped (PyTorch has no CUDA GPU)")
        return 0
    _settings()
    cases = []
    if args.only in (None, "conv"):
        cases += [conv_case(*shape) for shape in CONV_SHAPES]
    if args.only in (None, "resnet"):
        cases.append(resnet_case(args.batch))
    results = []
    for case in cases:
        r = measure(case)
        print(f"{case.group}: {case.name}: ember {r.ember_s * 1e3:.3f} ms, torch {r.torch_s * 1e3:.3f} ms, "
              f"ratio {r.ratio:.2f}", flush=True)
        results.append(r)
    print()
    print(f"GPU: {torch.cuda.get_device_name()}")
    print(markdown_table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
