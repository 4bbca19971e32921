"""ember.amp (torch.amp): autocast (ops in a lower precision inside a region; the policy
of each op is a field of its op schema row, docs/amp.md) and the gradient scaler (loss
scaling for float16 training)."""
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler, OptState  # noqa: F401
