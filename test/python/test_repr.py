"""repr(tensor) is PyTorch's text with 'ember' for 'torch': the same values are
printed by both libraries and compared, over many magnitudes, dtypes, shapes,
special values and print options."""
import math

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1234)


def same_repr(a, dtype=None, requires_grad=False):
    """Prints numpy array `a` through torch and ember (optionally cast to `dtype`, a name)."""
    tt = torch.from_numpy(np.ascontiguousarray(a))
    et = ember.from_numpy(np.ascontiguousarray(a))
    if dtype is not None:
        tt = tt.to(getattr(torch, dtype))
        et = et.to(getattr(ember, dtype))
    if requires_grad:
        tt.requires_grad_()
        et.requires_grad_()
    expected = repr(tt).replace("torch", "ember")
    got = repr(et)
    assert got == expected, f"\nember:\n{got}\ntorch (as ember):\n{expected}"
    assert str(et) == got


FLOAT_CASES = {
    "simple": [1.0, 2.0, 3.0],
    "decimals": [0.1234, -1.0, 2.5, 100.125],
    "negative zero": [-0.0, 0.0, 1.5],
    "all zero": [0.0, 0.0],
    "integral big": [1.0, 123456.0, -7.0],
    "integral over 1e8": [1.0, 2.0e8],
    "ratio over 1000": [0.5, 600.0],
    "ratio exactly 1000": [1.0, 1000.0],
    "tiny": [1e-5, 2e-5],
    "just above 1e-4": [1.5e-4, 3e-4],
    "huge": [1e20, -3e25, 4e30],
    "mixed magnitudes": [1e-8, 1.0, 1e8, -5.5],
    "nan and inf": [float("nan"), float("inf"), -float("inf"), 1.5],
    "only nan": [float("nan"), float("nan")],
    "inf with integers": [float("inf"), 2.0, -3.0],
    "nan with tiny": [float("nan"), 1e-6],
    "rounding": [0.99995, 1.00005, 2.5e-4],
    "one value": [3.14159265],
}


@pytest.mark.parametrize("name", list(FLOAT_CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_float_values(name, dtype):
    values = np.array(FLOAT_CASES[name], np.float64)
    if dtype == "float16" and name in ("huge", "mixed magnitudes"):
        pytest.skip("out of float16's range")
    same_repr(values, dtype)


@pytest.mark.parametrize("scale", [1e-6, 1e-3, 0.1, 1.0, 37.0, 1e4, 1e9])
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4), (2, 1, 2, 3)])
def test_random_floats(scale, shape):
    same_repr(RNG.standard_normal(shape) * scale)
    same_repr((RNG.standard_normal(shape) * scale).astype(np.float32))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_integers(dtype):
    info = np.iinfo(dtype)
    for values in ([1, 2, 3], [0], [-5, 12, 7], [info.min, 0, info.max],
                   RNG.integers(info.min, info.max, (4, 5), endpoint=True)):
        same_repr(np.array(values).astype(dtype))


def test_bools():
    same_repr(np.array([True, False, True]))
    same_repr(np.array([[True, True], [True, True]]))
    same_repr(RNG.random((3, 4)) > 0.5)


def test_zero_dim():
    for v, dtype in [(3.5, np.float32), (2.0, np.float32), (7, np.int64), (-1e-9, np.float64),
                     (float("nan"), np.float32), (True, np.bool_), (3, np.int16), (2.5, np.float16)]:
        same_repr(np.array(v, dtype))
    same_repr(np.array(1.25, np.float32), "bfloat16")


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0), (2, 0, 3), (1, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.bool_, np.float16])
def test_empty(shape, dtype):
    same_repr(np.zeros(shape, dtype))


def test_long_rows_wrap():
    same_repr(np.arange(40, dtype=np.float32) * 1.5)
    same_repr(np.arange(100, dtype=np.int64) * 1000)
    same_repr(RNG.standard_normal((3, 30)))
    same_repr(np.arange(30, dtype=np.float32) * 1e-7)


@pytest.mark.parametrize("shape", [(1001,), (2000,), (40, 30), (100, 100), (12, 10, 10),
                                   (5, 5, 5, 5, 5), (1, 1001), (1001, 1), (3, 400)])
def test_summarized(shape):
    same_repr(RNG.standard_normal(shape).astype(np.float32))
    same_repr(RNG.integers(-1000, 1000, shape))


def test_summarized_formatter_sees_only_shown_values():
    a = np.ones(2000, np.float32)
    a[1000] = 1e10  # hidden by the '...': must not switch on scientific notation
    same_repr(a)
    a[0] = 1e10  # shown
    same_repr(a)


def test_high_dims():
    same_repr(RNG.standard_normal((2, 2, 2, 2, 2)))
    same_repr(np.arange(2 * 3 * 1 * 2).reshape(2, 3, 1, 2))
    same_repr(np.zeros((1, 1, 1, 1), np.float32))


def test_suffixes():
    same_repr(np.array([1.0, 2.0]), requires_grad=True)
    same_repr(np.array([1.0, 2.0]), "float64", requires_grad=True)
    same_repr(np.array([[1.0, 2.0]] * 3, np.float32), "float16", requires_grad=True)
    same_repr(np.arange(25, dtype=np.float64) * 1e5, requires_grad=True)  # suffix wraps
    same_repr(np.array(2.5, np.float32), requires_grad=True)


def test_non_contiguous():
    a = RNG.standard_normal((4, 5)).astype(np.float32)
    t = ember.from_numpy(a).t()
    assert repr(t) == repr(torch.from_numpy(a).t()).replace("torch", "ember")
    s = ember.from_numpy(a).narrow(1, 1, 3)
    assert repr(s) == repr(torch.from_numpy(a).narrow(1, 1, 3)).replace("torch", "ember")


def test_default_dtype_float64():
    ember.set_default_dtype(ember.float64)
    torch.set_default_dtype(torch.float64)
    try:
        same_repr(np.array([1.5, 2.0]))
        same_repr(np.array([1.5, 2.0], np.float32))
        same_repr(np.zeros((0, 2)))
        same_repr(np.zeros(0, np.float32))
    finally:
        ember.set_default_dtype(ember.float32)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("options", [
    dict(precision=2), dict(precision=8), dict(precision=0), dict(threshold=5),
    dict(threshold=5, edgeitems=1), dict(threshold=5, edgeitems=0), dict(linewidth=30),
    dict(linewidth=200), dict(sci_mode=True), dict(sci_mode=False), dict(profile="short"),
    dict(profile="full"), dict(threshold=math.inf),
])
def test_print_options(options):
    old_t, old_e = torch._tensor_str.get_printoptions(), ember.get_printoptions()
    torch.set_printoptions(**options)
    ember.set_printoptions(**options)
    try:
        for a in (RNG.standard_normal((4, 6)).astype(np.float32), np.arange(20) - 10,
                  np.arange(2000, dtype=np.float32), np.array([1e-6, 1.0], np.float32),
                  np.array([1.0, 2.0], np.float32), RNG.standard_normal((8, 8, 8))):
            same_repr(a)
    finally:
        torch.set_printoptions(**old_t)
        ember.set_printoptions(**old_e)
    assert ember.get_printoptions() == old_e


def test_printoptions_context():
    with ember.printoptions(precision=1):
        assert repr(ember.tensor([1.25, 2.0])) == "tensor([1.2, 2.0])"
    assert repr(ember.tensor([1.25, 2.0])) == "tensor([1.2500, 2.0000])"
    assert ember.get_printoptions()["precision"] == 4


def test_readme_examples():
    assert repr(ember.tensor([1.0, 2.0, 3.0])) == "tensor([1., 2., 3.])"
    assert repr(ember.tensor(3.5)) == "tensor(3.5000)"
    assert repr(ember.tensor([])) == "tensor([])"
    assert repr(ember.zeros(0, 3)) == "tensor([], size=(0, 3))"
    assert repr(ember.tensor([1, 2], dtype=ember.int32)) == "tensor([1, 2], dtype=ember.int32)"
    assert repr(ember.tensor([[0.1234, -1.0], [2.0, 3.0]])) == \
        "tensor([[ 0.1234, -1.0000],\n        [ 2.0000,  3.0000]])"
