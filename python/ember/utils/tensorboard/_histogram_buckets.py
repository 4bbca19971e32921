"""Bucket a set of values the way TensorBoard's HistogramProto expects.

HistogramProto stores, per bucket, its *right* edge (`bucket_limit`) and its count
(`bucket`); a bucket spans (previous limit, its limit]. The writer keeps only the
span of buckets from the first non-empty one to the last non-empty one and puts one
empty bucket in front, whose limit is the left edge of the first kept bucket, so a
reader can recover every kept bucket's left edge too (this is the layout PyTorch's
writer produces).

bins="tensorflow" (the default) are TensorFlow's fixed edges: 0 and a geometric
series of ratio 1.1 from 1e-12 up to (but not past) 1e20, mirrored for negatives.
Any other `bins` (an int, a sequence of edges, or a numpy bin-rule name such as
"auto" or "fd") is handed to numpy.histogram.
"""
import numpy as np


def tensorflow_bucket_edges():
    positive = []
    edge = 1e-12
    while edge < 1e20:
        positive.append(edge)
        edge *= 1.1
    return [-e for e in reversed(positive)] + [0.0] + positive


def _merge_adjacent_buckets(counts, edges, max_bins):
    """Sum runs of `len(counts) // max_bins` neighbouring buckets (padding the last run
    with empty buckets) so no more than about max_bins remain."""
    group = len(counts) // max_bins
    padding = (-len(counts)) % group
    if padding:
        counts = np.concatenate([counts, np.zeros(padding, dtype=counts.dtype)])
    merged_counts = counts.reshape(-1, group).sum(axis=1)
    merged_edges = np.append(edges[:-1][::group], edges[-1])
    return merged_counts, merged_edges


def histogram_fields(values, bins="tensorflow", max_bins=None):
    """(min, max, num, sum, sum_squares, bucket_limits, bucket_counts) of flat float64 values."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if values.size == 0:
        raise ValueError("add_histogram: the values are empty; a histogram needs at least one value")
    if not np.all(np.isfinite(values)):
        raise ValueError("add_histogram: the values contain NaN or infinity")
    if isinstance(bins, str) and bins == "tensorflow":
        bins = tensorflow_bucket_edges()
    counts, edges = np.histogram(values, bins=bins)
    if max_bins is not None:
        if int(max_bins) < 1:
            raise ValueError(f"add_histogram: max_bins must be >= 1, got {max_bins}")
        if len(counts) > int(max_bins):
            counts, edges = _merge_adjacent_buckets(counts, edges, int(max_bins))
    nonempty = np.flatnonzero(counts)
    if nonempty.size == 0:
        raise ValueError(
            f"add_histogram: no value falls inside the bins (range [{edges[0]}, {edges[-1]}]); "
            f"values span [{values.min()}, {values.max()}]")
    first, last = int(nonempty[0]), int(nonempty[-1])
    bucket_counts = np.concatenate([[0], counts[first:last + 1]]).astype(np.float64)
    bucket_limits = np.asarray(edges[first:last + 2], dtype=np.float64)
    return (float(values.min()), float(values.max()), int(values.size), float(values.sum()),
            float(values.dot(values)), bucket_limits.tolist(), bucket_counts.tolist())
