"""CrossMapLRN2d: torch's legacy cross-channel local response normalization of 4-D inputs
(re-exported by normalization.py, torch.nn.modules.normalization's path)."""
from .._functional_cross_map_lrn import cross_map_lrn2d
from .module import Module

__all__ = ["CrossMapLRN2d"]


class CrossMapLRN2d(Module):
    """CrossMapLRN2d(size, alpha=1e-4, beta=0.75, k=1): x / (k + alpha / size * sum of
    squares over nearby channels) ** beta, with PyTorch's values and gradients."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return cross_map_lrn2d(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
