"""ember.storage: torch.storage's classes (ember's own, from ember._storage)."""
from ._storage import StorageBase as _StorageBase  # noqa: F401
from ._storage import TypedStorage, UntypedStorage  # noqa: F401
from .types import Storage  # noqa: F401

__all__ = ["TypedStorage", "UntypedStorage"]
