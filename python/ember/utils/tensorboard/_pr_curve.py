"""Precision-recall curve data for TensorBoard's PR-curves plugin (add_pr_curve).

The plugin reads a float32 tensor of shape (6, num_thresholds) whose rows are, per
threshold t_i = i / (num_thresholds - 1): true positives, false positives, true
negatives, false negatives, precision and recall, counting a prediction as positive
when it lies in threshold i's bucket or above. Each prediction p falls in bucket
floor(p * (num_thresholds - 1)); predictions whose bucket is outside
0..num_thresholds-1 count for nothing. Counts are weighted by `weights` (default 1).
As in PyTorch, num_thresholds is capped at 127.
"""
import numpy as np

from . import _proto

MAX_THRESHOLDS = 127
_MINIMUM_COUNT = 1e-7
_PLUGIN_NUM_THRESHOLDS = 2  # PrCurvePluginData.num_thresholds (version 1 stays 0)


def curve_table(labels, predictions, num_thresholds, weights=None):
    """The (6, num_thresholds) float64 table: tp, fp, tn, fn, precision, recall."""
    labels = np.asarray(labels).reshape(-1).astype(np.float64)
    predictions = np.asarray(predictions, dtype=np.float64).reshape(-1)
    if labels.shape != predictions.shape:
        raise ValueError(f"SummaryWriter.add_pr_curve: labels ({labels.size} values) and "
                         f"predictions ({predictions.size} values) must have the same size")
    if np.isnan(predictions).any():
        raise ValueError("SummaryWriter.add_pr_curve: predictions contain NaN")
    weight = np.asarray(1.0 if weights is None else weights, dtype=np.float64)
    if weight.ndim:
        weight = weight.reshape(-1)
        if weight.size not in (1, predictions.size):
            raise ValueError(f"SummaryWriter.add_pr_curve: weights ({weight.size} values) must be "
                             f"a scalar or one per prediction ({predictions.size})")
    weight = np.broadcast_to(weight, predictions.shape)
    bucket = np.floor(predictions * (num_thresholds - 1))
    counted = (bucket >= 0) & (bucket <= num_thresholds - 1)
    bucket = bucket[counted].astype(np.int64)
    positive_weight = (labels * weight)[counted]
    negative_weight = ((1.0 - labels) * weight)[counted]
    tp_per_bucket = np.bincount(bucket, weights=positive_weight, minlength=num_thresholds)
    fp_per_bucket = np.bincount(bucket, weights=negative_weight, minlength=num_thresholds)
    # Threshold i counts everything in bucket i or above: reverse cumulative sums.
    tp = np.cumsum(tp_per_bucket[::-1])[::-1]
    fp = np.cumsum(fp_per_bucket[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(_MINIMUM_COUNT, tp + fp)
    recall = tp / np.maximum(_MINIMUM_COUNT, tp + fn)
    return np.stack([tp, fp, tn, fn, precision, recall])


def plugin_content(num_thresholds):
    return _proto.varint_field(_PLUGIN_NUM_THRESHOLDS, num_thresholds)
