"""The op database walk: every entry of opdb.OPDB against PyTorch on the same inputs.

For each OpInfo (test/python/opdb/): values for every dtype it claims (contiguous,
strided, broadcast, 0-dim, empty samples); gradients against torch's and, on small
inputs, against float64 finite differences (gradcheck, gradgradcheck); the in-place
and out= forms against the out-of-place result; trace, save, load and run against
eager; ONNX export run by onnxruntime where the row maps to one operator; bad inputs
raise torch's exception type and leave their inputs unchanged; every device present
against the CPU. test_opdb_coverage checks that the database covers every schema row.
"""
import contextlib
import os
import tempfile
import zlib

import numpy as np
import pytest

import ember
from opdb import OPDB
from opdb.opinfo import FLOATING, Sample, T, build, is_float

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if ember.cuda.is_available() else [])
IDS = [info.id for info in OPDB]


def rng_for(info, dtype):
    """The same samples in every run (a stable hash: Python's hash() of a str is salted)."""
    return np.random.default_rng(zlib.crc32(f"{info.id}/{dtype}".encode()))


def leaves(out):
    """The tensors and numbers of an op's result, in order."""
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in leaves(o)]
    return [out]


def to_numpy(t):
    if isinstance(t, (ember.Tensor, torch.Tensor)):
        t = t.detach()
        if str(t.dtype).split(".")[-1] in ("bfloat16", "float16"):
            t = t.float()
        return np.asarray(t.cpu().numpy())
    return np.asarray(t)


def dtype_name(t):
    return str(t.dtype).split(".")[-1] if hasattr(t, "dtype") else type(t).__name__


def assert_same(e_out, t_out, rtol, atol, what):
    e_l, t_l = leaves(e_out), leaves(t_out)
    assert len(e_l) == len(t_l), f"{what}: {len(e_l)} outputs, torch gives {len(t_l)}"
    for i, (e, t) in enumerate(zip(e_l, t_l)):
        if t is None:
            assert e is None, f"{what}: output {i} is {e!r}, torch gives None"
            continue
        if isinstance(t, torch.Tensor):
            assert isinstance(e, ember.Tensor), f"{what}: output {i} is {type(e).__name__}"
            assert tuple(e.shape) == tuple(t.shape), \
                f"{what}: output {i} shape {tuple(e.shape)}, torch {tuple(t.shape)}"
            assert dtype_name(e) == dtype_name(t), \
                f"{what}: output {i} dtype {dtype_name(e)}, torch {dtype_name(t)}"
        en, tn = to_numpy(e), to_numpy(t)
        if en.dtype == np.bool_ or tn.dtype == np.bool_ or en.dtype.kind in "iu":
            np.testing.assert_array_equal(en, tn, err_msg=f"{what}: output {i}")
        else:
            np.testing.assert_allclose(en.astype(np.float64), tn.astype(np.float64), rtol=rtol,
                                       atol=atol, equal_nan=True, err_msg=f"{what}: output {i}")


def run(lib, info, sample, device="cpu", grad=False):
    args = build(lib, sample.args, device, grad)
    kwargs = build(lib, sample.kwargs, device, grad)
    fn = info.ref if (lib is torch and info.ref is not None) else info.fn
    return fn(lib, *args, **kwargs), args, kwargs


def torch_reference(info, sample, dtype):
    """torch's result; for a half dtype torch lacks on the CPU, computed in float32."""
    try:
        return run(torch, info, sample)[0]
    except (RuntimeError, NotImplementedError) as e:
        if dtype not in ("float16", "bfloat16") or "not implemented" not in str(e):
            raise
        up = _retyped(sample, "float32")
        out = run(torch, info, up)[0]
        cast = lambda t: t.to(getattr(torch, dtype)) if isinstance(t, torch.Tensor) and t.is_floating_point() else t  # noqa: E731
        return type(out)(cast(o) for o in out) if isinstance(out, tuple) else cast(out)


def _retyped(sample, dtype):
    def re(a):
        if isinstance(a, T) and a.dtype in ("float16", "bfloat16"):
            return T(a.values, dtype, a.noncontig, a.grad)
        if isinstance(a, (list, tuple)):
            return type(a)(re(x) for x in a)
        return a
    return type(sample)(re(sample.args), {k: re(v) for k, v in sample.kwargs.items()}, sample.name)


def samples_for(info, dtype):
    samples = info.samples(dtype, rng_for(info, dtype))
    assert samples, f"{info.id}: no samples for {dtype}"
    return samples


def tensor_args(sample):
    """The T arguments of a sample (positional and keyword, lists flattened), in order."""
    found = []

    def walk(a):
        if isinstance(a, T):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            for x in a:
                walk(x)
        elif isinstance(a, dict):
            for x in a.values():
                walk(x)
    walk(sample.args)
    walk(sample.kwargs)
    return found


# ---- values ---------------------------------------------------------------------------

@pytest.mark.parametrize("info", OPDB, ids=IDS)
def test_values(info):
    for dtype in info.dtypes:
        rtol, atol = info.tolerance(dtype)
        for sample in samples_for(info, dtype):
            what = f"{info.id} {dtype} {sample.describe()}"
            e_out = run(ember, info, sample)[0]
            if info.nondeterministic:
                if info.compare:
                    info.compare(e_out, None, dtype)
                continue
            t_out = torch_reference(info, sample, dtype)
            if info.compare:
                info.compare(e_out, t_out, dtype)
            else:
                assert_same(e_out, t_out, rtol, atol, what)


# ---- gradients ---------------------------------------------------------------------------

def _float_outputs(out):
    return [o for o in leaves(out) if hasattr(o, "requires_grad") and o.requires_grad]


def _weighted_grads(lib, outs, args, kwargs, device="cpu"):
    """The gradients of outs, weighted by fixed random arrays (seed 1: the same for every
    lib and device), with respect to the inputs that require grad (None where one gets none)."""
    rng = np.random.default_rng(1)
    weights = [lib.from_numpy(rng.standard_normal(tuple(o.shape))).to(device) for o in outs]
    ins = [x for x in leaves([args, list(kwargs.values())]) if isinstance(x, lib.Tensor) and x.requires_grad]
    return lib.autograd.grad(outs, ins, weights, allow_unused=True)


@pytest.mark.parametrize("info", [i for i in OPDB if i.grad], ids=[i.id for i in OPDB if i.grad])
def test_gradients(info):
    checked = 0
    for sample in samples_for(info, "float64"):
        what = f"{info.id} {sample.describe()}"
        e_out, e_args, e_kw = run(ember, info, sample, grad=True)
        t_out, t_args, t_kw = run(torch, info, sample, grad=True)
        e_outs, t_outs = _float_outputs(e_out), _float_outputs(t_out)
        assert len(e_outs) == len(t_outs), f"{what}: {len(e_outs)} differentiable outputs, torch {len(t_outs)}"
        if not t_outs:
            continue
        e_grads = _weighted_grads(ember, e_outs, e_args, e_kw)
        t_grads = _weighted_grads(torch, t_outs, t_args, t_kw)
        for i, (eg, tg) in enumerate(zip(e_grads, t_grads)):
            if tg is None:
                assert eg is None or not np.any(to_numpy(eg)), f"{what}: input {i} has a gradient, torch none"
                continue
            if eg is None:  # ember's undefined gradient stands for zeros
                assert not np.any(to_numpy(tg)), f"{what}: input {i} has no gradient, torch has"
                continue
            np.testing.assert_allclose(to_numpy(eg), to_numpy(tg), rtol=1e-6, atol=1e-7,
                                       err_msg=f"{what}: gradient of input {i}")
        checked += 1
    assert checked, f"{info.id}: no float64 sample had a differentiable output"


def _small(sample, limit=24):
    ts = tensor_args(sample)
    return ts and all(t.values.size <= limit for t in ts) and any(t.values.size > 0 for t in ts)


@pytest.mark.parametrize("info", [i for i in OPDB if i.grad and i.gradcheck],
                         ids=[i.id for i in OPDB if i.grad and i.gradcheck])
def test_gradcheck(info):
    """Finite differences in float64 (gradcheck) and of the first derivatives
    (gradgradcheck) on the small samples."""
    small = [s for s in samples_for(info, "float64") if _small(s)][:3]
    checked = 0
    for sample in small:
        op, diff = tensor_function(info, sample, grad=True, which=lambda t: t.requires_grad)
        if not diff:
            continue

        def f(*xs):
            return tuple(o for o in leaves(op(*xs)) if isinstance(o, ember.Tensor) and o.is_floating_point())

        assert ember.autograd.gradcheck(f, tuple(diff)), f"{info.id}: gradcheck {sample.describe()}"
        if info.gradgrad and checked == 0:
            assert ember.autograd.gradgradcheck(f, tuple(diff)), \
                f"{info.id}: gradgradcheck {sample.describe()}"
        checked += 1
    assert checked, f"{info.id}: no small float64 sample with a differentiable input for gradcheck"


def _substitute(args, fn):
    if isinstance(args, ember.Tensor):
        return fn(args)
    if isinstance(args, list):
        return [_substitute(a, fn) for a in args]
    if isinstance(args, tuple):
        return tuple(_substitute(a, fn) for a in args)
    return args


def tensor_function(info, sample, grad=False, which=lambda t: True):
    """The op as a function of the sample's tensor arguments that `which` selects (the
    others stay as built): (f, those tensors), for tracing, export and gradcheck."""
    args = build(ember, sample.args, grad=grad)
    kwargs = build(ember, sample.kwargs)
    inputs = [x for x in leaves(list(args)) if isinstance(x, ember.Tensor) and which(x)]

    def f(*xs):
        it = iter(xs)
        return info.fn(ember, *_substitute(args, lambda t: next(it) if which(t) else t), **kwargs)
    return f, inputs


# ---- in-place and out= ----------------------------------------------------------------------

@pytest.mark.parametrize("info", [i for i in OPDB if i.inplace or i.out],
                         ids=[i.id for i in OPDB if i.inplace or i.out])
def test_inplace_and_out(info):
    for dtype in info.dtypes:
        rtol, atol = info.tolerance(dtype)
        for sample in samples_for(info, dtype):
            what = f"{info.id} {dtype} {sample.describe()}"
            expected = run(ember, info, sample)[0]
            if not isinstance(expected, ember.Tensor):
                continue
            if info.inplace:
                args = build(ember, sample.args)
                kwargs = build(ember, sample.kwargs)
                self_ = args[0]
                if tuple(self_.shape) == tuple(expected.shape) and self_.dtype == expected.dtype:
                    result = info.inplace(ember, *args, **kwargs)
                    assert result is self_ or result.data_ptr() == self_.data_ptr(), \
                        f"{what}: the in-place form returned another tensor"
                    assert_same(self_, expected, rtol, atol, f"{what} (in-place)")
            if info.out:
                out = ember.empty(tuple(expected.shape), dtype=expected.dtype)
                args = build(ember, sample.args)
                kwargs = build(ember, sample.kwargs)
                result = info.fn(ember, *args, out=out, **kwargs)
                assert result is out or result.data_ptr() == out.data_ptr()
                assert_same(out, expected, rtol, atol, f"{what} (out=)")


# ---- trace, save, load --------------------------------------------------------------------

TRACED = [i for i in OPDB if i.trace and not i.nondeterministic]  # a random op's values differ


@pytest.mark.parametrize("info", TRACED, ids=[i.id for i in TRACED])
def test_trace_save_load(info):
    dtype = "float32" if "float32" in info.dtypes else info.dtypes[0]
    traced_any = False
    for sample in samples_for(info, dtype)[:4]:
        f, inputs = tensor_function(info, sample)
        if not inputs or any(x.numel() == 0 for x in inputs):
            continue
        eager = f(*inputs)
        traced = ember.jit.trace(f, tuple(inputs), check_trace=False)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.ember")
            traced.save(path)
            loaded = ember.jit.load(path)
        fresh = [x.clone() for x in inputs]
        rtol, atol = info.tolerance(dtype)
        assert_same(loaded(*fresh), eager, rtol, atol, f"{info.id} traced {sample.describe()}")
        traced_any = True
    assert traced_any, f"{info.id}: no sample could be traced"


# ---- ONNX ---------------------------------------------------------------------------------

@pytest.mark.parametrize("info", [i for i in OPDB if i.onnx], ids=[i.id for i in OPDB if i.onnx])
def test_onnx(info):
    ort = pytest.importorskip("onnxruntime")
    sample = next(s for s in samples_for(info, "float32")
                  if tensor_args(s) and all(t.values.size > 0 for t in tensor_args(s)))
    f, inputs = tensor_function(info, sample)
    eager = f(*inputs)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.onnx")
        ember.onnx.export(f, tuple(inputs), path)
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        feed = {i.name: x.numpy() for i, x in zip(sess.get_inputs(), inputs)}
        got = sess.run(None, feed)
    for g, e in zip(got, leaves(eager)):
        np.testing.assert_allclose(g, to_numpy(e), rtol=1e-5, atol=1e-5, err_msg=f"{info.id} onnx")


# ---- bad inputs ----------------------------------------------------------------------------

@pytest.mark.parametrize("info", [i for i in OPDB if i.errors], ids=[i.id for i in OPDB if i.errors])
def test_errors(info):
    for case in info.errors(np.random.default_rng(0)):
        what = f"{info.id} {case.sample.describe()}"
        if case.torch_raises:
            with pytest.raises(case.error):
                run(torch, info, case.sample)
        args = build(ember, case.sample.args)
        kwargs = build(ember, case.sample.kwargs)
        before = [to_numpy(x).copy() for x in leaves([list(args), list(kwargs.values())])
                  if isinstance(x, ember.Tensor)]
        with pytest.raises(case.error, match=case.match):
            info.fn(ember, *args, **kwargs)
        after = [to_numpy(x) for x in leaves([list(args), list(kwargs.values())])
                 if isinstance(x, ember.Tensor)]
        for b, a in zip(before, after):
            np.testing.assert_array_equal(a, b, err_msg=f"{what}: a failed call changed its input")


# ---- devices ------------------------------------------------------------------------------

POINTWISE = {r["name"] for r in ember._C._op_schemas() if "pointwise" in r["tags"]}
SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, 3.0, -3.0, 80.0, -80.0, 1e4, -1e4]


def _special_sample(info, dtype, samples):
    """For a pointwise op of one float tensor: its first sample with nan, infinities,
    signed zeros, tiny and huge values instead (the device against the CPU only)."""
    if info.name not in POINTWISE or not is_float(dtype):
        return None
    first = samples[0]
    if len(first.args) != 1 or not isinstance(first.args[0], T):
        return None
    return Sample((T(np.array(SPECIALS), dtype),), dict(first.kwargs), name="specials")


LARGE = (3, 70001)  # several blocks of a device loop, and a partial last vector


def _large_sample(info, samples):
    """For a pointwise op: its first sample whose tensors share one non-empty shape, with
    each tensor's values tiled to LARGE (the same value distribution, so divisors stay
    nonzero), against the CPU only."""
    if info.name not in POINTWISE:
        return None
    for sample in samples:
        ts = [a for a in sample.args if isinstance(a, T)]
        if ts and len(ts) == len(sample.args) and ts[0].values.ndim > 0 and ts[0].values.size > 0 and \
                all(t.values.shape == ts[0].values.shape for t in ts):
            args = tuple(T(np.resize(t.values, LARGE), t.dtype, t.noncontig, t.grad) for t in ts)
            return Sample(args, dict(sample.kwargs), name="large")
    return None


def _device_grads(info, sample, device):
    """The gradients of the sample's float64 inputs on `device` for fixed random output
    weights (None where an input gets none), as CPU arrays."""
    out, args, kwargs = run(ember, info, sample, device, grad=True)
    outs = _float_outputs(out)
    if not outs:
        return None
    return [None if g is None else to_numpy(g) for g in _weighted_grads(ember, outs, args, kwargs, device)]


@pytest.mark.skipif(len(DEVICES) == 1, reason="no device besides the CPU (no CUDA GPU)")
@pytest.mark.parametrize("device", DEVICES[1:])
@pytest.mark.parametrize("info", OPDB, ids=IDS)
def test_device_matches_cpu(info, device):
    """Each sample on the device against the CPU: the values in every dtype (for pointwise
    rows also special values and a large input), the in-place form, and the gradients in
    float64 (through the device's backward kernels)."""
    if device not in info.devices:
        pytest.skip(f"{info.id} does not run on {device}")
    with _exact_float32(device):
        _device_matches_cpu(info, device)


def _has_data(sample):
    tensors = [a for a in list(sample.args) + list(sample.kwargs.values()) if isinstance(a, T)]
    return bool(tensors) and all(t.values.size > 0 for t in tensors)


@contextlib.contextmanager
def _exact_float32(device):
    """TensorFloat-32 off for the comparison (float32 matmul and convolutions on a GPU
    would otherwise round their inputs to 10 mantissa bits, as PyTorch's do)."""
    if device != "cuda":
        yield
        return
    saved = ember.backends.cuda.matmul.allow_tf32, ember.backends.cudnn.allow_tf32
    ember.backends.cuda.matmul.allow_tf32 = ember.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        ember.backends.cuda.matmul.allow_tf32, ember.backends.cudnn.allow_tf32 = saved


def _device_matches_cpu(info, device):
    for dtype in info.dtypes:
        samples = samples_for(info, dtype)
        if dtype not in info.dtypes_on(device):
            # a dtype the device's kernels do not take: a clear NotImplementedError
            # (asked of a sample with data: an empty one may need no kernel)
            probe = next((x for x in samples if _has_data(x)), samples[0])
            with pytest.raises(NotImplementedError):
                run(ember, info, probe, device)
            continue
        rtol, atol = info.tolerance(dtype)
        rtol = max(rtol, 1e-5) if is_float(dtype) else 0
        extra = [x for x in (_special_sample(info, dtype, samples), _large_sample(info, samples)) if x]
        for sample in samples + extra:
            what = f"{info.id} {device} {dtype} {sample.describe()}"
            if info.nondeterministic:
                run(ember, info, sample, device)
                continue
            cpu = run(ember, info, sample)[0]
            dev = run(ember, info, sample, device)[0]
            assert_same(dev, cpu, rtol, atol, what)
            if info.inplace and isinstance(cpu, ember.Tensor):
                args = build(ember, sample.args, device)
                kwargs = build(ember, sample.kwargs, device)
                if tuple(args[0].shape) == tuple(cpu.shape) and args[0].dtype == cpu.dtype:
                    info.inplace(ember, *args, **kwargs)
                    assert_same(args[0], cpu, rtol, atol, f"{what} (in-place)")
    if info.grad and not info.nondeterministic:
        for sample in samples_for(info, "float64"):
            cpu, dev = _device_grads(info, sample, "cpu"), _device_grads(info, sample, device)
            assert (cpu is None) == (dev is None), f"{info.id} {device} {sample.describe()}: " \
                "differentiable outputs on one device only"
            for i, (c, d) in enumerate(zip(cpu or [], dev or [])):
                what = f"{info.id} {device} {sample.describe()}: gradient of input {i}"
                assert (c is None) == (d is None), what
                if c is not None:
                    np.testing.assert_allclose(d, c, rtol=1e-7, atol=1e-9, err_msg=what)


# ---- coverage ------------------------------------------------------------------------------

def test_opdb_coverage():
    """Every schema row has an OpInfo, every OpInfo names a row, every row's derivative
    kind is what the derivative table holds, and every device a row has a kernel for
    is one its OpInfos run on."""
    rows = {r["name"]: r for r in ember._C._op_schemas()}
    covered = {}
    for info in OPDB:
        assert info.name in rows, f"OpInfo {info.id} names no schema row"
        covered.setdefault(info.name, []).append(info)
    missing = sorted(set(rows) - set(covered))
    assert not missing, f"schema rows without an OpInfo: {missing}"
    for name, row in rows.items():
        assert row["derivative"] == row["registered_derivative"], \
            f"{name}: the row says derivative={row['derivative']!r}, the table holds {row['registered_derivative']!r}"
        assert (row["invoker"] != "none") == row["traceable"], \
            f"{name}: the row says invoker={row['invoker']!r}, but an invoker is " \
            f"{'' if row['traceable'] else 'not '}registered"
        ran = {d for info in covered[name] for d in info.devices}
        for dev in row["kernels"]:
            assert dev in ran, f"{name}: a kernel is registered for {dev}, the database never runs it there"
    for info in OPDB:
        assert not info.nondeterministic or info.compare, \
            f"{info.id}: a nondeterministic entry needs a compare= check, else its values go unchecked"
        for d in info.dtypes:
            assert d in FLOATING or d in ("uint8", "int8", "int16", "int32", "int64", "bool"), d


@pytest.mark.skipif(not ember.cuda.is_built(), reason="docs/ops.md lists a build with CUDA kernels")
def test_ops_doc_is_current():
    """docs/ops.md is what scripts/op_coverage.py writes for this build."""
    import pathlib
    import runpy
    root = pathlib.Path(__file__).resolve().parents[2]
    render = runpy.run_path(str(root / "scripts" / "op_coverage.py"))["render"]
    current = (root / "docs" / "ops.md").read_text()
    assert render() == current, ("docs/ops.md is out of date: run "
                                 "PYTHONPATH=python .venv/bin/python scripts/op_coverage.py --write docs/ops.md")
