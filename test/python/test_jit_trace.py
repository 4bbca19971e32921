"""ember.jit.trace: graphs, named parameters, outputs, TracerWarnings, check_trace,
autograd through traced modules, and the graph passes."""
import warnings

import numpy as np
import pytest

import ember
from ember import nn
from _helpers import assert_close, to_numpy


def mlp():
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3)).eval()


def test_trace_mlp_matches_eager_on_new_inputs():
    model = mlp()
    traced = ember.jit.trace(model, ember.randn(4, 6))
    x = ember.randn(4, 6)
    assert_close(traced(x), to_numpy(model(x)), rtol=1e-6, atol=1e-6)


def test_graph_names_parameters_and_prints_ssa():
    traced = ember.jit.trace(mlp(), ember.randn(2, 6))
    kinds = {v.name: v.kind for v in traced.graph.values() if v.kind != "node"}
    assert kinds == {"x": "input", "0.weight": "parameter", "0.bias": "parameter",
                     "2.weight": "parameter", "2.bias": "parameter"}
    text = str(traced.graph)
    assert text.startswith("graph(%x : Float(2, 6),")
    assert "%self.0.weight : Float(5, 6)" in text
    assert "= relu(" in text and "= addmm(%self.0.bias, %x," in text
    assert text.rstrip().splitlines()[-1].strip().startswith("return (%")
    assert sorted(dict(traced.named_parameters())) == ["0.bias", "0.weight", "2.bias", "2.weight"]


def test_traced_module_shares_parameters_with_the_module():
    model = mlp()
    traced = ember.jit.trace(model, ember.randn(2, 6))
    with ember.no_grad():
        model[2].bias.add_(1.0)
    x = ember.randn(2, 6)
    assert_close(traced(x), to_numpy(model(x)))


def test_function_with_closure_constant_and_nested_outputs():
    w = ember.randn(3)

    def f(x, y):
        s = x * w
        return s, (s + y, y * y)

    x, y = ember.randn(2, 3), ember.randn(2, 3)
    traced = ember.jit.trace(f, (x, y))
    consts = [v for v in traced.graph.values() if v.kind == "constant"]
    assert len(consts) == 1 and consts[0].sizes == (3,)
    a, b = ember.randn(2, 3), ember.randn(2, 3)
    out = traced(a, b)
    assert isinstance(out, tuple) and isinstance(out[1], tuple)
    exp = f(a, b)
    assert_close(out[0], to_numpy(exp[0]))
    assert_close(out[1][0], to_numpy(exp[1][0]))
    assert_close(out[1][1], to_numpy(exp[1][1]))


def test_constant_is_a_snapshot_of_its_value_when_traced():
    w = ember.ones(3)
    traced = ember.jit.trace(lambda x: x + w, ember.zeros(3))
    w.add_(5)  # after tracing: the graph keeps the traced value
    assert_close(traced(ember.zeros(3)), np.ones(3))


def test_in_place_ops_replay_without_touching_inputs():
    def f(x):
        y = x.clone()
        y.add_(1.0)
        y.mul_(2.0)
        return y

    x = ember.randn(3, 2)
    traced = ember.jit.trace(f, x)
    ops = [n.op for n in traced.graph.nodes()]
    assert ops.count("add") == 1 and ops.count("mul") == 1
    before = to_numpy(x)
    for _ in range(2):  # no state carried over from call to call
        assert_close(traced(x), (before + 1) * 2)
    assert_close(x, before)


def test_views_and_writes_through_them_replay():
    def f(x):
        y = x.clone()
        y[0].fill_(0.0)
        return y.t() * 3

    x = ember.randn(3, 4)
    traced = ember.jit.trace(f, x)
    x2 = ember.randn(3, 4)
    assert_close(traced(x2), to_numpy(f(x2)))


def test_factories_inside_forward_follow_input_shapes_of_the_trace():
    def f(x):
        return x + ember.zeros(x.shape) + ember.arange(4.0)

    traced = ember.jit.trace(f, ember.randn(2, 4), optimize=False)
    x = ember.randn(2, 4)
    assert_close(traced(x), to_numpy(x) + np.arange(4.0))


@pytest.mark.parametrize("read", [
    lambda t: t.sum().item(),
    lambda t: bool(t.sum() > 0),
    lambda t: float(t.sum()),
    lambda t: t.tolist(),
    lambda t: t.detach().numpy(),
])
def test_host_reads_warn_at_the_reading_line(read):
    def f(x):
        read(x)
        return x * 2

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ember.jit.trace(f, ember.randn(3))
    tracer = [w for w in caught if issubclass(w.category, ember.jit.TracerWarning)]
    assert tracer, [str(w.message) for w in caught]
    assert "might not generalize" in str(tracer[0].message)
    assert tracer[0].filename == __file__


def test_control_flow_on_a_tensor_warns_and_check_inputs_catches_it():
    def f(x):
        if x.sum() > 0:  # baked in by the trace
            return x * 2
        return x * 3

    with pytest.warns(ember.jit.TracerWarning) as record:
        with pytest.raises(ember.jit.TracingCheckError, match="check_inputs\\[0\\]"):
            ember.jit.trace(f, ember.ones(3), check_inputs=[(-ember.ones(3),)])
    assert any(r.filename == __file__ for r in record)


def test_no_warnings_outside_a_trace():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.ones(2).sum().item()


def test_exception_in_traced_function_ends_the_trace():
    def f(x):
        raise KeyError("boom")

    with pytest.raises(KeyError):
        ember.jit.trace(f, ember.ones(2))
    assert not ember._C._jit.is_tracing()
    ember.jit.trace(lambda x: x + x, ember.ones(2))  # a new trace starts fine


def test_bad_arguments():
    with pytest.raises(TypeError, match="example input 0 must be a Tensor"):
        ember.jit.trace(lambda x: x, (3,))
    with pytest.raises(TypeError, match="only tensors"):
        ember.jit.trace(lambda x: {"a": x}, ember.ones(2))
    traced = ember.jit.trace(lambda x: x + 1, ember.ones(2))
    with pytest.raises(RuntimeError, match="expected 1 input tensor"):
        traced(ember.ones(2), ember.ones(2))
    with pytest.raises(ValueError, match="unknown graph pass"):
        traced.run_pass("inline")


def test_backward_inside_a_trace_is_refused():
    def f(x):
        y = (x * x).sum()
        y.backward()
        return x.grad

    with pytest.raises(NotImplementedError, match="backward\\(\\) cannot run while tracing"):
        ember.jit.trace(f, ember.ones(2, requires_grad=True))
    assert not ember._C._jit.is_tracing()


def test_gradients_through_a_traced_module_match_eager():
    model = mlp()
    x = ember.randn(4, 6)
    traced = ember.jit.trace(model, x)
    traced(x).pow(2).sum().backward()
    got = {n: to_numpy(p.grad) for n, p in model.named_parameters()}
    model.zero_grad()
    model(x).pow(2).sum().backward()
    for n, p in model.named_parameters():
        assert_close(p.grad, got[n], rtol=1e-5, atol=1e-6)


# ---- passes: each changes the graph, none changes the results -------------------

def node_ops(traced):
    return [n.op for n in traced.graph.nodes()]


def test_dead_code_elimination_removes_unused_work():
    def f(x):
        unused = (x * 4).relu()  # noqa: F841
        return x + 1

    traced = ember.jit.trace(f, ember.randn(3), optimize=False)
    assert "relu" in node_ops(traced)
    x = ember.randn(3)
    before = to_numpy(traced(x))
    # A number operand (4 and 1 here) is a constant of the graph, not a node.
    assert traced.run_pass("dce") == 2  # the mul and the relu
    assert node_ops(traced) == ["add"]
    assert_close(traced(x), before)


def test_dead_code_elimination_keeps_in_place_writes():
    def f(x, buf):
        buf.add_(x)  # a side effect on an input: kept though its result is unused
        return x * 2

    traced = ember.jit.trace(f, (ember.ones(2), ember.zeros(2)), optimize=False)
    traced.run_pass("dce")
    assert "add" in node_ops(traced)
    buf = ember.zeros(2)
    traced(ember.ones(2), buf)
    assert_close(buf, np.ones(2))


def test_common_subexpression_elimination_merges_repeats():
    def f(x):
        return (x * 2).relu() + (x * 2).relu()

    traced = ember.jit.trace(f, ember.randn(5), optimize=False)
    assert node_ops(traced).count("relu") == 2
    x = ember.randn(5)
    before = to_numpy(traced(x))
    assert traced.run_pass("cse") == 2  # the second mul and relu (their 2s are one constant)
    assert node_ops(traced).count("relu") == 1 and node_ops(traced).count("mul") == 1
    assert_close(traced(x), before)


def test_cse_merges_equal_number_constants_only():
    def f(x):
        # 2 and 2 are one constant; 3, 2.0 (a float) and 2 on an int tensor's other op stay apart
        return (x * 2) + (x * 2) + (x * 3) + (x * 2.0)

    x = ember.tensor([1, -2, 5])  # int64: 2 and 2.0 give different dtypes
    traced = ember.jit.trace(f, x, optimize=False)
    before = to_numpy(traced(x))
    assert traced.run_pass("cse") == 1  # only the second x * 2
    assert node_ops(traced).count("mul") == 3
    assert_close(traced(x), before)
    assert traced(x).dtype == ember.float32


def test_cse_does_not_merge_across_writes():
    def f(x):
        y = x.clone()
        a = y * 2
        y.add_(1.0)
        b = y * 2
        return a + b

    traced = ember.jit.trace(f, ember.randn(3), optimize=False)
    traced.run_pass("cse")
    x = ember.randn(3)
    assert_close(traced(x), to_numpy(f(x)))


def test_constant_folding_precomputes_constant_work():
    w = ember.randn(4)

    def f(x):
        return x * (w.relu() + 1)

    traced = ember.jit.trace(f, ember.randn(4), optimize=False)
    assert node_ops(traced) == ["relu", "add", "mul"]
    x = ember.randn(4)
    before = to_numpy(traced(x))
    assert traced.run_pass("constant_folding") == 2
    assert node_ops(traced) == ["mul"]
    assert_close(traced(x), before)


def test_constant_folding_leaves_values_that_are_written_later():
    w = ember.randn(3)

    def f(x):
        y = w * 2       # constant, but written in place below
        y.add_(x)
        return y

    traced = ember.jit.trace(f, ember.zeros(3), optimize=False)
    traced.run_pass("constant_folding")
    x = ember.ones(3)
    first = to_numpy(traced(x))
    assert_close(traced(x), first)  # nothing accumulates across calls
    assert_close(traced(x), to_numpy(w) * 2 + 1)


def test_tensor_from_host_data_inside_forward_is_one_constant():
    def f(x):
        return x.index_select(0, ember.tensor([2, 0]))

    traced = ember.jit.trace(f, ember.randn(3, 2), optimize=False)
    assert node_ops(traced) == ["index_select"]
    x = ember.randn(3, 2)
    assert_close(traced(x), to_numpy(x)[[2, 0]])


def test_training_mode_buffers_are_written_through_the_trace():
    ember.manual_seed(0)
    bn = nn.BatchNorm1d(3).train()
    x = ember.randn(8, 3)
    traced = ember.jit.trace(bn, x, check_trace=False)
    assert int(bn.num_batches_tracked) == 1
    mean_before = to_numpy(bn.running_mean)
    traced(x * 2 + 1)
    assert int(bn.num_batches_tracked) == 2  # the traced module shares the buffers
    assert not np.allclose(to_numpy(bn.running_mean), mean_before)


def test_copies_follow_the_shape_of_their_input():
    # clone/to/contiguous allocate their result: at run time it takes the input's
    # shape (a smaller input must not be broadcast into the traced shape).
    traced = ember.jit.trace(lambda x: x.t().contiguous().double() * 2, ember.randn(3, 4))
    for shape in [(3, 4), (1, 4), (5, 2)]:
        x = ember.randn(shape)
        out = traced(x)
        assert out.shape == (shape[1], shape[0]) and out.dtype == ember.float64
        assert_close(out, to_numpy(x).T * 2)


def test_load_of_a_missing_path_raises_torchs_value_error(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ember.jit.load(tmp_path / "missing.ember")
    with pytest.raises(ValueError, match="is a directory"):
        ember.jit.load(tmp_path)


def test_traced_flatten_takes_a_non_contiguous_input():
    # flatten/reshape of a contiguous example records `view`; a transposed input of the
    # traced shape cannot be viewed so, and is copied as eager flatten copies it.
    model = ember.nn.Sequential(ember.nn.Flatten(), ember.nn.Linear(12, 2)).eval()
    traced = ember.jit.trace(model, ember.randn(2, 3, 4))
    x = ember.randn(2, 4, 3).transpose(1, 2)
    assert not x.is_contiguous()
    with ember.no_grad():
        np.testing.assert_allclose(traced(x).numpy(), model(x).numpy(), rtol=1e-6, atol=1e-6)

    def writes_through(t):
        flat = t.view(-1)
        flat.mul_(2)
        return t + 0

    traced_write = ember.jit.trace(writes_through, ember.randn(2, 3), check_trace=False)
    with pytest.raises(RuntimeError, match="view"):
        traced_write(ember.randn(3, 2).t())
