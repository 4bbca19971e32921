"""ember.nn.functional: torch.nn.functional's API over ember's C++ ops.

Every function is the ember._C op of the same name (same arguments and
defaults as PyTorch); nothing is computed in Python. Ops that other groups
provide (activations, softmax, linear, convolutions, pooling) are re-exported
by name when the extension has them, with thin wrappers only where
torch.nn.functional's signature differs from the op's.
"""
from .. import _C
from .._C import interpolate as _C_interpolate

# The nn group's ops: always present.
from .._C import (  # noqa: F401
    batch_norm,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    dropout,
    embedding,
    group_norm,
    huber_loss,
    l1_loss,
    layer_norm,
    mse_loss,
    nll_loss,
    one_hot,
    pad,
    smooth_l1_loss,
)

__all__ = [
    "batch_norm", "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy",
    "dropout", "embedding", "group_norm", "huber_loss", "interpolate", "l1_loss", "layer_norm",
    "mse_loss", "nll_loss", "one_hot", "pad", "smooth_l1_loss",
]

# Attention (lib/ops/attention.cpp).
from .._C import multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401,E402

__all__ += ["multi_head_attention_forward", "scaled_dot_product_attention"]

# Ops of other groups whose _C signature already is torch.nn.functional's.
_REEXPORTED = [
    "gelu", "silu", "sigmoid", "tanh", "softplus", "leaky_relu", "elu", "selu", "celu", "mish",
    "hardtanh", "relu6", "hardsigmoid", "hardswish", "logsigmoid", "softsign", "tanhshrink",
    "softmax", "log_softmax", "softmin", "normalize", "cosine_similarity", "pairwise_distance",
    "linear", "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
    "adaptive_avg_pool2d", "adaptive_max_pool2d", "max_pool2d_with_indices", "unfold", "fold",
    "pixel_shuffle", "pixel_unshuffle", "kl_div", "poisson_nll_loss", "cosine_embedding_loss",
    "margin_ranking_loss", "triplet_margin_loss", "soft_margin_loss", "gaussian_nll_loss",
]
for _name in _REEXPORTED:
    if hasattr(_C, _name):
        globals()[_name] = getattr(_C, _name)
        __all__.append(_name)


del _name


# Activations with torch.nn.functional's inplace= flags (they replace the bare ops above).
from . import _activation_functional  # noqa: E402
from ._activation_functional import *  # noqa: F401,F403,E402

__all__ += [_n for _n in _activation_functional.__all__ if _n not in __all__]


def _bilinear(input1, input2, weight, bias=None):
    """torch.nn.functional.bilinear: y[..., k] = input1 @ weight[k] @ input2 + bias[k].

    A composite of matmuls (so autograd, devices and tracing come for free): x1
    times weight laid out as (in1, out * in2), then each row contracted with x2.
    """
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} "
                           f"and {input2.dim()}")
    if tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got "
                           f"{list(input1.shape)} and {list(input2.shape)}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-D, got {weight.dim()}-D")
    out, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {in1}")
    if input2.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {in2}")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0] if bias.dim() else 1} but expected {out}")
    batch = tuple(input1.shape[:-1])
    n = 1
    for s in batch:
        n *= s
    x1 = input1.reshape(n, in1)
    x2 = input2.reshape(n, in2)
    t = x1.matmul(weight.permute(1, 0, 2).reshape(in1, out * in2)).reshape(n, out, in2)
    y = t.matmul(x2.reshape(n, in2, 1)).reshape(n, out)
    if bias is not None:
        y = y + bias
    return y.reshape(*batch, out)


# Until the C++ extension provides bilinear as an op, the composite above is F.bilinear.
if not hasattr(_C, "bilinear"):
    bilinear = _bilinear
    bilinear.__name__ = bilinear.__qualname__ = "bilinear"
    __all__.append("bilinear")


# Composites of ember ops (ember::nn::functional, csrc/nn_extra.cpp): losses, distances,
# channel / alpha dropout, shuffles, instance / RMS / local-response norms, fold / unfold
# and the 1-d, adaptive-max and LP pooling.
from .._C import _nn  # noqa: E402

for _name in [
    "kl_div", "soft_margin_loss", "cosine_embedding_loss", "margin_ranking_loss",
    "hinge_embedding_loss", "poisson_nll_loss", "gaussian_nll_loss", "triplet_margin_loss",
    "multilabel_soft_margin_loss", "multi_margin_loss", "normalize", "cosine_similarity",
    "pairwise_distance", "pdist", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
    "feature_alpha_dropout", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
    "instance_norm", "local_response_norm", "rms_norm", "unfold", "fold", "max_pool1d",
    "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "lp_pool1d", "lp_pool2d",
]:
    globals()[_name] = getattr(_nn, _name)
    if _name not in __all__:
        __all__.append(_name)
del _name



def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    """F.adaptive_max_pool1d(..., return_indices=True)."""
    return _nn.adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    """F.adaptive_max_pool2d(..., return_indices=True)."""
    return _nn.adaptive_max_pool2d(input, output_size, True)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None, antialias=False):
    """torch.nn.functional.interpolate: the resampling kernels in C++; antialias=True
    (bilinear, bicubic, lanczos on 4-d input) in _functional_antialias.py."""
    if antialias:
        from ._functional_antialias import interpolate_antialias
        return interpolate_antialias(input, size, scale_factor, mode, align_corners,
                                     recompute_scale_factor)
    if mode == "lanczos":
        raise ValueError("Lanczos mode requires antialias=True")
    return _C_interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of F.interpolate (warns, as torch)."""
    import warnings
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: F.interpolate(..., mode='nearest')."""
    import warnings
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: F.interpolate(..., mode='bilinear', align_corners=True)."""
    import warnings
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


__all__ += ["adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "upsample",
            "upsample_nearest", "upsample_bilinear"]


# 3-d convolutions and pools, the transposed 1-d convolution, max-unpooling and fractional
# max pooling: Python composites of the ops above (_functional_*.py), each F.<name> unless
# the extension provides the op itself.
from . import (_functional_conv3d, _functional_fractional, _functional_pool3d,  # noqa: E402
               _functional_unpool)

for _module in (_functional_conv3d, _functional_pool3d, _functional_unpool,
                _functional_fractional):
    for _name in _module.__all__:
        if not hasattr(_C, _name):
            globals()[_name] = getattr(_module, _name)
        if _name not in __all__:
            __all__.append(_name)
del _module, _name


# embedding_bag, ctc_loss, affine_grid / grid_sample, gumbel_softmax, conv_tbc and the
# multilabel-margin and triplet-with-distance losses: Python composites of ember ops
# (_functional_*.py).
from . import (_functional_conv_tbc, _functional_ctc, _functional_embedding_bag,  # noqa: E402
               _functional_grid, _functional_gumbel, _functional_losses_extra2)

for _module in (_functional_embedding_bag, _functional_ctc, _functional_grid,
                _functional_gumbel, _functional_losses_extra2, _functional_conv_tbc):
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
        if _name not in __all__:
            __all__.append(_name)
del _module, _name


# F.embedding with max_norm: as torch, the rows of weight that input names are first
# rescaled in place (without recording a gradient) to norm at most max_norm, then looked up.
_embedding_lookup = embedding


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    # torch.nn.functional.embedding asserts padding_idx's range itself (AssertionError).
    if padding_idx is not None and not -weight.size(0) <= padding_idx < weight.size(0):
        raise AssertionError(f"Padding_idx must be within num_embeddings: padding_idx {padding_idx}, "
                             f"num_embeddings {weight.size(0)}")
    if max_norm is not None:
        from ..autograd.grad_mode import no_grad
        with no_grad():
            _functional_embedding_bag.embedding_renorm_(weight, input.contiguous(), max_norm,
                                                        norm_type)
    return _embedding_lookup(input, weight, padding_idx, None, norm_type, scale_grad_by_freq,
                             sparse)


embedding.__doc__ = _embedding_lookup.__doc__
