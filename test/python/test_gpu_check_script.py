"""scripts/gpu_check.sh --dry-run (issue 15): on this machine it stages what a lent GPU
machine needs, checks the 64 MiB carry limit, and lists every device step with its time
budget; the device run itself refuses to start without a GPU."""
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gpu_check.sh"
STEPS = ["probe", "unpack", "C++ [cuda] tests", "compile the Python extension", "Python CUDA tests",
         "first failures again", "GPU benchmarks"]


def test_script_parses():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)


@pytest.mark.skipif(not (ROOT / "build" / "CMakeFiles" / "ember.dir" / "lib" / "cuda").is_dir(),
                    reason="build/ is not a CUDA build (no nvcc): nothing to stage")
@pytest.mark.skipif(shutil.which("strip") is None, reason="binutils' strip is not installed")
def test_dry_run_stages_within_the_carry_limit_and_lists_the_steps():
    run = subprocess.run(["bash", str(SCRIPT), "--dry-run"], cwd=ROOT, capture_output=True, text=True,
                         timeout=1200)
    assert run.returncode == 0, run.stdout + run.stderr
    size = re.search(r"= (\d+) MiB \(limit 64 MiB\)", run.stdout)
    assert size and int(size.group(1)) < 64, run.stdout
    for step in STEPS:
        assert re.search(re.escape(step) + r".*budget +\d+ s", run.stdout), (step, run.stdout)
    assert (ROOT / "gpu_pack" / "gpu_carry.tar.gz").is_file()
    assert 'carry ["gpu_pack"]' in run.stdout


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="a GPU machine: the run would start")
def test_device_run_refuses_without_a_gpu(tmp_path):
    run = subprocess.run(["bash", str(SCRIPT)], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "OUT": str(tmp_path)})
    assert run.returncode == 2
    assert "no GPU here" in run.stdout
