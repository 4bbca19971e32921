"""ember.signal: torch.signal (window functions in ember.signal.windows)."""
from . import windows  # noqa: F401

__all__ = ["windows"]
