#include "autograd/strided_geometry.h"

#include <algorithm>
#include <vector>

namespace ember::autograd {

int64_t storage_extent(const DimVector& sizes, const DimVector& strides, int64_t offset) {
  int64_t last = offset;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return offset;
    last += (sizes[d] - 1) * strides[d];
  }
  return last + 1;
}

bool maybe_overlapping_memory(const DimVector& sizes, const DimVector& strides) {
  std::vector<size_t> order;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] > 1) order.push_back(d);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return strides[a] < strides[b]; });
  int64_t reach = 0;  // the largest offset the dims seen so far reach
  for (size_t d : order) {
    if (strides[d] <= reach) return true;
    reach += strides[d] * (sizes[d] - 1);
  }
  return false;
}

}  // namespace ember::autograd
