"""replace_all_batch_norm_modules_ (torch.func.replace_all_batch_norm_modules_).

Batch norm that tracks running statistics updates its buffers in place from each
batch, which has no per-sample meaning under vmap; torch's remedy, kept here, is to
stop tracking them, so every BatchNorm uses the statistics of its own input.
"""
from ..nn.modules.batchnorm import _BatchNorm

__all__ = ["replace_all_batch_norm_modules_"]


def _without_running_stats(module):
    if isinstance(module, _BatchNorm) and module.track_running_stats:
        module.running_mean = None
        module.running_var = None
        module.num_batches_tracked = None
        module.track_running_stats = False


def replace_all_batch_norm_modules_(root):
    """Sets running_mean and running_var to None and track_running_stats to False for every
    BatchNorm module in root (in place); returns root."""
    _without_running_stats(root)
    for module in root.modules():
        _without_running_stats(module)
    return root
