"""The synchronizing debug mode (CUDA_LAUNCH_BLOCKING=1, lib/core/cuda_launch_blocking.h):
a device-side error is raised by the op that caused it, not at the next wait."""
import os
import subprocess
import sys

import pytest

import ember

HAS_GPU = ember.cuda.is_available()


@pytest.fixture
def launch_blocking():
    saved = ember._C._cuda._launch_blocking()
    ember._C._cuda._set_launch_blocking(True)
    yield
    ember._C._cuda._set_launch_blocking(saved)


def test_the_environment_variable_turns_it_on():
    code = "import ember; print(ember._C._cuda._launch_blocking())"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    for value, expected in [("1", "True"), ("0", "False"), ("", "False")]:
        env["CUDA_LAUNCH_BLOCKING"] = value
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                             check=True).stdout.strip()
        assert out == expected, (value, out)


def test_cpu_ops_are_unaffected(launch_blocking):
    x = ember.arange(6.0).reshape(2, 3)
    assert (x * 2).sum().item() == 30.0
    with pytest.raises(RuntimeError, match="out of bounds"):
        ember.gather(x, 1, ember.tensor([[5]]))


@pytest.mark.skipif(not HAS_GPU, reason="no CUDA GPU is available")
def test_a_device_side_error_is_raised_by_its_op(launch_blocking):
    x = ember.arange(6.0, device="cuda").reshape(2, 3)
    bad = ember.tensor([[0], [7]], device="cuda")
    with pytest.raises((IndexError, RuntimeError), match="gather"):
        ember.gather(x, 1, bad)  # raised here, before any value is read
    assert ember.gather(x, 1, ember.tensor([[2], [0]], device="cuda")).cpu().tolist() == [[2.0], [3.0]]
