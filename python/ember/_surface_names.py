"""Wires the torch names defined in ember's smaller modules: storages (_storage.py and
the Tensor storage methods in _tensor_storage.py), creation from buffers and files
(_creation.py), frexp, gradient, histogram(dd), the functional RNNs, the default device,
process-wide switches (_global_settings.py) and a few Tensor methods (_tensor_extras.py).
ember/__init__.py star-imports this module."""
from . import _storage, _tensor_extras, _tensor_storage
from ._C import Tensor
from ._creation import asarray, empty_permuted, from_file, frombuffer, randint_like, to_dlpack
from ._default_device import get_default_device, set_default_device
from ._frexp import frexp
from ._global_settings import (get_deterministic_debug_mode, is_warn_always_enabled,
                               set_default_tensor_type, set_deterministic_debug_mode,
                               set_warn_always)
from ._gradient import gradient
from ._histogram import histogram, histogramdd
from ._rnn_functional import gru, lstm, rnn_relu, rnn_tanh
from ._storage import StorageBase, TypedStorage, UntypedStorage, is_storage, typename
from ._tensor_extras import as_strided_scatter, get_device, is_inference, nonzero_static
from .cuda._extras import AcceleratorError

globals().update(_storage._LEGACY_CLASSES)  # FloatStorage, LongStorage, ...
# torch.Storage: the storage class of the default tensor type (set_default_tensor_type
# changes it).
Storage = _storage._LEGACY_CLASSES["FloatStorage"]

_tensor_storage.install()  # Tensor.untyped_storage, storage, set_, is_shared, share_memory_
_tensor_extras.install()  # Tensor.as_subclass, resize, new_empty_strided, ...
Tensor.frexp = frexp
Tensor.histogram = histogram

__all__ = [
    "AcceleratorError", "Storage", "StorageBase", "TypedStorage", "UntypedStorage",
    "as_strided_scatter", "asarray", "empty_permuted", "frexp", "from_file", "frombuffer",
    "get_default_device", "get_deterministic_debug_mode", "get_device", "gradient", "gru",
    "histogram", "histogramdd", "is_inference", "is_storage", "is_warn_always_enabled",
    "lstm", "nonzero_static", "randint_like", "rnn_relu", "rnn_tanh", "set_default_device",
    "set_default_tensor_type", "set_deterministic_debug_mode", "set_warn_always",
    "to_dlpack", "typename",
] + sorted(_storage._LEGACY_CLASSES)
