"""DDP communication hooks (DistributedDataParallel.register_comm_hook and the built-in
hooks of ember.distributed.algorithms.ddp_comm_hooks) in a world of 2 spawned processes,
and ember.futures, which the hooks return."""
import numpy as np
import pytest

import ember
import ember.distributed as dist
from ember.distributed.algorithms.ddp_comm_hooks import DDPCommHookType, debugging_hooks, default_hooks
from ember.nn.parallel import DistributedDataParallel as DDP
from test_distributed_ddp import _batch, _Checker, _mlp, needs_gloo, run_job


def _train(model, rank, steps=3):
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        x, y = _batch(rank, step)
        opt.zero_grad()
        ember.nn.functional.mse_loss(model(x), y).backward()
        opt.step()


def _grads(model):
    return [p.grad.detach().clone() for p in model.parameters()]


def _one_backward(model, rank):
    x, y = _batch(rank, 0)
    ember.nn.functional.mse_loss(model(x), y).backward()
    return _grads(model)


def _scenario_hooks(rank, world):
    check = _Checker(rank)
    # allreduce_hook trains exactly as the default reduction (both average then sum).
    plain = DDP(_mlp(seed=0), bucket_cap_mb=0.0002)
    hooked = DDP(_mlp(seed=0), bucket_cap_mb=0.0002)
    hooked.register_comm_hook(None, default_hooks.allreduce_hook)
    _train(plain, rank)
    _train(hooked, rank)
    for (name, p), q in zip(plain.named_parameters(), hooked.parameters()):
        check.close(f"allreduce_hook {name}", q, p, tol=1e-13)
    # The compressing hooks: the average rounded through float16 / bfloat16.
    reference = _one_backward(DDP(_mlp(seed=0)), rank)
    for hook, dtype, tol in ((default_hooks.fp16_compress_hook, ember.float16, 2e-3),
                             (default_hooks.bf16_compress_hook, ember.bfloat16, 2e-2)):
        model = DDP(_mlp(seed=0))
        model.register_comm_hook(None, hook)
        for g, want in zip(_one_backward(model, rank), reference):
            check.close(f"{hook.__name__} values", g, want, tol=tol)
            check.true(f"{hook.__name__} rounded", ember.equal(g, g.to(dtype).to(g.dtype)))
    # The built-in registration, and the bucket as a hook sees it.
    model = DDP(_mlp(seed=0))
    model._register_builtin_comm_hook(DDPCommHookType.ALLREDUCE)
    for g, want in zip(_one_backward(model, rank), reference):
        check.close("builtin ALLREDUCE", g, want, tol=1e-13)
    seen = []

    def spy(state, bucket):
        seen.append((state, bucket.index(), bucket.is_last(), len(bucket.parameters()),
                     sum(g.numel() for g in bucket.gradients()) == bucket.buffer().numel()))
        return default_hooks.allreduce_hook(None, bucket)

    model = DDP(_mlp(seed=0), bucket_cap_mb=0.0002)
    model.register_comm_hook("state", spy)
    for g, want in zip(_one_backward(model, rank), reference):
        check.close("spy hook", g, want, tol=1e-13)
    check.true("bucket indices", [s[1] for s in seen] == list(range(len(seen))) and len(seen) > 1)
    check.true("is_last", [s[2] for s in seen] == [False] * (len(seen) - 1) + [True])
    check.true("state and views", all(s[0] == "state" and s[4] for s in seen))
    # noop_hook: no communication, the local average's numerator.
    model = DDP(_mlp(seed=0))
    model.register_comm_hook(None, debugging_hooks.noop_hook)
    local = _one_backward(_mlp(seed=0), rank)
    for g, want in zip(_one_backward(model, rank), local):
        check.close("noop_hook", g, want, tol=1e-13)
    # Bad registrations and a hook that returns no future.
    model = DDP(_mlp(seed=0))
    check.raises("not callable", TypeError, "callable", lambda: model.register_comm_hook(None, 3))
    check.raises("arity", ValueError, "two arguments",
                 lambda: model.register_comm_hook(None, lambda bucket: bucket))
    model.register_comm_hook(None, default_hooks.allreduce_hook)
    check.raises("twice", RuntimeError, "only be called once",
                 lambda: model.register_comm_hook(None, default_hooks.allreduce_hook))
    bad = DDP(_mlp(seed=0))
    bad.register_comm_hook(None, lambda state, bucket: bucket.buffer())
    check.raises("no future", RuntimeError, "Future", lambda: _one_backward(bad, rank))
    return check.errors


@needs_gloo
def test_comm_hooks():
    run_job(_scenario_hooks)


def test_futures_chain_collect_and_errors():
    f = ember.futures.Future()
    doubled = f.then(lambda fut: fut.value() * 2)
    assert not f.done() and not doubled.done()
    f.set_result(21)
    assert doubled.wait() == 42 and doubled.done() and f.value() == 21
    with pytest.raises(RuntimeError, match="completed once"):
        f.set_result(1)
    failing = f.then(lambda fut: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failing.wait()
    g = ember.futures.Future()
    both = ember.futures.collect_all([f, g])
    assert not both.done()
    g.set_exception(ValueError("bad"))
    assert both.wait() == [f, g]
    with pytest.raises(ValueError, match="bad"):
        ember.futures.wait_all([f, g])
    with pytest.raises(RuntimeError, match="not completed"):
        ember.futures.Future().value()
    calls = []
    h = ember.futures.Future()
    h.add_done_callback(lambda fut: calls.append(fut.value()))
    h.set_result(5)
    h.add_done_callback(lambda fut: calls.append(fut.value() + 1))
    assert calls == [5, 6]
