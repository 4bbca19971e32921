"""Pointwise fusion in the deployment runtime (lib/jit/runtime/fusion.h): chains of
pointwise nodes of a traced graph run as one loop. A fused run must give the unfused
run's results bit for bit (the same formulas, in the same dtype, through the same ISA
clones) and torch's within float tolerance; runs that do not qualify (non-contiguous or
other broadcasts, integer dtypes, autograd) fall back to running the nodes one by one."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from _helpers import noncontiguous

torch = pytest.importorskip("torch")

_jit = ember._C._jit


def _run(traced, inputs, fuse=True):
    outs, fused, unfused = _jit._fusion_run(traced.graph, list(inputs), fuse)
    return outs, fused, unfused


def _same_bits(a, b):
    a, b = a.numpy(), b.numpy()
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def _to_torch(t):
    return torch.from_numpy(np.ascontiguousarray(t.detach().numpy()))


def _check(traced, inputs, expected, groups, atol=1e-5, rtol=1e-5):
    """Fused == unfused bit for bit, every group fused, and both close to `expected`."""
    with ember.no_grad():
        fused_out, fused, unfused = _run(traced, inputs, True)
        plain_out, _, _ = _run(traced, inputs, False)
    assert (fused, unfused) == (groups, 0)
    for f, p, e in zip(fused_out, plain_out, expected):
        assert _same_bits(f, p)
        np.testing.assert_allclose(f.numpy(), e.detach().numpy(), atol=atol, rtol=rtol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows", [1, 7, 300])
def test_mlp_block_tail_fuses(dtype, rows):
    ember.manual_seed(0)
    lin = nn.Linear(32, 512).to(getattr(ember, dtype))

    def block(x, residual):
        return ember.tanh(F.gelu(lin(x)) * 0.5 + residual)

    x = ember.randn(rows, 32, dtype=getattr(ember, dtype))
    r = ember.randn(rows, 512, dtype=getattr(ember, dtype))
    traced = ember.jit.trace(block, (x, r))
    groups = _jit._fusion_groups(traced.graph)
    ops = [n.op for n in traced.graph.nodes()]
    assert len(groups) == 1 and [ops[i] for i in groups[0]] == ["gelu", "mul", "add", "tanh"]
    tl = torch.nn.Linear(32, 512).to(getattr(torch, dtype))
    with torch.no_grad():
        tl.weight.copy_(_to_torch(lin.weight))
        tl.bias.copy_(_to_torch(lin.bias))
        expected = torch.tanh(torch.nn.functional.gelu(tl(_to_torch(x))) * 0.5 + _to_torch(r))
    _check(traced, (x, r), [expected], groups=1, atol=1e-5 if dtype == "float32" else 1e-12)


def test_attention_scores_scale_and_mask_fuse():
    ember.manual_seed(1)
    seq, dim = 9, 16
    mask = ember.triu(ember.full((seq, seq), float("-inf")), diagonal=1)

    def scores(q, k):
        s = q.matmul(k.transpose(-2, -1)) * (dim ** -0.5) + mask
        return ember.softmax(s, dim=-1)

    q, k = ember.randn(2, 4, seq, dim), ember.randn(2, 4, seq, dim)
    traced = ember.jit.trace(scores, (q, k))
    groups = _jit._fusion_groups(traced.graph)
    assert [len(g) for g in groups] == [2]
    tq, tk, tm = _to_torch(q), _to_torch(k), _to_torch(mask)
    expected = torch.softmax(tq @ tk.transpose(-2, -1) * (dim ** -0.5) + tm, dim=-1)
    _check(traced, (q, k), [expected], groups=1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_long_unary_and_binary_chain_matches_torch(dtype):
    ember.manual_seed(2)

    def chain(x, y):
        a = ember.sigmoid(x) * 2.0 - 1.0          # sub with a wrapped number
        b = ember.exp(a) + y                       # y: a trailing row
        c = ember.log1p(ember.abs(b)) / (y + 3.0)
        d = ember.sub(c, x, alpha=0.25)
        e = F.silu(d) + F.leaky_relu(d, 0.1) + F.softplus(d, beta=1.5, threshold=2.0)
        return F.elu(e, alpha=1.2), ember.sqrt(ember.relu(e)) + F.hardtanh(e, -0.5, 0.5)

    x = ember.randn(64, 33, dtype=getattr(ember, dtype))
    y = ember.rand(33, dtype=getattr(ember, dtype))
    traced = ember.jit.trace(chain, (x, y))
    groups = _jit._fusion_groups(traced.graph)
    # Everything but y + 3.0 (a single [33] node, left alone), cut in two before it: it is
    # y's last reader, so the runtime releases y there, and the head runs before it.
    ops = [n.op for n in traced.graph.nodes()]
    assert len(groups) == 2 and sum(map(len, groups)) == len(ops) - 1
    assert ops[groups[1][0] - 1] == "add" and groups[0][-1] < groups[1][0] - 1
    tx, ty = _to_torch(x), _to_torch(y)
    tf = torch.nn.functional
    a = torch.sigmoid(tx) * 2.0 - 1.0
    b = torch.exp(a) + ty
    c = torch.log1p(torch.abs(b)) / (ty + 3.0)
    d = torch.sub(c, tx, alpha=0.25)
    e = tf.silu(d) + tf.leaky_relu(d, 0.1) + tf.softplus(d, beta=1.5, threshold=2.0)
    expected = [tf.elu(e, alpha=1.2), torch.sqrt(torch.relu(e)) + tf.hardtanh(e, -0.5, 0.5)]
    tol = 2e-5 if dtype == "float32" else 1e-12
    _check(traced, (x, y), expected, groups=2, atol=tol, rtol=tol)


def test_other_batch_sizes_and_operand_forms():
    ember.manual_seed(3)
    bias = ember.randn(6)

    def f(x, s):
        return ember.relu((x + bias) * s - 0.5)

    traced = ember.jit.trace(f, (ember.randn(4, 6), ember.tensor(2.0)))
    tb = _to_torch(bias)
    for x, s in [(ember.randn(9, 6), ember.tensor(3.0)),            # another batch
                 (ember.randn(2, 3, 6), ember.tensor([0.5])),        # a dim more, a [1] scale
                 (ember.randn(0, 6), ember.tensor(1.0)),             # empty
                 (ember.randn(5, 6), ember.tensor(2, dtype=ember.int64))]:  # an int number
        expected = torch.relu((_to_torch(x) + tb) * _to_torch(s) - 0.5)
        _check(traced, (x, s), [expected], groups=1)


def test_runs_that_do_not_qualify_fall_back_with_the_same_results():
    ember.manual_seed(4)

    def f(x, b):
        return ember.tanh(ember.exp(x) * b)

    traced = ember.jit.trace(f, (ember.randn(4, 6), ember.randn(6)))
    cases = [
        (noncontiguous(ember.randn(4, 6)), ember.randn(6)),     # strided input
        (ember.randn(4, 6), ember.randn(4, 1)),                  # a column broadcast
        (ember.randn(4, 6), ember.randn(6, dtype=ember.float64)),  # eager would promote
        (ember.randn(4, 6).to(ember.float16), ember.randn(6).to(ember.float16)),
    ]
    for x, b in cases:
        with ember.no_grad():
            fused_out, fused, unfused = _run(traced, (x, b), True)
            plain_out, _, _ = _run(traced, (x, b), False)
        assert (fused, unfused) == (0, 1)
        assert _same_bits(fused_out[0], plain_out[0])
        expected = torch.tanh(torch.exp(_to_torch(x).double()) * _to_torch(b).double())
        np.testing.assert_allclose(fused_out[0].double().numpy(), expected.numpy(), rtol=2e-3, atol=1e-3)


class _Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        return F.gelu(self.lin(x) + self.lin.bias) * 2.0


def test_autograd_is_left_to_the_unfused_run():
    ember.manual_seed(5)
    block = _Block()
    x = ember.randn(3, 8)
    traced = ember.jit.trace(block, x)
    assert len(_jit._fusion_groups(traced.graph)) == 1
    # Grad mode on and a parameter that requires grad read by the group: not fused.
    outs, fused, unfused = _run(traced, [x])
    assert (fused, unfused) == (0, 1)
    assert outs[0].requires_grad
    outs[0].sum().backward()
    assert block.lin.bias.grad is not None
    with ember.no_grad():
        outs2, fused, unfused = _run(traced, [x])
    assert (fused, unfused) == (1, 0)
    assert _same_bits(outs2[0], outs[0].detach())


def test_integer_chains_are_not_fused():
    def f(x):
        return (x + 1) * 3

    x = ember.arange(12).reshape(3, 4)
    traced = ember.jit.trace(f, x)
    assert _jit._fusion_groups(traced.graph) == []
    outs, fused, unfused = _run(traced, [x])
    assert (fused, unfused) == (0, 0)
    assert outs[0].tolist() == ((x + 1) * 3).tolist()


def test_intermediates_returned_are_materialized_and_readers_split_groups():
    ember.manual_seed(6)

    def f(x):
        a = ember.exp(x) * 0.5
        total = a.sum()              # reads a: the group ends there
        b = ember.tanh(a) - total    # a new group, total read as a number
        return b * 2.0, a

    x = ember.randn(5, 7)
    traced = ember.jit.trace(f, x)
    groups = _jit._fusion_groups(traced.graph)
    assert [len(g) for g in groups] == [2, 3]
    tx = _to_torch(x)
    ta = torch.exp(tx) * 0.5
    expected = [(torch.tanh(ta) - ta.sum()) * 2.0, ta]
    _check(traced, (x,), expected, groups=2)


@pytest.mark.parametrize("dynamic", [False, True])
def test_traced_module_forward_fuses_in_the_runtime(dynamic):
    """The interpreter (the module's forward) runs the groups: fusion on and off give the
    same bits, at the traced batch and, traced with a symbolic batch, at others."""
    ember.manual_seed(7)
    model = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 64), nn.SiLU()).eval()

    def f(x, bias):
        h = model(x)
        return ember.tanh(h * 0.5 + bias) - h, ember.sigmoid(h + 1.0)

    x, bias = ember.randn(4, 16), ember.randn(64)
    kwargs = {"dynamic_shapes": ({0: ember.jit.Dim("batch")}, None)} if dynamic else {}
    traced = ember.jit.trace(f, (x, bias), **kwargs)
    assert len(_jit._fusion_groups(traced.graph)) >= 1
    before = _jit._fusion_enabled()
    try:
        for batch in ([4, 1, 7, 64] if dynamic else [4]):
            xb = ember.randn(batch, 16)
            with ember.no_grad():
                _jit._set_fusion(True)
                fused = traced(xb, bias)
                _jit._set_fusion(False)
                plain = traced(xb, bias)
            for a, b in zip(fused, plain):
                assert _same_bits(a, b)
            h = model(xb)
            np.testing.assert_allclose(fused[0].numpy(), (ember.tanh(h * 0.5 + bias) - h).detach().numpy(),
                                       atol=1e-6)
    finally:
        _jit._set_fusion(before)


def test_bad_calls_raise():
    traced = ember.jit.trace(lambda x: ember.exp(x) * 2.0, ember.randn(3))
    with pytest.raises(RuntimeError, match="takes 1 input"):
        _jit._fusion_run(traced.graph, [], True)
    with pytest.raises(TypeError):
        _jit._fusion_run("not a graph", [ember.randn(3)], True)
    with pytest.raises(TypeError):
        _jit._fusion_groups(None)


def test_gpt2_style_gelu_written_out_fuses():
    """GPT-2's 'new GELU', written with pow and tanh: nine pointwise nodes, one loop."""
    ember.manual_seed(8)

    def new_gelu(x):
        return 0.5 * x * (1.0 + ember.tanh((2.0 / np.pi) ** 0.5 * (x + 0.044715 * ember.pow(x, 3.0))))

    x = ember.randn(6, 768)
    traced = ember.jit.trace(new_gelu, x)
    groups = _jit._fusion_groups(traced.graph)
    assert len(groups) == 1 and len(groups[0]) == len(traced.graph.nodes())
    tx = _to_torch(x)
    expected = 0.5 * tx * (1.0 + torch.tanh((2.0 / np.pi) ** 0.5 * (tx + 0.044715 * torch.pow(tx, 3.0))))
    _check(traced, (x,), [expected], groups=1)
