"""ember.onnx.export with torch.onnx.export's options: args=/f= (a file-like f too),
export in eval mode by default (the module's modes restored after), opsets below 17 by
conversion (and a clear error where an op has no older form), keep_initializers_as_inputs,
verbose, the accepted legacy switches and the refused ones; run in onnxruntime."""
import io

import numpy as np
import pytest

import ember
from ember import nn

onnx = pytest.importorskip("onnx", reason="ember.onnx tests need the onnx package")
ort = pytest.importorskip("onnxruntime", reason="ember.onnx tests need onnxruntime")


def _session(source):
    return ort.InferenceSession(source, providers=["CPUExecutionProvider"])


def _mlp():
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 3))


def test_torch_style_call_into_a_buffer_in_eval_mode_at_opset_11():
    model = _mlp().train()
    buf = io.BytesIO()
    ember.onnx.export(model, (ember.randn(2, 8),), buf, export_params=True, opset_version=11,
                      do_constant_folding=True, input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}}, dynamo=False)
    assert model.training and all(m.training for m in model.modules())  # restored
    proto = onnx.load_from_string(buf.getvalue())
    assert proto.opset_import[0].version == 11
    x = ember.randn(5, 8)
    got = _session(buf.getvalue()).run(None, {"input": x.numpy()})[0]
    model.eval()
    with ember.no_grad():
        np.testing.assert_allclose(got, model(x).numpy(), rtol=1e-5, atol=1e-6)


def test_keywords_args_and_f_and_a_cnn_at_opset_13(tmp_path):
    ember.manual_seed(1)
    cnn = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Flatten(), nn.Linear(4 * 3 * 3, 2))
    with ember.no_grad():
        cnn(ember.randn(16, 1, 8, 8))  # running statistics to export
    path = tmp_path / "cnn.onnx"
    ember.onnx.export(cnn, args=ember.randn(1, 1, 8, 8), f=str(path), opset_version=13,
                      keep_initializers_as_inputs=True, verbose=False)
    proto = onnx.load(str(path))
    inputs = {i.name for i in proto.graph.input}
    assert {init.name for init in proto.graph.initializer} <= inputs
    x = ember.randn(1, 1, 8, 8)
    got = _session(str(path)).run(None, {"x": x.numpy()})[0]
    cnn.eval()
    with ember.no_grad():
        np.testing.assert_allclose(got, cnn(x).numpy(), rtol=1e-5, atol=1e-5)


def test_preserve_keeps_training_mode_and_refusals(tmp_path, capsys):
    model = _mlp().train()
    with pytest.raises(ember.onnx.UnsupportedOperatorError, match="training mode|dropout"):
        ember.onnx.export(model, ember.randn(2, 8), tmp_path / "m.onnx",
                          training=ember.onnx.TrainingMode.PRESERVE)
    assert not (tmp_path / "m.onnx").exists()
    ln = nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4))
    with pytest.raises(ember.onnx.UnsupportedOperatorError, match="LayerNormalization"):
        ember.onnx.export(ln, ember.randn(2, 4), tmp_path / "ln.onnx", opset_version=13)
    with pytest.raises(NotImplementedError, match="export_params"):
        ember.onnx.export(model, ember.randn(2, 8), tmp_path / "m.onnx", export_params=False)
    with pytest.raises(NotImplementedError, match="kwargs"):
        ember.onnx.export(model, ember.randn(2, 8), tmp_path / "m.onnx", kwargs={"a": 1})
    with pytest.raises(ValueError, match="opset_version"):
        ember.onnx.export(model, ember.randn(2, 8), tmp_path / "m.onnx", opset_version=3)
    with pytest.raises(TypeError, match="given twice"):
        ember.onnx.export(model, ember.randn(2, 8), tmp_path / "m.onnx", args=ember.randn(2, 8))
    with pytest.raises(TypeError, match="TrainingMode"):
        ember.onnx.export(model, ember.randn(2, 8), tmp_path / "m.onnx", training=True)
    ember.onnx.export(model.eval(), ember.randn(2, 8), tmp_path / "v.onnx", verbose=True)
    assert "Gemm" in capsys.readouterr().out
