"""The launcher, python -m ember.distributed.run (torchrun's options): a DDP job on one
node and on two, a failing rank stopping the job with its exit code, restarts, signals
forwarded, ember.distributed.launch's --local-rank, and bad options. Every job is
bounded by a timeout."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

import ember
import ember.distributed as dist
from test_distributed_ddp import JOB_TIMEOUT, PYTHON_DIR, REPO, _free_port, needs_gloo  # noqa: F401



# ---- the launcher ------------------------------------------------------------------------

def _launcher_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = PYTHON_DIR + os.pathsep + env.get("PYTHONPATH", "")
    for name in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)
    return env


def _launch(args, timeout=JOB_TIMEOUT, module="ember.distributed.run"):
    return subprocess.run([sys.executable, "-m", module] + args, env=_launcher_env(),
                          capture_output=True, text=True, timeout=timeout)


_DDP_SCRIPT = """
import json, os, sys
import ember, ember.distributed as dist
from ember.nn.parallel import DistributedDataParallel as DDP
from ember.utils.data import DataLoader, TensorDataset
from ember.utils.data.distributed import DistributedSampler
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
ember.manual_seed(rank)
model = ember.nn.Linear(3, 2).double()
ddp = DDP(model)
opt = ember.optim.SGD(model.parameters(), lr=0.1)
ember.manual_seed(0)
data = TensorDataset(ember.randn(10, 3, dtype=ember.float64), ember.randn(10, 2, dtype=ember.float64))
sampler = DistributedSampler(data, shuffle=False)
seen = []
for x, y in DataLoader(data, batch_size=5, sampler=sampler):
    seen.append(len(x))
    opt.zero_grad()
    ember.nn.functional.mse_loss(ddp(x), y).backward()
    opt.step()
env = {k: os.environ.get(k) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE",
                                      "GROUP_RANK", "MASTER_ADDR", "MASTER_PORT")}
with open(os.path.join(sys.argv[1], f"rank{rank}.json"), "w") as f:
    json.dump({"env": env, "argv": sys.argv[2:], "seen": seen,
               "params": [p.detach().reshape(-1).tolist() for p in model.parameters()]}, f)
dist.destroy_process_group()
"""


@needs_gloo
def test_launcher_runs_a_ddp_job(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(_DDP_SCRIPT)
    done = _launch(["--nproc-per-node", "2", "--standalone", str(script), str(tmp_path), "--x", "1"])
    assert done.returncode == 0, done.stdout + done.stderr
    reports = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    ports = {r["env"]["MASTER_PORT"] for r in reports}
    assert len(ports) == 1 and int(ports.pop()) > 0
    for r, report in enumerate(reports):
        env = report["env"]
        assert (env["RANK"], env["LOCAL_RANK"], env["WORLD_SIZE"], env["LOCAL_WORLD_SIZE"],
                env["GROUP_RANK"], env["MASTER_ADDR"]) == (str(r), str(r), "2", "2", "0", "127.0.0.1")
        assert report["argv"] == ["--x", "1"]
        assert report["seen"] == [5]  # 10 samples, 5 per rank
    assert reports[0]["params"] == reports[1]["params"]


@needs_gloo
def test_launcher_two_nodes(tmp_path):
    # Two launchers on this machine playing two nodes of one worker each.
    script = tmp_path / "train.py"
    script.write_text(_DDP_SCRIPT)
    port = str(_free_port())
    nodes = [subprocess.Popen([sys.executable, "-m", "ember.distributed.run", "--nnodes", "2",
                               "--node-rank", str(n), "--nproc-per-node", "1", "--master-addr",
                               "127.0.0.1", "--master-port", port, str(script), str(tmp_path)],
                              env=_launcher_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for n in range(2)]
    try:
        outputs = [node.communicate(timeout=JOB_TIMEOUT) for node in nodes]
    finally:
        for node in nodes:
            if node.poll() is None:
                node.kill()
                node.wait()
    assert [node.returncode for node in nodes] == [0, 0], outputs
    reports = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    for r, report in enumerate(reports):
        env = report["env"]
        assert (env["RANK"], env["LOCAL_RANK"], env["WORLD_SIZE"], env["LOCAL_WORLD_SIZE"],
                env["GROUP_RANK"], env["MASTER_PORT"]) == (str(r), "0", "2", "1", str(r), port)
    assert reports[0]["params"] == reports[1]["params"]


_FAILING_SCRIPT = """
import os, sys, time
rank = int(os.environ["RANK"])
open(os.path.join(sys.argv[1], f"pid{rank}"), "w").write(str(os.getpid()))
if rank == 1:
    time.sleep(0.5)
    raise ValueError("rank one gives up")
time.sleep(60)
"""

_SLEEPING_SCRIPT = """
import os, sys, time
rank = int(os.environ["RANK"])
open(os.path.join(sys.argv[1], f"pid{rank}"), "w").write(str(os.getpid()))
time.sleep(60)
"""


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_launcher_stops_the_job_when_a_rank_fails(tmp_path):
    script = tmp_path / "fail.py"
    script.write_text(_FAILING_SCRIPT)
    start = time.monotonic()
    done = _launch(["--nproc_per_node=3", str(script), str(tmp_path)], timeout=30)
    assert time.monotonic() - start < 20
    assert done.returncode == 1, done.stderr
    assert "worker rank 1" in done.stderr and "exit code 1" in done.stderr
    assert "ValueError: rank one gives up" in done.stderr  # the worker's traceback
    for r in (0, 2):
        assert not _pid_alive(int((tmp_path / f"pid{r}").read_text()))


def test_launcher_exit_code_and_restarts(tmp_path):
    script = tmp_path / "exit.py"
    script.write_text("import os, sys\n"
                      "open(os.path.join(sys.argv[1], 'runs'), 'a').write(os.environ['RANK'] + "
                      "os.environ['TORCHELASTIC_RESTART_COUNT'] + ' ')\n"
                      "sys.exit(7 if os.environ['RANK'] == '0' else 0)\n")
    done = _launch(["--nproc-per-node", "2", "--max-restarts", "1", str(script), str(tmp_path)],
                   timeout=30)
    assert done.returncode == 7, done.stderr
    assert "restarting the workers" in done.stderr and "rank 0 exited with exit code 7" in done.stderr
    runs = sorted((tmp_path / "runs").read_text().split())
    assert runs == ["00", "01", "10", "11"]


def test_launcher_forwards_signals(tmp_path):
    script = tmp_path / "sleep.py"
    script.write_text(_SLEEPING_SCRIPT)
    launcher = subprocess.Popen([sys.executable, "-m", "ember.distributed.run", "--nproc-per-node",
                                 "2", str(script), str(tmp_path)], env=_launcher_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        while not all((tmp_path / f"pid{r}").exists() for r in range(2)):
            assert time.monotonic() < deadline and launcher.poll() is None, "workers did not start"
            time.sleep(0.05)
        pids = [int((tmp_path / f"pid{r}").read_text()) for r in range(2)]
        launcher.send_signal(signal.SIGTERM)
        _, err = launcher.communicate(timeout=20)
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()
    assert launcher.returncode == 128 + signal.SIGTERM, err
    assert not any(_pid_alive(p) for p in pids)


def test_launch_module_passes_local_rank(tmp_path):
    script = tmp_path / "args.py"
    script.write_text("import os, sys\n"
                      "open(os.path.join(sys.argv[-1], 'r' + os.environ['LOCAL_RANK']), 'w')"
                      ".write(' '.join(sys.argv[1:-1]))\n")
    done = _launch(["--nproc-per-node", "2", str(script), str(tmp_path)],
                   module="ember.distributed.launch", timeout=30)
    assert done.returncode == 0, done.stderr
    assert [(tmp_path / f"r{r}").read_text() for r in range(2)] == ["--local-rank=0", "--local-rank=1"]
    done = _launch(["--use-env", "--nproc-per-node", "1", str(script), str(tmp_path)],
                   module="ember.distributed.launch", timeout=30)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "r0").read_text() == ""


def test_launcher_no_python_and_missing_programs(tmp_path):
    out = tmp_path / "ranks"
    done = _launch(["--nproc-per-node", "3", "--no-python", "sh", "-c",
                    f'echo "$RANK $LOCAL_WORLD_SIZE" >> {out}'], timeout=30)
    assert done.returncode == 0, done.stderr
    assert sorted(out.read_text().split("\n")[:-1]) == ["0 3", "1 3", "2 3"]
    done = _launch(["--no-python", str(tmp_path / "not-there")], timeout=30)
    assert done.returncode == 1 and "could not start the workers" in done.stderr


@pytest.mark.parametrize("args,message", [
    (["--nnodes", "1:2"], "elastic"),
    (["--nnodes", "2", "--node-rank", "2"], "out of range"),
    (["--nproc-per-node", "0"], "must be positive"),
    (["--nproc-per-node", "many"], "cpu/gpu/auto"),
    (["--nnodes", "2", "--rdzv-endpoint", "h:1"], "single node only"),
    (["--nnodes", "2", "--max-restarts", "1"], "restarts work on one node"),
    (["--standalone", "--nnodes", "2"], "single-node"),
])
def test_launcher_rejects_bad_options(args, message, capsys):
    from ember.distributed.run import main
    with pytest.raises(SystemExit) as exit_info:
        main(args + ["script.py"])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_launcher_module_name_spellings():
    from ember.distributed.run import get_args_parser
    parser = get_args_parser()
    a = parser.parse_args(["--nproc_per_node=4", "--master_port", "1234", "--node_rank", "0",
                           "s.py", "--lr", "1"])
    b = parser.parse_args(["--nproc-per-node", "4", "--master-port=1234", "s.py", "--lr", "1"])
    assert (a.nproc_per_node, a.master_port, a.training_script_args) == ("4", 1234, ["--lr", "1"])
    assert (b.nproc_per_node, b.master_port) == ("4", 1234)
