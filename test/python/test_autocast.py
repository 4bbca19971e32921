"""ember.autocast against torch.autocast on the CPU (bfloat16: torch's CPU autocast is the
oracle): the policy classes' output dtypes and values, gradients, nesting, the decorator,
the weight cast cache, tracing, thread-locality, a training loop, the state functions
and their errors. CUDA regions need a GPU: those tests skip without one."""
import threading
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as EF

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

needs_cuda = pytest.mark.skipif(not ember.cuda.is_available(),
                                reason="CUDA autocast runs on a GPU; this machine has none")

DT = {"float32": (ember.float32, torch.float32), "float64": (ember.float64, torch.float64),
      "bfloat16": (ember.bfloat16, torch.bfloat16), "int64": (ember.int64, torch.int64)}


def pair(shape, dtype="float32", seed=0, positive=False, requires_grad=False):
    """The same random values as an ember and a torch tensor."""
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    if positive:
        a = np.abs(a) + 0.1
    e = ember.tensor(a).to(DT[dtype][0])
    t = torch.tensor(a).to(DT[dtype][1])
    if requires_grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def values(x):
    if isinstance(x, torch.Tensor):
        return x.detach().to(torch.float64).numpy()
    return np.array(x.detach().to(ember.float64).tolist(), dtype=np.float64).reshape(tuple(x.shape))


def same_dtype(e, t):
    return str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]


# name -> (fn(lib, F, *inputs), input specs). Each spec: (shape, dtype[, positive]).
CASES = {
    # lower precision on the CPU
    "mm": (lambda L, F, a, b: L.mm(a, b), [((3, 4), "float32"), ((4, 5), "float32")]),
    "mm_mixed": (lambda L, F, a, b: L.mm(a, b), [((3, 4), "bfloat16"), ((4, 5), "float32")]),
    "bmm": (lambda L, F, a, b: L.bmm(a, b), [((2, 3, 4), "float32"), ((2, 4, 5), "float32")]),
    "addmm": (lambda L, F, c, a, b: L.addmm(c, a, b),
              [((3, 5), "float32"), ((3, 4), "float32"), ((4, 5), "float32")]),
    "matmul_batched": (lambda L, F, a, b: L.matmul(a, b), [((2, 3, 4), "bfloat16"), ((4, 5), "float32")]),
    "matmul_broadcast": (lambda L, F, a, b: L.matmul(a, b), [((2, 1, 3, 4), "float32"), ((3, 4, 2), "float32")]),
    "linear": (lambda L, F, x, w, b: F.linear(x, w, b),
               [((6, 4), "float32"), ((3, 4), "float32"), ((3,), "float32")]),
    "linear_bf16_input": (lambda L, F, x, w, b: F.linear(x, w, b),
                          [((2, 6, 4), "bfloat16"), ((3, 4), "float32"), ((3,), "float32")]),
    "linear_noncontiguous": (lambda L, F, x, w: F.linear(x.transpose(0, 1), w),
                             [((4, 6), "float32"), ((3, 4), "float32")]),
    "conv2d": (lambda L, F, x, w, b: F.conv2d(x, w, b, padding=1),
               [((2, 3, 6, 6), "float32"), ((4, 3, 3, 3), "float32"), ((4,), "float32")]),
    "conv1d": (lambda L, F, x, w: F.conv1d(x, w), [((2, 3, 8), "bfloat16"), ((4, 3, 3), "float32")]),
    "conv_transpose2d": (lambda L, F, x, w: F.conv_transpose2d(x, w),
                         [((1, 3, 5, 5), "float32"), ((3, 2, 3, 3), "float32")]),
    # float32 on the CPU
    "mse_loss": (lambda L, F, a, b: F.mse_loss(a, b), [((4, 3), "bfloat16"), ((4, 3), "bfloat16")]),
    "l1_loss": (lambda L, F, a, b: F.l1_loss(a, b), [((4, 3), "bfloat16"), ((4, 3), "float32")]),
    "smooth_l1_loss": (lambda L, F, a, b: F.smooth_l1_loss(a, b), [((5,), "bfloat16"), ((5,), "bfloat16")]),
    "huber_loss": (lambda L, F, a, b: F.huber_loss(a, b), [((5,), "bfloat16"), ((5,), "bfloat16")]),
    "bce_with_logits": (lambda L, F, a, b: F.binary_cross_entropy_with_logits(a, b.abs() / 4),
                        [((5,), "bfloat16"), ((5,), "bfloat16")]),
    "binary_cross_entropy": (lambda L, F, a, b: F.binary_cross_entropy(a.sigmoid(), b.sigmoid()),
                             [((5,), "bfloat16"), ((5,), "bfloat16")]),
    "cross_entropy": (lambda L, F, a: F.cross_entropy(a, L.tensor([0, 2, 1, 3])), [((4, 5), "bfloat16")]),
    "nll_loss": (lambda L, F, a: F.nll_loss(a, L.tensor([0, 2, 1, 3])), [((4, 5), "bfloat16")]),
    "prod": (lambda L, F, a: L.prod(a, 1), [((3, 4), "bfloat16", True)]),
    # promote on the CPU
    "cat_mixed": (lambda L, F, a, b: L.cat([a, b]), [((2, 3), "bfloat16"), ((1, 3), "float32")]),
    "cat_lower": (lambda L, F, a, b: L.cat([a, b], 1), [((2, 3), "bfloat16"), ((2, 1), "bfloat16")]),
    # no CPU policy (torch's CPU list leaves them): they run in their inputs' dtypes
    "exp_bf16": (lambda L, F, a: L.exp(a), [((4,), "bfloat16")]),
    "softmax_bf16": (lambda L, F, a: L.softmax(a, 1), [((3, 4), "bfloat16")]),
    "sum_f32": (lambda L, F, a: a.sum(), [((3, 4), "float32")]),
    "add_mixed": (lambda L, F, a, b: a + b, [((3,), "bfloat16"), ((3,), "float32")]),
    # float64 and integers are never cast
    "mm_float64": (lambda L, F, a, b: L.mm(a, b), [((3, 4), "float64"), ((4, 2), "float64")]),
    "mm_int64": (lambda L, F, a, b: L.mm(a, b), [((3, 4), "int64"), ((4, 2), "int64")]),
    "mm_empty": (lambda L, F, a, b: L.mm(a, b), [((0, 4), "float32"), ((4, 2), "float32")]),
    "linear_0dim_bias": (lambda L, F, x, w, b: F.linear(x, w, b),
                         [((2, 4), "float32"), ((3, 4), "float32"), ((), "float32")]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_policy_dtypes_and_values_match_torch(name):
    fn, specs = CASES[name]
    es, ts = [], []
    for i, spec in enumerate(specs):
        shape, dtype = spec[0], spec[1]
        e, t = pair(shape, dtype, seed=i, positive=len(spec) > 2)
        es.append(e)
        ts.append(t)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        want = fn(torch, TF, *ts)
    with ember.autocast("cpu", dtype=ember.bfloat16):
        got = fn(ember, EF, *es)
    assert same_dtype(got, want), (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    tol = 2e-2 if want.dtype == torch.bfloat16 else 1e-5
    np.testing.assert_allclose(values(got), values(want), rtol=tol, atol=tol)


def test_inputs_are_left_unchanged():
    a, _ = pair((3, 4))
    b, _ = pair((4, 5), seed=1)
    with ember.autocast("cpu"):
        ember.mm(a, b)
    assert a.dtype == ember.float32 and b.dtype == ember.float32


def test_in_place_and_out_are_not_cast():
    a, _ = pair((3, 4))
    b, _ = pair((4, 3), seed=1)
    with ember.autocast("cpu"):
        x, _ = pair((3,))
        x.exp_()
        assert x.dtype == ember.float32
        c = ember.cat([a, a])  # the functional form is
        assert c.dtype == ember.float32


def test_gradients_come_back_in_the_parameters_dtype():
    ex, tx = pair((5, 4), requires_grad=False)
    ew, tw = pair((3, 4), seed=1, requires_grad=True)
    eb, tb = pair((3,), seed=2, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        tl = TF.linear(tx, tw, tb).float().pow(2).sum()
    with ember.autocast("cpu", dtype=ember.bfloat16):
        el = EF.linear(ex, ew, eb).float().pow(2).sum()
    tl.backward()
    el.backward()
    assert ew.grad.dtype == ember.float32 and eb.grad.dtype == ember.float32
    np.testing.assert_allclose(values(ew.grad), values(tw.grad), rtol=3e-2, atol=3e-2)
    np.testing.assert_allclose(values(eb.grad), values(tb.grad), rtol=3e-2, atol=3e-2)


def test_gradient_through_mixed_matmul_and_loss():
    ex, tx = pair((4, 6), "bfloat16")
    ew, tw = pair((6, 3), seed=1, requires_grad=True)
    et, tt = pair((4, 3), seed=2)
    with torch.autocast("cpu"):
        tloss = TF.mse_loss(torch.matmul(tx, tw), tt)
    with ember.autocast("cpu"):
        eloss = EF.mse_loss(ember.matmul(ex, ew), et)
    assert same_dtype(eloss, tloss)
    tloss.backward()
    eloss.backward()
    assert ew.grad.dtype == ember.float32
    np.testing.assert_allclose(values(ew.grad), values(tw.grad), rtol=3e-2, atol=3e-2)


def test_nested_regions_and_disabled_inside_enabled():
    a, _ = pair((3, 4))
    b, _ = pair((4, 5), seed=1)
    assert not ember.is_autocast_enabled("cpu")
    with ember.autocast("cpu"):
        assert ember.is_autocast_enabled("cpu")
        assert ember.mm(a, b).dtype == ember.bfloat16
        with ember.autocast("cpu", enabled=False):
            assert not ember.is_autocast_enabled("cpu")
            assert ember.mm(a, b).dtype == ember.float32
            with ember.autocast("cpu", dtype=ember.float16):
                assert ember.get_autocast_dtype("cpu") == ember.float16
                assert ember.mm(a, b).dtype == ember.float16
            assert ember.get_autocast_dtype("cpu") == ember.bfloat16
        assert ember.mm(a, b).dtype == ember.bfloat16
    assert not ember.is_autocast_enabled("cpu")
    assert ember.mm(a, b).dtype == ember.float32


def test_state_is_restored_when_the_region_raises():
    with pytest.raises(ValueError):
        with ember.autocast("cpu"):
            raise ValueError("inside")
    assert not ember.is_autocast_enabled("cpu")
    assert ember.autocast_increment_nesting() == 1
    assert ember.autocast_decrement_nesting() == 0


def test_decorator_form():
    a, _ = pair((3, 4))
    b, _ = pair((4, 5), seed=1)

    @ember.autocast("cpu")
    def product(x, y):
        assert ember.is_autocast_enabled("cpu")
        return x @ y

    assert product(a, b).dtype == ember.bfloat16
    assert not ember.is_autocast_enabled("cpu")
    assert product.__name__ == "product"
    with pytest.raises(TypeError, match="requires a callable"):
        ember.autocast("cpu")(3)


def copy_count(fn):
    with ember.profiler.profile() as prof:
        fn()
    return {avg.key: avg.count for avg in prof.key_averages()}.get("copy_", 0)


def test_weight_cast_cache_casts_each_parameter_once_per_region():
    ember.manual_seed(0)
    layer = ember.nn.Linear(4, 4)
    x, _ = pair((2, 4))

    def three_uses():
        h = x
        for _ in range(3):
            h = layer(h)
        return h

    with ember.autocast("cpu"):
        cached = copy_count(three_uses)
        assert ember._C._autocast_cache_size() == 2  # weight and bias
    assert ember._C._autocast_cache_size() == 0  # dropped at the outermost exit
    with ember.autocast("cpu", cache_enabled=False):
        uncached = copy_count(three_uses)
        assert ember._C._autocast_cache_size() == 0
    # Without the cache, weight and bias are cast at each of the three uses: 4 casts more
    # (the count includes the copies the bfloat16 kernels make themselves).
    assert uncached - cached == 4
    # A nested region keeps the cache; clear_autocast_cache drops it.
    with ember.autocast("cpu"):
        layer(x)
        with ember.autocast("cpu"):
            layer(x)
        assert ember._C._autocast_cache_size() == 2
        ember.clear_autocast_cache()
        assert ember._C._autocast_cache_size() == 0


def test_cached_copy_made_without_grad_is_not_reused_with_grad():
    ew, _ = pair((3, 4), requires_grad=True)
    x, _ = pair((2, 4), seed=1)
    with ember.autocast("cpu"):
        with ember.no_grad():
            ember.mm(x, ew.t())
        out = ember.mm(x, ew.t())
    assert out.requires_grad
    out.float().sum().backward()
    assert ew.grad is not None and ew.grad.dtype == ember.float32


def test_trace_records_the_casts():
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(), ember.nn.Linear(8, 3))
    x, _ = pair((5, 4))
    with ember.autocast("cpu"):
        eager = model(x)
        traced = ember.jit.trace(model, (x,), check_trace=False)
    assert eager.dtype == ember.bfloat16
    # Outside any region the graph still casts: the same dtype and values.
    replay = traced(x)
    assert replay.dtype == ember.bfloat16
    np.testing.assert_array_equal(values(replay), values(eager))
    other, _ = pair((2, 4), seed=3)
    with ember.autocast("cpu"):
        want = model(other)
    np.testing.assert_array_equal(values(traced(other)), values(want))


def test_autocast_state_is_per_thread():
    a, _ = pair((3, 4))
    b, _ = pair((4, 5), seed=1)
    seen = {}

    def other_thread():
        seen["enabled"] = ember.is_autocast_enabled("cpu")
        seen["dtype"] = ember.mm(a, b).dtype

    with ember.autocast("cpu"):
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        assert ember.mm(a, b).dtype == ember.bfloat16
    assert seen == {"enabled": False, "dtype": ember.float32}


def test_mlp_training_under_bf16_autocast_matches_torch():
    rng = np.random.default_rng(0)
    sizes = [(32, 16), (32, 32), (4, 32)]
    weights = [(rng.standard_normal(s).astype(np.float32) * 0.2, rng.standard_normal(s[0]).astype(np.float32) * 0.1)
               for s in sizes]
    xs = rng.standard_normal((8, 64, 16)).astype(np.float32)
    ys = rng.integers(0, 4, (8, 64))

    def run(L, F):
        params = []
        for w, b in weights:
            params += [L.tensor(w).requires_grad_(True), L.tensor(b).requires_grad_(True)]
        opt = L.optim.SGD(params, lr=0.1)
        losses = []
        for x, y in zip(xs, ys):
            with L.autocast("cpu", dtype=L.bfloat16):
                h = L.tensor(x)
                for i in range(3):
                    h = F.linear(h, params[2 * i], params[2 * i + 1])
                    if i < 2:
                        h = F.relu(h)
                loss = F.cross_entropy(h, L.tensor(y))
            assert loss.dtype == L.float32
            opt.zero_grad()
            loss.backward()
            assert all(p.grad.dtype == L.float32 for p in params)
            opt.step()
            losses.append(loss.item())
        return losses

    want = run(torch, TF)
    got = run(ember, EF)
    np.testing.assert_allclose(got, want, rtol=2e-2, atol=2e-2)


def test_state_functions_and_defaults():
    assert ember.get_autocast_dtype("cpu") == ember.bfloat16
    assert ember.get_autocast_dtype("cuda") == ember.float16
    assert ember.is_autocast_available("cpu") and ember.is_autocast_available("cuda")
    assert ember.amp.is_autocast_available("cpu")
    assert not ember.is_autocast_available("meta")
    assert not ember.is_autocast_enabled()  # no argument: CUDA, as torch
    assert not ember.is_autocast_enabled("xla")
    assert ember.is_autocast_cache_enabled()
    ember.set_autocast_enabled("cpu", True)
    try:
        assert ember.is_autocast_enabled("cpu")
        a, _ = pair((2, 2))
        assert ember.mm(a, a).dtype == ember.bfloat16
    finally:
        ember.set_autocast_enabled("cpu", False)
    ember.set_autocast_dtype("cpu", ember.float16)
    try:
        with pytest.warns(DeprecationWarning):
            assert ember.get_autocast_cpu_dtype() == ember.float16
    finally:
        ember.set_autocast_dtype("cpu", ember.bfloat16)
    with pytest.warns(DeprecationWarning):
        assert ember.get_autocast_gpu_dtype() == ember.float16
    with pytest.warns(DeprecationWarning):
        assert not ember.is_autocast_cpu_enabled()
    ember.set_autocast_cache_enabled(False)
    assert not ember.is_autocast_cache_enabled()
    ember.set_autocast_cache_enabled(True)


def test_errors_match_torch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="unsupported autocast device_type 'meta'"):
            lib.autocast("meta", dtype=lib.bfloat16)
        with pytest.raises(RuntimeError):
            lib.autocast("meta")
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.autocast(lib.device("cpu"))
        with pytest.raises(RuntimeError, match="device type at start of device string: foo"):
            lib.autocast("foo")
        with pytest.raises(RuntimeError, match="device type at start of device string: foo"):
            lib.is_autocast_enabled("foo")
        with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported"):
            region = lib.autocast("cpu", dtype=lib.float32)
        with region:
            assert not lib.is_autocast_enabled("cpu")
    with pytest.raises(RuntimeError, match="floating dtype"):
        ember.set_autocast_dtype("cpu", ember.int64)
    with pytest.raises(RuntimeError, match="no autocast for device type 'xla'"):
        ember.set_autocast_enabled("xla", True)


@pytest.mark.skipif(ember.cuda.is_available(), reason="tests the no-GPU path")
def test_cuda_region_without_a_gpu_warns_and_is_disabled():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        region = ember.autocast("cuda")
    with region:
        assert not ember.is_autocast_enabled("cuda")
    with pytest.warns(FutureWarning, match=r"torch.cuda.amp.autocast\(args...\)` is deprecated"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            ember.cuda.amp.autocast()


def test_cpu_amp_autocast_spelling():
    a, _ = pair((3, 4))
    with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is deprecated"):
        region = ember.cpu.amp.autocast()
    with region:
        assert ember.mm(a, a.t()).dtype == ember.bfloat16
    with pytest.warns(FutureWarning):
        with ember.cpu.amp.autocast(enabled=False):
            assert ember.mm(a, a.t()).dtype == ember.float32


def test_cpu_region_does_not_touch_cuda_state():
    with ember.autocast("cpu"):
        assert not ember.is_autocast_enabled("cuda")


def test_custom_fwd_casts_inputs_and_bwd_restores_the_state():
    seen = {}

    class Square(ember.autograd.Function):
        @staticmethod
        @ember.amp.custom_fwd(device_type="cpu", cast_inputs=ember.float32)
        def forward(ctx, x):
            seen["fwd_enabled"] = ember.is_autocast_enabled("cpu")
            seen["fwd_dtype"] = x.dtype
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @ember.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            seen["bwd_enabled"] = ember.is_autocast_enabled("cpu")
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x, _ = pair((4,), "bfloat16")
    x.requires_grad_(True)
    with ember.autocast("cpu"):
        y = Square.apply(x)
    assert seen["fwd_dtype"] == ember.float32 and not seen["fwd_enabled"]
    assert y.dtype == ember.float32
    y.sum().backward()
    assert not seen["bwd_enabled"]
    assert x.grad.dtype == ember.bfloat16
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        ember.amp.custom_fwd(device_type=None)


def test_policies_are_schema_data():
    rows = {r["name"]: r for r in ember._C._op_schemas()}
    assert rows["mm"]["autocast"] == "lower_precision" and rows["mm"]["autocast_cpu"] == "lower_precision"
    assert rows["exp"]["autocast"] == "fp32" and rows["exp"]["autocast_cpu"] is None
    assert rows["cat"]["autocast_cpu"] == "promote"
    assert rows["binary_cross_entropy"]["autocast"] == "banned"
    assert rows["add"]["autocast"] is None and rows["add"]["autocast_cpu"] is None
    # Backward primitives and in-place rows never carry a policy.
    for name, row in rows.items():
        if row["autocast"] or row["autocast_cpu"]:
            assert "backward" not in row["tags"] and "inplace" not in row["tags"], name


@needs_cuda
def test_cuda_policy_classes():
    dev = "cuda"
    a = ember.randn(4, 4, device=dev)
    with ember.autocast(dev):
        assert ember.mm(a, a).dtype == ember.float16
        assert ember.exp(a.half()).dtype == ember.float32
        assert ember.softmax(a.half(), 1).dtype == ember.float32
        assert ember.atan2(a.half(), a).dtype == ember.float32
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            EF.binary_cross_entropy(a.sigmoid(), a.sigmoid())


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_recurrent_layers_run_under_autocast(kind):
    ember.manual_seed(0)
    em = getattr(ember.nn, kind)(6, 5, batch_first=True)
    tm = getattr(torch.nn, kind)(6, 5, batch_first=True)
    with torch.no_grad():
        for name, p in em.named_parameters():
            getattr(tm, name).copy_(torch.tensor(p.tolist()))
    ex, tx = pair((2, 4, 6))
    with ember.autocast("cpu"):
        eout, _ = em(ex)
    with torch.autocast("cpu"):
        tout, _ = tm(tx)
    # The fused cells are lower precision on the CPU here (torch: its LSTM layer is,
    # its GRU layer's composite cell promotes to float32): the values agree to bfloat16.
    assert eout.dtype == ember.bfloat16
    np.testing.assert_allclose(values(eout), values(tout), rtol=5e-2, atol=5e-2)
    eout.float().sum().backward()
    assert all(p.grad is not None and p.grad.dtype == ember.float32 for p in em.parameters())
