"""Trains an MLP and a small CNN on scikit-learn's 8x8 handwritten digits with
ember.nn, ember.optim and ember.utils.data, the way one would with PyTorch.

    make demo                                     # or:
    PYTHONPATH=python .venv/bin/python examples/train_digits.py [--epochs N] [--quick] [--out DIR]

Each model trains with AdamW and a one-cycle learning-rate schedule on batches
(cross-entropy with label smoothing) from a shuffling DataLoader (seeded, so a run is reproducible), shows a tqdm
progress bar per epoch and is evaluated on the held-out test set after every
epoch. At the end the script writes a plot of the loss and accuracy curves
(DIR/digits_training.png) and each model's weights (DIR/digits_<model>.safetensors,
written with ember.save), then loads the weights into a fresh model and checks
that it scores the same test accuracy.
"""
import argparse
import pathlib
import sys
import time

import matplotlib

matplotlib.use("Agg")  # no display needed: the plot goes to a PNG file
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
from tqdm import tqdm  # noqa: E402

import ember  # noqa: E402
import ember.nn as nn  # noqa: E402
from ember.optim.lr_scheduler import OneCycleLR  # noqa: E402
from ember.utils.data import DataLoader, TensorDataset  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from export_digits import DEFAULT_PATH, load_digits_file  # noqa: E402


# The models take the nn package as an argument: ember.nn has torch.nn's names, so
# make_cnn(torch.nn) builds the same network in PyTorch (bench/training_epoch.py does).
def make_mlp(nn=nn):
    """64 pixels -> 256 -> 128 -> 10 classes."""
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(64, 256), nn.ReLU(), nn.Dropout(0.2),
        nn.Linear(256, 128), nn.ReLU(),
        nn.Linear(128, 10))


def make_cnn(nn=nn):
    """Two 3x3 conv blocks with batch norm, each halving the image (8x8 -> 4x4 -> 2x2), then a linear layer."""
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.25),
        nn.Linear(64 * 2 * 2, 10))


MODELS = {"mlp": make_mlp, "cnn": make_cnn}
# (epochs, quick epochs, peak learning rate) per model
SETTINGS = {"mlp": (20, 12, 3e-3), "cnn": (12, 6, 3e-3)}
BATCH_SIZE = 32


def accuracy(model, x, y):
    """Fraction of x classified as y, with the model in eval mode and no graph recorded."""
    model.eval()  # dropout off, batch norm uses its running statistics
    with ember.no_grad():
        return (model(x).argmax(dim=1) == y).float().mean().item()


def train(name, model, data, epochs, lr, seed=0):
    """Trains the model in place; returns the per-epoch history of loss and accuracies."""
    loader = DataLoader(TensorDataset(data["x_train"], data["y_train"]), batch_size=BATCH_SIZE,
                        shuffle=True, generator=ember.Generator().manual_seed(seed))
    optimizer = ember.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    scheduler = OneCycleLR(optimizer, max_lr=lr, epochs=epochs, steps_per_epoch=len(loader))
    # Label smoothing keeps the models from growing over-confident on 1347 images:
    # about +1% test accuracy for the MLP.
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
    history = {"loss": [], "train_acc": [], "test_acc": []}
    for epoch in range(epochs):
        model.train()
        total_loss, correct, seen = 0.0, 0, 0
        bar = tqdm(loader, desc=f"{name} epoch {epoch + 1:2d}/{epochs}", unit="batch",
                   leave=epoch + 1 == epochs, dynamic_ncols=True)
        for x, y in bar:
            logits = model(x)
            loss = loss_fn(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()

            total_loss += loss.item() * len(y)
            correct += (logits.argmax(dim=1) == y).sum().item()
            seen += len(y)
            bar.set_postfix(loss=f"{total_loss / seen:.4f}", acc=f"{correct / seen:.3f}")
        history["loss"].append(total_loss / seen)
        history["train_acc"].append(correct / seen)
        history["test_acc"].append(accuracy(model, data["x_test"], data["y_test"]))
        bar.write(f"{name} epoch {epoch + 1:2d}/{epochs}: loss {history['loss'][-1]:.4f}, "
                  f"train acc {history['train_acc'][-1]:.3f}, test acc {history['test_acc'][-1]:.3f}")
    return history


def plot(histories, path):
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    for name, h in histories.items():
        epochs = range(1, len(h["loss"]) + 1)
        line, = ax_loss.plot(epochs, h["loss"], marker="o", label=name)
        ax_acc.plot(epochs, h["test_acc"], marker="o", color=line.get_color(), label=f"{name} test")
        ax_acc.plot(epochs, h["train_acc"], linestyle="--", color=line.get_color(), label=f"{name} train")
    ax_loss.set(xlabel="epoch", ylabel="cross-entropy (label smoothing 0.1)", title="training loss")
    ax_acc.set(xlabel="epoch", ylabel="accuracy", ylim=(0.8, 1.0), title="accuracy")
    ax_acc.axhline(0.97, color="gray", linewidth=0.8, linestyle=":")
    for ax in (ax_loss, ax_acc):
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("ember on the 8x8 digits")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description="Train an MLP and a CNN on the 8x8 digits with ember.")
    ap.add_argument("--epochs", type=int, help="epochs per model (default: mlp %d, cnn %d)"
                    % (SETTINGS["mlp"][0], SETTINGS["cnn"][0]))
    ap.add_argument("--quick", action="store_true", help="a shorter run (used by the tests)")
    ap.add_argument("--models", default="mlp,cnn", help="comma-separated: mlp, cnn")
    ap.add_argument("--out", default=str(HERE / "out"), help="directory for the plot and the weights")
    ap.add_argument("--data", default=str(DEFAULT_PATH), help="digits file (exported if missing)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    data = load_digits_file(args.data)
    print(f"digits: {len(data['y_train'])} training and {len(data['y_test'])} test images of "
          f"{tuple(data['x_train'].shape[1:])}; ember {ember.__version__}, "
          f"{ember.get_num_threads()} threads")

    histories = {}
    for name in args.models.split(","):
        epochs, quick_epochs, lr = SETTINGS[name]
        epochs = args.epochs or (quick_epochs if args.quick else epochs)
        ember.manual_seed(args.seed)  # the initial weights and the dropout masks
        model = MODELS[name]()
        n_params = sum(p.numel() for p in model.parameters())
        print(f"\n{name.upper()} ({n_params} parameters):\n{model}")

        start = time.perf_counter()
        histories[name] = train(name.upper(), model, data, epochs, lr, seed=args.seed)
        elapsed = time.perf_counter() - start
        test_acc = histories[name]["test_acc"][-1]
        print(f"{name.upper()}: test accuracy {100 * test_acc:.2f}% after {epochs} epochs "
              f"in {elapsed:.1f} s")

        # Save the weights, load them into a freshly initialized model, check the result.
        weights = out / f"digits_{name}.safetensors"
        ember.save(model.state_dict(), weights)
        fresh = MODELS[name]()
        fresh.load_state_dict(ember.load(weights))
        reloaded_acc = accuracy(fresh, data["x_test"], data["y_test"])
        same = "same" if reloaded_acc == test_acc else "DIFFERENT"
        print(f"{name.upper()}: reloaded from {weights}: test accuracy {100 * reloaded_acc:.2f}% ({same})")
        if reloaded_acc != test_acc:
            sys.exit(f"{name}: the reloaded model scores {reloaded_acc}, the trained one {test_acc}")

    plot_path = out / "digits_training.png"
    plot(histories, plot_path)
    print(f"\nplot: {plot_path}")


if __name__ == "__main__":
    main()
