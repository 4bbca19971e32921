// The host side of sort and topk, shared by every device (lib/cpu/sort.cpp):
// the outputs' shapes and dtypes, a 0-dim self sorted as a 1-element 1-d
// tensor; a device supplies how the slices are ordered.
#pragma once
#include "dispatch/dispatcher.h"

namespace ember {

// Writes the first `keep` elements of each slice of self along dim, in order
// (descending: largest first; Note [NaN order]; ties: lower index first), and
// their indices, into values and indices (fresh, >= 1-d, self's shape with keep
// along dim).
using SortSlicesFn = void (*)(const Tensor& values, const Tensor& indices, const Tensor& self,
                              int64_t dim, int64_t keep, bool descending);

// sort (topk = false: attrs dim, descending) or topk (attrs k, dim, largest).
void sort_or_topk(OpCall& c, bool topk, SortSlicesFn slices);

}  // namespace ember
