// searchsorted's binary search, shared by the CPU and CUDA kernels
// (lib/cpu/searchsorted.cpp, lib/cuda/sort/searchsorted.cu). As PyTorch's: the left
// side finds the first boundary b with b >= v, the right side the first with b > v,
// each test written as !(...) so that NaN boundaries (sorted last) and NaN values land
// where PyTorch's search puts them (a NaN value after every boundary).
#pragma once
#include <cstdint>

#include "kernels/element_types.h"

namespace ember {

template <typename T>
EMBER_HOST_DEVICE inline int64_t sorted_position(const T* row, int64_t n, opmath_t<T> v, bool right) {
  int64_t start = 0, end = n;
  while (start < end) {
    const int64_t mid = start + ((end - start) >> 1);
    const opmath_t<T> b = static_cast<opmath_t<T>>(row[mid]);
    const bool before = right ? !(b > v) : !(b >= v);
    if (before) start = mid + 1;
    else end = mid;
  }
  return start;
}

}  // namespace ember
