"""ember's main demo: tensors, broadcasting, reductions, indexing, matmul and
numpy interop, put to work on k-means clustering of generated data.

    make demo
"""
import time

import numpy as np

import ember


def make_blobs(centers, points_per_blob, spread):
    """Gaussian blobs around the given centers: [len(centers) * points_per_blob, 2]."""
    blobs = [ember.randn(points_per_blob, 2) * spread + c for c in centers]
    return ember.cat(blobs)


def kmeans(x, k, iterations=20):
    """Lloyd's algorithm. Returns (centers [k, d], assignment [n])."""
    centers = x[ember.randperm(len(x))[:k]].clone()
    for _ in range(iterations):
        # squared distances [n, k] by broadcasting [n, 1, d] against [1, k, d]
        distances = ((x[:, None, :] - centers[None, :, :]) ** 2).sum(-1)
        assignment = distances.argmin(dim=1)
        members = ember.nn.functional.one_hot(assignment, k).to(x.dtype)  # [n, k]
        counts = members.sum(0).clamp(min=1)
        centers = (members.t() @ x) / counts[:, None]
    return centers, assignment


def main():
    ember.manual_seed(0)
    print("ember", ember.__version__)

    true_centers = ember.tensor([[0.0, 0.0], [6.0, 6.0], [0.0, 6.0], [6.0, 0.0]])
    x = make_blobs(true_centers, points_per_blob=2500, spread=0.8)
    print(f"data: {x.shape}, {x.dtype}; first rows:\n{x[:3]}")

    start = time.perf_counter()
    centers, assignment = kmeans(x, k=4)
    elapsed = time.perf_counter() - start
    order = centers[:, 0] * 10 + centers[:, 1]
    centers = centers[order.argsort()]
    print(f"k-means found these centers in {elapsed * 1e3:.1f} ms:\n{centers}")
    print("cluster sizes:", ember.bincount(assignment).tolist() if hasattr(ember, "bincount")
          else [int((assignment == i).sum()) for i in range(4)])

    expected = true_centers[(true_centers[:, 0] * 10 + true_centers[:, 1]).argsort()]
    error = (centers - expected).abs().max().item()
    print(f"largest distance from a true center: {error:.3f}")

    # numpy interop is zero-copy on the CPU
    arr = x.numpy()
    arr[0, 0] = 123.0
    print("numpy writes are seen by ember:", x[0, 0].item() == 123.0)
    print("memory:", {k: v for k, v in ember.memory_stats().items() if k in ("allocated_bytes", "num_raw_allocs")})
    if error > 0.2:
        raise SystemExit("k-means did not recover the centers")


if __name__ == "__main__":
    main()
