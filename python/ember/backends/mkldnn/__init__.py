"""ember.backends.mkldnn: oneDNN (formerly MKL-DNN), as torch.backends.mkldnn.

ember opens oneDNN at run time for its CPU convolutions (lib/cpu/onednn_conv.cpp).
- is_available(): whether oneDNN could be loaded (False in a build without that backend).
- enabled (default True): False makes every CPU convolution take ember's im2col+GEMM
  path instead of oneDNN (the conv backend "im2col"); True gives the choice back to the
  automatic rule. As in torch, the flag can be set when oneDNN is unavailable, where it
  changes nothing.
"""
import sys
import types

from ... import _C

# The switch between the CPU convolution backends (csrc/conv_backend.cpp).
_HAS_CONV_BACKENDS = all(hasattr(_C, name) for name in
                         ("_onednn_conv_available", "_get_conv_backend", "_set_conv_backend"))


def is_available():
    """Whether ember can use oneDNN on this machine (its library was found)."""
    return _HAS_CONV_BACKENDS and bool(_C._onednn_conv_available())


class _MkldnnModule(types.ModuleType):
    _enabled_without_backends = True

    @property
    def enabled(self):
        if not _HAS_CONV_BACKENDS:
            return self._enabled_without_backends
        return _C._get_conv_backend() != "im2col"

    @enabled.setter
    def enabled(self, value):
        from .. import _check_bool
        _check_bool(value, "set_mkldnn_enabled")
        if not _HAS_CONV_BACKENDS:
            type(self)._enabled_without_backends = value
        elif not value:
            _C._set_conv_backend("im2col")
        elif _C._get_conv_backend() == "im2col":
            _C._set_conv_backend("auto")


sys.modules[__name__].__class__ = _MkldnnModule
