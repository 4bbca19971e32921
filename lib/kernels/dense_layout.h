// Whether a tensor's elements are each stored once and without gaps, in any order of
// its dims (contiguous, or transposed / permuted): the layout PyTorch calls "non-
// overlapping and dense". The CPU copy kernel copies two such tensors laid out alike
// in one flat pass; autograd gives .grad a dense leaf's strides.
#pragma once
#include <algorithm>
#include <utility>

#include "ember/small_vector.h"
#include "ember/tensor.h"

namespace ember {

inline bool dense_and_non_overlapping(const Tensor& t) {
  if (t.is_contiguous()) return true;
  SmallVector<std::pair<int64_t, int64_t>, 8> dims;  // (stride, size) of the dims of size > 1
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) != 1) dims.push_back({t.stride(d), t.size(d)});
  std::sort(dims.begin(), dims.end());
  int64_t expected = 1;
  for (const auto& [stride, size] : dims) {
    if (size == 0) return true;
    if (stride != expected) return false;
    expected *= size;
  }
  return true;
}

}  // namespace ember
