"""ember.functional: torch.functional's functions (the same objects as ember's top-level ones).

torch.functional also has stft, istft, pca_lowrank and svd_lowrank; ember has none of
them yet, so they are absent here too.
"""
from . import (atleast_1d, atleast_2d, atleast_3d, block_diag, broadcast_shapes,  # noqa: F401
               broadcast_tensors, cartesian_prod, cdist, chain_matmul, einsum, lu, meshgrid, norm,
               split, tensordot, unique, unique_consecutive, unravel_index)

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "lu", "norm", "meshgrid",
           "split", "tensordot", "unique", "unique_consecutive", "unravel_index"]
