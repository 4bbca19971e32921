"""Small torch names ember now has, each compared with torch: the number constants and
sym_* helpers, cond / while_loop, the *_copy functions (values, contiguity, gradients,
out=), the build queries and inter-op threads, get_device_module, and torch.nn.grad."""
import math

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def test_constants_and_sym_helpers():
    for name in ("pi", "e", "inf", "nan", "newaxis"):
        a, b = getattr(ember, name), getattr(torch, name)
        assert a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))
    assert ember.randn(3)[ember.newaxis].shape == (1, 3)
    for name, args in (("sym_int", (3.7,)), ("sym_int", (-3.7,)), ("sym_float", (3,)),
                       ("sym_not", (0,)), ("sym_max", (3, 4.5)), ("sym_min", (3, 4)),
                       ("sym_ite", (False, 1, 2)), ("sym_sqrt", (16,)), ("sym_sum", ([1, 2, 3],))):
        assert getattr(ember, name)(*args) == getattr(torch, name)(*args), name
    with pytest.raises(TypeError):
        ember.sym_int("3")
    for lib in (ember, torch):
        assert lib.sym_constrain_range(5, min=0, max=10) is None
        assert lib.sym_constrain_range_for_size(5, max=10) is None
        assert lib.sym_fresh_size(7) == 7 and lib.init_num_threads() is None
        with pytest.raises(RuntimeError, match=r"Invalid value range for 5 between \[6, 10\]"):
            lib.sym_constrain_range(5, min=6, max=10)
        with pytest.raises(RuntimeError, match="Invalid value range for -1"):
            lib.sym_constrain_range_for_size(-1)


def test_cond_and_while_loop_match_torch():
    x = np.random.randn(3).astype(np.float32)
    for lib in (ember, torch):
        t = lib.tensor(x)
        assert lib.cond(t.sum() > 100, lambda a: a + 1, lambda a: a * 2, (t,)).tolist() == (
            lib.tensor(x) * 2).tolist()
        assert lib.cond(True, lambda a: a + 1, lambda a: a * 2, [t]).tolist() == (
            lib.tensor(x) + 1).tolist()
    for lib in (ember, torch):
        i, s = lib.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s * 2),
                              (lib.tensor(0), lib.tensor(1.0)))
        assert (int(i), float(s)) == (5, 32.0)
    with pytest.raises(RuntimeError):
        ember.cond(ember.ones(2) > 0, lambda: 1, lambda: 2)
    with pytest.raises(RuntimeError):
        ember.cond(True, 1, lambda: 2)
    with pytest.raises(RuntimeError):
        torch.cond(torch.ones(2) > 0, lambda: 1, lambda: 2)


COPY_CASES = [
    ("view_copy", lambda m, x: m.view_copy(x, [4, 3])),
    ("view_copy dtype", lambda m, x: m.view_copy(x, m.int32)),
    ("t_copy", lambda m, x: m.t_copy(x)),
    ("transpose_copy", lambda m, x: m.transpose_copy(x, 0, 1)),
    ("permute_copy", lambda m, x: m.permute_copy(x, (1, 0))),
    ("select_copy", lambda m, x: m.select_copy(x, 1, 2)),
    ("slice_copy", lambda m, x: m.slice_copy(x, 1, 1, 4, 2)),
    ("diagonal_copy", lambda m, x: m.diagonal_copy(x, 1)),
    ("expand_copy", lambda m, x: m.expand_copy(x[:, :1], [3, 5])),
    ("squeeze_copy", lambda m, x: m.squeeze_copy(x[:1], 0)),
    ("unsqueeze_copy", lambda m, x: m.unsqueeze_copy(x, 1)),
    ("unfold_copy", lambda m, x: m.unfold_copy(x, 1, 2, 1)),
    ("as_strided_copy", lambda m, x: m.as_strided_copy(x, (2, 2), (1, 3), 1)),
    ("alias_copy", lambda m, x: m.alias_copy(x)),
    ("detach_copy", lambda m, x: m.detach_copy(x)),
    ("split_copy", lambda m, x: m.split_copy(x, 3, 1)),
    ("split_with_sizes_copy", lambda m, x: m.split_with_sizes_copy(x, [1, 3], 1)),
    ("unbind_copy", lambda m, x: m.unbind_copy(x, 0)),
]


@pytest.mark.parametrize("name, fn", COPY_CASES, ids=[c[0] for c in COPY_CASES])
def test_copy_functions_match_torch(name, fn):
    data = np.random.randn(3, 4).astype(np.float32)
    e = fn(ember, ember.tensor(data))
    t = fn(torch, torch.tensor(data))
    es, ts = (e, t) if isinstance(t, tuple) else ((e,), (t,))
    assert isinstance(e, tuple) == isinstance(t, tuple)
    for a, b in zip(es, ts):
        assert tuple(a.shape) == tuple(b.shape) and a.is_contiguous()
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # A copy: writing into it leaves the input alone.
    x = ember.tensor(data)
    first = fn(ember, x)
    (first[0] if isinstance(first, tuple) else first).fill_(0)
    np.testing.assert_array_equal(x.numpy(), data)


def test_copy_gradients_and_out():
    x = ember.randn(3, 4, requires_grad=True)
    xt = torch.tensor(x.detach().numpy(), requires_grad=True)
    ember.permute_copy(x, (1, 0)).mul(ember.arange(12.0).view(4, 3)).sum().backward()
    torch.permute_copy(xt, (1, 0)).mul(torch.arange(12.0).view(4, 3)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy())
    out = ember.empty(4, 3)
    assert ember.t_copy(x.detach(), out=out) is out
    np.testing.assert_array_equal(out.numpy(), x.detach().numpy().T)
    with pytest.raises(IndexError):
        ember.slice_copy(ember.randn(2, 3), 5)
    with pytest.raises(IndexError):
        torch.slice_copy(torch.randn(2, 3), 5)


def test_build_queries_and_interop_threads():
    assert ember.has_lapack is True and ember.has_openmp is True
    assert isinstance(ember.has_mkl, bool) and ember.has_spectral is False
    assert ember.compiled_with_cxx11_abi() is True
    assert ember.get_num_interop_threads() >= 1
    old = ember.get_num_interop_threads()
    ember.set_num_interop_threads(3)
    assert ember.get_num_interop_threads() == 3
    ember.set_num_interop_threads(old)
    with pytest.raises(RuntimeError):
        ember.set_num_interop_threads(0)
    with pytest.raises(TypeError):
        ember.set_num_interop_threads(2.0)
    assert ember.get_device_module("cuda") is ember.cuda
    assert ember.get_device_module(ember.device("cpu")) is ember.cpu
    with pytest.raises(RuntimeError):
        ember.get_device_module("tpu")


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_nn_grad_conv_input_and_weight_match_torch(ndim):
    rng = np.random.default_rng(ndim)
    spatial = (7, 6, 5)[:ndim]
    x = rng.standard_normal((2, 4, *spatial)).astype(np.float64)
    w = rng.standard_normal((6, 2, *(3,) * ndim)).astype(np.float64)
    kw = dict(stride=2, padding=1, dilation=1, groups=2)
    conv_t = getattr(torch.nn.functional, f"conv{ndim}d")
    go = torch.tensor(rng.standard_normal(conv_t(torch.tensor(x), torch.tensor(w), **kw).shape))
    for which in ("input", "weight"):
        t_fn = getattr(torch.nn.grad, f"conv{ndim}d_{which}")
        e_fn = getattr(ember.nn.grad, f"conv{ndim}d_{which}")
        if which == "input":
            want = t_fn(x.shape, torch.tensor(w), go, **kw)
            got = e_fn(x.shape, ember.tensor(w), ember.tensor(go.numpy()), **kw)
        else:
            want = t_fn(torch.tensor(x), w.shape, go, **kw)
            got = e_fn(ember.tensor(x), w.shape, ember.tensor(go.numpy()), **kw)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10)
    with pytest.raises(RuntimeError, match="grad_output has shape"):
        ember.nn.grad.conv2d_input((2, 4, 9, 9), ember.randn(6, 2, 3, 3), ember.randn(2, 6, 3, 3), groups=2) \
            if ndim == 2 else ember.nn.grad.conv1d_input((2, 4, 9), ember.randn(6, 2, 3), ember.randn(2, 6, 2), groups=2)


def test_tensor_layout_queries_match_torch():
    cases = [((2, 3), None), ((2, 3, 4), (2, 0, 1)), ((1, 3), None), ((2, 3, 4, 5), (0, 2, 3, 1))]
    for shape, perm in cases:
        data = np.random.randn(*shape).astype(np.float32)
        e, t = ember.tensor(data), torch.tensor(data)
        if perm is not None:
            e, t = e.permute(*perm), t.permute(*perm)
        assert e.dim_order() == t.dim_order()
        for check in (True, [torch.contiguous_format], [torch.channels_last]):
            echeck = check if check is True else [getattr(ember, str(f).split(".")[-1]) for f in check]
            try:
                want = t.dim_order(ambiguity_check=check)
            except RuntimeError:
                with pytest.raises(RuntimeError):
                    e.dim_order(ambiguity_check=echeck)
            else:
                assert e.dim_order(ambiguity_check=echeck) == want
    x, xt = ember.randn(2, 3), torch.randn(2, 3)
    assert x.to_dense() is x and x.to_dense(dtype=ember.float64).dtype == ember.float64
    assert x.is_set_to(x) and not x.is_set_to(x.view(3, 2)) and not x.is_set_to(x.clone())
    assert xt.is_set_to(xt) and not xt.is_set_to(xt.view(3, 2))
    assert x.storage_type().__name__ == xt.storage_type().__name__ == "FloatStorage"
    assert ember.ones(2, dtype=ember.int64).storage_type().__name__ == "LongStorage"
    with pytest.raises(TypeError):
        x.is_set_to(3)


def test_device_generic_stream_and_event_on_the_cpu_match_torch():
    for lib in (ember, torch):
        s = lib.Stream("cpu")
        assert isinstance(s, lib.Stream) and s.query() and str(s.device) == "cpu"
        assert s.device_index == -1 and s.stream_id == 0
        s.synchronize()
        with s:
            pass
        for call in (s.record_event, lambda: s.wait_stream(s)):
            with pytest.raises(RuntimeError, match="cpu backend doesn't support events"):
                call()
        e = lib.Event("cpu")
        assert isinstance(e, lib.Event) and str(e.device) == "cpu"
        with pytest.raises(RuntimeError, match="cpu backend doesn't support events"):
            e.record()
    assert issubclass(ember.cuda.Stream, ember.Stream) and issubclass(ember.cuda.Event, ember.Event)
    if not ember.cuda.is_available():
        with pytest.raises(RuntimeError):
            ember.Stream("cuda")
