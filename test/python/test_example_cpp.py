"""The C++ digits example (examples/cpp/train_digits.cpp): it trains on the file
examples/export_digits.py writes, reaches the accuracy the Python example does,
and the weights it saves load into the Python model of examples/train_digits.py
with the same test accuracy (one safetensors file, two front ends)."""
import pathlib
import re
import subprocess
import sys

import pytest

import ember

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = ROOT / "build" / "examples" / "train_digits"
sys.path.insert(0, str(ROOT / "examples"))

pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def digits_file(tmp_path_factory):
    from export_digits import export_digits
    return export_digits(tmp_path_factory.mktemp("digits") / "digits.safetensors")


@pytest.mark.skipif(not BINARY.exists(), reason=f"{BINARY} is not built (make build)")
def test_cpp_example_trains_to_97_percent_and_python_reads_its_weights(digits_file, tmp_path):
    weights = tmp_path / "cnn.safetensors"
    run = subprocess.run([str(BINARY), str(digits_file), "--epochs", "6", "--save", str(weights)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    cpp_accuracy = float(re.search(r"test accuracy: ([\d.]+)%", run.stdout).group(1))
    assert cpp_accuracy >= 97.0, run.stdout

    from train_digits import make_cnn
    model = make_cnn()
    model.load_state_dict(ember.load(weights))
    model.eval()
    data = ember.load(digits_file)
    with ember.no_grad():
        predicted = model(data["x_test"]).argmax(1)
    py_accuracy = 100 * float((predicted == data["y_test"]).double().mean())
    assert py_accuracy == pytest.approx(cpp_accuracy, abs=0.01)


@pytest.mark.skipif(not BINARY.exists(), reason=f"{BINARY} is not built (make build)")
def test_cpp_example_explains_a_missing_data_file(tmp_path):
    run = subprocess.run([str(BINARY), str(tmp_path / "missing.safetensors")], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 2
    assert "export_digits.py" in run.stderr
