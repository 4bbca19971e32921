"""The launcher: ``python -m ember.distributed.run`` (``emberrun``), torchrun for ember.

    python -m ember.distributed.run --nproc-per-node 2 train.py --lr 0.1

starts ``--nproc-per-node`` copies of ``train.py`` on this machine with torchrun's
environment (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR,
MASTER_PORT, ...), so ``init_process_group("gloo")`` needs no arguments in them. On
several machines run it once per machine with ``--nnodes N --node-rank K
--master-addr A --master-port P`` (the same A and P everywhere; node 0's rank 0 serves
the rendezvous store there).

The launcher watches its workers. When one fails it stops the others (SIGTERM to each
worker's process group, SIGKILL after a grace period), names the failed rank, and exits
with that worker's exit code (128 + the signal for a worker killed by a signal), after
restarting the whole local group up to ``--max-restarts`` times. SIGINT, SIGTERM and
SIGHUP sent to the launcher are passed on to the workers.

What torchrun's elastic agent adds beyond that (a rendezvous that admits nodes as
they come, ``--nnodes MIN:MAX`` with MIN < MAX, restarts across nodes, log
redirection) ember does not have: the ``--rdzv-*`` options are accepted for a single
node only, where they name the master address and port.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import time

_GRACE_SECONDS = 5.0  # between SIGTERM and SIGKILL when stopping workers


class _LaunchError(Exception):
    """A bad command line: reported by the parser (exit code 2)."""


def _add_option(parser, name, **kwargs):
    """--some-option, also spelled --some_option as torchrun accepts."""
    spellings = [name]
    if "-" in name[2:]:
        spellings.append("--" + name[2:].replace("-", "_"))
    parser.add_argument(*spellings, **kwargs)


def get_args_parser(prog="python -m ember.distributed.run"):
    parser = argparse.ArgumentParser(
        prog=prog, description="Starts the processes of an ember.distributed job (torchrun's "
                               "options and environment).")
    _add_option(parser, "--nnodes", default="1", type=str,
                help="number of nodes, or MIN:MAX (MIN must equal MAX: ember has no elastic "
                     "rendezvous)")
    _add_option(parser, "--nproc-per-node", default="1", type=str,
                help="workers per node: a number, or cpu / gpu / auto")
    _add_option(parser, "--node-rank", default=0, type=int, help="this node's rank (0..nnodes-1)")
    _add_option(parser, "--master-addr", default=None, type=str,
                help="node 0's address (default 127.0.0.1)")
    _add_option(parser, "--master-port", default=None, type=int,
                help="the rendezvous port on the master (default: a free port on one node, "
                     "29500 on several)")
    parser.add_argument("--standalone", action="store_true",
                        help="a single-node job on localhost and a free port")
    _add_option(parser, "--max-restarts", default=0, type=int,
                help="restarts of the local worker group after a failure (one node only)")
    _add_option(parser, "--monitor-interval", default=0.1, type=float,
                help="seconds between checks of the workers")
    _add_option(parser, "--start-method", default="spawn", choices=["spawn", "fork", "forkserver"],
                help="accepted for torchrun compatibility: workers are always new processes")
    _add_option(parser, "--rdzv-backend", default="static", type=str,
                help="accepted on one node only (static, c10d)")
    _add_option(parser, "--rdzv-endpoint", default="", type=str,
                help="host[:port]: on one node, the master address and port")
    _add_option(parser, "--rdzv-id", default="none", type=str, help="the job id (TORCHELASTIC_RUN_ID)")
    _add_option(parser, "--rdzv-conf", default="", type=str, help="accepted and ignored on one node")
    parser.add_argument("-m", "--module", action="store_true",
                        help="run the script as a module (python -m)")
    _add_option(parser, "--no-python", action="store_true",
                help="run the script as an executable, without python")
    _add_option(parser, "--run-path", action="store_true",
                help="run the script with runpy.run_path in the worker's python")
    parser.add_argument("training_script", type=str, help="the script (or module) to run")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return parser


def _nproc(value):
    if value == "cpu":
        return os.cpu_count() or 1
    if value in ("gpu", "auto"):
        try:
            import ember
            count = ember.cuda.device_count() if ember.cuda.is_available() else 0
        except Exception:  # noqa: BLE001 - no extension: count CPUs
            count = 0
        if value == "gpu" and count == 0:
            raise _LaunchError("--nproc-per-node=gpu but no CUDA device is available")
        return count or (os.cpu_count() or 1)
    try:
        n = int(value)
    except ValueError:
        raise _LaunchError(f"--nproc-per-node must be a number or cpu/gpu/auto, got {value!r}") \
            from None
    if n <= 0:
        raise _LaunchError(f"--nproc-per-node must be positive, got {n}")
    return n


def _nnodes(value):
    parts = value.split(":")
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        raise _LaunchError(f"--nnodes must be N or MIN:MAX, got {value!r}") from None
    if len(numbers) not in (1, 2) or any(n <= 0 for n in numbers):
        raise _LaunchError(f"--nnodes must be N or MIN:MAX with positive numbers, got {value!r}")
    if len(numbers) == 2 and numbers[0] != numbers[1]:
        raise _LaunchError(f"--nnodes={value}: elastic jobs (MIN < MAX) need torchrun's elastic "
                           "rendezvous, which ember does not have; give one number")
    return numbers[0]


def _free_port(host):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class LaunchConfig:
    """The checked command line."""

    def __init__(self, args):
        self.nnodes = _nnodes(args.nnodes)
        self.nproc_per_node = _nproc(args.nproc_per_node)
        self.node_rank = args.node_rank
        self.max_restarts = args.max_restarts
        self.monitor_interval = args.monitor_interval
        self.run_id = args.rdzv_id
        if args.standalone:
            if self.nnodes != 1:
                raise _LaunchError("--standalone is a single-node job: --nnodes must be 1")
            self.node_rank = 0
        if not 0 <= self.node_rank < self.nnodes:
            raise _LaunchError(f"--node-rank {self.node_rank} is out of range for --nnodes "
                               f"{self.nnodes}")
        if self.max_restarts < 0:
            raise _LaunchError(f"--max-restarts must be >= 0, got {self.max_restarts}")
        if self.max_restarts > 0 and self.nnodes > 1:
            raise _LaunchError("--max-restarts on several nodes needs torchrun's elastic "
                               "rendezvous, which ember does not have (restarts work on one node)")
        if self.monitor_interval <= 0:
            raise _LaunchError(f"--monitor-interval must be positive, got {self.monitor_interval}")
        uses_rdzv = args.rdzv_endpoint or args.rdzv_backend not in ("static", "c10d")
        if uses_rdzv and self.nnodes > 1:
            raise _LaunchError("the --rdzv-* options are supported on a single node only; on "
                               "several nodes give --master-addr, --master-port and --node-rank")
        if args.rdzv_backend not in ("static", "c10d"):
            raise _LaunchError(f"--rdzv-backend {args.rdzv_backend!r} is not supported (static, c10d)")
        addr, port = args.master_addr, args.master_port
        if args.rdzv_endpoint:
            host, _, port_text = args.rdzv_endpoint.rpartition(":") if ":" in args.rdzv_endpoint \
                else (args.rdzv_endpoint, "", "")
            addr = addr or host or None
            if port_text:
                try:
                    port = port if port is not None else int(port_text)
                except ValueError:
                    raise _LaunchError(f"--rdzv-endpoint {args.rdzv_endpoint!r}: the port is not "
                                       "a number") from None
        if args.standalone:
            addr = addr or "127.0.0.1"
        self.master_addr = addr or "127.0.0.1"
        self.fixed_port = port
        if port is not None and not 0 < port < 65536:
            raise _LaunchError(f"--master-port {port} is out of range")
        if self.nnodes > 1 and port is None:
            self.fixed_port = 29500  # every node must name the same port: torchrun's default
        self.module = args.module
        self.no_python = args.no_python
        self.run_path = args.run_path
        if self.module and self.no_python:
            raise _LaunchError("--no-python and --module (-m) cannot be used together")
        self.script = args.training_script
        self.script_args = list(args.training_script_args)
        # ember.distributed.launch without --use-env: the script gets --local-rank=N.
        self.pass_local_rank_arg = not getattr(args, "use_env", True)

    @property
    def world_size(self):
        return self.nnodes * self.nproc_per_node

    def port_for_attempt(self):
        if self.fixed_port is not None:
            return self.fixed_port
        return _free_port(self.master_addr)

    def command(self, local_rank):
        script_args = list(self.script_args)
        if self.pass_local_rank_arg:
            script_args = [f"--local-rank={local_rank}"] + script_args
        if self.no_python:
            return [self.script] + script_args
        if self.module:
            return [sys.executable, "-u", "-m", self.script] + script_args
        if self.run_path:
            code = ("import runpy, sys; sys.argv = sys.argv[1:]; "
                    "runpy.run_path(sys.argv[0], run_name='__main__')")
            return [sys.executable, "-u", "-c", code, self.script] + script_args
        return [sys.executable, "-u", self.script] + script_args


def worker_environment(config, local_rank, port, restart_count):
    env = dict(os.environ)
    rank = config.node_rank * config.nproc_per_node + local_rank
    env.update(
        RANK=str(rank), LOCAL_RANK=str(local_rank), WORLD_SIZE=str(config.world_size),
        LOCAL_WORLD_SIZE=str(config.nproc_per_node), GROUP_RANK=str(config.node_rank),
        GROUP_WORLD_SIZE=str(config.nnodes), ROLE_RANK=str(rank), ROLE_NAME="default",
        ROLE_WORLD_SIZE=str(config.world_size), MASTER_ADDR=config.master_addr,
        MASTER_PORT=str(port), TORCHELASTIC_RUN_ID=config.run_id,
        TORCHELASTIC_RESTART_COUNT=str(restart_count),
        TORCHELASTIC_MAX_RESTARTS=str(config.max_restarts),
    )
    # Several workers sharing the cores would oversubscribe them, as torchrun warns.
    if config.nproc_per_node > 1 and "OMP_NUM_THREADS" not in os.environ:
        env["OMP_NUM_THREADS"] = "1"
    return env


class _Workers:
    """The local worker processes of one attempt."""

    def __init__(self, config, port, restart_count):
        self.config = config
        self.procs = []
        try:
            for local_rank in range(config.nproc_per_node):
                env = worker_environment(config, local_rank, port, restart_count)
                # Its own session: stopping a worker stops what it started (DataLoader workers).
                self.procs.append(subprocess.Popen(config.command(local_rank), env=env,
                                                   start_new_session=True))
        except BaseException:
            self.stop()  # the workers started so far: none is left behind
            raise

    def global_rank(self, local_rank):
        return self.config.node_rank * self.config.nproc_per_node + local_rank

    def first_failure(self):
        """(local_rank, returncode) of a worker that failed, or None; the ranks that finished
        successfully are left alone."""
        for local_rank, p in enumerate(self.procs):
            code = p.poll()
            if code is not None and code != 0:
                return local_rank, code
        return None

    def all_succeeded(self):
        return all(p.poll() == 0 for p in self.procs)

    def signal_all(self, signum):
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signum)
                except (ProcessLookupError, PermissionError):
                    pass

    def stop(self, signum=signal.SIGTERM):
        self.signal_all(signum)
        deadline = time.monotonic() + _GRACE_SECONDS
        for p in self.procs:
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        self.signal_all(signal.SIGKILL)
        for p in self.procs:
            p.wait()


class _SignalReceived(Exception):
    def __init__(self, signum):
        super().__init__(f"the launcher received signal {signum}")
        self.signum = signum


def _describe_exit(code):
    if code < 0:
        try:
            return f"signal {-code} ({signal.Signals(-code).name})"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


def _exit_status(code):
    return 128 - code if code < 0 else code


def _log(message):
    print(f"[ember.distributed.run] {message}", file=sys.stderr, flush=True)


def launch(config):
    """Runs the job; returns the launcher's exit status."""
    def on_signal(signum, _frame):
        raise _SignalReceived(signum)

    forwarded = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
    previous = {s: signal.signal(s, on_signal) for s in forwarded}
    workers = None
    try:
        for attempt in range(config.max_restarts + 1):
            port = config.port_for_attempt()
            try:
                workers = _Workers(config, port, attempt)
            except OSError as e:  # --no-python with a program that is not there, ...
                _log(f"could not start the workers: {e}")
                return 1
            failure = None
            while failure is None and not workers.all_succeeded():
                time.sleep(config.monitor_interval)
                failure = workers.first_failure()
            if failure is None:
                return 0
            local_rank, code = failure
            rank = workers.global_rank(local_rank)
            _log(f"worker rank {rank} (local rank {local_rank}, pid {workers.procs[local_rank].pid}) "
                 f"failed with {_describe_exit(code)}; stopping the other workers")
            workers.stop()
            workers = None
            if attempt < config.max_restarts:
                _log(f"restarting the workers ({attempt + 1} of {config.max_restarts} restarts)")
                continue
            _log(f"job failed: rank {rank} exited with {_describe_exit(code)} "
                 "(its traceback, if any, is above)")
            return _exit_status(code)
        return 1  # not reached
    except _SignalReceived as received:
        if workers is not None:
            _log(f"received signal {received.signum}; passing it on to the workers")
            workers.stop(received.signum)
        return 128 + received.signum
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def run(args):
    """Runs a parsed command line (torch.distributed.run.run)."""
    try:
        config = LaunchConfig(args)
    except _LaunchError as e:
        raise ValueError(str(e)) from None
    return launch(config)


def main(argv=None, prog="python -m ember.distributed.run", parser=None):
    parser = parser or get_args_parser(prog)
    args = parser.parse_args(argv)
    try:
        config = LaunchConfig(args)
    except _LaunchError as e:
        parser.error(str(e))
    sys.exit(launch(config))


if __name__ == "__main__":
    main()
