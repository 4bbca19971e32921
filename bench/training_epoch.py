"""Issue 4's benchmark cases: one training epoch on the 8x8 digits (1347 images,
batch 32, 43 steps) of examples/train_digits.py's MLP and CNN. Each step is a
DataLoader batch (shuffled, default collate), the forward pass, the loss,
backward, and an AdamW step, as the example trains. The PyTorch side is the same
network built from torch.nn (the example's builders take the nn package), with
the same initial weights, trained on the same data with torch.utils.data's
DataLoader and torch.optim.AdamW. The models stay in training mode (dropout and
batch norm's running statistics included); the timed epochs keep training them."""
import pathlib
import sys

import ember
import torch
import torch.utils.data as tdata

from harness import Case

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
from export_digits import digits_split  # noqa: E402
from train_digits import BATCH_SIZE, MODELS  # noqa: E402


def _epoch(model, loader, optimizer, loss_fn):
    def run():
        model.train()
        for x, y in loader:
            loss = loss_fn(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return run


def _check_same_function(ember_model, torch_model, x):
    """Both models compute the same outputs (in eval mode: no dropout)."""
    ember_model.eval()
    torch_model.eval()
    with ember.no_grad(), torch.no_grad():
        e = ember_model(ember.from_numpy(x)).numpy()
        t = torch_model(torch.from_numpy(x)).numpy()
    assert abs(e - t).max() < 1e-4, f"the ember and torch models differ by {abs(e - t).max()}"


def epoch_case(name, data):
    ember.manual_seed(0)
    ember_model = MODELS[name](ember.nn)
    torch_model = MODELS[name](torch.nn)
    # The same initial weights (and batch-norm buffers) in both libraries.
    torch_model.load_state_dict({k: torch.from_numpy(v.numpy().copy())
                                 for k, v in ember_model.state_dict().items()})
    _check_same_function(ember_model, torch_model, data["x_test"][:64])

    x, y = data["x_train"], data["y_train"]
    ember_loader = ember.utils.data.DataLoader(
        ember.utils.data.TensorDataset(ember.from_numpy(x), ember.from_numpy(y)),
        batch_size=BATCH_SIZE, shuffle=True, generator=ember.Generator().manual_seed(0))
    torch_loader = tdata.DataLoader(
        tdata.TensorDataset(torch.from_numpy(x), torch.from_numpy(y)),
        batch_size=BATCH_SIZE, shuffle=True, generator=torch.Generator().manual_seed(0))

    n_params = sum(p.numel() for p in ember_model.parameters())
    return Case("training epoch", f"digits {name.upper()} ({n_params} params), {len(ember_loader)} steps",
                _epoch(ember_model, ember_loader, ember.optim.AdamW(ember_model.parameters(), lr=1e-3),
                       ember.nn.CrossEntropyLoss(label_smoothing=0.1)),
                _epoch(torch_model, torch_loader, torch.optim.AdamW(torch_model.parameters(), lr=1e-3),
                       torch.nn.CrossEntropyLoss(label_smoothing=0.1)))


def training_epochs():
    data = digits_split()
    return [epoch_case("mlp", data), epoch_case("cnn", data)]
