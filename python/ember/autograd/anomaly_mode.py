"""Anomaly detection for autograd (torch.autograd.detect_anomaly / set_detect_anomaly).

While it is on, each backward node remembers the Python stack of its forward call;
an error raised in a node's backward is preceded by a UserWarning that names the node
and shows that stack, and (with check_nan) a node whose backward returns NaN raises
RuntimeError "Function 'XBackward0' returned nan values in its 0th output.". The
switch is process-wide, as PyTorch's is (the C++ side: ember/anomaly_mode.h).
"""
import functools
import warnings

from .. import _C

is_anomaly_enabled = _C._is_anomaly_enabled
is_anomaly_check_nan_enabled = _C._is_anomaly_check_nan_enabled


def set_anomaly_enabled(enabled, check_nan=True):
    """Turns anomaly mode on or off for the whole process (torch.set_anomaly_enabled)."""
    _C._set_anomaly_enabled(bool(enabled), bool(check_nan))


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on inside it.

    It slows everything down (a stack per recorded op, a NaN scan of every
    gradient): use it to find where a NaN or an error in backward comes from."""

    def __init__(self, check_nan=True):
        self.check_nan = bool(check_nan)
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self._prev = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        _C._set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc):
        _C._set_anomaly_enabled(*self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """set_detect_anomaly(mode, check_nan=True): sets anomaly mode now; used as a
    context manager, it restores the previous mode on exit."""

    def __init__(self, mode, check_nan=True):
        self._prev = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        _C._set_anomaly_enabled(bool(mode), bool(check_nan))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C._set_anomaly_enabled(*self._prev)
        return False
