"""Trace -> save -> load in Python and in C++ (examples/cpp/deploy.cpp, which links
libember and not Python): the outputs of the traced, the reloaded and the C++
model equal the eager model's, for an MLP, the digits CNN, an LSTM and a
TransformerEncoderLayer. Also the deploy example end to end."""
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import ember
from ember import nn
from _helpers import to_numpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "build" / "examples" / "deploy"
sys.path.insert(0, str(ROOT / "examples"))
needs_deploy = pytest.mark.skipif(not DEPLOY.exists(), reason=f"{DEPLOY} is not built (make build)")


def flat(out):
    if isinstance(out, ember.Tensor):
        return [out]
    return [t for o in out for t in flat(o)]


class LSTMHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 7, num_layers=2, batch_first=True)
        self.head = nn.Linear(7, 3)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return self.head(out[:, -1]), (h, c)


def make_models():
    from train_digits import make_cnn, make_mlp
    ember.manual_seed(0)
    cnn = make_cnn()
    cnn.train()
    with ember.no_grad():  # non-trivial running statistics for eval mode
        cnn(ember.randn(32, 1, 8, 8))
    return {
        "mlp": (make_mlp().eval(), (ember.randn(4, 1, 8, 8),)),
        "cnn": (cnn.eval(), (ember.randn(4, 1, 8, 8),)),
        "lstm": (LSTMHead().eval(), (ember.randn(3, 6, 5),)),
        "transformer": (nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.1,
                                                   batch_first=True).eval(),
                        (ember.randn(2, 5, 16),)),
    }


MODELS = make_models()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_traced_and_reloaded_models_equal_eager(name, tmp_path):
    model, inputs = MODELS[name]
    with ember.no_grad():
        traced = ember.jit.trace(model, inputs)
        path = tmp_path / f"{name}.ember"
        traced.save(path)
        reloaded = ember.jit.load(path)
        fresh = tuple(ember.randn(*x.shape) for x in inputs)
        expected = flat(model(*fresh))
        for got in (flat(traced(*fresh)), flat(reloaded(*fresh))):
            assert len(got) == len(expected)
            for g, e in zip(got, expected):
                np.testing.assert_allclose(to_numpy(g), to_numpy(e), rtol=1e-5, atol=1e-6)


@needs_deploy
@pytest.mark.parametrize("name", sorted(MODELS))
def test_cpp_reloaded_model_equals_eager(name, tmp_path):
    model, inputs = MODELS[name]
    with ember.no_grad():
        traced = ember.jit.trace(model, inputs)
        traced.save(tmp_path / "m.ember")
        fresh = tuple(ember.randn(*x.shape) for x in inputs)
        expected = flat(model(*fresh))
    ember.save({("x" if i == 0 else f"x{i}"): x for i, x in enumerate(fresh)},
               tmp_path / "in.safetensors")
    run = subprocess.run([str(DEPLOY), str(tmp_path / "m.ember"), str(tmp_path / "in.safetensors"),
                          "--out", str(tmp_path / "out.safetensors")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    got = ember.load(tmp_path / "out.safetensors")
    assert sorted(got) == sorted(f"y{i}" for i in range(len(expected)))
    for i, e in enumerate(expected):
        np.testing.assert_allclose(to_numpy(got[f"y{i}"]), to_numpy(e), rtol=1e-5, atol=1e-6)


@needs_deploy
def test_deploy_example_prints_the_python_predictions(tmp_path):
    pytest.importorskip("sklearn")
    from export_digits import export_digits
    from trace_export import export
    data = export_digits(tmp_path / "digits.safetensors")
    model_path, check_path, logits = export(tmp_path, epochs=1, data_path=data)
    run = subprocess.run([str(DEPLOY), str(model_path), str(check_path)], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    printed = [int(p) for p in re.search(r"predictions: ([\d ]+)", run.stdout).group(1).split()]
    assert printed == logits.argmax(1).tolist()
    assert float(re.search(r"max \|C\+\+ - Python\| = (\S+)", run.stdout).group(1)) < 1e-5


@needs_deploy
def test_deploy_explains_a_bad_model_file(tmp_path):
    bad = tmp_path / "bad.ember"
    bad.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all")
    ember.save({"x": ember.ones(2)}, tmp_path / "in.safetensors")
    run = subprocess.run([str(DEPLOY), str(bad), str(tmp_path / "in.safetensors")],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert "deploy:" in run.stderr and "bad.ember" in run.stderr
