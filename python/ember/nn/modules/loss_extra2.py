"""CTCLoss, MultiLabelMarginLoss and TripletMarginWithDistanceLoss: torch's options around
the F functions of the same names (re-exported by loss.py, torch.nn.modules.loss's path)."""
from .._functional_ctc import ctc_loss
from .._functional_losses_extra2 import (multilabel_margin_loss,
                                         triplet_margin_with_distance_loss)
from .distance import PairwiseDistance
from .loss import _Loss

__all__ = ["CTCLoss", "MultiLabelMarginLoss", "TripletMarginWithDistanceLoss"]


class CTCLoss(_Loss):
    """CTCLoss(blank=0, reduction='mean', zero_infinity=False): forward(log_probs, targets,
    input_lengths, target_lengths) is F.ctc_loss."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)


class MultiLabelMarginLoss(_Loss):
    """MultiLabelMarginLoss(reduction='mean'): the multi-class multi-label hinge loss."""

    def forward(self, input, target):
        return multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """TripletMarginWithDistanceLoss(*, distance_function=None, margin=1.0, swap=False,
    reduction='mean'); the default distance is a PairwiseDistance() submodule."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function = (distance_function if distance_function is not None
                                  else PairwiseDistance())
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(anchor, positive, negative,
                                                 distance_function=self.distance_function,
                                                 margin=self.margin, swap=self.swap,
                                                 reduction=self.reduction)
