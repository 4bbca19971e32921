"""ember.signal.windows: torch.signal.windows' window functions."""
from .windows import (bartlett, blackman, cosine, exponential, gaussian, general_cosine,  # noqa: F401
                      general_hamming, hamming, hann, kaiser, nuttall)

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]
