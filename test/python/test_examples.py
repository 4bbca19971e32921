"""The examples that train on real data run and reach their accuracy: the digits
export, examples/train_digits.py (shortened with --quick) and the quickstart
notebook (executed with nbclient)."""
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import ember

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

pytest.importorskip("sklearn")
sys.path.insert(0, str(EXAMPLES))
from export_digits import digits_split, export_digits  # noqa: E402


def _env():
    """The environment for child processes, with this checkout's ember importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python")] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def test_export_digits(tmp_path):
    path = export_digits(tmp_path / "sub" / "digits.safetensors")
    data = ember.load(path)
    assert list(data) == ["x_train", "y_train", "x_test", "y_test"]
    assert data["x_train"].shape == (1347, 1, 8, 8) and data["x_train"].dtype == ember.float32
    assert data["x_test"].shape == (450, 1, 8, 8) and data["x_test"].dtype == ember.float32
    assert data["y_train"].shape == (1347,) and data["y_train"].dtype == ember.int64
    assert data["y_test"].shape == (450,) and data["y_test"].dtype == ember.int64

    # Standardized with the training set's statistics; every digit in both sets, ~25% test.
    x_train = data["x_train"].numpy()
    assert abs(x_train.mean()) < 1e-5 and abs(x_train.std() - 1) < 1e-5
    train_counts = np.bincount(data["y_train"].numpy(), minlength=10)
    test_counts = np.bincount(data["y_test"].numpy(), minlength=10)
    np.testing.assert_allclose(test_counts / (train_counts + test_counts), 0.25, atol=0.01)

    # The same images and labels as scikit-learn's: the pixels (0..16) went through one
    # affine map, so the exported values are 17 evenly spaced levels.
    from sklearn.datasets import load_digits
    digits = load_digits()
    all_x = np.concatenate([x_train, data["x_test"].numpy()]).reshape(-1, 64).astype(np.float64)
    all_y = np.concatenate([data["y_train"].numpy(), data["y_test"].numpy()])
    levels = (all_x - all_x.min()) / (all_x.max() - all_x.min()) * 16
    np.testing.assert_allclose(levels, np.round(levels), atol=1e-3)
    exported = np.column_stack([np.round(levels), all_y])
    original = np.column_stack([digits.data, digits.target])
    np.testing.assert_array_equal(np.unique(exported, axis=0, return_counts=True)[1],
                                  np.unique(original, axis=0, return_counts=True)[1])
    np.testing.assert_array_equal(np.unique(exported, axis=0), np.unique(original, axis=0))

    # Fixed by the seed; another seed gives another split.
    again = digits_split()
    np.testing.assert_array_equal(again["x_train"], x_train)
    np.testing.assert_array_equal(again["y_test"], data["y_test"].numpy())
    assert not np.array_equal(digits_split(seed=1)["y_test"], again["y_test"])

    # Any safetensors reader sees the four tensors by name (the C++ example reads it too).
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    plain = safetensors_numpy.load_file(str(path))
    np.testing.assert_array_equal(plain["y_train"], data["y_train"].numpy())


def test_train_digits_quick(tmp_path):
    data = tmp_path / "digits.safetensors"
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "train_digits.py"), "--quick", "--out", str(out), "--data", str(data)],
        env=_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    accuracies = dict(re.findall(r"^(MLP|CNN): test accuracy ([\d.]+)%", result.stdout, re.M))
    assert set(accuracies) == {"MLP", "CNN"}, result.stdout
    for name, acc in accuracies.items():
        assert float(acc) >= 97.0, f"{name}: {acc}%\n{result.stdout}"
    assert result.stdout.count("(same)") == 2, result.stdout
    assert "batch/s" in result.stderr  # the tqdm progress bars

    assert data.exists()  # exported on the first run
    assert (out / "digits_training.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The saved weights load into a fresh model of the example and score what it printed.
    import train_digits
    digits = ember.load(data)
    for name in ("mlp", "cnn"):
        model = train_digits.MODELS[name]()
        model.load_state_dict(ember.load(out / f"digits_{name}.safetensors"))
        acc = train_digits.accuracy(model, digits["x_test"], digits["y_test"])
        assert f"{100 * acc:.2f}" == accuracies[name.upper()]


def test_quickstart_notebook(monkeypatch, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    kernelspec = pytest.importorskip("ipykernel.kernelspec")
    pytest.importorskip("matplotlib")
    for key, value in _env().items():
        monkeypatch.setenv(key, value)  # the kernel is a child process: it inherits these
    # A kernel spec that runs this interpreter (the venv's), found first through JUPYTER_PATH.
    kernelspec.write_kernel_spec(tmp_path / "kernels" / "ember-test", overrides={"display_name": "ember test"})
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    nb = nbformat.read(EXAMPLES / "quickstart.ipynb", as_version=4)
    # The kernel runs in examples/, where the notebook imports export_digits from.
    client = nbclient.NotebookClient(nb, kernel_name="ember-test", timeout=120,
                                     resources={"metadata": {"path": str(EXAMPLES)}})
    client.execute()  # raises CellExecutionError if a cell fails
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code_cells)
    outputs = [o for c in code_cells for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)  # the plots were drawn
    text = "".join(o.get("text", "") for o in outputs)
    assert "restored model: test accuracy" in text


def test_char_gpt_trains_saves_loads_and_samples():
    """examples/char_gpt.py, PyTorch code with `import ember as torch`: a short run
    learns (the loss falls well below log(vocabulary)), its checkpoint round trip
    (torch.save / torch.load) keeps the model, and multinomial sampling writes text."""
    import char_gpt

    first, val_loss, generated = char_gpt.train(ember, steps=60, log=lambda _: None)
    vocabulary = len(set(char_gpt.corpus()))
    assert abs(first - np.log(vocabulary)) < 0.3  # starts near uniform
    assert val_loss < 3.2 < first
    assert len(generated) == 201 and generated[0] == "T"
    assert set(generated) <= set(char_gpt.corpus())
