"""ember.signal.windows: every window's values against torch.signal.windows (both sym,
float32/float64, lengths 0, 1, 2 and more), requires_grad, and torch's argument errors."""
import numpy as np
import pytest

import ember
from ember.signal import windows

torch = pytest.importorskip("torch")

NAMES = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "hamming", "hann", "kaiser", "nuttall"]
LENGTHS = [0, 1, 2, 3, 7, 10, 64]
DTYPES = [(ember.float32, torch.float32, 1e-5), (ember.float64, torch.float64, 1e-12)]


def _same(ours, theirs, tol):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("M", LENGTHS)
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtypes", DTYPES, ids=["float32", "float64"])
def test_window_values_match_torch(name, M, sym, dtypes):
    ember_dtype, torch_dtype, tol = dtypes
    ours = getattr(windows, name)(M, sym=sym, dtype=ember_dtype)
    theirs = getattr(torch.signal.windows, name)(M, sym=sym, dtype=torch_dtype)
    _same(ours, theirs, tol)


@pytest.mark.parametrize("kwargs", [dict(std=0.5), dict(std=3.0)])
def test_gaussian_std(kwargs):
    _same(windows.gaussian(11, dtype=ember.float64, **kwargs),
          torch.signal.windows.gaussian(11, dtype=torch.float64, **kwargs), 1e-12)


@pytest.mark.parametrize("kwargs", [dict(tau=0.5), dict(tau=3.0), dict(tau=2.0, center=3.0, sym=False)])
def test_exponential_tau_center(kwargs):
    _same(windows.exponential(9, dtype=ember.float64, **kwargs),
          torch.signal.windows.exponential(9, dtype=torch.float64, **kwargs), 1e-12)


@pytest.mark.parametrize("beta", [0.0, 1.5, 12.0, 30.0])
def test_kaiser_beta(beta):
    for sym in (True, False):
        _same(windows.kaiser(16, beta=beta, sym=sym, dtype=ember.float64),
              torch.signal.windows.kaiser(16, beta=beta, sym=sym, dtype=torch.float64), 1e-10)


@pytest.mark.parametrize("a", [[0.5, 0.5], (0.42, 0.5, 0.08), [1.0]])
def test_general_cosine_and_hamming(a):
    for M in (1, 2, 12):
        _same(windows.general_cosine(M, a=a, dtype=ember.float64),
              torch.signal.windows.general_cosine(M, a=a, dtype=torch.float64), 1e-12)
    _same(windows.general_hamming(12, alpha=0.6, sym=False, dtype=ember.float64),
          torch.signal.windows.general_hamming(12, alpha=0.6, sym=False, dtype=torch.float64), 1e-12)


def test_default_dtype_and_requires_grad():
    w = windows.hann(8)
    assert w.dtype == ember.get_default_dtype()
    w = windows.gaussian(8, requires_grad=True)
    t = torch.signal.windows.gaussian(8, requires_grad=True)
    assert w.requires_grad == t.requires_grad
    w = windows.bartlett(1, requires_grad=True)
    assert w.requires_grad and w.is_leaf


def test_hann_matches_hann_window():
    # The periodic hann window is ember.hann_window's default.
    _same(windows.hann(10, sym=False, dtype=ember.float64), torch.hann_window(10, dtype=torch.float64), 1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_bad_arguments_raise_like_torch(name):
    fn, torch_fn = getattr(windows, name), getattr(torch.signal.windows, name)
    for args, kwargs, torch_kwargs in [((-1,), {}, {}),
                                        ((5,), dict(dtype=ember.int64), dict(dtype=torch.int64)),
                                        ((5,), dict(dtype=ember.float16), dict(dtype=torch.float16))]:
        with pytest.raises(ValueError) as ours:
            fn(*args, **kwargs)
        with pytest.raises(ValueError) as theirs:
            torch_fn(*args, **torch_kwargs)
        assert str(ours.value).split(",")[0] == str(theirs.value).split(",")[0]


def test_parameter_errors():
    for call, torch_call in [
            (lambda: windows.gaussian(5, std=0), lambda: torch.signal.windows.gaussian(5, std=0)),
            (lambda: windows.exponential(5, tau=-1), lambda: torch.signal.windows.exponential(5, tau=-1)),
            (lambda: windows.exponential(5, center=1.0), lambda: torch.signal.windows.exponential(5, center=1.0)),
            (lambda: windows.kaiser(5, beta=-1.0), lambda: torch.signal.windows.kaiser(5, beta=-1.0)),
            (lambda: windows.general_cosine(5, a=[]), lambda: torch.signal.windows.general_cosine(5, a=[]))]:
        with pytest.raises(ValueError) as ours:
            call()
        with pytest.raises(ValueError) as theirs:
            torch_call()
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError, match="Coefficients must be a list/tuple"):
        windows.general_cosine(5, a=3)
    with pytest.raises(ValueError, match="is implemented for strided tensors only, got: strided"):
        windows.hann(5, layout="strided")  # a string is not the layout object


def test_module_paths():
    import ember.signal.windows as w
    assert w is windows and ember.signal.windows is windows
    assert set(w.__all__) == set(torch.signal.windows.__all__)
