"""The fast paths in front of the hottest Tensor bindings (csrc/fast_calls.cpp) must
behave exactly as the bindings they shortcut: same values, dtypes, errors, operator
protocol (reflected operands, NotImplemented, subclasses) and documentation."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _pair(values, dtype="float32"):
    return ember.tensor(values, dtype=getattr(ember, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))


def _same(e, t):
    assert isinstance(e, ember.Tensor)
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6, atol=0)


def _like_torch(expr, env):
    """Evaluates expr with ember tensors (ea, eb) and with torch's (ta, tb) in env: the
    same values, or the same exception type."""
    texpr = expr.replace("ea", "ta").replace("eb", "tb")
    try:
        expected = eval(texpr, {}, env)
    except Exception as err:  # noqa: BLE001
        with pytest.raises(type(err)):
            eval(expr, {}, env)
        return
    _same(eval(expr, {}, env), expected)


OPERANDS = [
    lambda m: m.tensor([1.5, -2.0, 3.0]),
    lambda m: m.tensor([[1, 2, 3], [4, 5, 6]], dtype=m.int32),
    lambda m: m.tensor(2.5),  # 0-dim
    lambda m: m.tensor([], dtype=m.float64).reshape(0, 3),
    lambda m: m.arange(12.0).reshape(3, 4).t()[:, 1:],  # non-contiguous
    lambda m: m.tensor([True, False, True]),
]
NUMBERS = [2, -3, 0.5, 2.0]


@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
@pytest.mark.parametrize("i", range(len(OPERANDS)))
@pytest.mark.parametrize("j", range(len(OPERANDS)))
def test_tensor_tensor_operators_match_torch(op, i, j):
    env = dict(ea=OPERANDS[i](ember), ta=OPERANDS[i](torch), eb=OPERANDS[j](ember), tb=OPERANDS[j](torch))
    _like_torch(f"ea {op} eb", env)


@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
@pytest.mark.parametrize("i", range(len(OPERANDS)))
@pytest.mark.parametrize("n", NUMBERS)
def test_number_operands_both_sides_match_torch(op, i, n):
    env = dict(ea=OPERANDS[i](ember), ta=OPERANDS[i](torch), n=n)
    for expr in (f"ea {op} n", f"n {op} ea"):
        _like_torch(expr, env)


@pytest.mark.parametrize("shapes", [((3, 4), (4, 2)), ((4,), (4,)), ((2, 3, 4), (4,)), ((3,), (3, 2)),
                                    ((0, 3), (3, 2)), ((3, 4), (3, 4))])
def test_matmul_operator_matches_torch(shapes):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    try:
        expected = torch.from_numpy(a) @ torch.from_numpy(b)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            ember.from_numpy(a) @ ember.from_numpy(b)
        return
    got = ember.from_numpy(a) @ ember.from_numpy(b)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError):
        ember.from_numpy(a) @ 2  # numbers are not matrices, for torch either
    with pytest.raises(TypeError):
        torch.from_numpy(a) @ 2


@pytest.mark.parametrize("op", ["<", "<=", "==", "!=", ">", ">="])
@pytest.mark.parametrize("i", range(len(OPERANDS)))
def test_comparisons_match_torch_both_sides(op, i):
    env = dict(ea=OPERANDS[i](ember), ta=OPERANDS[i](torch), eb=OPERANDS[0](ember), tb=OPERANDS[0](torch))
    for expr in (f"ea {op} 2", f"2 {op} ea", f"ea {op} 0.5", f"ea {op} eb", f"eb {op} ea", f"ea {op} ea"):
        _like_torch(expr, env)


def test_comparisons_with_other_objects_fall_back():
    a = ember.tensor([1.0, 2.0])
    assert (a == None) is False  # noqa: E711  (identity, as torch)
    assert (a != "x") is True
    with pytest.raises(TypeError):
        a < "x"
    assert (a == np.float32(2)).tolist() == [False, True]


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/="])
@pytest.mark.parametrize("other", ["tensor", "int", "float", "self", "broadcast"])
def test_inplace_operators_match_torch_and_keep_identity(op, other):
    def run(m):
        a = m.tensor([[1.0, -2.0], [3.0, 4.0]])
        b = {"tensor": m.tensor([[0.5, 2.0], [1.0, -1.0]]), "int": 3, "float": 0.25, "self": a,
             "broadcast": m.tensor([2.0, 4.0])}[other]
        before = id(a)
        namespace = {"a": a, "b": b}
        exec(f"a {op} b", namespace)
        assert id(namespace["a"]) == before
        return namespace["a"]
    _same(run(ember), run(torch))


def test_inplace_operator_errors_leave_the_tensor_unchanged():
    a = ember.tensor([1, 2], dtype=ember.int64)
    with pytest.raises(RuntimeError):
        a /= 2  # float result into an int tensor, as torch
    assert a.tolist() == [1, 2]
    a = ember.ones(2, 2)
    with pytest.raises(RuntimeError):
        a += ember.ones(3)
    assert a.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    w = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        w += 1  # a leaf that requires grad
    a = ember.ones(2)
    a += np.float32(2)  # declined by the fast path, taken by the binding
    assert a.tolist() == [3.0, 3.0]
    lst = [1]
    lst += ember.tensor([5])  # a list on the left: its own in-place add
    assert len(lst) == 2


def test_operands_the_fast_path_declines_go_through_the_bindings():
    a = ember.tensor([1.0, 2.0])
    # bool, numpy scalars, huge ints: the bindings' conversions
    _same(a + True, torch.tensor([1.0, 2.0]) + True)
    _same(a * np.float32(3), torch.tensor([1.0, 2.0]) * 3)
    _same(np.float64(2) - a, 2 - torch.tensor([1.0, 2.0]))
    with pytest.raises(TypeError):
        a + "x"
    with pytest.raises(TypeError):
        "x" - a
    with pytest.raises(RuntimeError):
        a + 2**70


def test_subclass_operator_overrides_are_respected():
    class Loud(ember.Tensor):
        def __radd__(self, other):
            return "radd"

        def __add__(self, other):
            return "add"

    x = ember.tensor([1.0])
    loud = Loud._make_subclass(Loud, ember.tensor([2.0]))
    assert x + loud == "radd"  # the subclass's reflected method comes first
    assert loud + x == "add"
    assert loud + 1 == "add"
    assert 1 + loud == "radd"


def test_other_types_get_their_turn():
    class Other:
        def __radd__(self, other):
            return "other radd"

        def __rmul__(self, other):
            return NotImplemented

    x = ember.tensor([1.0])
    assert x + Other() == "other radd"
    with pytest.raises(TypeError):
        x * Other()


def test_parameters_and_autograd_through_fast_paths():
    w = ember.nn.Parameter(ember.tensor([1.0, -2.0, 3.0]))
    y = ((w * 2.0 + 1) / 3 - w).relu().sum()
    y.backward()
    tw = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    ty = ((tw * 2.0 + 1) / 3 - tw).relu().sum()
    ty.backward()
    _same(y.detach(), ty.detach())
    _same(w.grad, tw.grad)
    assert y.grad_fn is not None


@pytest.mark.parametrize("name", ["relu", "neg", "abs", "exp", "sum", "mean", "sigmoid", "tanh"])
@pytest.mark.parametrize("i", [0, 2, 3, 4])
def test_no_argument_methods_match_torch(name, i):
    ea, ta = OPERANDS[i](ember), OPERANDS[i](torch)
    _same(getattr(ea, name)(), getattr(ta, name)())


def test_methods_with_arguments_fall_back_to_the_bindings():
    e, t = _pair([[1.0, 2.0], [3.0, 4.0]])
    _same(e.sum(0), t.sum(0))
    _same(e.sum(dim=1, keepdim=True), t.sum(dim=1, keepdim=True))
    _same(e.mean(dtype=ember.float64), t.mean(dtype=torch.float64))
    _same(e.view(4), t.view(4))
    _same(e.view((4, 1)), t.view((4, 1)))
    _same(e.reshape(-1), t.reshape(-1))
    _same(e.reshape([1, 4]), t.reshape([1, 4]))
    with pytest.raises(TypeError):
        e.relu(1)
    with pytest.raises(RuntimeError):
        e.view(3)
    with pytest.raises(TypeError):
        e.view(2.0, 2)
    # the method's documentation is still the binding's
    assert "sum(" in ember.Tensor.sum.__doc__
    assert ember.Tensor.relu.__doc__


def test_integer_indexing_matches_torch():
    e, t = _pair([[1.0, 2.0], [3.0, 4.0]])
    _same(e[1], t[1])
    _same(e[-2], t[-2])
    _same(e[1:], t[1:])
    with pytest.raises(IndexError):
        e[2]
    with pytest.raises(IndexError):
        ember.tensor(1.0)[0]
    row = e[0]
    row[0] = 10.0  # a view: writes reach the base
    assert e[0, 0].item() == 10.0


def test_detach_outside_and_inside_a_trace():
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    d = a.detach()  # made directly outside a trace
    assert not d.requires_grad and d.grad_fn is None and d._is_view_of(a)
    with ember.no_grad():
        d.mul_(3)
    assert a.tolist() == [3.0, 6.0] and d._version == a._version
    # In a trace the detach is recorded, not baked in as a constant.
    traced = ember.jit.trace(lambda x: x.detach() * 2, ember.ones(2))
    np.testing.assert_array_equal(traced(ember.tensor([5.0, 7.0])).numpy(), [10.0, 14.0])
