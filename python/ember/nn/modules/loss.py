"""Loss modules: each holds its options (and weight buffers) and calls the F loss."""
import warnings

from .. import functional as F
from .module import Module

__all__ = ["L1Loss", "MSELoss", "SmoothL1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss",
           "BCEWithLogitsLoss"]


def _legacy_reduction(size_average, reduce):
    """The reduction string for torch's deprecated size_average/reduce flags, with torch's
    deprecation warning (_Reduction.legacy_get_string)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        ret = "mean"
    else:
        ret = "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' "
                  "instead.")
    return ret


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = _legacy_reduction(size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """L1Loss(reduction='mean'): |input - target|."""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """MSELoss(reduction='mean'): (input - target)^2."""

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """SmoothL1Loss(reduction='mean', beta=1.0): quadratic below beta, linear above."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class NLLLoss(_WeightedLoss):
    """NLLLoss(weight=None, ignore_index=-100, reduction='mean') on log-probabilities."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0) on logits, with class-index or probability targets."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """BCELoss(weight=None, reduction='mean') on probabilities."""

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """BCEWithLogitsLoss(weight=None, reduction='mean', pos_weight=None) on logits."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


# PyTorch's torch.nn.modules.loss holds every loss; ember keeps some in loss_extra.py,
# re-exported here so that programs importing from this path find them.
from .loss_extra import *  # noqa: E402,F401,F403
from .loss_extra import __all__ as _extra_all  # noqa: E402

__all__ = __all__ + list(_extra_all)

# and CTCLoss, MultiLabelMarginLoss, TripletMarginWithDistanceLoss (loss_extra2.py)
from .loss_extra2 import *  # noqa: E402,F401,F403
from .loss_extra2 import __all__ as _extra2_all  # noqa: E402

__all__ = __all__ + list(_extra2_all)
