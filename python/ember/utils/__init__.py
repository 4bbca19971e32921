"""ember.utils: ember.utils.data (datasets and DataLoader)."""
from . import data  # noqa: F401
