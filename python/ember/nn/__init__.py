"""ember.nn: neural-network building blocks with torch.nn's API.

Module, Parameter, the containers, layers and losses are pure Python over
ember's C++ ops (ember.nn.functional); ember.nn.init fills weights and
ember.nn.utils clips gradients.
"""
from . import attention, functional, init, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["functional", "init", "utils", "Parameter", "Buffer", "UninitializedParameter",
           "UninitializedBuffer", *_modules_all]

from . import parallel  # noqa: E402,F401  (torch.nn.parallel: one-device DataParallel)
from . import grad  # noqa: E402,F401  (torch.nn.grad: conv*_input / conv*_weight)
from .parallel import DataParallel  # noqa: E402,F401
