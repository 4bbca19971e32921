"""Exports scikit-learn's 8x8 handwritten digits as a train/test split in a
safetensors file, the data that examples/train_digits.py and the C++ example
(examples/cpp/train_digits.cpp, through ember::load) train on.

    python examples/export_digits.py [--out examples/data/digits.safetensors]

The data set ships with scikit-learn (1797 images of 8x8 pixels with values
0..16), so nothing is downloaded. The file holds four tensors:

    x_train [N, 1, 8, 8] float32    y_train [N] int64 (labels 0..9)
    x_test  [M, 1, 8, 8] float32    y_test  [M] int64

The pixels are scaled to [0, 1] and then standardized with the training set's
mean and standard deviation (two scalars), so both sets see the same transform.
The split is stratified (each digit is 25% test) and fixed by the seed.
"""
import argparse
import pathlib

import numpy as np

import ember

DEFAULT_PATH = pathlib.Path(__file__).resolve().parent / "data" / "digits.safetensors"


def digits_split(test_fraction=0.25, seed=0):
    """The normalized, split data set as a dict of numpy arrays (see the module docstring)."""
    from sklearn.datasets import load_digits  # imported here: only the export needs scikit-learn

    digits = load_digits()
    images = digits.images.astype(np.float32) / 16.0  # [1797, 8, 8] in [0, 1]
    labels = digits.target.astype(np.int64)

    # Stratified split by hand: shuffle each class with the seed and put the first
    # test_fraction of it into the test set.
    rng = np.random.default_rng(seed)
    test_idx = []
    for digit in range(10):
        members = rng.permutation(np.flatnonzero(labels == digit))
        test_idx.append(members[:round(len(members) * test_fraction)])
    test_mask = np.zeros(len(labels), dtype=bool)
    test_mask[np.concatenate(test_idx)] = True
    # Shuffle the training order too, so a loader without shuffling still mixes classes.
    train_idx = rng.permutation(np.flatnonzero(~test_mask))
    test_idx = np.flatnonzero(test_mask)

    mean = images[train_idx].mean()
    std = images[train_idx].std()

    def prepare(idx):
        return ((images[idx] - mean) / std)[:, None, :, :].astype(np.float32), labels[idx]

    x_train, y_train = prepare(train_idx)
    x_test, y_test = prepare(test_idx)
    return {"x_train": x_train, "y_train": y_train, "x_test": x_test, "y_test": y_test}


def export_digits(path=DEFAULT_PATH, test_fraction=0.25, seed=0):
    """Writes the split to `path` (creating its directory) with ember.save; returns the path."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = digits_split(test_fraction, seed)
    ember.save({name: ember.from_numpy(a) for name, a in arrays.items()}, path)
    return path


def load_digits_file(path=DEFAULT_PATH):
    """Reads the file back (exporting it first if it is missing): a dict of ember tensors."""
    path = pathlib.Path(path)
    if not path.exists():
        export_digits(path)
    return ember.load(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(DEFAULT_PATH), help="safetensors file to write")
    ap.add_argument("--seed", type=int, default=0, help="seed of the train/test split")
    args = ap.parse_args()
    path = export_digits(args.out, seed=args.seed)
    data = ember.load(path)
    shapes = ", ".join(f"{k} {list(v.shape)} {v.dtype}" for k, v in data.items())
    print(f"wrote {path}: {shapes}")


if __name__ == "__main__":
    main()
