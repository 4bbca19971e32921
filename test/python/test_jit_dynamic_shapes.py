"""ember.jit.trace(..., dynamic_shapes=...): one traced file that runs at other batch
sizes and sequence lengths, in Python and in C++ (examples/cpp/deploy.cpp), equal to
eager; the torch.export tutorial's dynamic-shape cases; the guards' errors; the
specialization report; the model file's symbols; ember.export."""
import pathlib
import subprocess

import numpy as np
import pytest

import ember
from ember import nn
from ember.jit import Dim
from _helpers import to_numpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "build" / "examples" / "deploy"
needs_deploy = pytest.mark.skipif(not DEPLOY.exists(), reason=f"{DEPLOY} is not built (make build)")


def flat(out):
    if isinstance(out, ember.Tensor):
        return [out]
    return [t for o in out for t in flat(o)]


def assert_same(got, expected, tol=1e-5):
    got, expected = flat(got), flat(expected)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert tuple(g.shape) == tuple(e.shape)
        np.testing.assert_allclose(to_numpy(g), to_numpy(e), rtol=tol, atol=tol)


class CNN(nn.Module):
    """The digits CNN's shape logic: a view of the batch from x.size(0)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        x = ember.relu(self.bn(self.conv(x)))
        x = nn.functional.max_pool2d(x, 2)
        return self.fc(x.view(x.size(0), -1))


def make_transformer():
    layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()


def test_mlp_and_cnn_run_at_batch_1_7_64_from_one_trace(tmp_path):
    ember.manual_seed(0)
    batch = Dim("batch", min=1, max=4096)
    mlp = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.GELU(), nn.Linear(32, 10)).eval()
    cnn = CNN().eval()
    for model in (mlp, cnn):
        traced = ember.jit.trace(model, ember.randn(4, 1, 8, 8), dynamic_shapes={"x": {0: batch}}
                                 if model is cnn else ({0: batch},))
        assert "batch" in str(traced.graph)
        traced.save(tmp_path / "m.ember")
        loaded = ember.jit.load(tmp_path / "m.ember")
        for n in (1, 7, 64):
            x = ember.randn(n, 1, 8, 8)
            with ember.no_grad():
                expected = model(x)
            assert_same(traced(x), expected)
            assert_same(loaded(x), expected)


def test_transformer_runs_at_other_batches_and_sequence_lengths(tmp_path):
    ember.manual_seed(1)
    model = make_transformer()
    x = ember.randn(3, 6, 16)
    traced = ember.jit.trace(model, x, dynamic_shapes=({0: Dim("batch"), 1: Dim("seq", max=512)},))
    listing = str(traced.graph)
    assert "batch*seq" in listing or "seq*batch" in listing  # the flattened (B*S, E) views
    traced.save(tmp_path / "t.ember")
    loaded = ember.jit.load(tmp_path / "t.ember")
    for b, s in ((1, 5), (7, 300), (64, 5), (2, 2)):
        x = ember.randn(b, s, 16)
        with ember.no_grad():
            expected = model(x)
        assert_same(traced(x), expected, tol=2e-5)
        assert_same(loaded(x), expected, tol=2e-5)
    with pytest.raises(RuntimeError, match=r"seq must be in \[0, 512\]"):
        traced(ember.randn(2, 513, 16))


def test_key_padding_mask_shares_the_batch_and_sequence_symbols():
    ember.manual_seed(2)
    model = make_transformer()
    batch, seq = Dim("batch"), Dim("seq")

    def run(x, mask):
        return model(x, src_key_padding_mask=mask)

    x = ember.randn(3, 6, 16)
    mask = ember.zeros(3, 6, dtype=ember.bool)
    mask[:, -2:] = True
    traced = ember.jit.trace(run, (x, mask), dynamic_shapes=({0: batch, 1: seq}, {0: batch, 1: seq}))
    x2 = ember.randn(5, 9, 16)
    mask2 = ember.zeros(5, 9, dtype=ember.bool)
    mask2[:, -3:] = True
    with ember.no_grad():
        assert_same(traced(x2, mask2), run(x2, mask2), tol=2e-5)
    with pytest.raises(RuntimeError, match="both are the dynamic size batch"):
        traced(ember.randn(5, 9, 16), mask2[:4])


# ---- the torch.export tutorial's dynamic-shape cases ----------------------------------

def view_minus_one(x):
    return x.view(-1, 2, x.shape[-1] // 2).sum(1)


def double_batch(x):
    y = ember.zeros(x.shape[0] * 2, x.shape[1])
    y[: x.shape[0]] = x
    y[x.shape[0]:] = x * 2
    return y


def concat(x, y):
    return ember.cat([x, y], 0).relu()


def arange_mask(x):
    seq_len = x.shape[1]
    positions = ember.arange(seq_len)
    mask = positions[None, :] < (seq_len - 1)
    return x.masked_fill(~mask[..., None], 0.0) * seq_len


@pytest.mark.parametrize("fn, shapes, spec, runs", [
    (view_minus_one, [(4, 6)], ({0: Dim("b")},), [[(1, 6)], [(9, 6)]]),
    (double_batch, [(3, 5)], ({0: Dim("b")},), [[(1, 5)], [(8, 5)]]),
    (concat, [(3, 4), (2, 4)], ({0: Dim("m")}, {0: Dim("n")}), [[(1, 4), (6, 4)], [(7, 4), (1, 4)]]),
    (arange_mask, [(2, 6, 3)], ({1: Dim("seq")},), [[(2, 3, 3)], [(2, 40, 3)]]),
])
def test_export_tutorial_cases(fn, shapes, spec, runs):
    ember.manual_seed(3)
    traced = ember.jit.trace(fn, tuple(ember.randn(*s) for s in shapes), dynamic_shapes=spec)
    for run in runs:
        inputs = tuple(ember.randn(*s) for s in run)
        assert_same(traced(*inputs), fn(*inputs))


POS = ember.randn(1, 50, 3)
CONV = nn.Conv2d(1, 2, 3, padding=1)
EMB = nn.Embedding(10, 3)


@pytest.mark.parametrize("fn, shapes, spec, runs", [
    (lambda x: x / x.shape[1], [(2, 4)], ({1: Dim("n")},), [[(2, 7)]]),  # a 0-dim symbolic constant
    (lambda x: x + POS[:, :x.size(1)], [(2, 6, 3)], ({0: Dim("b"), 1: Dim("s")},), [[(1, 9, 3)], [(4, 50, 3)]]),
    (lambda x: x + ember.arange(x.size(1)).float(), [(2, 6)], ({1: Dim("s")},), [[(2, 11)]]),
    (lambda x: x.new_zeros(x.shape) + ember.zeros_like(x) + x, [(3, 4)], ({0: Dim("b")},), [[(9, 4)]]),
    (lambda x: x.repeat(1, x.size(0)).sum(0).reshape(x.size(0), 4) + x[:, None].expand(x.size(0), 3, -1).sum(1),
     [(3, 4)], ({0: Dim("b")},), [[(5, 4)]]),
    (lambda x: ember.split(x, x.shape[1] // 2, dim=1)[0] * 2, [(3, 8)], ({1: Dim("n")},), [[(3, 12)]]),
    (lambda x: nn.functional.adaptive_avg_pool2d(CONV(x), 1).flatten(1), [(2, 1, 8, 8)],
     ({0: Dim("b"), 2: Dim("h"), 3: Dim("w")},), [[(3, 1, 13, 9)]]),
    (lambda x: x[x > 0].sum() + x.shape[0], [(6,)], ({0: Dim("n")},), [[(9,)]]),  # data-dependent
    (lambda x: EMB((x.abs() * 3).long().clamp(max=9)), [(2, 5)], ({0: Dim("b"), 1: Dim("s")},), [[(3, 8)]]),
    (lambda x: (x - x.mean(0, keepdim=True)).reshape(-1), [(4, 3)], ({0: Dim("b")},), [[(7, 3)]]),
], ids=["div-by-size", "positional-slice", "arange", "new_zeros", "repeat-expand", "split", "conv-hw",
        "nonzero", "embedding", "reshape-minus-one"])
def test_more_shape_logic_generalizes(fn, shapes, spec, runs):
    ember.manual_seed(8)
    traced = ember.jit.trace(fn, tuple(ember.randn(*s) for s in shapes), dynamic_shapes=spec)
    for run in runs:
        inputs = tuple(ember.randn(*s) for s in run)
        with ember.no_grad():
            assert_same(traced(*inputs), fn(*inputs))


def test_an_rnn_over_a_dynamic_sequence_is_refused_with_the_reason():
    lstm = nn.LSTM(3, 4, batch_first=True)
    with pytest.raises(ValueError, match="recurrent layers unroll over the sequence"):
        ember.jit.trace(lambda x: lstm(x)[0], ember.randn(2, 5, 3),
                        dynamic_shapes=({0: Dim("b"), 1: Dim("s")},))
    traced = ember.jit.trace(lambda x: lstm(x)[0], ember.randn(2, 5, 3), dynamic_shapes=({0: Dim("b")},))
    x = ember.randn(6, 5, 3)
    with ember.no_grad():
        assert_same(traced(x), lstm(x)[0])


def test_shape_logic_that_divides_gets_a_divisibility_guard():
    def halves(x):
        return x.view(x.shape[0], x.shape[1] // 2, 2).amax(-1)

    traced = ember.jit.trace(halves, ember.randn(3, 8), dynamic_shapes=({1: Dim("n")},))
    assert "n % 2 == 0" in traced.graph.guards()
    x = ember.randn(3, 14)
    assert_same(traced(x), halves(x))
    with pytest.raises(RuntimeError, match="must be 0 modulo 2"):
        traced(ember.randn(3, 7))


# ---- guards and specializations -------------------------------------------------------

def test_guards_name_the_input_the_dim_and_the_rule():
    model = nn.Linear(6, 3).eval()
    traced = ember.jit.trace(model, ember.randn(4, 6), dynamic_shapes=({0: Dim("batch", min=2, max=8)},))
    with pytest.raises(RuntimeError, match=r"input 0 \(%x\) dim 0 is 9, but the dynamic size batch must be in \[2, 8\]"):
        traced(ember.randn(9, 6))
    with pytest.raises(RuntimeError, match=r"has size 5 in dim 1, but the graph was traced with 6"):
        traced(ember.randn(4, 5))
    with pytest.raises(RuntimeError, match="must have 2 dims"):
        traced(ember.randn(4, 6, 1))
    x = ember.randn(4, 6)
    before = x.clone()
    with pytest.raises(RuntimeError):
        traced(ember.randn(1, 6))
    assert ember.equal(x, before)


def test_a_static_trace_runs_other_sizes_as_torch_traces_do():
    # Without dynamic_shapes the sizes are baked in and not guarded, as with
    # torch.jit.trace: a Linear runs at any batch.
    model = nn.Linear(6, 3).eval()
    traced = ember.jit.trace(model, ember.randn(4, 6))
    x = ember.randn(5, 6)
    with ember.no_grad():
        assert_same(traced(x), model(x))
    assert traced.graph.symbols() == [] and traced.graph.guards() == ""


def specializing(x):
    return x.view(8, 4) * 2  # the line the error must name


def test_a_specialized_dynamic_dim_is_reported_with_its_line():
    with pytest.raises(ValueError) as info:
        ember.jit.trace(specializing, ember.randn(8, 4), dynamic_shapes=({0: Dim("batch")},))
    message = str(info.value)
    assert "specializes a dynamic size" in message and "batch=" in message
    assert "test_jit_dynamic_shapes.py" in message and "x.view(8, 4)" in message


def test_a_python_branch_on_the_size_is_reported():
    def branchy(x):
        return x * 2 if x.shape[0] % 3 == 0 else x + 1

    with pytest.raises(ValueError, match="changes with|does not generalize|no polynomial"):
        ember.jit.trace(branchy, ember.randn(6, 2), dynamic_shapes=({0: Dim("b")},))


def test_bad_dynamic_shapes_specs():
    x = ember.randn(4, 3)
    f = lambda x: x + 1  # noqa: E731
    with pytest.raises(ValueError, match="size of 2 or more"):
        ember.jit.trace(f, ember.randn(1, 3), dynamic_shapes=({0: Dim("b")},))
    with pytest.raises(ValueError, match="names dim 5"):
        ember.jit.trace(f, x, dynamic_shapes=({5: Dim("b")},))
    with pytest.raises(ValueError, match="outside the range"):
        ember.jit.trace(f, x, dynamic_shapes=({0: Dim("b", max=3)},))
    with pytest.raises(TypeError, match="expected a Dim"):
        ember.jit.trace(f, x, dynamic_shapes=({0: 4},))
    with pytest.raises(ValueError, match="1 example inputs"):
        ember.jit.trace(f, x, dynamic_shapes=({0: Dim("b")}, None))
    with pytest.raises(TypeError, match="derived dims"):
        2 * Dim("b")
    with pytest.raises(ValueError, match="empty or negative"):
        Dim("b", min=5, max=4)


def test_extra_traces_leave_module_state_and_rng_alone():
    ember.manual_seed(4)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Dropout(0.5)).train()
    x = ember.randn(6, 3)
    ember.manual_seed(5)
    ember.jit.trace(model, x, check_trace=False)
    after_one, rng_after_one = model[1].running_mean.clone(), ember.rand(3)
    model[1].reset_running_stats()
    ember.manual_seed(5)
    ember.jit.trace(model, x, check_trace=False, dynamic_shapes=({0: Dim("b")},))
    assert ember.equal(model[1].running_mean, after_one)
    assert ember.equal(ember.rand(3), rng_after_one)


# ---- the model file ------------------------------------------------------------------

def test_symbols_round_trip_through_the_file_and_format_1_still_loads(tmp_path):
    import json
    import struct
    traced = ember.jit.trace(nn.Linear(6, 3).eval(), ember.randn(4, 6),
                             dynamic_shapes=({0: Dim("batch", min=1, max=100)},))
    traced.save(tmp_path / "d.ember")
    loaded = ember.jit.load(tmp_path / "d.ember")
    assert loaded.graph.symbols() == traced.graph.symbols()
    assert loaded.graph.symbols()[0]["name"] == "batch" and loaded.graph.symbols()[0]["max"] == 100
    assert str(loaded.graph) == str(traced.graph)
    # A format-1 file: a static graph with the version it had before symbolic sizes.
    static = ember.jit.trace(nn.Linear(6, 3).eval(), ember.randn(4, 6))
    static.save(tmp_path / "s.ember")
    raw = (tmp_path / "s.ember").read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    assert header["__metadata__"]["format_version"] == "2"
    header["__metadata__"]["format_version"] = "1"
    text = json.dumps(header).encode()
    text += b" " * ((-len(text)) % 8)
    (tmp_path / "v1.ember").write_bytes(struct.pack("<Q", len(text)) + text + raw[8 + n:])
    old = ember.jit.load(tmp_path / "v1.ember")
    x = ember.randn(4, 6)
    assert_same(old(x), static(x))


@needs_deploy
def test_cpp_runs_one_dynamic_file_at_other_batches_and_lengths(tmp_path):
    ember.manual_seed(6)
    model = CNN().eval()
    traced = ember.jit.trace(model, ember.randn(4, 1, 8, 8), dynamic_shapes=({0: Dim("batch", min=1)},))
    traced.save(tmp_path / "m.ember")
    for n in (1, 7, 64):
        x = ember.randn(n, 1, 8, 8)
        ember.save({"x": x}, tmp_path / "in.safetensors")
        run = subprocess.run([str(DEPLOY), str(tmp_path / "m.ember"), str(tmp_path / "in.safetensors"),
                              "--out", str(tmp_path / "out.safetensors")],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        with ember.no_grad():
            assert_same(ember.load(tmp_path / "out.safetensors")["y0"], model(x))
    # The transformer encoder at other batches and sequence lengths.
    encoder = make_transformer()
    traced = ember.jit.trace(encoder, ember.randn(3, 6, 16),
                             dynamic_shapes=({0: Dim("batch"), 1: Dim("seq")},))
    traced.save(tmp_path / "t.ember")
    for b, s in ((1, 5), (7, 300), (64, 5)):
        x = ember.randn(b, s, 16)
        ember.save({"x": x}, tmp_path / "in.safetensors")
        run = subprocess.run([str(DEPLOY), str(tmp_path / "t.ember"), str(tmp_path / "in.safetensors"),
                              "--out", str(tmp_path / "out.safetensors")],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        with ember.no_grad():
            assert_same(ember.load(tmp_path / "out.safetensors")["y0"], encoder(x), tol=2e-5)
    ember.save({"x": ember.randn(3, 1, 9, 8)}, tmp_path / "bad.safetensors")
    run = subprocess.run([str(DEPLOY), str(tmp_path / "m.ember"), str(tmp_path / "bad.safetensors")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "dim 2" in run.stderr


# ---- ember.export ----------------------------------------------------------------------

def test_export_api():
    ember.manual_seed(7)
    model = CNN().eval()
    batch = ember.export.Dim("batch", min=1, max=64)
    ep = ember.export.export(model, (ember.randn(4, 1, 8, 8),), dynamic_shapes={"x": {0: batch}})
    assert ep.range_constraints == {"batch": (1, 64)}
    x = ember.randn(9, 1, 8, 8)
    with ember.no_grad():
        assert_same(ep.module()(x), model(x))
    with pytest.raises(RuntimeError, match="module()"):
        ep(x)
    with pytest.raises(ValueError, match="Expected `args` to be a tuple"):
        ember.export.export(model, ember.randn(4, 1, 8, 8))
    with pytest.raises(ValueError, match="nn.Module"):
        ember.export.export(lambda x: x, (x,))
    assert ember.export.Dim.AUTO is Dim.AUTO


def test_a_causal_gpt_at_any_batch_and_length():
    # examples/char_gpt.py's model: positions from arange(T), causal attention, tied weights.
    import sys
    sys.path.insert(0, str(ROOT / "examples"))
    from char_gpt import build
    ember.manual_seed(9)
    model = build(ember)(vocab_size=40, block_size=64).eval()
    traced = ember.jit.trace(lambda idx: model(idx)[0], ember.randint(0, 40, (2, 10)),
                             dynamic_shapes=({0: Dim("batch"), 1: Dim("seq", max=64)},))
    for b, s in ((1, 3), (5, 64), (3, 17)):
        idx = ember.randint(0, 40, (b, s))
        with ember.no_grad():
            assert_same(traced(idx), model(idx)[0], tol=2e-5)
    with pytest.raises(RuntimeError, match=r"seq must be in \[0, 64\]"):
        traced(ember.randint(0, 40, (1, 65)))
