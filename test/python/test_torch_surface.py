"""PyTorch names that real programs meet, compared with PyTorch on the same inputs:
in-place views (t_, squeeze_, as_strided_, ...), resize_, unfold, memory formats, the
in-place forms built from out-of-place ops (addmm_, tril_, fill_diagonal_, ...), the
torch.<method>_ function spellings, the kind flags and conj family, the legacy typed
tensor classes, window functions, logspace/range/isin/unravel_index, torch.accelerator,
the nn.modules.* import paths and tracing with nested inputs."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def pair(shape, seed=0, dtype=np.float64):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return ember.tensor(a), torch.tensor(a)


def same(e, t, rtol=1e-6, atol=1e-9):
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def raises_like_torch(ember_call, torch_call):
    with pytest.raises(Exception) as expected:
        torch_call()
    with pytest.raises(type(expected.value)):
        ember_call()


# ---- in-place views --------------------------------------------------------------------

IN_PLACE_VIEWS = {
    "t_": ((3, 4), lambda x: x.t_()),
    "transpose_": ((2, 3, 4), lambda x: x.transpose_(0, 2)),
    "swapaxes_": ((2, 3, 4), lambda x: x.swapaxes_(1, -1)),
    "swapdims_": ((2, 3, 4), lambda x: x.swapdims_(0, 1)),
    "squeeze_": ((2, 1, 3, 1), lambda x: x.squeeze_()),
    "squeeze_ dim": ((2, 1, 3, 1), lambda x: x.squeeze_(1)),
    "squeeze_ dims": ((2, 1, 3, 1), lambda x: x.squeeze_((1, 3))),
    "unsqueeze_": ((2, 3), lambda x: x.unsqueeze_(-1)),
    "as_strided_": ((4, 5), lambda x: x.as_strided_((3, 2), (5, 2), 1)),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE_VIEWS))
def test_in_place_view_matches_torch_and_returns_self(name):
    shape, op = IN_PLACE_VIEWS[name]
    e, t = pair(shape)
    got, want = op(e), op(t)
    assert want is t
    assert got.data_ptr() == e.data_ptr() and tuple(got.shape) == tuple(e.shape)
    assert tuple(e.stride()) == tuple(t.stride()) and e.storage_offset() == t.storage_offset()
    same(e, t)


@pytest.mark.parametrize("name", sorted(IN_PLACE_VIEWS))
def test_in_place_view_of_non_leaf_differentiates_like_torch(name):
    shape, op = IN_PLACE_VIEWS[name]
    e, t = pair(shape, seed=1)
    e.requires_grad_()
    t.requires_grad_()
    ye, yt = e * 2, t * 2
    op(ye)
    op(yt)
    weights = np.random.default_rng(2).standard_normal(tuple(yt.shape))
    (ye * ember.tensor(weights)).sum().backward()
    (yt * torch.tensor(weights)).sum().backward()
    same(e.grad, t.grad)


def test_in_place_view_of_a_leaf_that_requires_grad_raises_and_changes_nothing():
    e = ember.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        e.t_()
    assert tuple(e.shape) == (2, 3)


def test_in_place_view_bad_dim_raises_like_torch_and_changes_nothing():
    e, t = pair((2, 3))
    raises_like_torch(lambda: e.transpose_(0, 5), lambda: t.transpose_(0, 5))
    raises_like_torch(lambda: e.unsqueeze_(4), lambda: t.unsqueeze_(4))
    raises_like_torch(lambda: pair((2, 3, 4))[0].t_(), lambda: pair((2, 3, 4))[1].t_())
    assert tuple(e.shape) == (2, 3) and tuple(e.stride()) == (3, 1)


def test_in_place_view_under_no_grad_on_a_view():
    base = ember.arange(12.0).view(3, 4)
    row = base[1]
    with ember.no_grad():
        row.unsqueeze_(0)
    assert tuple(row.shape) == (1, 4) and row.tolist() == [[4.0, 5.0, 6.0, 7.0]]
    row.mul_(10)
    assert base[1].tolist() == [40.0, 50.0, 60.0, 70.0]


# ---- unfold and resize_ ----------------------------------------------------------------

@pytest.mark.parametrize("shape, dim, size, step", [
    ((10,), 0, 3, 1), ((10,), 0, 3, 4), ((4, 7), 1, 2, 2), ((4, 7), 0, 4, 1),
    ((3, 5, 6), -1, 6, 1), ((3, 5), 1, 0, 1), ((), 0, 1, 1), ((0, 4), 1, 2, 1)])
def test_unfold_matches_torch_values_and_gradient(shape, dim, size, step):
    e, t = pair(shape, seed=3)
    e.requires_grad_()
    t.requires_grad_()
    got, want = e.unfold(dim, size, step), t.unfold(dim, size, step)
    same(got, want)
    if want.numel():  # an empty tensor's strides are arbitrary
        assert tuple(got.stride()) == tuple(want.stride())
    weights = np.random.default_rng(4).standard_normal(tuple(want.shape))
    (got * ember.tensor(weights)).sum().backward()
    (want * torch.tensor(weights)).sum().backward()
    same(e.grad, t.grad)


def test_unfold_of_non_contiguous_input():
    e, t = pair((6, 5), seed=5)
    same(e.t().unfold(1, 3, 2), t.t().unfold(1, 3, 2))


@pytest.mark.parametrize("dim, size, step", [(0, 11, 1), (0, 2, 0), (0, -1, 1), (2, 1, 1)])
def test_unfold_bad_arguments_raise_like_torch(dim, size, step):
    e, t = pair((10,))
    raises_like_torch(lambda: e.unfold(dim, size, step), lambda: t.unfold(dim, size, step))


def test_resize_shrinks_and_grows_like_torch():
    # (torch's storage stops being resizable once numpy has seen it: compare by tolist)
    e, t = ember.arange(6.0), torch.arange(6.0)
    view_e = e.view(2, 3)
    e.resize_(2, 2)
    t.resize_(2, 2)
    assert e.tolist() == t.tolist()
    e.resize_(4, 4)
    t.resize_(4, 4)
    assert tuple(e.shape) == tuple(t.shape) and tuple(e.stride()) == tuple(t.stride())
    assert e.flatten()[:6].tolist() == t.flatten()[:6].tolist()
    # Views of the old storage see the grown one: the same storage, a new block.
    view_e.fill_(7.0)
    assert e.numpy().ravel()[:6].tolist() == [7.0] * 6
    e.resize_as_(ember.empty(3))
    assert tuple(e.shape) == (3,)


def test_resize_refuses_what_torch_refuses():
    raises_like_torch(lambda: ember.ones(3, requires_grad=True).resize_(2),
                      lambda: torch.ones(3, requires_grad=True).resize_(2))
    raises_like_torch(lambda: ember.ones(3).resize_(-1), lambda: torch.ones(3).resize_(-1))


# ---- memory formats --------------------------------------------------------------------

@pytest.mark.parametrize("fmt, shape", [("channels_last", (2, 3, 4, 5)),
                                        ("channels_last_3d", (2, 3, 2, 4, 5)),
                                        ("channels_last", (2, 1, 4, 1))])
def test_channels_last_layouts_match_torch(fmt, shape):
    e, t = pair(shape)
    ef, tf = getattr(ember, fmt), getattr(torch, fmt)
    got, want = e.contiguous(memory_format=ef), t.contiguous(memory_format=tf)
    same(got, want)
    assert got.is_contiguous(memory_format=ef) == want.is_contiguous(memory_format=tf) is True
    assert got.is_contiguous() == want.is_contiguous()
    for name in ("clone", "to", "empty_like", "zeros_like"):
        if name == "clone":
            g, w = e.clone(memory_format=ef), t.clone(memory_format=tf)
        elif name == "to":
            g, w = e.to(memory_format=ef), t.to(memory_format=tf)
        else:
            g = getattr(ember, name)(e, memory_format=ef)
            w = getattr(torch, name)(t, memory_format=tf)
        assert tuple(g.stride()) == tuple(w.stride()), name


def test_preserve_format_keeps_dense_strides_like_torch():
    e, t = pair((3, 4, 5))
    for ev, tv in [(e.transpose(0, 2), t.transpose(0, 2)), (e[:, ::2], t[:, ::2]), (e, t)]:
        assert tuple(ev.clone().stride()) == tuple(tv.clone().stride())
        assert tuple(ember.zeros_like(ev).stride()) == tuple(torch.zeros_like(tv).stride())
        same(ev.clone(), tv.clone())
    cl = e.unsqueeze(0).contiguous(memory_format=ember.channels_last)
    assert cl.clone().is_contiguous(memory_format=ember.channels_last)


def test_memory_format_errors_like_torch():
    e, t = pair((3, 4))
    raises_like_torch(lambda: e.contiguous(memory_format=ember.channels_last),
                      lambda: t.contiguous(memory_format=torch.channels_last))
    raises_like_torch(lambda: e.t().contiguous(memory_format=ember.preserve_format),
                      lambda: t.t().contiguous(memory_format=torch.preserve_format))
    same_tensor = e.contiguous(memory_format=ember.preserve_format)
    assert same_tensor.data_ptr() == e.data_ptr() and tuple(same_tensor.stride()) == (4, 1)
    with pytest.raises(TypeError):
        e.clone(memory_format="channels_last")
    assert repr(ember.channels_last) == "ember.channels_last"
    assert ember.strided == e.layout


def test_channels_last_tensor_computes_the_same_values():
    x, _ = pair((2, 3, 6, 6), seed=7)
    w, _ = pair((4, 3, 3, 3), seed=8)
    ref = ember.nn.functional.conv2d(x, w)
    got = ember.nn.functional.conv2d(x.contiguous(memory_format=ember.channels_last), w)
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-12, atol=1e-12)


# ---- in-place forms built from out-of-place ops ------------------------------------------

IN_PLACE_FORMS = {
    "addmm_": ((3, 4), lambda m, x, a, b: x.addmm_(a[:3, :5], b[:5, :4], beta=0.5, alpha=2)),
    "addbmm_": ((3, 4), lambda m, x, a, b: x.addbmm_(a[:, :, :2], b[:, :2, :])),
    "baddbmm_": ((2, 3, 4), lambda m, x, a, b: x.baddbmm_(a, b, alpha=-1)),
    "addmv_": ((3,), lambda m, x, a, b: x.addmv_(a[:3, :5], b[0, :5])),
    "addr_": ((3, 4), lambda m, x, a, b: x.addr_(a[0, :3], b[1, :4], beta=2)),
    "tril_": ((4, 5), lambda m, x, a, b: x.tril_(1)),
    "triu_": ((4, 5), lambda m, x, a, b: x.triu_(-1)),
    "renorm_": ((4, 5), lambda m, x, a, b: x.renorm_(2, 0, 1.5)),
    "renorm_ p=1 dim=1": ((4, 5), lambda m, x, a, b: x.renorm_(1, 1, 0.5)),
    "fill_diagonal_": ((4, 5), lambda m, x, a, b: x.fill_diagonal_(3.0)),
    "fill_diagonal_ tall": ((7, 3), lambda m, x, a, b: x.fill_diagonal_(3.0)),
    "fill_diagonal_ wrap": ((7, 3), lambda m, x, a, b: x.fill_diagonal_(3.0, wrap=True)),
    "fill_diagonal_ 3-d": ((3, 3, 3), lambda m, x, a, b: x.fill_diagonal_(-1.0)),
    "torch.clamp_": ((4, 5), lambda m, x, a, b: m.clamp_(x, -0.5, 0.5)),
    "torch.clamp_min_": ((4, 5), lambda m, x, a, b: m.clamp_min_(x, 0.0)),
    "torch.clip_": ((4, 5), lambda m, x, a, b: m.clip_(x, max=0.1)),
    "torch.round_": ((4, 5), lambda m, x, a, b: m.round_(x * 3)),
    "torch.zero_": ((4, 5), lambda m, x, a, b: m.zero_(x)),
    "torch.fill_": ((4, 5), lambda m, x, a, b: m.fill_(x, 2.5)),
    "torch.xlogy_": ((4, 5), lambda m, x, a, b: m.xlogy_(x, a[:4].abs())),
    "torch.nan_to_num_": ((4, 5), lambda m, x, a, b: m.nan_to_num_(x.log())),
    "torch.addmv_": ((3,), lambda m, x, a, b: m.addmv_(x, a[:3, :5], b[0, :5])),
    "torch.detach_": ((4, 5), lambda m, x, a, b: m.detach_(x)),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE_FORMS))
def test_in_place_forms_match_torch(name):
    shape, op = IN_PLACE_FORMS[name]
    e, t = pair(shape)
    batched = "bmm" in name  # batch1 (2, 3, 5) and batch2 (2, 5, 4), else two matrices
    ea, ta = pair((2, 3, 5) if batched else (6, 5), seed=1)
    eb, tb = pair((2, 5, 4) if batched else (5, 5), seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = op(ember, e, ea, eb), op(torch, t, ta, tb)
    if want is t:
        assert got.data_ptr() == e.data_ptr()
    same(got, want)
    same(e, t)


def test_in_place_form_that_raises_leaves_self_unchanged():
    e = ember.ones(3, 4)
    with pytest.raises(RuntimeError):
        e.addmm_(ember.ones(3, 5), ember.ones(4, 4))
    assert e.tolist() == [[1.0] * 4] * 3


def test_renorm_gradient_matches_torch():
    e, t = pair((3, 4), seed=9)
    e.requires_grad_()
    t.requires_grad_()
    e.renorm(2, 1, 1.0).sum().backward()
    t.renorm(2, 1, 1.0).sum().backward()
    same(e.grad, t.grad)


def test_fill_and_split_spellings():
    e, t = pair((5, 4))
    same(ember.fill(e, 3.0), torch.fill(t, 3.0))
    for fn in ("split_with_sizes", "unsafe_split_with_sizes"):
        for g, w in zip(getattr(ember, fn)(e, [2, 3]), getattr(torch, fn)(t, [2, 3])):
            same(g, w)
    for g, w in zip(ember.unsafe_chunk(e, 2, 1), torch.unsafe_chunk(t, 2, 1)):
        same(g, w)
    for g, w in zip(e.unsafe_split(2), t.unsafe_split(2)):
        same(g, w)


def test_feature_dropout_zeroes_whole_channels_and_scales():
    x = ember.ones(200, 8, 3, 3)
    y = ember.feature_dropout(x, 0.25, True).numpy()
    per_channel = y.reshape(200, 8, -1)
    assert ((per_channel == 0).all(-1) | (per_channel == 1 / 0.75).all(-1)).all()
    assert abs((per_channel[..., 0] == 0).mean() - 0.25) < 0.03
    assert ember.equal(ember.feature_dropout(x, 0.25, False), x)
    raises_like_torch(lambda: ember.feature_dropout(ember.ones(3), 0.5, True),
                      lambda: torch.feature_dropout(torch.ones(3), 0.5, True))


# ---- kinds, conj family, angle ------------------------------------------------------------

def test_kind_flags_and_conj_family_match_torch_for_real_tensors():
    e, t = pair((2, 3))
    for flag in ["is_sparse", "is_quantized", "is_meta", "is_mkldnn", "is_nested", "is_xpu",
                 "is_mps", "is_sparse_csr"]:
        assert getattr(e, flag) is getattr(t, flag) is False, flag
    assert e.conj() is e and ember.resolve_conj(e) is e and ember.resolve_neg(e) is e
    assert ember.is_conj(e) is torch.is_conj(t) is False
    assert e.is_neg() is t.is_neg() is False
    same(ember.conj_physical(e), torch.conj_physical(t))
    assert str(e.layout).split(".")[-1] == str(t.layout).split(".")[-1] == "strided"


def test_angle_matches_torch():
    values = [-2.0, -0.0, 0.0, 3.0, float("nan"), float("-inf")]
    same(ember.angle(ember.tensor(values)), torch.angle(torch.tensor(values)))
    got, want = ember.tensor([-1, 2]).angle(), torch.tensor([-1, 2]).angle()
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    same(got, want)


# ---- legacy typed tensor classes ------------------------------------------------------------

def test_legacy_tensor_classes_construct_and_test_like_torch():
    for name in ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "ByteTensor",
                 "BoolTensor", "HalfTensor"]:
        cls_e, cls_t = getattr(ember, name), getattr(torch, name)
        assert tuple(cls_e(2, 3).shape) == tuple(cls_t(2, 3).shape) == (2, 3)
        assert cls_e().numel() == cls_t().numel() == 0
        data = [[1, 0], [2, 3]]
        got, want = cls_e(data), cls_t(data)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert isinstance(got, cls_e) and isinstance(got, ember.Tensor)
    assert not isinstance(ember.ones(2), ember.LongTensor)
    assert isinstance(ember.ones(2).type(ember.DoubleTensor), ember.DoubleTensor)
    assert not isinstance(ember.ones(2), ember.cuda.FloatTensor)
    assert ember.FloatTensor.dtype == ember.float32


# ---- windows, sequences, sets --------------------------------------------------------------

@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window", "kaiser_window"])
@pytest.mark.parametrize("length", [0, 1, 2, 5, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_torch(name, length, periodic):
    for dtype in ("float32", "float64"):
        got = getattr(ember, name)(length, periodic, dtype=getattr(ember, dtype))
        want = getattr(torch, name)(length, periodic, dtype=getattr(torch, dtype))
        assert str(got.dtype).split(".")[-1] == dtype
        same(got, want, rtol=1e-5, atol=1e-6)


def test_window_arguments_and_errors_like_torch():
    same(ember.hamming_window(7, True, 0.5, 0.5), torch.hamming_window(7, True, 0.5, 0.5))
    same(ember.kaiser_window(9, False, 3.0), torch.kaiser_window(9, False, 3.0), rtol=1e-5)
    raises_like_torch(lambda: ember.hann_window(-1), lambda: torch.hann_window(-1))
    raises_like_torch(lambda: ember.hann_window(3, dtype=ember.int64),
                      lambda: torch.hann_window(3, dtype=torch.int64))


def test_logspace_and_range_match_torch():
    same(ember.logspace(0, 2, 3), torch.logspace(0, 2, 3))
    same(ember.logspace(-1, 3, 9, base=2, dtype=ember.float64),
         torch.logspace(-1, 3, 9, base=2, dtype=torch.float64))
    np.testing.assert_array_equal(ember.logspace(0, 2, 3, dtype=ember.int64).numpy(),
                                  torch.logspace(0, 2, 3, dtype=torch.int64).numpy())
    with pytest.warns(UserWarning, match="deprecated"):
        got = ember.range(0, 1, 0.25)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(got, torch.range(0, 1, 0.25))
        same(ember.range(1, 4), torch.range(1, 4))
        same(ember.range(5, 1, -2), torch.range(5, 1, -2))
        raises_like_torch(lambda: ember.range(0, 1, 0), lambda: torch.range(0, 1, 0))
        raises_like_torch(lambda: ember.range(1, 0), lambda: torch.range(1, 0))


@pytest.mark.parametrize("elements, tests, kwargs", [
    ([1, 2, 3, 4], [2, 5, 4], {}),
    ([[1.5, 2.0], [float("nan"), 3.0]], [2.0, float("nan")], {}),
    ([1, 2, 3], [2], {"invert": True}),
    ([1, 2, 3], [], {}),
    ([5, 1, 5], [5, 1], {"assume_unique": True}),
])
def test_isin_matches_torch(elements, tests, kwargs):
    got = ember.isin(ember.tensor(elements), ember.tensor(tests), **kwargs)
    want = torch.isin(torch.tensor(elements), torch.tensor(tests), **kwargs)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_isin_with_scalars():
    assert ember.isin(ember.tensor([1.0, 2.0]), 2.0).tolist() == [False, True]
    assert ember.isin(3, ember.tensor([3])).item() is True


@pytest.mark.parametrize("indices, shape", [([5, -1], (2, 3)), ([6, -7, 0], (2, 3)),
                                            (4, (2, 3)), ([[1, 5]], 3), ([7], (2, 1, 4))])
def test_unravel_index_matches_torch(indices, shape):
    got = ember.unravel_index(ember.tensor(indices), shape)
    want = torch.unravel_index(torch.tensor(indices), shape)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_unravel_index_errors_like_torch():
    raises_like_torch(lambda: ember.unravel_index(ember.tensor([1.0]), (2, 3)),
                      lambda: torch.unravel_index(torch.tensor([1.0]), (2, 3)))
    raises_like_torch(lambda: ember.unravel_index(ember.tensor([1]), (2, -3)),
                      lambda: torch.unravel_index(torch.tensor([1]), (2, -3)))


# ---- accelerator, module paths, tracing nested inputs --------------------------------------

def test_accelerator_answers_like_torch_on_this_machine():
    assert ember.accelerator.is_available() == ember.cuda.is_available()
    assert ember.accelerator.device_count() == ember.cuda.device_count()
    if not ember.cuda.is_available():
        assert ember.accelerator.current_accelerator(check_available=True) is None
    if ember.cuda.is_built():
        assert ember.accelerator.current_accelerator().type == "cuda"


def test_nn_modules_submodule_paths_hold_what_torchs_do():
    import importlib

    for sub, names in {"activation": ["MultiheadAttention", "ReLU6", "PReLU", "Softmin"],
                       "loss": ["KLDivLoss", "TripletMarginLoss", "CrossEntropyLoss"],
                       "pooling": ["MaxPool1d", "AdaptiveAvgPool1d", "AvgPool2d"],
                       "channelshuffle": ["ChannelShuffle"]}.items():
        module = importlib.import_module(f"ember.nn.modules.{sub}")
        for name in names:
            assert getattr(module, name) is getattr(ember.nn, name), (sub, name)


def test_trace_with_nested_tuple_inputs():
    class Recurrent(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = ember.nn.LSTM(3, 4)

        def forward(self, x, state):
            return self.lstm(x, state)

    ember.manual_seed(0)
    model = Recurrent()
    x = ember.randn(5, 2, 3)
    state = (ember.zeros(1, 2, 4), ember.zeros(1, 2, 4))
    traced = ember.jit.trace(model, (x, state))
    other = (ember.randn(1, 2, 4), ember.randn(1, 2, 4))
    # The trace runs the layer step by step; eager, with a graph, runs it as one
    # lstm_layer op: the same formulas, summed in another order (float32 rounding).
    got, want = traced(x, other), model(x, other)
    np.testing.assert_allclose(got[0].detach().numpy(), want[0].detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1][1].detach().numpy(), want[1][1].detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="nest"):
        traced(x, *other)
    with pytest.raises(TypeError, match="example input 1\\[0\\]"):
        ember.jit.trace(model, (x, ("h", "c")))


# ---- silent calls that raise now ---------------------------------------------------------

WRITES_INTO_EXPANDED = {
    "add_": lambda m, x: x.add_(1),
    "mul_": lambda m, x: x.mul_(2),
    "copy_": lambda m, x: x.copy_(m.arange(3.0)),
    "copy_ broadcast": lambda m, x: x.copy_(m.ones(1)),
    "clamp_": lambda m, x: x.clamp_(0, 1),
    "uniform_": lambda m, x: x.uniform_(),
    "addmm_ (a composite)": lambda m, x: x.unsqueeze(0).addmm_(m.ones(1, 2), m.ones(2, 3)),
}


@pytest.mark.parametrize("name", sorted(WRITES_INTO_EXPANDED))
def test_writes_into_expanded_tensors_raise_like_torch_before_writing(name):
    op = WRITES_INTO_EXPANDED[name]
    base = ember.tensor([0.5])
    raises_like_torch(lambda: op(ember, base.expand(3)),
                      lambda: op(torch, torch.tensor([0.5]).expand(3)))
    assert base.tolist() == [0.5]


def test_fill_into_expanded_tensor_is_allowed_as_in_torch():
    base = ember.zeros(1)
    base.expand(3).fill_(2.0)
    base.expand(3).zero_()
    assert base.tolist() == [0.0]


def test_failed_in_place_write_leaves_autograd_history_unchanged():
    x = ember.ones(1, requires_grad=True)
    y = x * 3
    before = y.grad_fn
    with pytest.raises(RuntimeError, match="more than one element"):
        y.expand(3).add_(1)
    assert y.grad_fn is before or type(y.grad_fn) is type(before)
    y.sum().backward()
    assert x.grad.tolist() == [3.0]


@pytest.mark.parametrize("call", [
    lambda m: m.nn.Flatten()(m.tensor(1.0)),
    lambda m: m.tensor(1.0).flatten(1),
    lambda m: m.nn.BCELoss()(m.tensor([0.5]), m.tensor([2.0])),
    lambda m: m.nn.BCELoss()(m.tensor([0.5]), m.tensor([float("nan")])),
    lambda m: m.nn.functional.binary_cross_entropy(m.tensor([1.5]), m.tensor([-1.0])),
    lambda m: "x" in m.tensor([1, 2]),
    lambda m: None in m.tensor([1, 2]),
    lambda m: float(m.tensor([1.0, 2.0])),
    lambda m: int(m.tensor([1, 2])),
    lambda m: float(m.tensor([])),
])
def test_calls_that_used_to_return_a_value_raise_like_torch(call):
    raises_like_torch(lambda: call(ember), lambda: call(torch))


def test_contains_matches_torch():
    for element in [2, 2.0, 1.5, True, 0]:
        assert (element in ember.tensor([1, 2])) == (element in torch.tensor([1, 2]))
    assert (ember.tensor(2) in ember.tensor([1, 2])) is True
    assert ember.flatten(ember.tensor(1.0)).tolist() == [1.0]


# ---- inference tensors -----------------------------------------------------------------------

def test_inference_tensors_follow_torchs_rules():
    for m in (ember, torch):
        normal = m.ones(2)
        with m.inference_mode():
            x = m.ones(2)
            view_of_x = x[:1]
            view_of_normal = normal[:1]
            x.add_(1)  # in place inside inference mode: allowed
            assert m.is_inference_mode_enabled()
        assert not m.is_inference_mode_enabled()
        assert x.is_inference() and view_of_x.is_inference()
        assert not normal.is_inference() and not view_of_normal.is_inference()
        assert x.tolist() == [2.0, 2.0] and not x.requires_grad
        with m.no_grad():
            assert not m.ones(1).is_inference()
    refused = {
        "saved for backward": lambda m, x: (x * m.ones(2, requires_grad=True)).sum(),
        "written in place": lambda m, x: x.add_(1),
        "made to require grad": lambda m, x: x.requires_grad_(),
    }
    for name, call in refused.items():
        with ember.inference_mode():
            e = ember.ones(2)
        with torch.inference_mode():
            t = torch.ones(2)
        raises_like_torch(lambda: call(ember, e), lambda: call(torch, t))
        assert e.tolist() == [1.0, 1.0], name


def test_inference_mode_decorator_and_nesting():
    @ember.inference_mode()
    def make():
        return ember.ones(1)

    assert make().is_inference()
    with ember.inference_mode():
        with ember.inference_mode(False):
            assert not ember.is_inference_mode_enabled()
            assert not ember.ones(1).is_inference()
        assert ember.is_inference_mode_enabled()


def test_cuda_older_names_and_device_of():
    assert ember.cuda.is_initialized() == ember.cuda.is_available()
    with ember.cuda.device_of(ember.ones(2)):  # a CPU tensor changes nothing
        pass
    if not ember.cuda.is_available():
        for call in (ember.cuda.init, ember.cuda.memory_cached, ember.cuda.max_memory_cached,
                     ember.cuda.reset_max_memory_allocated):
            with pytest.raises(RuntimeError), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call()
        return
    with pytest.warns(FutureWarning):
        assert ember.cuda.memory_cached() == ember.cuda.memory_reserved()
    with pytest.warns(FutureWarning):
        assert ember.cuda.max_memory_cached() == ember.cuda.max_memory_reserved()
    x = ember.ones(4, device="cuda")
    with ember.cuda.device_of(x):
        assert ember.cuda.current_device() == x.get_device()
