"""DistributedDataParallel, DistributedSampler and SyncBatchNorm (the launcher: test_distributed_launcher.py).

DDP runs in real processes (a world of 2 on loopback, spawned; some through the
launcher itself) and is checked against single-process training on the concatenated
batch, in float64 to a tight tolerance: the same parameters after several SGD and
AdamW steps with one bucket, with many buckets and with gradient_as_bucket_view;
no_sync accumulation; find_unused_parameters; buffers broadcast from rank 0; and the
errors (an unused parameter without find_unused_parameters, ranks that disagree on the
parameter list). DistributedSampler is compared with torch's. Every multi-process job
is bounded by a timeout, so a hang fails instead of stalling the run.
"""
import copy
import os
import traceback
from datetime import timedelta

import numpy as np
import pytest

from _spawn_job import free_port, run_processes

import ember
import ember.distributed as dist
from ember.nn.parallel import DistributedDataParallel as DDP
from ember.nn.parallel.distributed import (_DEFAULT_FIRST_BUCKET_BYTES,
                                           _compute_bucket_assignment_by_size)
from ember.utils.data.distributed import DistributedSampler

needs_gloo = pytest.mark.skipif(not dist.is_gloo_available(), reason="ember was built without Gloo")

JOB_TIMEOUT = 60  # seconds for one multi-process job
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON_DIR = os.path.join(REPO, "python")


_free_port = free_port


def _entry(scenario, rank, world, port, results):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(world))
    try:
        dist.init_process_group("gloo", timeout=timedelta(seconds=30))
        errors = scenario(rank, world)
        dist.destroy_process_group()
    except BaseException:  # noqa: BLE001 - reported to the parent
        errors = [f"rank {rank} raised:\n{traceback.format_exc()}"]
    results.put((rank, errors))


def run_job(scenario, world=2, timeout=JOB_TIMEOUT):
    """Runs scenario(rank, world) in `world` spawned processes with the default group
    initialized; fails on any rank's errors, a crash, or a job that outlives timeout."""
    port = _free_port()
    run_processes(_entry, lambda r: (scenario, r, world, port), world, timeout)


class _Checker:
    def __init__(self, rank):
        self.rank = rank
        self.errors = []

    def close(self, name, got, want, tol=1e-11):
        got = got.detach().numpy() if isinstance(got, ember.Tensor) else np.asarray(got)
        want = want.detach().numpy() if isinstance(want, ember.Tensor) else np.asarray(want)
        if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
            self.errors.append(f"rank {self.rank} {name}: got\n{got}\nwant\n{want}")

    def true(self, name, cond):
        if not cond:
            self.errors.append(f"rank {self.rank} {name}: check failed")

    def raises(self, name, exc_type, match, fn):
        try:
            fn()
        except exc_type as e:
            if match not in str(e):
                self.errors.append(f"rank {self.rank} {name}: message {str(e)!r} lacks {match!r}")
            return
        except BaseException as e:  # noqa: BLE001
            self.errors.append(f"rank {self.rank} {name}: raised {type(e).__name__}: {e}, "
                               f"want {exc_type.__name__}")
            return
        self.errors.append(f"rank {self.rank} {name}: did not raise {exc_type.__name__}")


# ---- the models and data every rank can build for every other rank -----------------------

def _mlp(seed):
    ember.manual_seed(seed)
    return ember.nn.Sequential(ember.nn.Linear(5, 16), ember.nn.Tanh(), ember.nn.Linear(16, 8),
                               ember.nn.Tanh(), ember.nn.Linear(8, 3)).double()


def _batch(rank, step, size=4):
    rng = np.random.default_rng(100 * step + rank)
    x = ember.from_numpy(rng.standard_normal((size, 5)))
    y = ember.from_numpy(rng.standard_normal((size, 3)))
    return x, y


def _both_batches(world, step, size=4):
    xs, ys = zip(*(_batch(r, step, size) for r in range(world)))
    return ember.cat(xs), ember.cat(ys)


def _optimizer(kind, params):
    if kind == "sgd":
        return ember.optim.SGD(params, lr=0.1, momentum=0.9)
    return ember.optim.AdamW(params, lr=0.01, weight_decay=0.1)


def _gather(value):
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, value)
    return out


# ---- training equals single-process training on the concatenated batch -------------------

def _scenario_training(rank, world):
    check = _Checker(rank)
    steps = 4
    configs = [("sgd", {}), ("sgd", {"bucket_cap_mb": 0.0002}),
               ("sgd", {"gradient_as_bucket_view": True, "bucket_cap_mb": 0.0002}),
               ("adamw", {"bucket_cap_mb": 0.0005}), ("adamw", {"gradient_as_bucket_view": True})]
    for kind, options in configs:
        name = f"{kind} {options}"
        model = _mlp(seed=rank)  # different on each rank: DDP broadcasts rank 0's
        reference = _mlp(seed=0)
        ddp = DDP(model, **options)
        for p, q in zip(model.parameters(), reference.parameters()):
            check.close(f"{name} broadcast at construction", p, q, tol=0)
        if "bucket_cap_mb" in options:
            check.true(f"{name} several buckets", len(ddp.reducer.buckets) > 1)
        opt, ref_opt = _optimizer(kind, model.parameters()), _optimizer(kind, reference.parameters())
        for step in range(steps):
            x, y = _batch(rank, step)
            opt.zero_grad()
            ember.nn.functional.mse_loss(ddp(x), y).backward()
            opt.step()
            bx, by = _both_batches(world, step)
            ref_opt.zero_grad()
            ember.nn.functional.mse_loss(reference(bx), by).backward()
            ref_opt.step()
        for (n, p), q in zip(model.named_parameters(), reference.parameters()):
            check.close(f"{name} {n} after {steps} steps", p, q)
        if options.get("gradient_as_bucket_view"):
            for i, p in enumerate(ddp._params):
                view = ddp.reducer.bucket_of[i].views[i]
                check.true(f"{name} grad {i} is its bucket view", p.grad.data_ptr() == view.data_ptr())
        check.true(f"{name} state_dict keys", all(k.startswith("module.") for k in ddp.state_dict()))
        check.true(f"{name} module", ddp.module is model)

    # A small CNN for 20 steps.
    def cnn(seed):
        ember.manual_seed(seed)
        return ember.nn.Sequential(ember.nn.Conv2d(1, 4, 3), ember.nn.ReLU(), ember.nn.MaxPool2d(2),
                                   ember.nn.Flatten(), ember.nn.Linear(4 * 3 * 3, 3)).double()

    def images(r, step):
        rng = np.random.default_rng(1000 + 10 * step + r)
        return (ember.from_numpy(rng.standard_normal((4, 1, 8, 8))),
                ember.from_numpy(rng.integers(0, 3, 4)))

    model, reference = cnn(rank), cnn(0)
    ddp = DDP(model, bucket_cap_mb=0.0005)
    opt, ref_opt = _optimizer("sgd", model.parameters()), _optimizer("sgd", reference.parameters())
    for step in range(20):
        x, y = images(rank, step)
        opt.zero_grad()
        ember.nn.functional.cross_entropy(ddp(x), y).backward()
        opt.step()
        xs, ys = zip(*(images(r, step) for r in range(world)))
        ref_opt.zero_grad()
        ember.nn.functional.cross_entropy(reference(ember.cat(xs)), ember.cat(ys)).backward()
        ref_opt.step()
    for (n, p), q in zip(model.named_parameters(), reference.parameters()):
        check.close(f"CNN {n} after 20 steps", p, q, tol=1e-10)

    # no_sync: two micro-batches accumulated locally, the third synchronized.
    model, reference = _mlp(seed=rank), _mlp(seed=0)
    ddp = DDP(model, bucket_cap_mb=0.0002)
    for micro in range(3):
        x, y = _batch(rank, 10 + micro)
        if micro < 2:
            with ddp.no_sync():
                ember.nn.functional.mse_loss(ddp(x), y).backward()
            if micro == 1:
                local = [p.grad.clone() for p in model.parameters()]
                theirs = _gather([g.numpy() for g in local])
                check.true("no_sync leaves the gradients local",
                           any(not np.allclose(a, b) for a, b in zip(theirs[0], theirs[1])))
        else:
            ember.nn.functional.mse_loss(ddp(x), y).backward()
        bx, by = _both_batches(world, 10 + micro)
        ember.nn.functional.mse_loss(reference(bx), by).backward()
    for (n, p), q in zip(model.named_parameters(), reference.parameters()):
        check.close(f"no_sync accumulated grad {n}", p.grad, q.grad)
    return check.errors


@needs_gloo
def test_ddp_training_matches_single_process():
    run_job(_scenario_training)


# ---- unused parameters, buffers and the errors ------------------------------------------

class _Branches(ember.nn.Module):
    """a always; b only when asked; c never."""

    def __init__(self):
        super().__init__()
        self.a = ember.nn.Linear(4, 3)
        self.b = ember.nn.Linear(4, 3)
        self.c = ember.nn.Linear(4, 3)

    def forward(self, x, use_b):
        out = self.a(x)
        return out + self.b(x) if use_b else out


class _WithNorm(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = ember.nn.Linear(4, 4)
        self.norm = ember.nn.BatchNorm1d(4)

    def forward(self, x):
        return self.norm(self.lin(x))


def _branch_loss(model, rank, step):
    x, y = _batch(rank, step)
    return ember.nn.functional.mse_loss(model(x[:, :4], use_b=rank == 0), y)


def _scenario_unused_and_buffers(rank, world):
    check = _Checker(rank)
    dtype = ember.float64

    # find_unused_parameters: b is used on rank 0 only, c nowhere.
    ember.manual_seed(0)
    model = _Branches().to(dtype)
    reference = copy.deepcopy(model)
    ddp = DDP(model, find_unused_parameters=True, bucket_cap_mb=0.00005)
    for step in range(2):
        model.zero_grad()
        _branch_loss(ddp, rank, step).backward()
        reference.zero_grad()
        sum(_branch_loss(reference, r, step) for r in range(world)).div(world).backward()
        for n, p in model.named_parameters():
            q = dict(reference.named_parameters())[n]
            if n.startswith("c."):
                check.true(f"find_unused: {n}.grad of a parameter no rank used stays None",
                           p.grad is None)
            else:
                check.close(f"find_unused step {step}: {n}.grad", p.grad, q.grad)

    # Without find_unused_parameters, an unused parameter stops the reduction: the next
    # forward says so (torch's error).
    ember.manual_seed(0)
    model = _Branches().to(dtype)
    ddp = DDP(model)
    _branch_loss(ddp, 1, 0).backward()  # b and c unused on every rank
    check.raises("unused parameter without find_unused_parameters", RuntimeError,
                 "Expected to have finished reduction in the prior iteration",
                 lambda: ddp(ember.zeros(2, 4, dtype=dtype), use_b=False))

    # Ranks that disagree on the parameter list: RuntimeError on every rank.
    ember.manual_seed(0)
    wrong_shape = ember.nn.Linear(4, 3 if rank == 0 else 2)
    check.raises("parameter shapes differ", RuntimeError, "DDP expects same model",
                 lambda: DDP(wrong_shape))
    layers = [ember.nn.Linear(4, 4) for _ in range(1 if rank == 0 else 2)]
    check.raises("parameter counts differ", RuntimeError, "inconsistent",
                 lambda: DDP(ember.nn.Sequential(*layers)))
    wrong_dtype = ember.nn.Linear(4, 3).to(ember.float32 if rank == 0 else ember.float64)
    check.raises("parameter dtypes differ", RuntimeError, "DDP expects same model",
                 lambda: DDP(wrong_dtype))
    # The group still works after those errors.
    t = ember.ones(3) * (rank + 1)
    dist.all_reduce(t)
    check.close("all_reduce after the errors", t, np.full(3, 3.0))

    # Buffers: rank 0's at construction and before every forward (broadcast_buffers).
    for broadcast in (True, False):
        ember.manual_seed(0)
        model = _WithNorm().to(dtype)
        with ember.no_grad():
            model.norm.running_mean.fill_(float(rank))
        seen = []
        model.register_forward_pre_hook(
            lambda m, args: seen.append(m.norm.running_mean.clone().numpy()))
        ddp = DDP(model, broadcast_buffers=broadcast)
        for step in range(3):
            x, _ = _batch(rank, step)
            ddp(x[:, :4]).sum().backward()
        everyone = _gather(seen)
        same = [np.array_equal(a, b) for a, b in zip(everyone[0], everyone[1])]
        if broadcast:
            check.true("buffers equal on every rank before each forward", all(same))
        else:
            check.true("broadcast_buffers=False leaves the buffers local", not any(same))
        # Parameters stay in sync either way.
        params = _gather([p.detach().numpy() for p in model.parameters()])
        check.true(f"parameters in sync (broadcast_buffers={broadcast})",
                   all(np.allclose(a, b, rtol=1e-12, atol=1e-12)
                       for a, b in zip(params[0], params[1])))
    return check.errors


@needs_gloo
def test_ddp_unused_parameters_buffers_and_errors():
    run_job(_scenario_unused_and_buffers)


# ---- join(): uneven inputs ---------------------------------------------------------------

def _scenario_join(rank, world):
    check = _Checker(rank)
    batches = 2 if rank == 0 else 4  # rank 0 runs out first
    for divide_by_initial in (True, False):
        name = f"join(divide_by_initial_world_size={divide_by_initial})"
        model, reference = _mlp(seed=rank), _mlp(seed=0)
        ddp = DDP(model, bucket_cap_mb=0.0002)
        opt = ember.optim.SGD(model.parameters(), lr=0.1)
        ref_opt = ember.optim.SGD(reference.parameters(), lr=0.1)
        with ddp.join(divide_by_initial_world_size=divide_by_initial):
            for step in range(batches):
                x, y = _batch(rank, step)
                opt.zero_grad()
                ember.nn.functional.mse_loss(ddp(x), y).backward()
                opt.step()
        for step in range(4):
            ref_opt.zero_grad()
            if step < 2:
                bx, by = _both_batches(world, step)
                loss = ember.nn.functional.mse_loss(reference(bx), by)
            else:  # rank 1 alone: its gradient over the initial world size, or over 1
                x, y = _batch(1, step)
                loss = ember.nn.functional.mse_loss(reference(x), y) / (world if divide_by_initial else 1)
            loss.backward()
            ref_opt.step()
        for (n, p), q in zip(model.named_parameters(), reference.parameters()):
            check.close(f"{name} {n}", p, q)

    # With buffers: the ranks still training broadcast theirs; at the end everyone has the
    # state of a rank that joined last.
    ember.manual_seed(rank)
    model = _WithNorm().to(ember.float64)
    ddp = DDP(model, find_unused_parameters=True)
    with ddp.join():
        for step in range(batches):
            x, _ = _batch(rank, step)
            ddp(x[:, :4]).sum().backward()
    states = _gather({k: v.numpy() for k, v in model.state_dict().items()})
    check.true("join with buffers: same state everywhere",
               all(np.array_equal(states[0][k], states[1][k]) for k in states[0]))

    model = _mlp(seed=0)
    ddp = DDP(model)

    def early_termination():
        with ddp.join(throw_on_early_termination=True):
            for step in range(batches):
                x, y = _batch(rank, step)
                ember.nn.functional.mse_loss(ddp(x), y).backward()
    check.raises("join(throw_on_early_termination=True)", RuntimeError, "exhausted",
                 early_termination)
    t = ember.ones(2)
    dist.all_reduce(t)
    check.close("all_reduce after join", t, np.full(2, 2.0))
    return check.errors


@needs_gloo
def test_ddp_join_uneven_inputs():
    run_job(_scenario_join)


# ---- SyncBatchNorm: statistics over every rank's batch -----------------------------------

def _bn_model(seed, sync):
    ember.manual_seed(seed)
    model = ember.nn.Sequential(ember.nn.Conv1d(3, 4, 3), ember.nn.BatchNorm1d(4), ember.nn.ReLU(),
                                ember.nn.Flatten(), ember.nn.Linear(4 * 6, 2)).double()
    return ember.nn.SyncBatchNorm.convert_sync_batchnorm(model) if sync else model


def _bn_batch(rank, step, size=3):
    rng = np.random.default_rng(7 * step + rank)
    return (ember.from_numpy(rng.standard_normal((size, 3, 8))),
            ember.from_numpy(rng.standard_normal((size, 2))))


def _scenario_sync_batchnorm(rank, world):
    check = _Checker(rank)
    model = _bn_model(seed=rank, sync=True)
    check.true("converted", isinstance(model[1], ember.nn.SyncBatchNorm))
    reference = _bn_model(seed=0, sync=False)
    ddp = DDP(model)
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = ember.optim.SGD(reference.parameters(), lr=0.1)
    for step in range(3):
        x, y = _bn_batch(rank, step)
        opt.zero_grad()
        out = ddp(x)
        ember.nn.functional.mse_loss(out, y).backward()
        opt.step()
        xs, ys = zip(*(_bn_batch(r, step) for r in range(world)))
        ref_opt.zero_grad()
        ref_out = reference(ember.cat(xs))
        ember.nn.functional.mse_loss(ref_out, ember.cat(ys)).backward()
        ref_opt.step()
        check.close(f"SyncBatchNorm output step {step}", out, ref_out[3 * rank:3 * rank + 3])
    for (n, p), q in zip(model.named_parameters(), reference.parameters()):
        check.close(f"SyncBatchNorm training {n}", p, q)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        check.close(f"SyncBatchNorm {name}", getattr(model[1], name), getattr(reference[1], name))
    model.eval()
    x, _ = _bn_batch(rank, 9)
    check.close("SyncBatchNorm eval is BatchNorm with the running statistics", model(x),
                reference.eval()(x))
    return check.errors


@needs_gloo
def test_sync_batchnorm_matches_batchnorm_on_the_whole_batch():
    run_job(_scenario_sync_batchnorm)


def test_sync_batchnorm_without_a_group_is_batchnorm():
    assert not dist.is_initialized()
    ember.manual_seed(0)
    bn = ember.nn.BatchNorm2d(3).double()
    sync = ember.nn.SyncBatchNorm.convert_sync_batchnorm(copy.deepcopy(bn))
    assert type(sync) is ember.nn.SyncBatchNorm and sync.process_group is None
    x = ember.randn(4, 3, 2, 2, dtype=ember.float64)
    np.testing.assert_allclose(sync(x).detach().numpy(), bn(x).detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(sync.running_var.numpy(), bn.running_var.numpy(), rtol=1e-13)
    with pytest.raises(ValueError, match="expected at least 2D input"):
        sync(ember.randn(3, dtype=ember.float64))
    with pytest.raises(ValueError, match="number of input channels should be non-zero"):
        ember.nn.SyncBatchNorm(0)(ember.randn(2, 0))


def test_sync_batchnorm_matches_torch_conversion():
    torch = pytest.importorskip("torch")
    tmodel = torch.nn.SyncBatchNorm.convert_sync_batchnorm(
        torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3, momentum=None)))
    model = ember.nn.SyncBatchNorm.convert_sync_batchnorm(
        ember.nn.Sequential(ember.nn.Linear(2, 3), ember.nn.BatchNorm1d(3, momentum=None)))
    assert list(model.state_dict()) == list(tmodel.state_dict())
    assert model[1].momentum is None and repr(model[1]) == repr(tmodel[1])


# ---- in one process: a world of 1, argument checks, bucket assignment ------------------

@pytest.fixture
def world_of_one():
    if not dist.is_gloo_available():
        pytest.skip("ember was built without Gloo")
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        yield
    finally:
        dist.destroy_process_group()


def test_ddp_needs_a_process_group():
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DDP(ember.nn.Linear(2, 2))


def test_ddp_bad_arguments(world_of_one):
    frozen = ember.nn.Linear(2, 2)
    for p in frozen.parameters():
        p.requires_grad_(False)
    with pytest.raises(RuntimeError, match="doesn't have any parameter that requires a gradient"):
        DDP(frozen)
    with pytest.raises(ValueError, match="device_ids and output_device arguments only work"):
        DDP(ember.nn.Linear(2, 2), device_ids=[0])
    with pytest.raises(ValueError, match="device_ids can only be None or contain a single element"):
        DDP(ember.nn.Linear(2, 2), device_ids=[0, 1])
    with pytest.raises(TypeError, match="expects an ember.nn.Module"):
        DDP(lambda x: x)
    with pytest.raises(ValueError, match="bucket_cap_mb must be positive"):
        DDP(ember.nn.Linear(2, 2), bucket_cap_mb=0)


def test_ddp_world_of_one_is_plain_training(world_of_one):
    model, reference = _mlp(seed=3), _mlp(seed=3)
    ddp = DDP(model, bucket_cap_mb=0.0002)
    opt, ref_opt = _optimizer("sgd", model.parameters()), _optimizer("sgd", reference.parameters())
    for step in range(3):
        x, y = _batch(0, step)
        opt.zero_grad()
        ember.nn.functional.mse_loss(ddp(x), y).backward()
        opt.step()
        ref_opt.zero_grad()
        ember.nn.functional.mse_loss(reference(x), y).backward()
        ref_opt.step()
    for p, q in zip(model.parameters(), reference.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-13, atol=1e-13)
    assert list(ddp.state_dict()) == ["module." + k for k in reference.state_dict()]
    # A second backward through the same graph is local: DDP ignores its hooks.
    x, y = _batch(0, 9)
    loss = ember.nn.functional.mse_loss(ddp(x), y)
    loss.backward(retain_graph=True)
    loss.backward()
    # Under no_grad nothing is expected of backward: a forward may follow a forward.
    with ember.no_grad():
        ddp(x)
        ddp(x)


def test_ddp_buckets_reverse_registration_order(world_of_one):
    # Three 1000-element float32 tensors (4000 bytes each): a 5000-byte cap closes a
    # bucket every two tensors; the walk starts from the last registered parameter.
    model = ember.nn.Sequential(*[ember.nn.Linear(1000, 1, bias=False) for _ in range(3)])
    ddp = DDP(model, bucket_cap_mb=5000 / (1024 * 1024))
    assert ddp._get_bucket_indices() == [[2, 1], [0]]
    assert ddp.bucket_bytes_cap == 5000
    # The default: one bucket of 1 MiB first, then 25 MiB ones.
    assert DDP(model).bucket_bytes_cap == 25 * 1024 * 1024


def test_ddp_launches_buckets_during_backward(world_of_one):
    # The first layer's weight is the last gradient backward makes; when it arrives, the
    # buckets of the later layers are already being all-reduced (overlap with backward).
    model = ember.nn.Sequential(*[ember.nn.Linear(8, 8) for _ in range(4)])
    launched = []
    model[0].weight.register_post_accumulate_grad_hook(
        lambda p: launched.append([b.work is not None for b in ddp.reducer.buckets]))
    ddp = DDP(model, bucket_cap_mb=300 / (1024 * 1024))
    assert len(ddp.reducer.buckets) == 3
    ddp(ember.randn(2, 8)).sum().backward()
    assert launched and all(launched[0][:-1]) and not launched[0][-1]
    assert all(b.work is None for b in ddp.reducer.buckets)  # waited for and released


def test_bucket_assignment_by_size():
    tensors = [ember.zeros(300_000), ember.zeros(10), ember.zeros(300_000),  # 1.2 MB float32
               ember.zeros(5, dtype=ember.float64), ember.zeros(100_000)]
    buckets = _compute_bucket_assignment_by_size(tensors, [_DEFAULT_FIRST_BUCKET_BYTES, 2_000_000])
    # float32: tensor 0 alone passes 1 MiB and closes the first bucket; 1, 2 and 4 stay
    # under the 2 MB of the next one; the float64 tensor has its own bucket.
    assert buckets == [[0], [1, 2, 4], [3]]
    small_cap = _compute_bucket_assignment_by_size(tensors, [400_000])
    assert small_cap == [[0], [1, 2], [4], [3]]
    assert sorted(i for b in buckets for i in b) == list(range(5))


# ---- DistributedSampler ------------------------------------------------------------------

@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (9, 3, False),
                                                   (2, 4, False), (7, 2, True), (1, 5, False),
                                                   (0, 2, False), (12, 4, True)])
def test_distributed_sampler_without_shuffle_equals_torch(n, replicas, drop_last):
    torch = pytest.importorskip("torch")
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    for rank in range(replicas):
        ours = DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs) == len(list(ours))
        assert (ours.num_samples, ours.total_size) == (theirs.num_samples, theirs.total_size)
    del torch


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (8, 2, False),
                                                   (3, 5, False), (11, 4, True)])
def test_distributed_sampler_shuffle_properties(n, replicas, drop_last):
    def shares(epoch, seed=0):
        out = []
        for rank in range(replicas):
            s = DistributedSampler(list(range(n)), replicas, rank, shuffle=True, seed=seed,
                                   drop_last=drop_last)
            s.set_epoch(epoch)
            out.append(list(s))
        return out

    first = shares(0)
    assert first == shares(0)  # deterministic for a seed and epoch
    assert all(len(s) == len(first[0]) for s in first)
    # Interleaving the ranks' shares gives back the padded (or cut) permutation.
    total = [first[r][i] for i in range(len(first[0])) for r in range(replicas)]
    g = ember.Generator()
    g.manual_seed(0)
    perm = ember.randperm(n, generator=g).tolist()
    if drop_last:
        assert total == perm[:len(total)]
        assert len(set(total)) == len(total)  # disjoint
        assert len(total) == (n // replicas) * replicas
    else:
        pad = len(total) - n
        assert total[:n] == perm and sorted(perm) == list(range(n))  # covering
        assert total[n:] == (perm * (pad // max(n, 1) + 1))[:pad]  # torch's padding rule
    if n > 3:
        assert shares(1) != first  # a new order each epoch
        assert shares(0, seed=5) != first


def test_distributed_sampler_bad_arguments():
    with pytest.raises(ValueError, match="Invalid rank 3"):
        DistributedSampler(range(4), num_replicas=3, rank=3)
    with pytest.raises(ValueError, match="Invalid rank -1"):
        DistributedSampler(range(4), num_replicas=3, rank=-1)
    with pytest.raises(ValueError, match="num_replicas"):
        DistributedSampler(range(4), num_replicas=0, rank=0)
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))


def test_distributed_sampler_reads_the_group(world_of_one):
    s = DistributedSampler(range(5), shuffle=False)
    assert (s.num_replicas, s.rank, list(s)) == (1, 0, [0, 1, 2, 3, 4])
    assert isinstance(s, ember.utils.data.Sampler)
    loader = ember.utils.data.DataLoader(list(range(5)), batch_size=2, sampler=s)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3], [4]]
