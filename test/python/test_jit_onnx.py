"""ember.onnx.export: the models of the issue (an MLP, the digits CNN, a
TransformerEncoderLayer) and one small traced function per converted op, exported,
checked by onnx.checker and run in onnxruntime against ember's own outputs. Dynamic
sizes (dynamic_shapes, dynamic_axes): test_jit_onnx_dynamic.py."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

onnx = pytest.importorskip("onnx",
                           reason="ember.onnx tests need the onnx package (pip install onnx)")
ort = pytest.importorskip("onnxruntime",
                          reason="ember.onnx tests need onnxruntime (pip install onnxruntime)")


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _flat(out):
    """A nested result's tensors in order: the exported model's outputs."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def run_onnx(path, feeds):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def export_and_compare(model, inputs, tmp_path, atol=1e-5, **kwargs):
    """Exports model, checks the file, runs it in onnxruntime on inputs and compares every
    output with ember's. Returns the ModelProto."""
    inputs = _as_tuple(inputs)
    path = tmp_path / "model.onnx"
    proto = ember.onnx.export(model, inputs, path, **kwargs)
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)
    with ember.no_grad():
        expected = _flat(model(*inputs))
    names = [i.name for i in proto.graph.input]
    got = run_onnx(path, {n: t.numpy() for n, t in zip(names, inputs)})
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        e = e.numpy()
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, atol=atol, rtol=1e-5)
    return proto


def op_types(proto):
    return {n.op_type for n in proto.graph.node}


# ---- the models of the issue ------------------------------------------------------------
@pytest.mark.parametrize("activation", [nn.ReLU, nn.GELU, nn.Tanh, nn.Sigmoid])
def test_mlp(tmp_path, activation):
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), activation(), nn.Dropout(0.3),
                          nn.Linear(32, 10), nn.LogSoftmax(dim=1)).eval()
    proto = export_and_compare(model, ember.randn(5, 16), tmp_path)
    assert "Gemm" in op_types(proto)
    # Parameters are initializers under their names.
    assert {i.name for i in proto.graph.initializer} >= {"0.weight", "0.bias", "3.weight", "3.bias"}


def test_mlp_softmax_without_bias(tmp_path):
    ember.manual_seed(1)
    model = nn.Sequential(nn.Flatten(), nn.Linear(12, 8, bias=False), nn.Softmax(dim=-1)).eval()
    export_and_compare(model, ember.randn(3, 3, 4), tmp_path)


def test_inplace_relu_after_a_view(tmp_path):
    # relu_ writes into the view Flatten made; nothing reads the old storage afterwards.
    ember.manual_seed(11)
    model = nn.Sequential(nn.Linear(4, 6), nn.Unflatten(1, (2, 3)), nn.Flatten(),
                          nn.ReLU(inplace=True), nn.Linear(6, 2)).eval()
    export_and_compare(model, ember.randn(3, 4), tmp_path)


def digits_cnn(pool=nn.MaxPool2d):
    """The CNN of examples/train_digits.py (8x8 digits)."""
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), pool(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), pool(2),
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 2 * 2, 10))


def _with_running_stats(model):
    """Non-trivial running statistics: a few batches in training mode."""
    model.train()
    with ember.no_grad():
        for _ in range(3):
            model(ember.randn(16, 1, 8, 8) * 2 + 0.5)
    return model.eval()


@pytest.mark.parametrize("pool", [nn.MaxPool2d, nn.AvgPool2d])
def test_digits_cnn(tmp_path, pool):
    ember.manual_seed(2)
    model = _with_running_stats(digits_cnn(pool))
    proto = export_and_compare(model, ember.randn(4, 1, 8, 8), tmp_path, atol=1e-4)
    assert {"Conv", "BatchNormalization"} <= op_types(proto)


def test_cnn_adaptive_pool(tmp_path):
    ember.manual_seed(3)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(8, 4)).eval()
    export_and_compare(model, ember.randn(2, 3, 11, 11), tmp_path)


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("activation,norm_first", [("relu", False), ("gelu", True)])
def test_transformer_encoder_layer(tmp_path, batch_first, activation, norm_first):
    ember.manual_seed(4)
    layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.1,
                                       activation=activation, batch_first=batch_first,
                                       norm_first=norm_first).eval()
    src = ember.randn(2, 5, 16) if batch_first else ember.randn(5, 2, 16)
    proto = export_and_compare(layer, src, tmp_path)
    assert {"LayerNormalization", "Softmax", "MatMul"} <= op_types(proto)


def test_transformer_encoder_layer_with_padding_mask(tmp_path):
    # The key padding mask is a second (bool) input: masked_fill and where in the graph.
    ember.manual_seed(5)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True).eval()
    src = ember.randn(2, 4, 8)
    mask = ember.tensor([[False, False, True, True], [False, False, False, False]])
    export_and_compare(lambda s, m: layer(s, src_key_padding_mask=m), (src, mask), tmp_path)


def test_transformer_encoder_two_layers(tmp_path):
    ember.manual_seed(12)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), 2)
    export_and_compare(encoder.eval(), ember.randn(2, 5, 16), tmp_path)


@pytest.mark.parametrize("cell", [nn.LSTM, nn.GRU])
def test_recurrent(tmp_path, cell):
    # Unrolled by the trace: one step's ops per time step; (output, h_n[, c_n]) flattened.
    ember.manual_seed(13)
    model = cell(8, 16, num_layers=2, batch_first=True).eval()
    proto = export_and_compare(model, ember.randn(2, 5, 8), tmp_path)
    assert len(proto.graph.output) == (3 if cell is nn.LSTM else 2)


def test_traced_without_passes(tmp_path):
    # The raw trace (no folding): weight transposes, aliases and copies as nodes.
    ember.manual_seed(14)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16).eval()
    x = ember.randn(4, 2, 8)
    export_and_compare(ember.jit.trace(layer, x, optimize=False), x, tmp_path)


def test_traced_module_is_exported_as_is(tmp_path):
    ember.manual_seed(6)
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh()).eval()
    x = ember.randn(2, 4)
    traced = ember.jit.trace(model, x)
    export_and_compare(traced, x, tmp_path)
    with pytest.raises(ValueError, match="traced with float32\\[2, 4\\]"):
        ember.onnx.export(traced, ember.randn(3, 4), tmp_path / "m.onnx")


# ---- names, arguments and errors --------------------------------------------------------
def test_input_and_output_names(tmp_path):
    def fn(a, b):
        return a + b, (a * b).sum(1)
    a, b = ember.randn(2, 3), ember.randn(2, 3)
    proto = export_and_compare(fn, (a, b), tmp_path, input_names=["left", "right"],
                               output_names=["total", "dot"])
    assert [i.name for i in proto.graph.input] == ["left", "right"]
    assert [o.name for o in proto.graph.output] == ["total", "dot"]
    got = run_onnx(tmp_path / "model.onnx", {"left": a.numpy(), "right": b.numpy()})
    np.testing.assert_allclose(got[1], (a * b).sum(1).numpy(), rtol=1e-6)


def test_default_names_and_partial_names(tmp_path):
    proto = export_and_compare(lambda a, b: (a - b, a), (ember.randn(3), ember.randn(3)),
                               tmp_path, input_names=["first"])
    assert [i.name for i in proto.graph.input][0] == "first"
    assert [o.name for o in proto.graph.output] == ["output0", "output1"]


def test_output_returned_twice_and_input_returned(tmp_path):
    def fn(x):
        y = x.relu()
        return y, y, x
    export_and_compare(fn, ember.randn(4), tmp_path)


def test_bad_arguments(tmp_path):
    x = ember.randn(2, 3)
    path = tmp_path / "m.onnx"
    with pytest.raises(ValueError, match="opset_version"):
        ember.onnx.export(lambda t: t.relu(), x, path, opset_version=3)
    with pytest.raises(ValueError, match="2 input names"):
        ember.onnx.export(lambda t: t.relu(), x, path, input_names=["a", "b"])
    with pytest.raises(ValueError, match="given twice|already the name"):
        ember.onnx.export(lambda t: (t.relu(), t.exp()), x, path, output_names=["o", "o"])
    with pytest.raises(TypeError):
        ember.onnx.export(lambda t: t.relu(), x, path, output_names=[3])
    assert not path.exists()


def test_unsupported_op_names_op_and_node(tmp_path):
    with pytest.raises(ember.onnx.UnsupportedOperatorError, match=r"atan2 \(node 1: .*atan2"):
        ember.onnx.export(lambda a, b: ember.atan2(a.exp(), b), (ember.randn(3), ember.randn(3)),
                          tmp_path / "m.onnx")
    assert not (tmp_path / "m.onnx").exists()


def test_dropout_in_training_mode_is_refused(tmp_path):
    # A Module is exported in eval mode unless asked (torch.onnx.export's TrainingMode).
    model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5)).train()
    with pytest.raises(ember.onnx.UnsupportedOperatorError, match="dropout.*eval"):
        ember.onnx.export(model, ember.randn(2, 3), tmp_path / "m.onnx",
                          training=ember.onnx.TrainingMode.TRAINING)
    ember.onnx.export(model, ember.randn(2, 3), tmp_path / "m.onnx")
    assert model.training


def test_batch_norm_in_training_mode_is_refused(tmp_path):
    mean, var = ember.zeros(3), ember.ones(3)
    with pytest.raises(ember.onnx.UnsupportedOperatorError, match="batch_norm.*eval"):
        ember.onnx.export(lambda x: F.batch_norm(x, mean, var, training=True), ember.randn(4, 3),
                          tmp_path / "m.onnx")


def test_write_through_a_view_is_refused(tmp_path):
    def fn(x):
        y = x.clone()
        y[0].mul_(2)  # writes into y through the view y[0]
        return y
    with pytest.raises(ember.onnx.UnsupportedOperatorError, match="view"):
        ember.onnx.export(fn, ember.randn(2, 3), tmp_path / "m.onnx")


def test_newer_opset(tmp_path):
    # Reduce* take their axes as an input from opset 18 on.
    proto = export_and_compare(lambda x: x.mean(1).amax(0), ember.randn(3, 4, 2), tmp_path,
                               opset_version=18)
    assert proto.opset_import[0].version == 18


# ---- one traced function per converted op -----------------------------------------------
def _x(*shape):
    return ember.randn(shape)


def _pos(*shape):
    return ember.rand(shape) + 0.1


def _ints(*shape):
    return ember.randint(-5, 5, shape)


_COLUMNS, _ROWS = ember.tensor([2, 0, 2]), ember.tensor([1, 0])  # constants of the traces
ember.manual_seed(7)  # the same inputs on every run

CASES = {
    # unary
    "neg_abs_sign": (lambda x: -x + x.abs() * x.sign(), (_x(3, 4),)),
    "exp_log": (lambda x: x.exp() + x.log() + x.log1p() + x.log2() + x.expm1(), (_pos(3, 4),)),
    "sqrt_rsqrt_reciprocal": (lambda x: x.sqrt() + x.rsqrt() + x.reciprocal(), (_pos(3, 4),)),
    "trig": (lambda x: x.sin() + x.cos() + x.tan() + x.tanh() + x.sigmoid() + ember.erf(x),
             (_x(3, 4),)),
    "inverse_trig": (lambda x: x.acos() + x.asin() + x.atan() + x.sinh() + x.cosh() + x.asinh()
                     + x.atanh() + (x.abs() + 1).acosh(), (_x(3, 4).tanh() * 0.9,)),
    "rounding": (lambda x: x.floor() + x.ceil() + x.trunc() + x.round() + x.round(decimals=1),
                 (_x(3, 4) * 10,)),
    "int_unary": (lambda x: x.floor() * 2 + x.abs() - x.exp(), (_ints(3, 4),)),
    "activations": (lambda x: F.silu(x) + F.softplus(x * 10, 2, 5) + F.leaky_relu(x, 0.1)
                    + F.gelu(x, approximate="tanh") + F.relu(x), (_x(3, 4),)),
    "activations_extra": (lambda x: F.elu(x, 0.5) + F.selu(x) + F.celu(x, 2.0) + F.hardtanh(x, -0.5, 0.5)
                          + F.relu6(x * 4) + F.hardsigmoid(x * 3) + F.hardswish(x * 3) + F.mish(x)
                          + F.logsigmoid(x) + F.softshrink(x, 0.3) + F.hardshrink(x, 0.3)
                          + F.threshold(x, 0.1, -1.0) + F.softsign(x) + F.glu(x, 0).sum(), (_x(4, 4),)),
    "clamp": (lambda x, lo: x.clamp(min=-0.5, max=0.5) + ember.clamp(x, min=lo), (_x(3, 4), _x(4))),
    "float_classes": (lambda x: ember.isnan(x.log()).int() + ember.isinf(1 / x).int()
                      + ember.isfinite(x.log()).int(), (ember.tensor([1.0, 0.0, -1.0, 2.0]),)),
    "bitwise_not_bool": (lambda x: ~(x > 0) | ~(x < -1), (_x(3, 4),)),
    "logical": (lambda x, y: ember.logical_not(x > 0) ^ ember.logical_and(x > y, y < 0)
                | ember.logical_or(x == y, x != 0), (_x(3, 4), _x(3, 4))),
    # binary
    "add_sub_alpha": (lambda x, y: ember.add(x, y, alpha=2.5) - ember.sub(x, y, alpha=2) + 3,
                      (_x(3, 4), _x(4))),
    "int_and_python_float": (lambda x: (x + 2.5) * 2 - x / 3, (_ints(3, 4),)),
    "div_rounding": (lambda x, y: ember.div(x, y, rounding_mode="floor")
                     + ember.div(x, y, rounding_mode="trunc"), (_x(3, 4) * 5, _x(3, 4))),
    "int_div_rounding": (lambda x: ember.div(x, 3, rounding_mode="floor")
                         + ember.div(x, 3, rounding_mode="trunc") + x % 3, (_ints(3, 4),)),
    "remainder_fmod_pow": (lambda x, y: x % y + ember.fmod(x, y) + ember.pow(x.abs(), y),
                           (_x(3, 4) * 5, _pos(3, 4))),
    "maximum_minimum": (lambda x, y: ember.maximum(x, y) * ember.minimum(x, y), (_x(3, 4), _x(4))),
    "compare": (lambda x: (x > 0.5).float() + (x >= 0).float() + (x < 1).float()
                + (x <= -1).float() + (x == 0).float(), (_x(3, 4),)),
    "compare_int_float": (lambda x: (x > 1.5).int() + (x == 2).int(), (_ints(3, 4),)),
    "where_lerp": (lambda x, y: ember.where(x > 0, x, 0.0) + ember.lerp(x, y, 0.3),
                   (_x(3, 4), _x(3, 4))),
    # linear algebra
    "matmul_shapes": (lambda a, b, v: (a @ b).sum() + (a @ v).sum() + (v @ v)
                      + (b.transpose(-1, -2) @ a.transpose(-1, -2)).sum(),
                      (_x(2, 3, 4), _x(2, 4, 3), _x(4))),
    "addmm": (lambda b, x, m: ember.addmm(b, x, m, beta=0.5, alpha=2), (_x(5), _x(3, 4), _x(4, 5))),
    "mv_mm": (lambda x, m, v: ember.mm(x, m).sum(0) + ember.mv(m.t(), v),
              (_x(3, 4), _x(4, 5), _x(4))),
    # convolution and pooling
    "conv_strided_dilated": (lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2),
                                                      dilation=(1, 2)),
                             (_x(2, 3, 9, 9), _x(4, 3, 3, 3), _x(4))),
    "conv_groups": (lambda x, w: F.conv2d(x, w, groups=3), (_x(2, 3, 6, 6), _x(6, 1, 3, 3))),
    "conv_transpose": (lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1),
                       (_x(1, 3, 5, 5), _x(3, 2, 3, 3))),
    "pools": (lambda x: F.max_pool2d(x, 3, 2, 1).sum() + F.max_pool2d(x, 2, ceil_mode=True).sum()
              + F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False).sum()
              + F.adaptive_avg_pool2d(x, 3).sum(), (_x(2, 3, 9, 9),)),
    # nn
    "layer_norm_no_affine": (lambda x: F.layer_norm(x, [3, 4]), (_x(2, 3, 4),)),
    "batch_norm_functional": (lambda x, m, v: F.batch_norm(x, m, v), (_x(4, 3), _x(3), _pos(3))),
    "embedding": (lambda i, w: F.embedding(i, w), (ember.tensor([[0, 2], [4, 1]]), _x(5, 3))),
    "pad": (lambda x: F.pad(x, (1, 2, 0, 1), value=0.5).sum() + F.pad(x, (1, 2, 2, 1),
            mode="reflect").sum() + F.pad(x, (1, 1, 0, 2), mode="replicate").sum(),
            (_x(1, 2, 4, 4),)),
    "group_norm": (lambda x, w, b: F.group_norm(x, 3, w, b) + F.group_norm(x, 2),
                   (_x(2, 6, 3, 3), _x(6), _x(6))),
    "interpolate_nearest": (lambda x: F.interpolate(x, size=(5, 7)).sum()
                            + F.interpolate(x, scale_factor=1.5).sum(), (_x(1, 2, 4, 4),)),
    "interpolate_linear": (lambda x: F.interpolate(x, size=(5, 7), mode="bilinear").sum()
                           + F.interpolate(x, scale_factor=2.5, mode="bilinear").sum()
                           + F.interpolate(x, size=(3, 9), mode="bilinear",
                                           align_corners=True).sum(), (_x(1, 2, 4, 4),)),
    "one_hot": (lambda i: F.one_hot(i, 5) + F.one_hot(i), (ember.tensor([[0, 3], [2, 4]]),)),
    "nan_to_num": (lambda x: ember.nan_to_num(x.log()) + ember.nan_to_num(1 / x, 1.5, 9.0, -9.0),
                   (ember.tensor([1.0, 0.0, -1.0, 2.0]),)),
    "max_pool_indices": (lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True)[1],
                         (_x(2, 3, 9, 9),)),
    # reductions
    "sum_mean_prod": (lambda x: x.sum((1, 2)) + x.mean(1).sum(1) + x.prod(2).sum(-1)
                      + x.sum(), (_x(2, 3, 4),)),
    "sum_int_and_bool": (lambda x: x.sum(1) + (x > 0).sum(1), (_ints(3, 4),)),
    "amax_amin_logsumexp": (lambda x: x.amax((0, 2)) + x.amin(2).sum(0)
                            + ember.logsumexp(x, 2).sum(0),
                            (_x(2, 3, 4),)),
    "any_all": (lambda x: (x > 0).any(1).int() + x.all(1).int(), (_ints(3, 4),)),
    "max_min_dim": (lambda x: ember.max(x, 1)[0] + ember.min(x, 1)[1].float(), (_x(3, 4),)),
    "argmax": (lambda x: x.argmax(1) + x.argmin() + x.argmax(), (_x(3, 4),)),
    "var_std": (lambda x: x.var(1) + x.std(1, correction=0) + ember.var_mean(x, 1)[1]
                + ember.std_mean(x, 1)[0], (_x(3, 4),)),
    "cumsum_softmax": (lambda x: x.cumsum(1) + F.softmax(x, 0) + F.log_softmax(x, -1), (_x(3, 4),)),
    # shapes and indexing
    "views": (lambda x: x.view(4, 6).t().reshape(2, 12).unsqueeze(0).squeeze(0)[:, 1:9:2]
              .permute(1, 0).expand(2, 4, 2)[1], (_x(2, 3, 4),)),
    "select_slice_chunk": (lambda x: sum(c.sum() for c in x.chunk(3, -1)) + x[1, :, 2].sum(),
                           (_x(2, 3, 6),)),
    "cat_stack": (lambda x, y: ember.cat([x, y], 1) + ember.stack([y, x], 1).view(3, 8),
                  (_x(3, 4), _x(3, 4))),
    "flip_tril_triu": (lambda x: x.flip(0, 1) + x.tril() + x.triu(1), (_x(4, 4),)),
    "gather_index": (lambda x, i: x.gather(1, i).sum() + x[:, _COLUMNS].sum()
                     + x.index_select(0, _ROWS).sum(),
                     (_x(3, 4), ember.tensor([[0, 3], [1, 1], [2, 0]]))),
    "index_several": (lambda x, i, j, m: x[i, j] + x[:, i, j].sum(0).unsqueeze(-1)
                      + x[i, :, j] * 2 + x[m].sum(),
                      (_x(3, 4, 4), ember.tensor([[0], [2]]), ember.tensor([1, 3, -1]),
                       ember.tensor([True, False, True]))),
    "masked_fill": (lambda x: x.masked_fill(x > 0, -1.5).masked_fill(x < -1, float("-inf"))
                    .clamp(min=-2), (_x(3, 4),)),
    "zeros_ones_to": (lambda x: ember.zeros(3, 4) + ember.ones_like(x) + x.to(ember.int32)
                      + ember.full((4,), 2.0) + ember.arange(4) + ember.eye(3, 4)
                      + ember.linspace(0, 1, 4), (_x(3, 4) * 3,)),
    "sort": (lambda x: ember.sort(x, 1, stable=True)[0]
             + ember.sort(x, 1, descending=True, stable=True)[1].float(),
             (ember.tensor([[3.0, 1.0, 2.0, 1.0], [0.0, 5.0, 5.0, -1.0]]),)),
    "topk": (lambda x: ember.topk(x, 2, 1)[0] + ember.topk(x, 2, -1, largest=False)[1].float(),
             (_x(3, 5),)),
}


@pytest.mark.parametrize("opset", [17, 18])  # 18: Reduce* take their axes as an input
@pytest.mark.parametrize("name", sorted(CASES))
def test_op(tmp_path, name, opset):
    fn, inputs = CASES[name]
    export_and_compare(fn, inputs, tmp_path, atol=1e-4, opset_version=opset)
