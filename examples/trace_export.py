"""Trains the digits CNN of train_digits.py, traces it and saves one model file
that examples/cpp/deploy.cpp runs from C++ without Python.

    python examples/trace_export.py [--out examples/out] [--epochs 4]
    build/examples/deploy examples/out/digits_cnn.ember examples/out/digits_check.safetensors

Writes to --out:
    digits_cnn.ember          the traced model: graph + weights (safetensors layout)
    digits_check.safetensors  "x": test images the C++ program classifies, and the
                              Python model's "logits" for them, to compare with

The trace fixes the shapes it saw (here a batch of BATCH images), as PyTorch's
trace does: the C++ program feeds batches of that size.
"""
import argparse
import pathlib
import sys

import ember

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from export_digits import DEFAULT_PATH, load_digits_file  # noqa: E402
from train_digits import make_cnn, train  # noqa: E402

BATCH = 20


def export(out, epochs=4, data_path=DEFAULT_PATH, seed=0):
    """Trains, traces and saves; returns (model path, check-file path, logits)."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    data = load_digits_file(data_path)
    ember.manual_seed(seed)
    model = make_cnn()
    train("cnn", model, data, epochs, lr=3e-3, seed=seed)
    model.eval()

    x = data["x_test"][:BATCH].contiguous()
    traced = ember.jit.trace(model, x)
    model_path = out / "digits_cnn.ember"
    traced.save(model_path)

    # What the C++ side must reproduce: the eager model's logits.
    with ember.no_grad():
        logits = model(x)
    check_path = out / "digits_check.safetensors"
    ember.save({"x": x, "logits": logits}, check_path)
    return model_path, check_path, logits


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(HERE / "out"))
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--data", default=str(DEFAULT_PATH), help="digits file (exported if missing)")
    args = ap.parse_args()
    model_path, check_path, logits = export(args.out, args.epochs, args.data)
    print(f"saved {model_path} and {check_path}")
    print("predictions:", " ".join(str(int(p)) for p in logits.argmax(1).tolist()))


if __name__ == "__main__":
    main()
