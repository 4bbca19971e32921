"""ember.onnx.export with dynamic sizes: a TracedModule traced with dynamic_shapes (its
symbolic dims become named ONNX dims, every size that follows them is computed in the
ONNX graph from the inputs' shapes), and dynamic_axes on a Module or function (turned
into dynamic_shapes). Each exported file runs in onnxruntime at several sizes against
ember's own outputs."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.jit import Dim

onnx = pytest.importorskip("onnx",
                           reason="ember.onnx tests need the onnx package (pip install onnx)")
ort = pytest.importorskip("onnxruntime",
                          reason="ember.onnx tests need onnxruntime (pip install onnxruntime)")

from test_jit_onnx import (_flat, _with_running_stats, digits_cnn, export_and_compare,  # noqa: E402
                           op_types)


def shape_of(value_info):
    """An ONNX input's or output's dims: dim_param, dim_value, or None when unnamed."""
    return [d.dim_param or (d.dim_value if d.HasField("dim_value") else None)
            for d in value_info.type.tensor_type.shape.dim]


def run_at_sizes(path, model, make_inputs, names, sizes, atol=1e-5):
    """Runs the exported file at other sizes of its dynamic dims against ember: make_inputs
    makes the inputs for each entry of sizes."""
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for n in sizes:
        inputs = make_inputs(n)
        got = session.run(None, {k: t.numpy() for k, t in zip(names, inputs)})
        with ember.no_grad():
            expected = _flat(model(*inputs))
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.shape == tuple(e.shape)
            np.testing.assert_allclose(g, e.numpy(), atol=atol, rtol=1e-5)


# ---- a TracedModule traced with dynamic_shapes ------------------------------------------
def export_traced(fn, inputs, spec, tmp_path, **kwargs):
    """fn traced with dynamic_shapes=spec on inputs, exported; returns (proto, path)."""
    traced = ember.jit.trace(fn, inputs, dynamic_shapes=spec)
    path = tmp_path / "dynamic.onnx"
    proto = ember.onnx.export(traced, inputs, path, **kwargs)
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)
    return proto, path


def test_mlp_dynamic_batch(tmp_path):
    ember.manual_seed(20)
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.GELU(), nn.Linear(32, 10)).eval()
    proto, path = export_traced(model, (ember.randn(4, 1, 8, 8),),
                                ({0: Dim("batch", min=1, max=4096)},), tmp_path)
    assert shape_of(proto.graph.input[0]) == ["batch", 1, 8, 8]
    assert shape_of(proto.graph.output[0]) == ["batch", 10]
    run_at_sizes(path, model, lambda n: (ember.randn(n, 1, 8, 8),), ["x"], [1, 7, 64])
    # A model file keeps the symbols: its export is the same.
    ember.jit.trace(model, ember.randn(4, 1, 8, 8), dynamic_shapes=({0: Dim("batch")},)).save(
        tmp_path / "mlp.ember")
    ember.onnx.export(ember.jit.load(tmp_path / "mlp.ember"), ember.randn(2, 1, 8, 8), path)
    run_at_sizes(path, model, lambda n: (ember.randn(n, 1, 8, 8),), ["x"], [1, 7])


def test_digits_cnn_dynamic_batch(tmp_path):
    # Flatten's view(batch, 256) is computed from the input's shape.
    ember.manual_seed(21)
    model = _with_running_stats(digits_cnn())
    proto, path = export_traced(model, (ember.randn(4, 1, 8, 8),), ({0: Dim("batch")},),
                                tmp_path)
    assert {"Conv", "BatchNormalization", "Shape"} <= op_types(proto)
    assert shape_of(proto.graph.output[0]) == ["batch", 10]
    run_at_sizes(path, model, lambda n: (ember.randn(n, 1, 8, 8),), ["x"], [1, 7, 64], atol=1e-4)


class AnySizeCNN(nn.Module):
    """Images of any batch, height and width: adaptive pooling to 1x1, and max pooling
    whose indices (h * W + w) need the plane size at run time."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        y, indices = F.max_pool2d(self.conv(x).relu(), 2, return_indices=True)
        return self.fc(F.adaptive_avg_pool2d(y, 1).flatten(1)), indices


def test_cnn_on_images_of_any_size(tmp_path):
    ember.manual_seed(27)
    model = AnySizeCNN().eval()
    spec = ({0: Dim("batch"), 2: Dim("height"), 3: Dim("width")},)
    proto, path = export_traced(model, (ember.randn(2, 3, 8, 6),), spec, tmp_path)
    assert shape_of(proto.graph.input[0]) == ["batch", 3, "height", "width"]
    assert shape_of(proto.graph.output[1]) == ["batch", 8, "height/2", "width/2"]
    run_at_sizes(path, model, lambda s: (ember.randn(*s),), ["x"],
                 [(1, 3, 12, 16), (5, 3, 6, 10)], atol=1e-5)


def make_encoder():
    layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()


def test_transformer_encoder_dynamic_batch_and_sequence(tmp_path):
    # The attention's views are (batch*seq, 16), (seq, 4*batch, 4), ...: products and
    # multiples of both symbols, computed from the input's shape.
    ember.manual_seed(22)
    model = make_encoder()
    spec = ({0: Dim("batch", min=1, max=64), 1: Dim("seq", max=512)},)
    proto, path = export_traced(model, (ember.randn(3, 6, 16),), spec, tmp_path,
                                input_names=["tokens"], output_names=["encoded"])
    assert shape_of(proto.graph.input[0]) == ["batch", "seq", 16]
    assert shape_of(proto.graph.output[0]) == ["batch", "seq", 16]
    sizes = [(b, s) for b in (1, 7, 64) for s in (5, 300)]
    run_at_sizes(path, model, lambda bs: (ember.randn(*bs, 16),), ["tokens"], sizes, atol=2e-5)


def test_transformer_with_padding_mask_shares_the_symbols(tmp_path):
    ember.manual_seed(23)
    model = make_encoder()
    batch, seq = Dim("batch"), Dim("seq")

    def run(x, mask):
        return model(x, src_key_padding_mask=mask)

    def make(bs):
        b, s = bs
        mask = ember.zeros(b, s, dtype=ember.bool)
        mask[:, s // 2 + 1:] = True
        return ember.randn(b, s, 16), mask
    proto, path = export_traced(run, make((3, 6)), ({0: batch, 1: seq}, {0: batch, 1: seq}),
                                tmp_path, input_names=["src", "mask"])
    assert shape_of(proto.graph.input[1]) == ["batch", "seq"]
    run_at_sizes(path, run, make, ["src", "mask"], [(1, 5), (7, 300), (2, 9)], atol=2e-5)


# The torch.export tutorial's cases, and the kinds of expression the graph holds.
def view_minus_one(x):
    return x.view(-1, 2, x.shape[-1] // 2).sum(1)


def double_by_cat(x):
    return ember.cat([x, x * 2], 0).view(x.shape[0] * 2, -1)


def concat(x, y):
    return ember.cat([x, y], 0).relu()


def arange_mask(x):
    seq_len = x.shape[1]
    mask = ember.arange(seq_len)[None, :] < (seq_len - 1)
    return x.masked_fill(~mask[..., None], 0.0) * seq_len


def halves(x):  # a rational coefficient: n/2, with the guard n % 2 == 0
    return x.view(x.shape[0], x.shape[1] // 2, 2).amax(-1)


def halves_plus_one(x):  # n/2 + 1
    return ember.cat([x.view(3, -1, 2), ember.zeros(3, 1, 2)], 1).cumsum(1)


def pairs(x):  # a square: n*n rows
    return (x[:, None, :] * x[None, :, :]).view(-1, x.shape[1]).cumsum(0)


def two_sizes_as_a_number(x, y):  # a 0-dim constant a*b
    return (x.view(-1) * (x.shape[0] * y.shape[0])).sum() + y.mean(0)


def symbolic_indices(x):  # select and slice at n - 1, n/2, n - 2
    middle = x.shape[1] // 2
    return x[:, -1] + x[:, middle] + x.narrow(1, middle, 2).sum(1) + x[:, -2:].sum(1)


def factories(x):  # sizes and values from the batch
    n = x.shape[0]
    return (ember.full((n,), n) + ember.arange(n, 3 * n).view(2, -1).sum(0)
            + ember.eye(n).sum(1) * 2.5 + ember.arange(0.5, n, 1.0) + x.sum(1))


def symbolic_attributes(x):  # tril's diagonal and one_hot's depth from the batch
    n = x.shape[0]
    return x.tril(n - 3) + F.one_hot(ember.arange(n), n).float() @ x[:, :1].expand(n, 5)


POSITIONS = ember.randn(1, 50, 3)  # a constant of the traces, sliced to the length
EMBEDDING = nn.Embedding(10, 3)


def positional(x):
    return x + POSITIONS[:, :x.size(1)]


def repeat_expand(x):
    return (x.repeat(1, x.size(0)).sum(0).reshape(x.size(0), 4)
            + x[:, None].expand(x.size(0), 3, -1).sum(1) + x.new_zeros(x.shape))


def split_half(x):
    return ember.split(x, x.shape[1] // 2, dim=1)[0] * 2


def embedded(x):
    return EMBEDDING((x.abs() * 3).long().clamp(max=9))


def centered_flat(x):
    return (x - x.mean(0, keepdim=True)).reshape(-1)


def positive_sum(x):  # a data-dependent size inside, a symbolic number outside
    return x[x > 0].sum() + x.shape[0]


def positive_stats(x):  # sort's k and var's divisor read from the selection's own shape
    picked = x[x > 0]
    return ember.sort(picked)[0][:1] + picked.var() + picked.std(correction=0) + x.var(0).sum()


@pytest.mark.parametrize("fn, shapes, spec, dims, runs", [
    (view_minus_one, [(4, 6)], ({0: Dim("b")},), ["b", 3], [[(1, 6)], [(9, 6)]]),
    (double_by_cat, [(3, 4)], ({0: Dim("b")},), ["2*b", 4], [[(1, 4)], [(9, 4)]]),
    (concat, [(3, 4), (2, 4)], ({0: Dim("m")}, {0: Dim("n")}), ["m+n", 4],
     [[(1, 4), (6, 4)], [(7, 4), (1, 4)]]),
    (arange_mask, [(2, 6, 3)], ({1: Dim("seq")},), [2, "seq", 3], [[(2, 3, 3)], [(2, 40, 3)]]),
    (halves, [(3, 8)], ({1: Dim("n")},), [3, "n/2"], [[(3, 2)], [(3, 30)]]),
    (halves_plus_one, [(3, 8)], ({1: Dim("n")},), [3, "n/2+1", 2], [[(3, 2)], [(3, 30)]]),
    (pairs, [(3, 4)], ({0: Dim("n")},), ["n*n", 4], [[(2, 4)], [(9, 4)]]),
    (two_sizes_as_a_number, [(3, 4), (5, 2)], ({0: Dim("a")}, {0: Dim("b")}), [2],
     [[(2, 4), (7, 2)], [(30, 4), (2, 2)]]),
    (symbolic_indices, [(3, 8)], ({1: Dim("n")},), [3], [[(3, 4)], [(3, 30)]]),
    (factories, [(3, 2)], ({0: Dim("n")},), ["n"], [[(2, 2)], [(30, 2)]]),
    (symbolic_attributes, [(4, 5)], ({0: Dim("n")},), ["n", 5], [[(2, 5)], [(9, 5)]]),
    (positional, [(2, 6, 3)], ({0: Dim("b"), 1: Dim("s")},), ["b", "s", 3],
     [[(1, 9, 3)], [(4, 50, 3)]]),
    (repeat_expand, [(3, 4)], ({0: Dim("b")},), ["b", 4], [[(1, 4)], [(5, 4)]]),
    (split_half, [(3, 8)], ({1: Dim("n")},), [3, "n/2"], [[(3, 2)], [(3, 12)]]),
    (embedded, [(2, 5)], ({0: Dim("b"), 1: Dim("s")},), ["b", "s", 3], [[(1, 1)], [(3, 8)]]),
    (centered_flat, [(4, 3)], ({0: Dim("b")},), ["3*b"], [[(1, 3)], [(7, 3)]]),
    (positive_sum, [(6,)], ({0: Dim("n")},), [], [[(1,)], [(9,)]]),
    (positive_stats, [(6, 2)], ({0: Dim("n")},), [None], [[(2, 2)], [(9, 2)]]),
], ids=lambda p: p.__name__ if callable(p) else None)
def test_expressions_are_computed_from_the_inputs_shapes(tmp_path, fn, shapes, spec, dims, runs):
    ember.manual_seed(24)
    proto, path = export_traced(fn, tuple(ember.randn(*s) for s in shapes), spec, tmp_path)
    assert shape_of(proto.graph.output[0]) == dims
    names = [i.name for i in proto.graph.input]
    for run in runs:
        run_at_sizes(path, fn, lambda r: tuple(ember.randn(*s) for s in r), names, [run])


def test_float64_and_a_size_as_a_float64_number(tmp_path):
    # The computed number is cast to the constant's dtype; views and means in float64.
    def fn(x):
        return (x.view(x.shape[0], -1) / x.shape[1]).cumsum(1) + x.mean((1, 2))[:, None]

    proto, path = export_traced(fn, (ember.randn(3, 4, 2, dtype=ember.float64),),
                                ({0: Dim("b"), 1: Dim("n")},), tmp_path)
    assert shape_of(proto.graph.output[0]) == ["b", "2*n"]
    assert proto.graph.output[0].type.tensor_type.elem_type == onnx.TensorProto.DOUBLE
    run_at_sizes(path, fn, lambda bn: (ember.randn(*bn, 2, dtype=ember.float64),), ["x"],
                 [(1, 1), (5, 9)], atol=1e-12)


def test_a_size_that_depends_on_the_data_is_unnamed(tmp_path):
    def positive(x):
        return x[x > 0] * 2

    proto, path = export_traced(positive, (ember.randn(3, 4),), ({0: Dim("n")},), tmp_path)
    assert shape_of(proto.graph.output[0]) == [None]
    run_at_sizes(path, positive, lambda n: (ember.randn(n, 4),), ["x"], [1, 9])
    # dynamic_axes may name it.
    proto = ember.onnx.export(positive, ember.randn(3, 4), tmp_path / "named.onnx",
                              dynamic_axes={"x": [0], "output": {0: "count"}})
    assert shape_of(proto.graph.output[0]) == ["count"]


def test_bitwise_not_of_integers_needs_opset_18(tmp_path):
    def fn(x):
        return ~x + x.shape[0]

    x = ember.randint(-5, 5, (3, 4))
    proto, path = export_traced(fn, (x,), ({0: Dim("n")},), tmp_path, opset_version=18)
    run_at_sizes(path, fn, lambda n: (ember.randint(-5, 5, (n, 4)),), ["x"], [1, 6])
    with pytest.raises(ember.onnx.UnsupportedOperatorError, match="opset_version 18"):
        ember.onnx.export(fn, x, tmp_path / "m.onnx")


def test_traced_module_takes_example_inputs_at_other_sizes(tmp_path):
    model = nn.Linear(6, 3).eval()
    traced = ember.jit.trace(model, ember.randn(4, 6), dynamic_shapes=({0: Dim("batch")},))
    ember.onnx.export(traced, ember.randn(9, 6), tmp_path / "m.onnx")
    with pytest.raises(ValueError, match=r"traced with float32\[batch, 6\]"):
        ember.onnx.export(traced, ember.randn(9, 5), tmp_path / "n.onnx")
    with pytest.raises(TypeError, match="TracedModule"):
        ember.onnx.export(traced, ember.randn(4, 6), tmp_path / "n.onnx",
                          dynamic_shapes=({0: Dim("batch")},))
    assert not (tmp_path / "n.onnx").exists()


def test_export_traces_a_module_with_dynamic_shapes(tmp_path):
    ember.manual_seed(25)
    model = make_encoder()
    proto = ember.onnx.export(model, ember.randn(2, 4, 16), tmp_path / "m.onnx",
                              dynamic_shapes={"src": {0: Dim("batch"), 1: Dim("seq")}})
    assert shape_of(proto.graph.input[0]) == ["batch", "seq", 16]
    run_at_sizes(tmp_path / "m.onnx", model, lambda bs: (ember.randn(*bs, 16),), ["x"],
                 [(1, 5), (3, 11)], atol=2e-5)


def test_an_exported_program_is_exported_as_is(tmp_path):
    ember.manual_seed(28)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 2)).eval()
    batch = ember.export.Dim("batch", min=1, max=64)
    ep = ember.export.export(model, (ember.randn(4, 6),), dynamic_shapes={"input": {0: batch}})
    proto = ember.onnx.export(ep, ember.randn(4, 6), tmp_path / "m.onnx")
    assert shape_of(proto.graph.output[0]) == ["batch", 2]
    run_at_sizes(tmp_path / "m.onnx", model, lambda n: (ember.randn(n, 6),), ["x"], [1, 33])


def test_writes_through_views_at_a_dynamic_size_are_refused(tmp_path):
    def double_batch(x):  # the tutorial's form: ONNX graphs have no views to write through
        y = ember.zeros(x.shape[0] * 2, x.shape[1])
        y[: x.shape[0]] = x
        y[x.shape[0]:] = x * 2
        return y

    traced = ember.jit.trace(double_batch, ember.randn(3, 5), dynamic_shapes=({0: Dim("b")},))
    with pytest.raises(ember.onnx.UnsupportedOperatorError, match="view"):
        ember.onnx.export(traced, ember.randn(3, 5), tmp_path / "m.onnx")


def test_a_fixed_onnx_attribute_at_a_dynamic_size_is_refused(tmp_path):
    # adaptive pooling over the dynamic dim needs a fixed window
    traced = ember.jit.trace(lambda t: F.adaptive_avg_pool2d(t[None], (1, 2)), ember.randn(3, 4, 4),
                             dynamic_shapes=({1: Dim("h")},))
    with pytest.raises(ember.onnx.UnsupportedOperatorError,
                       match=r"adaptive_avg_pool2d.*follows the dynamic size \(h\)"):
        ember.onnx.export(traced, ember.randn(3, 4, 4), tmp_path / "m.onnx")
    assert not (tmp_path / "m.onnx").exists()


# ---- dynamic_axes ------------------------------------------------------------------------
def test_dynamic_batch_mlp(tmp_path):
    ember.manual_seed(8)
    model = nn.Sequential(nn.Flatten(), nn.Linear(12, 8), nn.GELU(), nn.Linear(8, 3),
                          nn.Softmax(dim=1)).eval()
    proto = export_and_compare(model, ember.randn(3, 3, 4), tmp_path,
                               input_names=["x"], output_names=["probs"],
                               dynamic_axes={"x": {0: "batch"}, "probs": {0: "batch"}})
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch" and dims[1].dim_value == 3
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    run_at_sizes(tmp_path / "model.onnx", model, lambda n: (ember.randn(n, 3, 4),), ["x"],
                 [1, 2, 7])


def test_dynamic_batch_cnn(tmp_path):
    ember.manual_seed(9)
    model = _with_running_stats(digits_cnn())
    export_and_compare(model, ember.randn(2, 1, 8, 8), tmp_path, atol=1e-4,
                       dynamic_axes={"x": [0]})
    run_at_sizes(tmp_path / "model.onnx", model, lambda n: (ember.randn(n, 1, 8, 8),), ["x"],
                 [1, 5], atol=1e-4)


@pytest.mark.parametrize("batch_first", [True, False])
def test_dynamic_batch_transformer(tmp_path, batch_first):
    ember.manual_seed(10)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=batch_first).eval()
    dim = 0 if batch_first else 1

    def make(n):
        return (ember.randn(n, 5, 8) if batch_first else ember.randn(5, n, 8),)
    export_and_compare(layer, make(2), tmp_path, dynamic_axes={"x": [dim]})
    run_at_sizes(tmp_path / "model.onnx", layer, make, ["x"], [1, 4])


def test_dynamic_batch_with_padding_mask(tmp_path):
    # Two inputs share the dynamic size; the zeros(batch, S) the mask is turned into
    # becomes a ConstantOfShape at the run-time batch.
    ember.manual_seed(15)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True).eval()

    def model(src, mask):
        return layer(src, src_key_padding_mask=mask)

    def make(n):
        return ember.randn(n, 4, 8), ember.tensor([[False, True, False, True]] * n)
    proto = export_and_compare(model, make(2), tmp_path, input_names=["src", "mask"],
                               dynamic_axes={"src": [0], "mask": [0]})
    assert "ConstantOfShape" in op_types(proto)
    run_at_sizes(tmp_path / "model.onnx", model, make, ["src", "mask"], [1, 3])


def test_dynamic_sequence_length(tmp_path):
    ember.manual_seed(16)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True).eval()

    def make(n):
        return (ember.randn(2, n, 8),)
    export_and_compare(layer, make(3), tmp_path, dynamic_axes={"x": {1: "seq"}})
    run_at_sizes(tmp_path / "model.onnx", layer, make, ["x"], [1, 6])


def test_dynamic_batch_lstm(tmp_path):
    ember.manual_seed(17)
    lstm = nn.LSTM(4, 6, batch_first=True).eval()

    def make(n):
        return (ember.randn(n, 3, 4),)
    export_and_compare(lstm, make(2), tmp_path, dynamic_axes={"x": [0]})
    run_at_sizes(tmp_path / "model.onnx", lstm, make, ["x"], [1, 5])


def test_dynamic_statistics_over_the_batch(tmp_path):
    # var/std divide by the number of reduced elements: computed from the batch size.
    def fn(x):
        return x.var(0) + x.std((0, 1), correction=0) + x.mean(0)

    def make(n):
        return (ember.randn(n, 3, 2),)
    export_and_compare(fn, make(3), tmp_path, dynamic_axes={"x": [0]})
    run_at_sizes(tmp_path / "model.onnx", fn, make, ["x"], [2, 7])


def test_dynamic_axes_with_several_names(tmp_path):
    # Each name is one size: batch and sequence length move independently.
    ember.manual_seed(26)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True).eval()
    proto = export_and_compare(layer, ember.randn(2, 3, 8), tmp_path,
                               dynamic_axes={"x": {0: "batch", 1: "seq"},
                                             "output": {0: "batch", 1: "seq"}})
    assert shape_of(proto.graph.input[0]) == ["batch", "seq", 8]
    assert shape_of(proto.graph.output[0]) == ["batch", "seq", 8]
    run_at_sizes(tmp_path / "model.onnx", layer, lambda bs: (ember.randn(*bs, 8),), ["x"],
                 [(1, 1), (5, 7), (2, 30)])


def test_dynamic_axes_arange_over_the_batch(tmp_path):
    # arange(batch) is a Range at the run-time batch (the old exporter refused it).
    def fn(t):
        return t + ember.arange(t.shape[0]).unsqueeze(1)

    proto = export_and_compare(fn, ember.randn(3, 4), tmp_path, dynamic_axes={"x": [0]})
    assert "Range" in op_types(proto)
    run_at_sizes(tmp_path / "model.onnx", fn, lambda n: (ember.randn(n, 4),), ["x"], [1, 8])


def test_dynamic_axes_errors(tmp_path):
    x = ember.randn(3, 4)
    path = tmp_path / "m.onnx"
    fn = lambda t: t.relu()  # noqa: E731
    with pytest.raises(ValueError, match="neither an input"):
        ember.onnx.export(fn, x, path, dynamic_axes={"y": [0]})
    with pytest.raises(ValueError, match="neither an input"):  # one output: no output1
        ember.onnx.export(fn, x, path, dynamic_axes={"x": [0], "output1": [0]})
    with pytest.raises(ValueError, match="has no dim 2"):
        ember.onnx.export(fn, x, path, dynamic_axes={"x": [2]})
    with pytest.raises(ValueError, match="one size"):  # the list form's dims are all "batch"
        ember.onnx.export(fn, x, path, dynamic_axes={"x": [0, 1]})
    with pytest.raises(ValueError, match="one size"):
        ember.onnx.export(fn, x, path, dynamic_axes={"x": {0: "n", 1: "n"}})
    with pytest.raises(ValueError, match="output 'output' has no dim 2"):
        ember.onnx.export(fn, x, path, dynamic_axes={"x": [0], "output": [0, 2]})
    with pytest.raises(ValueError, match="does not follow"):
        ember.onnx.export(lambda t: t.sum(0), x, path, dynamic_axes={"x": [0], "output": [0]})
    with pytest.raises(ValueError, match="its size is 2\\*batch"):
        ember.onnx.export(lambda t: ember.cat([t, t]), x, path,
                          dynamic_axes={"x": {0: "batch"}, "output": {0: "batch"}})
    with pytest.raises(ValueError, match="at least one input dim"):
        ember.onnx.export(fn, x, path, dynamic_axes={"output": [0]})
    with pytest.raises(ValueError, match="identifier"):
        ember.onnx.export(fn, x, path, dynamic_axes={"x": {0: "batch size"}})
    with pytest.raises(TypeError, match="dims must be ints"):
        ember.onnx.export(fn, x, path, dynamic_axes={"x": ["0"]})
    with pytest.raises(TypeError, match="must be a dict"):
        ember.onnx.export(fn, x, path, dynamic_axes=[0])
    with pytest.raises(TypeError, match="example input 1 must be a Tensor"):
        ember.onnx.export(lambda a, b: a + b[0], (x, (x,)), path, dynamic_axes={"x": [0]})
    with pytest.raises(TypeError, match="TracedModule"):
        ember.onnx.export(ember.jit.trace(fn, x), x, path, dynamic_axes={"x": [0]})
    with pytest.raises(ValueError, match="not both"):
        ember.onnx.export(fn, x, path, dynamic_axes={"x": [0]}, dynamic_shapes=({0: Dim("b")},))
    with pytest.raises(ValueError, match="specializes a dynamic size"):
        ember.onnx.export(lambda t: t.view(3, 4) * 2, x, path, dynamic_axes={"x": [0]})
    with pytest.raises(ember.onnx.UnsupportedOperatorError, match="follows the dynamic size"):
        # the pooling window would follow the batch
        ember.onnx.export(lambda t: F.adaptive_avg_pool2d(t[None, None], (1, 2)), x, path,
                          dynamic_axes={"x": [0]})
    assert not path.exists()
