"""torch.jit's scripting names for TorchScript programs: script runs modules and
functions eagerly (sharing parameters, isinstance ScriptModule), says clearly what it
cannot do, and the annotation helpers behave as torch's do in eager code."""
import typing

import numpy as np
import pytest

import ember
from ember import nn

torch = pytest.importorskip("torch")


class Block(nn.Module):
    limit: ember.jit.Final[int] = 3

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    @ember.jit.ignore
    def helper(self, x):
        return x * 2

    @ember.jit.unused
    def unused_path(self, x):
        return x

    def forward(self, x):
        if ember.jit.is_scripting():
            return x
        out: typing.List[ember.Tensor] = ember.jit.annotate(typing.List[ember.Tensor], [])
        out.append(self.helper(self.fc(x)))
        return out[0]


def test_script_module_runs_eagerly_and_shares_parameters():
    model = Block()
    scripted = ember.jit.script(model)
    x = ember.randn(2, 4)
    assert isinstance(scripted, ember.jit.ScriptModule) and isinstance(scripted, nn.Module)
    assert isinstance(scripted, ember.jit.RecursiveScriptModule) and scripted.original_name == "Block"
    assert ember.equal(scripted(x), model(x))
    assert scripted.fc.weight is model.fc.weight
    assert list(scripted.state_dict()) == list(model.state_dict())
    with ember.no_grad():
        scripted.fc.weight.add_(1.0)
    assert ember.equal(scripted(x), model(x))  # one set of parameters
    scripted.eval()
    assert not scripted.training and model.training  # its own mode flag, as torch's
    with pytest.raises(NotImplementedError, match="ember.jit.trace"):
        scripted.save("m.pt")
    with pytest.raises(NotImplementedError):
        scripted.graph
    assert ember.jit.script(scripted) is scripted


def test_script_function_and_decorator():
    @ember.jit.script
    def double(x):
        return x * 2

    assert isinstance(double, ember.jit.ScriptFunction) and double.__name__ == "double"
    assert ember.equal(double(ember.ones(3)), ember.full((3,), 2.0))
    with pytest.raises(NotImplementedError):
        double.save("f.pt")
    with pytest.raises(RuntimeError):
        ember.jit.script(3)


def test_traced_modules_are_script_modules_and_freeze():
    model = nn.Linear(3, 2).eval()
    traced = ember.jit.trace(model, ember.randn(1, 3))
    assert isinstance(traced, ember.jit.ScriptModule) and ember.jit.TopLevelTracedModule is ember.jit.TracedModule
    frozen = ember.jit.freeze(traced)
    assert frozen is not traced and isinstance(frozen, ember.jit.TracedModule)
    assert isinstance(ember.jit.optimize_for_inference(traced), ember.jit.TracedModule)
    with pytest.raises(RuntimeError, match="ScriptModule"):
        ember.jit.freeze(model)
    with pytest.raises(RuntimeError, match="eval mode"):
        ember.jit.freeze(ember.jit.script(nn.Linear(3, 2)))
    via = ember.jit.trace_module(model, {"forward": ember.randn(1, 3)})
    x = ember.randn(1, 3)
    np.testing.assert_allclose(via(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6)
    with pytest.raises(NotImplementedError):
        ember.jit.trace_module(model, {"forward": x, "other": x})


def test_annotation_helpers_match_torch():
    for lib in (ember, torch):
        jit = lib.jit
        assert jit.is_scripting() is False and jit.is_tracing() is False
        assert jit.annotate(typing.List[int], [1]) == [1]
        assert jit.isinstance([1, 2], typing.List[int]) and not jit.isinstance([1, "a"], typing.List[int])
        assert jit.isinstance({"a": 1}, typing.Dict[str, int])
        assert jit.isinstance((1, "a"), typing.Tuple[int, str])
        assert jit.isinstance(None, typing.Optional[int]) and jit.isinstance(3, (str, int))
        fut = jit.fork(lambda a, b: a + b, 2, b=3)
        assert jit.wait(fut) == 5 and fut.done()
        assert jit.Attribute(3, int).value == 3
        assert jit.ignore(lambda v: v + 1)(1) == 2 and jit.unused(lambda v: v * 2)(3) == 6
        with jit.optimized_execution(False):
            pass
        assert isinstance(jit.onednn_fusion_enabled(), bool)
        with pytest.raises(RuntimeError):
            jit.isinstance(3, "int")

    seen = []

    def trace_me(x):
        seen.append(ember.jit.is_tracing())
        return x + 1

    ember.jit.trace(trace_me, ember.ones(2))
    assert seen[0] is True and ember.jit.is_tracing() is False
    previous = ember.jit.set_fusion_strategy([("DYNAMIC", 3)])
    assert ember.jit.set_fusion_strategy(previous) == [("DYNAMIC", 3)]


def test_freeze_folds_the_weights_into_constants(tmp_path):
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10)).eval()
    x = ember.randn(3, 1, 8, 8)
    traced = ember.jit.trace(model, x)
    frozen = ember.jit.freeze(traced)
    ops = [n.op for n in frozen.graph.nodes()]
    assert "transpose" not in ops and len(ops) < len(traced.graph.nodes())
    assert dict(frozen.named_parameters()) == {} and len(dict(traced.named_parameters())) == 4
    with ember.no_grad():
        np.testing.assert_allclose(frozen(x).numpy(), model(x).numpy(), rtol=1e-6, atol=1e-6)
        # The frozen module keeps the weights it had; the traced one follows the model.
        model[1].weight.add_(1.0)
        assert not np.allclose(frozen(x).numpy(), model(x).numpy())
        np.testing.assert_allclose(traced(x).numpy(), model(x).numpy(), rtol=1e-6, atol=1e-6)
    frozen.save(tmp_path / "f.ember")
    again = ember.jit.load(tmp_path / "f.ember")
    np.testing.assert_allclose(again(x).numpy(), frozen(x).numpy())
    # Batch norm in training mode writes its statistics: those buffers stay the module's.
    bn = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4)).train()
    tb = ember.jit.trace(bn, ember.randn(5, 4), check_trace=False)
    tb.training = False
    fb = ember.jit.freeze(tb)
    assert {"1.running_mean", "1.running_var"} <= set(dict(fb.named_parameters()))


def test_trace_takes_torchs_keyword_forms():
    class Two(nn.Module):
        def forward(self, a, b):
            return a * 2 + b

    model = Two()
    a, b = ember.randn(3), ember.randn(3)
    traced = ember.jit.trace(model, example_kwarg_inputs={"b": b, "a": a}, strict=False)
    np.testing.assert_allclose(traced(a, b).numpy(), model(a, b).numpy())
    with pytest.raises(ValueError, match="does not take"):
        ember.jit.trace(model, example_kwarg_inputs={"c": a})
    with pytest.raises(ValueError, match="missing"):
        ember.jit.trace(model, example_kwarg_inputs={"b": b})
    with pytest.raises(ValueError, match="not both"):
        ember.jit.trace(model, (a, b), example_kwarg_inputs={"a": a})
    with pytest.raises(TypeError, match="example_inputs"):
        ember.jit.trace(model)
