"""ember.nn: neural-network building blocks. For now only the functional API
(ember.nn.functional, torch.nn.functional's names); Module comes later."""
from . import functional

__all__ = ["functional"]
