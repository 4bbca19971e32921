"""ember.amp: torch.amp's gradient scaler (loss scaling for float16 training).

Autocast (running chosen ops in a lower precision inside a context) is not here: it
needs a dispatcher layer that casts op inputs, which ember does not have yet.
"""
from .grad_scaler import GradScaler, OptState  # noqa: F401
