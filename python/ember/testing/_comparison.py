"""assert_close: torch.testing.assert_close's comparison rules, tolerances and messages.

Inputs are compared pairwise after walking nested sequences and mappings in lockstep:
None with None, bools with bools, Python numbers (and numpy scalars) with numbers,
tensor-likes (ember tensors, numpy arrays) with tensor-likes. The first mismatch is
raised as torch raises it (AssertionError with "Tensor-likes are not close!" and the
mismatch statistics; TypeError for inputs no rule handles; ValueError for a half-given
tolerance).

Structure: every leaf pair becomes a "checker" object (or the walk fails); checkers
report a problem by raising _Mismatch, which assert_close converts into the exception
type it carries, with the leaf's location appended to the message.
"""
import cmath
import collections.abc
import warnings

import ember

__all__ = ["assert_close", "assert_allclose"]

try:
    import numpy as _np
except ImportError:  # pragma: no cover - numpy is an ember dependency
    _np = None


class _Mismatch(Exception):
    """A problem found while comparing: the exception class to raise, its message, and the
    path (indices / keys) from the top-level inputs to the offending leaf."""

    def __init__(self, exc_type, text, *, path=()):
        super().__init__(text)
        self.exc_type = exc_type
        self.text = text
        self.path = path

    def _located_text(self):
        if not self.path:
            return self.text
        # torch writes the path as chained subscripts: item [0]['weight']
        subscripts = "".join(f"[{step!r}]" for step in self.path)
        return f"{self.text}\n\nThe failure occurred for item {subscripts}"

    def as_exception(self, user_msg=None):
        """The exception the user sees: user_msg verbatim when it is a string, else our
        text (passed through user_msg when it is a callable)."""
        if isinstance(user_msg, str):
            return self.exc_type(user_msg)
        text = self._located_text()
        if callable(user_msg):
            text = user_msg(text)
        return self.exc_type(text)


class _Declined(Exception):
    """A checker class does not handle these inputs; the next one gets a try."""


# torch's default (rtol, atol) per dtype; a dtype missing here (integers, bool) is compared exactly.
_ASSERT_CLOSE_TOLERANCES = {
    ember.float16: (0.001, 1e-5),
    ember.bfloat16: (0.016, 1e-5),
    ember.float32: (1.3e-6, 1e-5),
    ember.float64: (1e-7, 1e-7),
}
_COMPLEX_TOLERANCES = {"complex32": (0.001, 1e-5), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}
for _dtype_name, _pair in _COMPLEX_TOLERANCES.items():
    # Only the complex dtypes this build of ember actually has.
    _complex_dtype = getattr(ember, _dtype_name, None)
    if _complex_dtype is not None:
        _ASSERT_CLOSE_TOLERANCES[_complex_dtype] = _pair


def _loosest_tolerances(*things, table=None):
    """max rtol and max atol over the dtypes of `things` (tensors or dtypes)."""
    lookup = _ASSERT_CLOSE_TOLERANCES if table is None else table
    best_rtol, best_atol = 0.0, 0.0
    for thing in things:
        if isinstance(thing, ember.Tensor):
            dtype = thing.dtype
        elif isinstance(thing, ember.dtype):
            dtype = thing
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(thing)} instead.")
        rtol_here, atol_here = lookup.get(dtype, (0.0, 0.0))
        best_rtol = max(best_rtol, rtol_here)
        best_atol = max(best_atol, atol_here)
    return best_rtol, best_atol


def _resolve_tolerances(*things, rtol, atol, path=()):
    """The caller's (rtol, atol) when both are given, the dtype defaults when neither is."""
    given = (rtol is not None, atol is not None)
    if given == (True, True):
        return rtol, atol
    if given == (False, False):
        return _loosest_tolerances(*things)
    # Only one of them: atol=0 alone would still let rtol's default through, which surprises.
    absent = "atol" if given[0] else "rtol"
    raise _Mismatch(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                                f"but got no {absent}.", path=path)


def _difference_line(kind, value, where, allowed, exact):
    """One 'Greatest absolute difference: ...' / 'Relative difference: ...' line."""
    if where is None:
        line = f"{kind.capitalize()} difference: {value}"
    else:
        line = f"Greatest {kind} difference: {value} at index {where}"
    if not exact:
        line = f"{line} (up to {allowed} allowed)"
    return line


def _compose_report(*, subject, custom_subject, details, abs_value, abs_where, atol, rel_value, rel_where,
                    rtol):
    """The full mismatch text: headline, optional details line, the two difference lines."""
    exact = atol == 0 and rtol == 0
    if callable(custom_subject):
        subject = custom_subject(subject)
    elif custom_subject is not None:
        subject = custom_subject
    verdict = "equal" if exact else "close"
    parts = [f"{subject} are not {verdict}!", ""]
    if details:
        parts.append(details.strip())
    parts.append(_difference_line("absolute", abs_value, abs_where, atol, exact))
    parts.append(_difference_line("relative", rel_value, rel_where, rtol, exact))
    return "\n".join(parts)


def _report_scalars(actual, expected, *, rtol, atol, custom_subject=None):
    distance = abs(actual - expected)
    relative = distance / abs(expected) if expected != 0 else float("inf")
    return _compose_report(subject="Scalars", custom_subject=custom_subject,
                           details=f"Expected {expected} but got {actual}.",
                           abs_value=distance, abs_where=None, atol=atol,
                           rel_value=relative, rel_where=None, rtol=rtol)


def _multi_index(flat_position, shape):
    """Row-major position -> index tuple into `shape` (() for a 0-dim shape)."""
    coords = []
    remaining = flat_position
    for extent in reversed(tuple(shape)):
        remaining, coordinate = divmod(remaining, extent)
        coords.insert(0, coordinate)
    return tuple(coords)


def _largest_outside(values, close_mask):
    """(largest value, its flat position) among the entries not marked close."""
    values[close_mask] = 0  # close entries must not win the maximum
    top, position = ember.max(values, 0)
    return top.item(), int(position)


def _report_tensors(actual, expected, close, *, rtol, atol, custom_subject=None):
    count = close.numel()
    bad = count - int(close.sum())
    summary = f"Mismatched elements: {bad} / {count} ({bad / count:.1%})"

    a, e, ok = actual.flatten(), expected.flatten(), close.flatten()
    dtype = actual.dtype
    if not (dtype.is_floating_point or getattr(dtype, "is_complex", False)):
        # Integers (and bool) subtract in int64 so the difference cannot wrap or fail.
        a, e = a.to(ember.int64), e.to(ember.int64)
    distances = ember.abs(a - e)
    relatives = distances / ember.abs(e)
    abs_top, abs_at = _largest_outside(distances, ok)
    rel_top, rel_at = _largest_outside(relatives, ok)
    return _compose_report(subject="Tensor-likes", custom_subject=custom_subject, details=summary,
                           abs_value=abs_top, abs_where=_multi_index(abs_at, close.shape), atol=atol,
                           rel_value=rel_top, rel_where=_multi_index(rel_at, close.shape), rtol=rtol)


class _Checker:
    """Base of the leaf comparers. A subclass's constructor raises _Declined for inputs it
    does not handle; check() raises _Mismatch when the inputs differ."""

    def __init__(self, actual, expected, *, path=(), **ignored_options):
        self.actual, self.expected, self.path = actual, expected, path

    def _complain(self, exc_type, text):
        raise _Mismatch(exc_type, text, path=self.path)

    def __repr__(self):
        return f"{self.__class__.__name__}(path={self.path}, actual={self.actual}, expected={self.expected})"


class _NoneChecker(_Checker):
    def __init__(self, actual, expected, **options):
        if actual is not None and expected is not None:
            raise _Declined
        super().__init__(actual, expected, **options)

    def check(self):
        both_none = self.actual is None and self.expected is None
        if not both_none:
            self._complain(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


_BOOL_CLASSES = (bool,) if _np is None else (bool, _np.bool_)


class _BoolChecker(_Checker):
    def __init__(self, actual, expected, **options):
        if not all(isinstance(side, _BOOL_CLASSES) for side in (actual, expected)):
            raise _Declined
        super().__init__(bool(actual), bool(expected), **options)

    def check(self):
        if self.actual != self.expected:
            self._complain(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


_NUMBER_CLASSES = (int, float, complex) if _np is None else (int, float, complex, _np.number)
# The dtype whose default tolerances apply to a Python number of each type.
_NUMBER_DTYPE = {int: ember.int64, float: ember.float64, complex: getattr(ember, "complex128", ember.float64)}


def _plain_number(value):
    return value.item() if _np is not None and isinstance(value, _np.number) else value


class _NumberChecker(_Checker):
    def __init__(self, actual, expected, *, rtol=None, atol=None, equal_nan=False, check_dtype=False,
                 **options):
        sides = (actual, expected)
        if not all(isinstance(side, _NUMBER_CLASSES) for side in sides):
            raise _Declined
        # A bool paired with a number is not a number pair: it ends as a TypeError.
        if any(isinstance(side, bool) for side in sides):
            raise _Declined
        actual, expected = _plain_number(actual), _plain_number(expected)
        super().__init__(actual, expected, **options)
        reference_dtypes = [_NUMBER_DTYPE[type(actual)], _NUMBER_DTYPE[type(expected)]]
        self.rtol, self.atol = _resolve_tolerances(*reference_dtypes, rtol=rtol, atol=atol, path=self.path)
        self.equal_nan = equal_nan
        self.check_dtype = check_dtype

    def _within_tolerance(self):
        if self.actual == self.expected:
            return True
        if cmath.isnan(self.actual) and cmath.isnan(self.expected):
            return self.equal_nan
        gap = abs(self.actual - self.expected)
        # An infinite gap (inf vs a finite value, or inf vs -inf) never passes.
        return cmath.isfinite(gap) and gap <= self.atol + self.rtol * abs(self.expected)

    def check(self):
        actual_type, expected_type = type(self.actual), type(self.expected)
        if self.check_dtype and actual_type is not expected_type:
            self._complain(AssertionError, f"The (d)types do not match: {actual_type} != {expected_type}.")
        if not self._within_tolerance():
            self._complain(AssertionError,
                           _report_scalars(self.actual, self.expected, rtol=self.rtol, atol=self.atol))


def _as_ember_tensor(tensor_like):
    if isinstance(tensor_like, ember.Tensor):
        return tensor_like
    try:
        return ember.as_tensor(tensor_like)
    except Exception:
        raise _Declined from None


class _TensorChecker(_Checker):
    def __init__(self, actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, **options):
        same_family = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not same_family:
            raise _Declined
        if not allow_subclasses and type(actual) is not type(expected):
            raise _Declined
        actual, expected = _as_ember_tensor(actual), _as_ember_tensor(expected)
        super().__init__(actual, expected, **options)
        self.rtol, self.atol = _resolve_tolerances(actual, expected, rtol=rtol, atol=atol, path=self.path)
        self.equal_nan = equal_nan
        self.flags = {"device": check_device, "dtype": check_dtype, "layout": check_layout,
                      "stride": check_stride}

    def check(self):
        self._check_metadata()
        if "meta" in (self.actual.device.type, self.expected.device.type):
            return  # meta tensors have no values to compare
        a, e = self._common_form()
        self._check_values(a, e)

    def _attribute_differs(self, name, got, wanted):
        self._complain(AssertionError, f"The values for attribute '{name}' do not match: {got} != {wanted}.")

    def _check_metadata(self):
        a, e = self.actual, self.expected
        if a.shape != e.shape:
            self._attribute_differs("shape", a.shape, e.shape)
        same_layout = a.layout == e.layout
        if not same_layout and self.flags["layout"]:
            self._attribute_differs("layout", a.layout, e.layout)
        # Strides only mean something for two strided tensors.
        if same_layout and self.flags["stride"] and a.layout == ember.strided:
            if a.stride() != e.stride():
                self._attribute_differs("stride()", a.stride(), e.stride())
        if self.flags["device"] and a.device != e.device:
            self._attribute_differs("device", a.device, e.device)
        if self.flags["dtype"] and a.dtype != e.dtype:
            self._attribute_differs("dtype", a.dtype, e.dtype)

    def _common_form(self):
        """Both inputs on one device (the CPU when they differ), in one dtype (the
        promoted one), strided and detached, ready for an elementwise comparison."""
        a, e = self.actual, self.expected
        if a.device != e.device:
            a, e = a.cpu(), e.cpu()
        if a.dtype != e.dtype:
            common = ember.promote_types(a.dtype, e.dtype)
            a, e = a.to(common), e.to(common)
        if a.layout != ember.strided:
            a = a.to_dense()
        if e.layout != ember.strided:
            e = e.to_dense()
        return a.detach(), e.detach()

    def _check_values(self, a, e):
        close = ember.isclose(a, e, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)
        if bool(ember.all(close)):
            return
        if a.dim() == 0:
            report = _report_scalars(a.item(), e.item(), rtol=self.rtol, atol=self.atol)
        else:
            report = _report_tensors(a, e, close, rtol=self.rtol, atol=self.atol)
        self._complain(AssertionError, report)


# Tried in this order; the first whose constructor accepts the inputs compares them.
_CHECKERS = (_NoneChecker, _BoolChecker, _NumberChecker, _TensorChecker)


def _is_sequence(value):
    return isinstance(value, collections.abc.Sequence) and not isinstance(value, str)


def _key_order(keys):
    try:
        return sorted(keys)
    except Exception:
        return list(keys)  # keys of mixed types: keep the mapping's own order


def _collect_checkers(actual, expected, path, options, into):
    """Descend both inputs together, appending one checker per leaf to `into`."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError,
                            f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path=path)
        for position, (a_item, e_item) in enumerate(zip(actual, expected)):
            _collect_checkers(a_item, e_item, path + (position,), options, into)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        a_keys, e_keys = set(actual), set(expected)
        if a_keys != e_keys:
            missing, extra = sorted(e_keys - a_keys), sorted(a_keys - e_keys)
            raise _Mismatch(AssertionError,
                            "The keys of the mappings do not match:\n"
                            f"Missing keys in the actual mapping: {missing}\n"
                            f"Additional keys in the actual mapping: {extra}", path=path)
        for key in _key_order(a_keys):
            _collect_checkers(actual[key], expected[key], path + (key,), options, into)
        return
    for checker_class in _CHECKERS:
        try:
            checker = checker_class(actual, expected, path=path, **options)
        except _Declined:
            continue
        into.append(checker)
        return
    raise _Mismatch(TypeError,
                    f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.",
                    path=path)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Assert that `actual` and `expected` are close: |actual - expected| <= atol + rtol * |expected|
    elementwise, with torch's default (rtol, atol) per dtype when neither is given
    (float16 (1e-3, 1e-5), bfloat16 (1.6e-2, 1e-5), float32 (1.3e-6, 1e-5),
    float64 (1e-7, 1e-7), integers and bool exact). Shapes must match, and devices,
    dtypes and layouts unless the check_* flags are off. `msg` replaces the message, or
    (a callable) rewrites it."""
    __tracebackhide__ = True
    options = {"allow_subclasses": allow_subclasses, "rtol": rtol, "atol": atol, "equal_nan": equal_nan,
               "check_device": check_device, "check_dtype": check_dtype, "check_layout": check_layout,
               "check_stride": check_stride}
    try:
        checkers = []
        _collect_checkers(actual, expected, (), options, checkers)
        for checker in checkers:
            checker.check()
    except _Mismatch as problem:
        raise problem.as_exception(msg) from None


# assert_allclose's own (looser) defaults.
_ASSERT_ALLCLOSE_TOLERANCES = {ember.float16: (1e-3, 1e-3), ember.float32: (1e-4, 1e-5),
                               ember.float64: (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated (as in torch): use assert_close. Compares with looser tolerances, NaN == NaN,
    and no dtype check."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    actual = actual if isinstance(actual, ember.Tensor) else ember.tensor(actual)
    if not isinstance(expected, ember.Tensor):
        expected = ember.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _loosest_tolerances(actual, expected, table=_ASSERT_ALLCLOSE_TOLERANCES)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
