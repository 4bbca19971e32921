"""ember.testing: assert_close's tolerances, messages and structure walking, compared
with torch.testing on the same inputs; make_tensor's ranges and checks; assert_allclose."""
import collections
import re

import numpy as np
import pytest

import ember
from ember.testing import assert_allclose, assert_close, make_tensor

torch = pytest.importorskip("torch")

_T = {ember.float32: torch.float32, ember.float64: torch.float64, ember.float16: torch.float16,
      ember.bfloat16: torch.bfloat16, ember.int64: torch.int64, ember.int32: torch.int32, ember.bool: torch.bool}


def _to_torch(x):
    if isinstance(x, ember.Tensor):
        dtype = _T[x.dtype]
        return torch.tensor(x.detach().float().tolist() if x.dtype == ember.bfloat16 else x.detach().tolist(),
                            dtype=dtype)
    if isinstance(x, dict):
        return type(x)((k, _to_torch(v)) for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return type(x)(_to_torch(v) for v in x)
    return x


def _outcome(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - the type and message are what is compared
        return type(error), str(error)
    return None


def _same_as_torch(actual, expected, **kwargs):
    ours = _outcome(assert_close, actual, expected, **kwargs)
    theirs = _outcome(torch.testing.assert_close, _to_torch(actual), _to_torch(expected), **kwargs)
    if theirs is None or ours is None:
        assert ours == theirs
        return ours
    assert ours[0] is theirs[0], (ours, theirs)
    # Dtype/device names are spelled ember.X / torch.X.
    assert ours[1].replace("ember._C.", "torch.").replace("ember.", "torch.") == theirs[1], (ours[1], theirs[1])
    return ours


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16, ember.float32, ember.float64])
def test_default_tolerance_per_dtype(dtype):
    base = ember.tensor([1.0, 2.0, -3.0, 100.0], dtype=ember.float64)
    rtol, atol = {ember.float16: (1e-3, 1e-5), ember.bfloat16: (0.016, 1e-5),
                  ember.float32: (1.3e-6, 1e-5), ember.float64: (1e-7, 1e-7)}[dtype]
    inside = (base + (atol + rtol * base.abs()) * 0.5).to(dtype)
    outside = (base + (atol + rtol * base.abs()) * 3).to(dtype)
    assert _same_as_torch(inside, base.to(dtype)) is None
    error = _same_as_torch(outside, base.to(dtype))
    assert error[0] is AssertionError and error[1].startswith("Tensor-likes are not close!\n\nMismatched elements:")


def test_message_format_matches_torch():
    actual = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    expected = ember.tensor([[1.0, 2.5, 3.0], [4.0, 5.0, 0.0]])
    _, msg = _same_as_torch(actual, expected)
    assert "Mismatched elements: 2 / 6 (33.3%)" in msg
    assert "Greatest absolute difference: 6.0 at index (1, 2) (up to 1e-05 allowed)" in msg
    _same_as_torch(ember.tensor([1, 2, 3]), ember.tensor([1, 2, 4]))  # integers: "not equal!"
    _same_as_torch(ember.tensor(1.0), ember.tensor(1.5))               # 0-dim: scalar message
    _same_as_torch(ember.tensor([1.0, 2.0]), ember.tensor([1.1, 2.0]), rtol=0.0, atol=0.0)


def test_attribute_mismatches():
    _same_as_torch(ember.zeros(2, 3), ember.zeros(3, 2))
    _same_as_torch(ember.zeros(3), ember.zeros(3, dtype=ember.float64))
    assert _same_as_torch(ember.zeros(3), ember.zeros(3, dtype=ember.float64), check_dtype=False) is None
    a = ember.zeros(4, 6)[:, ::2]
    assert _outcome(assert_close, a, a.contiguous()) is None
    error = _outcome(assert_close, a, a.contiguous(), check_stride=True)
    assert error[0] is AssertionError and "stride()" in error[1]


def test_nan_and_inf():
    nan = ember.tensor([float("nan"), 1.0])
    assert _same_as_torch(nan, nan.clone())[0] is AssertionError
    assert _same_as_torch(nan, nan.clone(), equal_nan=True) is None
    inf = ember.tensor([float("inf"), -float("inf")])
    assert _same_as_torch(inf, inf.clone()) is None


def test_numbers_bools_none_and_nesting():
    assert _same_as_torch(1.0, 1.0 + 1e-9) is None
    _same_as_torch(1.0, 1.1)
    _same_as_torch(1, 2)
    _same_as_torch(True, False)
    assert _same_as_torch(None, None) is None
    _same_as_torch(None, 1)
    _same_as_torch(1, 1.0)  # check_dtype is off for numbers
    nested = {"a": [ember.ones(2), (ember.zeros(1), 3)], "b": ember.tensor(2.0)}
    other = {"a": [ember.ones(2), (ember.zeros(1), 3)], "b": ember.tensor(2.5)}
    assert _same_as_torch(nested, nested) is None
    error = _same_as_torch(nested, other)
    assert "The failure occurred for item ['b']" in error[1]
    _same_as_torch([ember.ones(1)], [ember.ones(1), ember.ones(1)])
    _same_as_torch({"a": 1}, {"b": 1})
    od = collections.OrderedDict(x=ember.ones(2))
    assert _same_as_torch(od, dict(x=ember.ones(2))) is None


def test_type_errors_and_tolerance_errors():
    error = _same_as_torch(ember.ones(1), 1.0)
    assert error[0] is TypeError and "No comparison pair was able to handle inputs" in error[1]
    error = _same_as_torch(ember.ones(1), ember.ones(1), rtol=1e-3)
    assert error[0] is ValueError
    assert _outcome(assert_close, ember.ones(1), ember.ones(1), atol=1e-3)[0] is ValueError


def test_numpy_inputs_and_custom_msg():
    assert_close(np.arange(3.0), np.arange(3.0))
    with pytest.raises(AssertionError, match="^custom$"):
        assert_close(ember.ones(2), ember.zeros(2), msg="custom")
    with pytest.raises(AssertionError, match=re.compile(r"^Header\n\nTensor-likes are not close!", re.S)):
        assert_close(ember.ones(2), ember.zeros(2), msg=lambda m: f"Header\n\n{m}")


def test_non_contiguous_and_broadcast_views_compare_by_value():
    base = ember.randn(5, 8)
    view = base[:, 1::2]
    assert_close(view, view.contiguous())
    expanded = ember.randn(1, 4).expand(3, 4)
    assert_close(expanded, expanded.contiguous())
    assert_close(ember.empty(0, 3), ember.empty(0, 3))


def test_assert_allclose_is_deprecated_and_looser():
    with pytest.warns(FutureWarning, match="assert_allclose\\(\\)` is deprecated"):
        assert_allclose(ember.tensor([1.0]), ember.tensor([1.00005]))  # float32 rtol 1e-4
    with pytest.warns(FutureWarning):
        assert_allclose(ember.tensor([float("nan")]), [float("nan")])  # equal_nan=True
    with pytest.warns(FutureWarning), pytest.raises(AssertionError):
        assert_allclose(ember.tensor([1.0]), ember.tensor([1.1]))


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.int64, ember.int32,
                                   ember.uint8, ember.int8, ember.bool])
def test_make_tensor_ranges(dtype):
    t = make_tensor(200, dtype=dtype, device="cpu")
    assert t.shape == (200,) and t.dtype == dtype
    values = t.to(ember.float64)
    if dtype is ember.bool:
        assert set(values.tolist()) <= {0.0, 1.0}
    elif dtype.is_floating_point:
        assert values.min().item() >= -9 and values.max().item() <= 9
    elif dtype is ember.uint8:
        assert values.min().item() >= 0 and values.max().item() <= 9
    else:
        assert values.min().item() >= -9 and values.max().item() <= 9
    t = make_tensor((3, 4), dtype=dtype, device="cpu", low=0 if dtype is not ember.bool else None,
                    high=5 if dtype is not ember.bool else None)
    assert t.shape == (3, 4)
    if dtype is not ember.bool:
        assert t.to(ember.float64).min().item() >= 0 and t.to(ember.float64).max().item() <= 5


def test_make_tensor_options():
    t = make_tensor(4, 6, dtype=ember.float32, device="cpu", noncontiguous=True)
    assert t.shape == (4, 6) and not t.is_contiguous()
    t = make_tensor(3, dtype=ember.float64, device="cpu", requires_grad=True)
    assert t.requires_grad and t.is_leaf
    t = make_tensor(1000, dtype=ember.int64, device="cpu", low=-1, high=2, exclude_zero=True)
    assert (t != 0).all().item()
    assert make_tensor((), dtype=ember.float32, device="cpu").shape == ()
    assert make_tensor(0, 3, dtype=ember.float32, device="cpu").shape == (0, 3)


def test_make_tensor_errors_match_torch():
    for kwargs in [dict(low=5, high=1), dict(low=float("nan")), dict(requires_grad=True)]:
        ours = _outcome(make_tensor, 3, dtype=ember.int64, device="cpu", **kwargs)
        theirs = _outcome(torch.testing.make_tensor, 3, dtype=torch.int64, device="cpu", **kwargs)
        assert ours[0] is theirs[0] is ValueError
        assert ours[1].replace("ember.", "torch.") == theirs[1]
    ours = _outcome(make_tensor, 3, dtype=ember.uint8, device="cpu", low=300, high=400)
    theirs = _outcome(torch.testing.make_tensor, 3, dtype=torch.uint8, device="cpu", low=300, high=400)
    assert ours[1].replace("ember.", "torch.") == theirs[1]
    with pytest.raises(ValueError, match="mutually exclusive"):
        make_tensor(2, 2, dtype=ember.float32, device="cpu", noncontiguous=True,
                    memory_format=ember.contiguous_format)
    with pytest.warns(FutureWarning, match="low==high"):
        make_tensor(2, dtype=ember.float32, device="cpu", low=1.0, high=1.0)
