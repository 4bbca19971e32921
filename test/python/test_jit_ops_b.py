"""ember.jit.trace over the elementwise, linalg and nn ops: every traceable op of
lib/dispatch/ops/{elementwise,linalg,nn}.def, traced on example inputs and run
on NEW inputs of the same shapes, equals the eager call (also in-place forms,
Python numbers, broadcast, non-contiguous, 0-dim and empty inputs), and
gradients through a traced module equal the eager ones."""
import os
import tempfile

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from _helpers import noncontiguous, to_numpy

# ---- the check ---------------------------------------------------------------------------


def _make(makers, seed):
    """The inputs of one run: each maker called after seeding (same seed, same values)."""
    ember.manual_seed(seed)
    return tuple(m() for m in makers)


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _assert_same(got, expected, rtol, atol):
    assert got.dtype == expected.dtype, f"dtype {got.dtype} != {expected.dtype}"
    assert tuple(got.shape) == tuple(expected.shape), f"shape {got.shape} != {expected.shape}"
    g, e = to_numpy(got), to_numpy(expected)
    if g.dtype == np.bool_ or np.issubdtype(g.dtype, np.integer):
        np.testing.assert_array_equal(g, e)
    else:
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, equal_nan=True)


def _reloaded(traced):
    """The traced module written to a model file and read back."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.ember")
        traced.save(path)
        return ember.jit.load(path)


def check(fn, *makers, ops=(), rtol=1e-5, atol=1e-6):
    """Traces fn on inputs drawn with seed 0, runs the trace (and the trace saved and
    loaded again) and fn on inputs drawn with seed 1, and compares the outputs and
    the inputs afterwards (in-place forms write into them). ops: op names the graph
    must hold (the invokers under test)."""
    traced = ember.jit.trace(fn, _make(makers, 0))
    recorded = {node.op for node in traced.graph.nodes()}
    for op in ops:
        assert op in recorded, f"{op} not in the graph: {sorted(recorded)}\n{traced.graph}"
    eager_args = _make(makers, 1)
    expected = _flat(fn(*eager_args))
    for module in (traced, _reloaded(traced)):
        args = _make(makers, 1)
        got = _flat(module(*args))
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _assert_same(g, e, rtol, atol)
        for g, e in zip(args, eager_args):
            if isinstance(e, ember.Tensor):
                _assert_same(g, e, rtol, atol)
    return traced


# ---- input makers ------------------------------------------------------------------------


def randn(*shape, nc=False):
    def make():
        t = ember.randn(shape)
        return noncontiguous(t) if nc else t
    return make


def positive(*shape, nc=False):
    def make():
        t = ember.rand(shape) + 0.1
        return noncontiguous(t) if nc else t
    return make


def randint(lo, hi, *shape, dtype=ember.int64, nc=False):
    def make():
        t = ember.randint(lo, hi, shape).to(dtype)
        return noncontiguous(t) if nc else t
    return make


def mask(*shape):
    return lambda: ember.rand(shape) > 0.5


def special():
    """Ordinary values (from the seed) with a nan and both infinities among them."""
    def make():
        t = ember.randn(8)
        t[1], t[3], t[6] = float("nan"), float("inf"), float("-inf")
        return t
    return make


# ---- unary elementwise ----------------------------------------------------------------------

# (op, call, input maker): call(x) is the out-of-place form; where the op has an in-place
# Tensor method op_ the test also traces that.
UNARY = [
    ("neg", lambda x: -x, randn(3, 4, nc=True)),
    ("abs", lambda x: x.abs(), randn(3, 4, nc=True)),
    ("sign", lambda x: x.sign(), randn(3, 4)),
    ("exp", lambda x: x.exp(), randn(3, 4, nc=True)),
    ("expm1", lambda x: ember.expm1(x), randn(3, 4)),
    ("log", lambda x: x.log(), positive(3, 4, nc=True)),
    ("log1p", lambda x: ember.log1p(x), positive(3, 4)),
    ("log2", lambda x: ember.log2(x), positive(3, 4)),
    ("sqrt", lambda x: x.sqrt(), positive(3, 4)),
    ("rsqrt", lambda x: x.rsqrt(), positive(3, 4)),
    ("reciprocal", lambda x: x.reciprocal(), positive(3, 4)),
    ("sin", lambda x: x.sin(), randn(3, 4)),
    ("cos", lambda x: x.cos(), randn(3, 4)),
    ("tan", lambda x: x.tan(), randn(3, 4)),
    ("tanh", lambda x: F.tanh(x), randn(3, 4)),
    ("sigmoid", lambda x: F.sigmoid(x), randn(3, 4)),
    ("erf", lambda x: ember.erf(x), randn(3, 4)),
    ("floor", lambda x: x.floor(), randn(3, 4)),
    ("ceil", lambda x: x.ceil(), randn(3, 4)),
    ("trunc", lambda x: x.trunc(), randn(3, 4)),
    ("round", lambda x: (x * 100).round(decimals=1), randn(3, 4)),
    ("relu", lambda x: F.relu(x), randn(3, 4, nc=True)),
    ("gelu", lambda x: F.gelu(x, approximate="tanh"), randn(3, 4)),
    ("silu", lambda x: F.silu(x), randn(3, 4)),
    ("softplus", lambda x: F.softplus(x, beta=2, threshold=1), randn(3, 4)),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.2), randn(3, 4)),
    ("nan_to_num", lambda x: x.nan_to_num(nan=1.5, neginf=-7.0), special()),
    ("isnan", lambda x: x.isnan(), special()),
    ("isinf", lambda x: x.isinf(), special()),
    ("isfinite", lambda x: x.isfinite(), special()),
    ("logical_not", lambda x: x.logical_not(), randint(0, 3, 3, 4)),
    ("bitwise_not", lambda x: ~x, randint(-9, 9, 3, 4, nc=True)),
]

# No in-place form (gelu_ has one in C++ only: the C++ test covers it).
_NO_INPLACE = {"softplus", "isnan", "isinf", "isfinite", "gelu"}
_INPLACE_ARGS = {"round": dict(decimals=1), "leaky_relu": dict(negative_slope=0.2),
                 "nan_to_num": dict(nan=1.5)}


@pytest.mark.parametrize("op,call,make", UNARY, ids=[u[0] for u in UNARY])
def test_unary(op, call, make):
    check(call, make, ops=[op])


@pytest.mark.parametrize("op,make", [(u[0], u[2]) for u in UNARY if u[0] not in _NO_INPLACE],
                         ids=[u[0] for u in UNARY if u[0] not in _NO_INPLACE])
def test_unary_inplace(op, make):
    kwargs = _INPLACE_ARGS.get(op, {})

    def fn(x):
        getattr(x, op + "_")(**kwargs)
        return x
    traced = check(fn, make, ops=[op])
    assert any(node.preset for node in traced.graph.nodes() if node.op == op)


@pytest.mark.parametrize("shape", [(), (0, 3)])
def test_unary_0dim_and_empty(shape):
    check(lambda x: F.relu(x.exp()) + x.sin(), randn(*shape), ops=["exp", "relu", "sin", "add"])


def test_0dim_and_empty_operands():
    check(lambda x, y: ember.where(x > 0, x * y, 1.0), randn(), randn(), ops=["where", "mul", "gt"])
    check(lambda x, y: x + y, randn(), randn(0, 3), ops=["add"])
    check(lambda x, w: F.max_pool2d(F.conv2d(x, w), 2), randn(0, 2, 5, 5), randn(3, 2, 2, 2),
          ops=["conv2d", "max_pool2d"])
    check(lambda x: F.layer_norm(x, (4,)), randn(0, 4), ops=["layer_norm"])
    check(lambda x, t: F.mse_loss(x, t), randn(), randn(), ops=["mse_loss"])
    check(lambda i, w: F.embedding(i, w), lambda: ember.tensor(3), randn(5, 2), ops=["embedding"])


def test_relu_inplace_functional():
    check(lambda x: F.relu(x, inplace=True) * 2, randn(5), ops=["relu", "mul"])


def test_clamp_forms():
    check(lambda x: x.clamp(min=-0.5), randn(3, 4, nc=True), ops=["clamp"])
    check(lambda x: x.clamp(max=0.25), randn(3, 4), ops=["clamp"])
    check(lambda x: ember.clamp(x, -1, 1), randn(3, 4), ops=["clamp"])
    check(lambda x, lo, hi: ember.clamp(x, lo, hi), randn(3, 4), randn(4), lambda: ember.randn(3, 1) + 0.5,
          ops=["clamp"])

    def clamp_inplace(x):
        x.clamp_(-0.1, 0.1)
        return x
    check(clamp_inplace, randn(6), ops=["clamp"])


def test_integer_input_of_float_ops():
    # exp of an int tensor is float32 (the default dtype), also when traced.
    traced = check(lambda n: n.exp() + n.sqrt(), randint(0, 5, 4), ops=["exp", "sqrt"])
    assert traced(ember.tensor([1, 4])).dtype == ember.float32


# ---- binary elementwise --------------------------------------------------------------------

BINARY = [
    ("add", lambda x, y: x + y), ("sub", lambda x, y: x - y), ("mul", lambda x, y: x * y),
    ("div", lambda x, y: x / y), ("remainder", lambda x, y: x % y),
    ("fmod", lambda x, y: ember.fmod(x, y)), ("pow", lambda x, y: x.abs() ** y),
    ("maximum", ember.maximum), ("minimum", ember.minimum), ("atan2", ember.atan2),
    ("eq", lambda x, y: x == y), ("ne", lambda x, y: x != y), ("lt", lambda x, y: x < y),
    ("le", lambda x, y: x <= y), ("gt", lambda x, y: x > y), ("ge", lambda x, y: x >= y),
]


@pytest.mark.parametrize("op,call", BINARY, ids=[b[0] for b in BINARY])
def test_binary_broadcast_noncontiguous(op, call):
    check(call, randn(3, 4, nc=True), randn(4), ops=[op])


@pytest.mark.parametrize("op,call", BINARY, ids=[b[0] for b in BINARY])
def test_binary_inplace(op, call):
    def fn(x, y):
        getattr(x, op + "_")(y)
        return x
    make_x = positive(3, 4) if op == "pow" else randn(3, 4)
    check(fn, make_x, randn(3, 1), ops=[op])


# torch.maximum / minimum / atan2 take `Tensor other`: a Python number is a TypeError there.
_NUMBER_OK = [b for b in BINARY if b[0] not in ("maximum", "minimum", "atan2")]


@pytest.mark.parametrize("op,call", _NUMBER_OK, ids=[b[0] for b in _NUMBER_OK])
def test_binary_python_number(op, call):
    check(lambda x: call(x, 1.5), randn(2, 3), ops=[op])


def test_scalar_promotion_survives_the_trace():
    # int tensor + Python float: float32 (the number does not widen); with a Python int it stays int32.
    traced = check(lambda n: (n + 2.5, n * 3, n // 2, 2 ** n), randint(0, 5, 4),
                   ops=["add", "mul", "div", "pow"])
    for module in (traced, _reloaded(traced)):  # the model file keeps the numbers' mark
        out = module(ember.tensor([1, 2], dtype=ember.int32))
        assert [o.dtype for o in out] == [ember.float32, ember.int32, ember.int32, ember.int32]
    # A float32 0-dim tensor times a Python float stays float32.
    check(lambda x: x * 0.5 - 1, randn(), ops=["mul", "sub"])


def test_add_alpha_rsub_and_div_modes():
    check(lambda x, y: ember.add(x, y, alpha=2.5), randn(3), randn(3), ops=["add"])
    check(lambda x, y: ember.sub(x, y, alpha=-1), randn(3), randn(2, 3), ops=["sub"])
    check(lambda x: 1 - x, randn(3), ops=["sub"])
    check(lambda x, y: ember.div(x, y, rounding_mode="floor"), lambda: ember.randn(4) * 5, randn(4),
          ops=["div"])
    check(lambda x, y: ember.div(x, y, rounding_mode="trunc"), randint(-9, 9, 4),
          randint(1, 4, 4), ops=["div"])

    def add_inplace(x, y):
        x += y
        x -= 1
        x.mul_(2)
        x.div_(y, rounding_mode="floor")
        return x
    check(add_inplace, randn(2, 3), positive(3), ops=["add", "sub", "mul", "div"])


def test_logical_and_bitwise():
    for op in ["logical_and", "logical_or", "logical_xor"]:
        check(getattr(ember, op), mask(3, 4), randint(0, 2, 4), ops=[op])
        check(lambda a, b, op=op: getattr(a, op + "_")(b), mask(3, 4), mask(4), ops=[op])
    for op in ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
               "bitwise_right_shift"]:
        check(getattr(ember, op), randint(0, 64, 3, 4, nc=True), randint(0, 4, 4), ops=[op])
        check(lambda a, op=op: getattr(ember, op)(a, 2), randint(0, 64, 5), ops=[op])
        check(lambda a, b, op=op: getattr(a, op + "_")(b), randint(0, 64, 3), randint(0, 4, 3),
              ops=[op])
    check(lambda a, b: (a & b) | (a ^ ~b), mask(4), mask(4),
          ops=["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"])


def test_where_and_lerp():
    check(lambda c, x, y: ember.where(c, x, y), mask(3, 4), randn(3, 1), randn(4, nc=True),
          ops=["where"])
    check(lambda c, x: ember.where(c, x, 0.0), mask(3, 4), randn(3, 4), ops=["where"])
    check(lambda x, y: ember.lerp(x, y, 0.3), randn(3, 4), randn(4), ops=["lerp"])
    check(lambda x, y, w: ember.lerp(x, y, w), randn(3, 4), randn(3, 4), positive(3, 4),
          ops=["lerp"])

    def lerp_inplace(x, y):
        x.lerp_(y, 0.75)
        return x
    check(lerp_inplace, randn(2, 2), randn(2), ops=["lerp"])


# ---- linalg ---------------------------------------------------------------------------------


def test_matrix_products():
    check(ember.mm, randn(3, 4, nc=True), randn(4, 5), ops=["mm"])
    check(ember.bmm, randn(2, 3, 4), randn(2, 4, 5, nc=True), ops=["bmm"])
    check(ember.mv, randn(3, 4), randn(4, nc=True), ops=["mv"])
    check(ember.dot, randn(4), randn(4), ops=["dot"])
    check(lambda b, x, y: ember.addmm(b, x, y, beta=0.5, alpha=2), randn(5), randn(3, 4),
          randn(4, 5), ops=["addmm"])
    check(ember.mm, randn(0, 4), randn(4, 2), ops=["mm"])


def test_linear():
    check(lambda x, w, b: F.linear(x, w, b), randn(3, 4), randn(5, 4), randn(5), ops=["addmm"])
    check(lambda x, w: F.linear(x, w), randn(2, 3, 4), randn(5, 4), ops=["mm"])


@pytest.mark.parametrize("padding", [0, 1, (2, 1), "same", "valid"])
def test_conv2d_padding(padding):
    check(lambda x, w, b: F.conv2d(x, w, b, padding=padding), randn(2, 3, 7, 6, nc=True),
          randn(4, 3, 3, 3), randn(4), ops=["conv2d"], rtol=1e-4, atol=1e-5)


def test_conv2d_same_even_kernel_groups_dilation_stride():
    check(lambda x, w: F.conv2d(x, w, padding="same", dilation=2, groups=2),
          randn(1, 4, 9, 8), randn(6, 2, 4, 3), ops=["conv2d"], rtol=1e-4, atol=1e-5)
    check(lambda x, w: F.conv2d(x, w, stride=(2, 1), padding=1), randn(2, 2, 8, 8),
          randn(3, 2, 3, 3), ops=["conv2d"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv2d_module_padding_modes(mode):
    ember.manual_seed(7)
    conv = nn.Conv2d(2, 3, 3, padding=1, padding_mode=mode)
    check(conv, randn(1, 2, 5, 6), ops=["conv2d"], rtol=1e-4, atol=1e-5)


def test_conv_transpose2d():
    check(lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
          randn(2, 4, 5, 5), randn(4, 3, 3, 3), randn(3), ops=["conv_transpose2d"],
          rtol=1e-4, atol=1e-5)


def test_pools():
    x = randn(2, 3, 7, 8, nc=True)
    check(lambda x: F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True), x,
          ops=["max_pool2d"])
    check(lambda x: F.max_pool2d_with_indices(x, (2, 3), dilation=(1, 2)), x,
          ops=["max_pool2d_with_indices"])
    check(lambda x: F.avg_pool2d(x, 3, stride=(1, 2), padding=1, count_include_pad=False), x,
          ops=["avg_pool2d"])
    check(lambda x: F.avg_pool2d(x, 2, divisor_override=3), x, ops=["avg_pool2d"])
    check(lambda x: F.adaptive_avg_pool2d(x, (3, None)), x, ops=["adaptive_avg_pool2d"])


# ---- nn ---------------------------------------------------------------------------------------


def test_batch_norm_eval_and_training():
    def bn(train):
        return lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b, training=train,
                                                    momentum=0.3, eps=1e-3)
    makers = (randn(4, 3, 5), randn(3), positive(3), randn(3), randn(3))
    check(bn(False), *makers, ops=["batch_norm"])
    # Training: the running stats (inputs here) are updated in place as the eager call does.
    check(bn(True), *makers, ops=["batch_norm"])




@pytest.mark.parametrize("train", [False, True])
def test_norm_modules_eval_and_training(train):
    ember.manual_seed(3)
    model = nn.Sequential(nn.BatchNorm2d(3), nn.GroupNorm(1, 3), nn.LayerNorm([3, 4, 4]))
    model.train(train)
    traced = ember.jit.trace(model, (ember.randn(2, 3, 4, 4),))
    assert {"batch_norm", "group_norm", "layer_norm"} <= {n.op for n in traced.graph.nodes()}
    x = ember.randn(2, 3, 4, 4)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    expected = model(x)
    after = {k: v.clone() for k, v in model.state_dict().items()}
    model.load_state_dict(before)
    _assert_same(traced(x), expected, 1e-5, 1e-5)
    # Training updates the running stats (the module's buffers) as the eager call did.
    for name, value in after.items():
        _assert_same(model.state_dict()[name], value, 1e-6, 1e-6)


def test_layer_and_group_norm_functional():
    check(lambda x, w, b: F.layer_norm(x, (4,), w, b, eps=1e-3), randn(2, 3, 4, nc=True),
          randn(4), randn(4), ops=["layer_norm"])
    check(lambda x: F.group_norm(x, 2), randn(3, 4, 5), ops=["group_norm"])


def test_dropout_draws_a_fresh_mask_each_call():
    with pytest.warns(ember.jit.TracerWarning, match="nondeterministic"):  # no check_trace
        traced = ember.jit.trace(lambda x: F.dropout(x, 0.5, training=True), (ember.ones(64, 64),))
    assert "dropout" in {node.op for node in traced.graph.nodes()}
    x = ember.ones(64, 64)
    a, b = to_numpy(traced(x)), to_numpy(traced(x))
    assert set(np.unique(a)) <= {0.0, 2.0}
    assert 0.3 < (a == 0).mean() < 0.7
    assert (a != b).any()
    # Same seed, same mask as the eager call.
    ember.manual_seed(11)
    got = traced(x)
    ember.manual_seed(11)
    _assert_same(got, F.dropout(x, 0.5, training=True), 0, 0)
    # Eval mode records no dropout at all.
    ev = ember.jit.trace(lambda x: F.dropout(x, 0.5, training=False) * 1, (x,))
    assert "dropout" not in {node.op for node in ev.graph.nodes()}


def test_dropout_inplace():
    def fn(x):
        F.dropout(x, 0.25, training=True, inplace=True)
        return x
    with pytest.warns(ember.jit.TracerWarning, match="nondeterministic"):
        traced = ember.jit.trace(fn, (ember.ones(8, 8),))
    ember.manual_seed(5)
    x = ember.ones(8, 8)
    got = traced(x)
    ember.manual_seed(5)
    expected = fn(ember.ones(8, 8))
    _assert_same(x, expected, 1e-6, 1e-6)
    _assert_same(got, expected, 1e-6, 1e-6)


def test_embedding_and_one_hot():
    check(lambda i, w: F.embedding(i, w), randint(0, 6, 3, 4), randn(6, 2), ops=["embedding"])
    check(lambda i, w: F.embedding(i, w, padding_idx=-1), randint(0, 6, 5, dtype=ember.int32),
          randn(6, 3), ops=["embedding"])
    check(lambda i: F.one_hot(i, 5), randint(0, 5, 4), ops=["one_hot"])
    ember.manual_seed(2)
    emb = nn.Embedding(10, 4)
    check(emb, randint(0, 10, 2, 3), ops=["embedding"])


@pytest.mark.parametrize("mode,pads", [("constant", (1, 2, 0, -1)), ("reflect", (2, 1, 1, 0)),
                                       ("replicate", (1, 1, 2, 0)), ("circular", (1, 2, 1, 1))])
def test_pad(mode, pads):
    value = 2.5 if mode == "constant" else None
    check(lambda x: F.pad(x, pads, mode=mode, value=value), randn(1, 2, 4, 5, nc=True),
          ops=["pad"])


def test_interpolate():
    check(lambda x: F.interpolate(x, size=(5, 7)), randn(1, 2, 3, 4), ops=["interpolate"])
    check(lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False),
          randn(1, 2, 3, 4), ops=["interpolate"])
    check(lambda x: F.interpolate(x, size=9, mode="linear", align_corners=True), randn(2, 3, 4),
          ops=["interpolate"])
    check(lambda x: F.interpolate(x, scale_factor=(2, 1, 0.5), mode="trilinear"),
          randn(1, 1, 2, 3, 4), ops=["interpolate"])
    check(lambda x: F.interpolate(x, scale_factor=2.0, recompute_scale_factor=True),
          randn(1, 1, 3, 3), ops=["interpolate"])


def test_losses():
    logits, probs = randn(4, 3), lambda: ember.rand(4, 3)
    cls = randint(0, 3, 4)
    check(lambda x, t: F.cross_entropy(x, t), logits, cls, ops=["cross_entropy"])
    check(lambda x, t, w: F.cross_entropy(x, t, w, ignore_index=1, reduction="sum",
                                          label_smoothing=0.1),
          logits, cls, positive(3), ops=["cross_entropy"])
    check(lambda x, t: F.cross_entropy(x, t.softmax(-1)), logits, randn(4, 3),
          ops=["cross_entropy"])
    check(lambda x, t: F.nll_loss(x, t, reduction="none"), logits, cls, ops=["nll_loss"])
    for op in ["mse_loss", "l1_loss"]:
        check(lambda x, t, op=op: getattr(F, op)(x, t), randn(3, 4, nc=True), randn(3, 4),
              ops=[op])
        check(lambda x, t, op=op: getattr(F, op)(x, t, reduction="none"), randn(3, 4),
              randn(4), ops=[op])
    check(lambda x, t: F.smooth_l1_loss(x, t, beta=0.5, reduction="sum"), randn(5), randn(5),
          ops=["smooth_l1_loss"])
    check(lambda x, t: F.huber_loss(x, t, delta=0.7), randn(5), randn(5), ops=["huber_loss"])
    check(lambda x, t, w: F.binary_cross_entropy(x, t, w), probs, probs, positive(4, 3),
          ops=["binary_cross_entropy"])
    check(lambda x, t, pw: F.binary_cross_entropy_with_logits(x, t, pos_weight=pw),
          logits, probs, positive(3), ops=["binary_cross_entropy_with_logits"])


def test_softmax_composition():
    check(lambda x: F.softmax(x * 2, dim=-1) + F.log_softmax(x, dim=0), randn(3, 4),
          ops=["mul", "add"])


# ---- gradients through a traced module --------------------------------------------------------


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.norm = nn.LayerNorm(4)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        y = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)      # [N, 4, 2, 2]
        y = F.adaptive_avg_pool2d(y, 1).flatten(1)             # [N, 4]
        return self.fc(F.gelu(self.norm(y)))


def _grads(model):
    return {name: p.grad.clone() for name, p in model.named_parameters()}


@pytest.mark.parametrize("train", [False, True])
def test_gradients_through_a_traced_module(train):
    ember.manual_seed(0)
    model = SmallNet()
    model.train(train)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    traced = ember.jit.trace(model, (ember.randn(3, 2, 4, 4),))
    model.load_state_dict(state)
    x, target = ember.randn(3, 2, 4, 4), ember.randint(0, 3, (3,))

    xe = x.clone().requires_grad_()
    F.cross_entropy(model(xe), target).backward()
    eager = _grads(model)
    model.zero_grad()
    model.load_state_dict(state)

    # The traced module shares the model's tensors; the reloaded one has its own
    # (read from the file, which is written after the state is restored), which
    # come back without requires_grad: set it on the parameters (not the buffers).
    for module in (traced, _reloaded(traced)):
        model.load_state_dict(state)
        params = dict(module.named_parameters())
        for name in eager:
            params[name].requires_grad_()
        xt = x.clone().requires_grad_()
        F.cross_entropy(module(xt), target).backward()
        for name, g in eager.items():
            _assert_same(params[name].grad, g, 1e-4, 1e-5)
        _assert_same(xt.grad, xe.grad, 1e-4, 1e-5)


class Decoder(nn.Module):
    """Embedding, pad, transposed convolution, group norm, interpolate and pooling."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.up = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1)
        self.norm = nn.GroupNorm(1, 3)

    def forward(self, idx):
        z = self.emb(idx).view(-1, 2, 2, 2)                                  # [N, 2, 2, 2]
        y = self.norm(self.up(F.pad(z, (1, 1, 1, 1), mode="replicate")))    # [N, 3, 8, 8]
        y = F.interpolate(y, scale_factor=0.5, mode="bilinear")              # [N, 3, 4, 4]
        return F.avg_pool2d(F.silu(y), 2)                                     # [N, 3, 2, 2]


def test_gradients_through_a_traced_decoder():
    ember.manual_seed(1)
    model = Decoder()
    traced = ember.jit.trace(model, (ember.randint(0, 10, (3,)),))
    idx, target = ember.randint(0, 10, (3,)), ember.rand(3, 3, 2, 2)

    def loss(out):
        return F.mse_loss(out, target) + F.binary_cross_entropy_with_logits(out, target)

    loss(model(idx)).backward()
    eager = _grads(model)
    model.zero_grad()
    loss(traced(idx)).backward()
    traced_params = dict(traced.named_parameters())
    for name, g in eager.items():
        _assert_same(traced_params[name].grad, g, 1e-4, 1e-6)


# ---- more activations (ops/activation.h): kernel ops and their in-place forms -----------------

ACTIVATIONS = [
    ("elu", lambda x: F.elu(x, 0.5), lambda x: F.elu(x, 0.5, inplace=True)),
    ("elu", lambda x: F.selu(x), lambda x: F.selu(x, inplace=True)),
    ("elu", lambda x: F.celu(x, 2.0), lambda x: ember.celu_(x, 2.0)),
    ("hardtanh", lambda x: F.hardtanh(x, -0.5, 0.5), lambda x: F.hardtanh_(x, -0.5, 0.5)),
    ("hardtanh", lambda x: F.relu6(x * 4), lambda x: F.relu6(x, inplace=True)),
    ("hardsigmoid", lambda x: F.hardsigmoid(x * 3), lambda x: F.hardsigmoid(x, inplace=True)),
    ("hardswish", lambda x: F.hardswish(x * 3), lambda x: F.hardswish(x, inplace=True)),
    ("mish", lambda x: F.mish(x), lambda x: F.mish(x, inplace=True)),
    ("logsigmoid", lambda x: F.logsigmoid(x), None),
    ("softshrink", lambda x: F.softshrink(x, 0.3), None),
    ("hardshrink", lambda x: x.hardshrink(0.3), None),
    ("threshold", lambda x: F.threshold(x, 0.1, -1.0), lambda x: ember.threshold_(x, 0.1, -1.0)),
]


@pytest.mark.parametrize("op,call,inplace", ACTIVATIONS, ids=[f"{a[0]}{i}" for i, a in enumerate(ACTIVATIONS)])
def test_activation_kernels(op, call, inplace):
    check(call, randn(3, 4, nc=True), ops=[op])
    if inplace is not None:
        def fn(x):
            inplace(x)
            return x
        traced = check(fn, randn(3, 4), ops=[op])
        assert any(node.preset for node in traced.graph.nodes() if node.op == op)


def test_activation_composites_trace():
    check(lambda x: F.glu(x, 0) + F.softsign(x[:2]), randn(4, 3), ops=["sigmoid", "div"])
    check(lambda x, w: F.prelu(x, w), randn(2, 3, 4), randn(3), ops=["where"])
    check(lambda x: F.softmin(x, 1) + F.tanhshrink(x), randn(2, 5), ops=["softmax", "tanh"])


# ---- special functions (ops/elementwise_special.h) --------------------------------------------

def unit(*shape):
    """Values in (-0.9, 0.9): the domain of asin, atanh, erfinv."""
    return lambda: ember.rand(shape) * 1.8 - 0.9


SPECIAL_UNARY = [
    ("acos", unit(3, 4)), ("asin", unit(3, 4)), ("atan", randn(3, 4, nc=True)),
    ("sinh", randn(3, 4)), ("cosh", randn(3, 4)), ("asinh", randn(3, 4)),
    ("acosh", lambda: ember.rand(3, 4) + 1.1), ("atanh", unit(3, 4)), ("erfc", randn(3, 4)),
    ("erfinv", unit(3, 4)), ("lgamma", positive(3, 4)), ("digamma", positive(3, 4)),
    ("log10", positive(3, 4)), ("exp2", randn(3, 4)), ("sinc", randn(3, 4)),
    ("i0", randn(3, 4)), ("frac", randn(3, 4)),
]


@pytest.mark.parametrize("op,make", SPECIAL_UNARY, ids=[u[0] for u in SPECIAL_UNARY])
def test_special_unary(op, make):
    check(lambda x: getattr(ember, op)(x), make, ops=[op])

    def fn(x):
        getattr(x, op + "_")()
        return x
    check(fn, make, ops=[op])


def test_special_unary_others():
    check(lambda x: ember.polygamma(2, x), positive(3, 4), ops=["polygamma"])

    def polygamma_inplace(x):
        x.polygamma_(1)
        return x
    check(polygamma_inplace, positive(5), ops=["polygamma"])
    check(lambda x: ember.signbit(x), special(), ops=["signbit"])
    check(lambda x: ember.special.i1(x), randn(6), ops=["special_i1"])
    check(lambda x: ember.logit(x.sigmoid(), eps=1e-3), randn(6), ops=["sigmoid", "clamp", "log"])


SPECIAL_BINARY = [
    ("hypot", randn(3, 4, nc=True), randn(4)), ("logaddexp", randn(3, 4), randn(4)),
    ("logaddexp2", randn(3, 4), randn(4)), ("copysign", randn(3, 4), randn(4)),
    ("fmax", special(), randn(8)), ("fmin", special(), randn(8)),
    ("xlogy", randn(3, 4), positive(4)), ("heaviside", randn(3, 4), randn(4)),
    ("gcd", randint(-20, 20, 3, 4), randint(-20, 20, 4)),
    ("lcm", randint(-9, 9, 3, 4), randint(-9, 9, 4)), ("nextafter", randn(3, 4), randn(4)),
]
_SPECIAL_NO_INPLACE = {"logaddexp", "logaddexp2", "fmax", "fmin"}


@pytest.mark.parametrize("op,make_x,make_y", SPECIAL_BINARY, ids=[b[0] for b in SPECIAL_BINARY])
def test_special_binary(op, make_x, make_y):
    check(lambda x, y: getattr(ember, op)(x, y), make_x, make_y, ops=[op])
    if op in _SPECIAL_NO_INPLACE:
        return

    def fn(x, y):
        getattr(x, op + "_")(y)
        return x
    check(fn, make_x, make_y, ops=[op])


def test_special_binary_numbers():
    check(lambda x: ember.xlogy(x, 2.5), randn(3, 4), ops=["xlogy"])
    check(lambda y: ember.xlogy(3, y), positive(3, 4), ops=["xlogy"])
    check(lambda x: ember.copysign(x, -1.0), randn(3, 4), ops=["copysign"])


def test_searchsorted_traces():
    boundaries = lambda: ember.sort(ember.randn(2, 9))[0]  # noqa: E731
    check(lambda s, v: ember.searchsorted(s, v, right=True), boundaries, randn(2, 5), ops=["searchsorted"])
