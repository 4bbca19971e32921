"""ember.cpu (torch.cpu): the CPU device module. Here: its amp submodule (autocast)."""
from . import amp  # noqa: F401
