"""torch.<name> spellings of functions that ember otherwise has only in ember.nn.functional.

PyTorch exposes these ATen ops in the torch namespace with their native positional
signatures, which differ from torch.nn.functional's for several of them: losses take the
reduction as an integer (0 'none', 1 'mean', 2 'sum'; any other value leaves the loss
unreduced, as ATen), poisson_nll_loss and instance_norm take every argument, torch.kl_div
puts reduction before log_target, torch.embedding_bag takes weight first and returns
(output, offset2bag, bag_size, max_indices), and grid_sampler takes integer mode codes.
Each one here forwards to the ember.nn.functional implementation.
"""
from .nn import _functional_conv_tbc, _functional_ctc, _functional_embedding_bag, _functional_grid
from .nn import functional as _F

__all__ = [
    "avg_pool1d", "max_pool1d", "max_pool1d_with_indices", "adaptive_avg_pool1d",
    "adaptive_max_pool1d", "bilinear", "constant_pad_nd", "convolution", "conv_tbc",
    "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
    "triplet_margin_loss", "kl_div", "poisson_nll_loss", "instance_norm", "rms_norm",
    "embedding_renorm_", "ctc_loss", "embedding_bag", "grid_sampler", "grid_sampler_2d",
    "grid_sampler_3d", "affine_grid_generator", "conv3d", "conv_transpose1d",
    "conv_transpose3d", "max_pool3d",
]

_REDUCTION_NAMES = {0: "none", 1: "mean", 2: "sum"}


def _reduction(value):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"argument 'reduction' must be int, not {type(value).__name__}")
    return _REDUCTION_NAMES.get(value, "none")


def _stride(stride):
    """ATen's stride=[] (the kernel size) as ember's None."""
    if stride is None:
        return None
    if not isinstance(stride, int) and len(stride) == 0:
        return None
    return stride


# pooling -------------------------------------------------------------------------------


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """torch.avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True)."""
    return _F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode,
                         count_include_pad)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool1d(input, kernel_size, stride=[], padding=0, dilation=1,
    ceil_mode=False)."""
    return _F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """torch.max_pool1d_with_indices: (values, indices)."""
    return _F.max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation,
                                      ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool3d(input, kernel_size, stride=[], padding=0, dilation=1,
    ceil_mode=False): F.max_pool3d."""
    return _F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def adaptive_avg_pool1d(input, output_size):
    """torch.adaptive_avg_pool1d(input, output_size)."""
    return _F.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):
    """torch.adaptive_max_pool1d(input, output_size): always (values, indices)."""
    return _F.adaptive_max_pool1d(input, output_size, True)


# linear, padding, convolution ------------------------------------------------------------


def bilinear(input1, input2, weight, bias=None):
    """torch.bilinear(input1, input2, weight, bias=None)."""
    return _F.bilinear(input1, input2, weight, bias)


def constant_pad_nd(input, pad, value=0):
    """torch.constant_pad_nd(input, pad, value=0): pads (or, for negative amounts, crops)
    the last len(pad) // 2 dimensions, last dimension first."""
    pad = [int(p) for p in pad]
    if len(pad) % 2 != 0:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Length of pad should be no more than twice the number of dimensions "
                           f"of the input. Pad length is {len(pad)}while the input has "
                           f"{input.dim()}dimensions.")
    out = input
    grow = []
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        start = -before if before < 0 else 0
        stop_cut = -after if after < 0 else 0
        if start or stop_cut:
            length = out.shape[dim] - start - stop_cut
            if length < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
            out = out.narrow(dim, start, length)
        grow += [max(before, 0), max(after, 0)]
    if any(grow):
        out = _F.pad(out, grow, "constant", value)
    elif out is input:
        out = input.clone()
    return out


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.conv3d: F.conv3d."""
    return _F.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """torch.conv_transpose1d: F.conv_transpose1d."""
    return _F.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups,
                               dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """torch.conv_transpose3d: F.conv_transpose3d."""
    return _F.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups,
                               dilation)


def _conv_list(value, n):
    if isinstance(value, int):
        return [value] * n
    value = [int(v) for v in value]
    return value * n if len(value) == 1 else value


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """torch.convolution: the generic N-d (transposed) convolution, dispatched on the
    weight's rank to F.conv1d / conv2d / conv3d or F.conv_transpose1d / 2d / 3d."""
    n = weight.dim() - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"convolution(): weight should have 3 to 5 dimensions, but got "
                           f"{weight.dim()}")
    if input.dim() != weight.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-"
                           f"dimensional weight {list(weight.shape)}, but got {input.dim()}-"
                           f"dimensional input of size {list(input.shape)} instead")
    for name, value in (("stride", stride), ("padding", padding), ("dilation", dilation),
                        ("output_padding", output_padding)):
        if not isinstance(value, int) and len(value) not in (1, n):
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                               "values to match the convolution dimensions, but got "
                               f"{name}={list(value)}")
    stride, padding = _conv_list(stride, n), _conv_list(padding, n)
    dilation, output_padding = _conv_list(dilation, n), _conv_list(output_padding, n)
    if transposed:
        fn = getattr(_F, f"conv_transpose{n}d", None)
        if fn is None:
            raise NotImplementedError(f"convolution(): the transposed {n}-d convolution is not "
                                      "available in this build of ember")
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = getattr(_F, f"conv{n}d", None)
    if fn is None:
        raise NotImplementedError(f"convolution(): the {n}-d convolution is not available in "
                                  "this build of ember")
    return fn(input, weight, bias, stride, padding, dilation, groups)


# losses ----------------------------------------------------------------------------------


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    """torch.cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1)."""
    return _F.cosine_embedding_loss(input1, input2, target, margin,
                                    reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    """torch.hinge_embedding_loss(input, target, margin=1.0, reduction=1)."""
    return _F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    """torch.margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1)."""
    return _F.margin_ranking_loss(input1, input2, target, margin,
                                  reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                        reduction=1):
    """torch.triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6,
    swap=False, reduction=1)."""
    return _F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                  reduction=_reduction(reduction))


def kl_div(input, target, reduction=1, *, log_target=False):
    """torch.kl_div(input, target, reduction=1, *, log_target=False)."""
    return _F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """torch.poisson_nll_loss(input, target, log_input, full, eps, reduction): every
    argument required."""
    return _F.poisson_nll_loss(input, target, log_input=log_input, full=full, eps=eps,
                               reduction=_reduction(reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
             zero_infinity=False):
    """torch.ctc_loss: input_lengths and target_lengths both tensors or both int lists."""
    return _functional_ctc._ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                                     reduction if reduction in (0, 1, 2) else 0, zero_infinity)


# normalization, embeddings, sampling -----------------------------------------------------


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """torch.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
    momentum, eps, cudnn_enabled) (cudnn_enabled is ignored)."""
    return _F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                            momentum, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """torch.rms_norm(input, normalized_shape, weight=None, eps=None)."""
    return _F.rms_norm(input, normalized_shape, weight, eps)


embedding_renorm_ = _functional_embedding_bag.embedding_renorm_


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """torch.embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0,
    sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    (output, offset2bag, bag_size, max_indices); mode 0 sum, 1 mean, 2 max."""
    return _functional_embedding_bag._embedding_bag(weight, indices, offsets,
                                                    scale_grad_by_freq, mode, sparse,
                                                    per_sample_weights, include_last_offset,
                                                    padding_idx)


grid_sampler = _functional_grid.grid_sampler
grid_sampler_2d = _functional_grid.grid_sampler_2d
grid_sampler_3d = _functional_grid.grid_sampler_3d
affine_grid_generator = _functional_grid.affine_grid_generator
conv_tbc = _functional_conv_tbc.conv_tbc
