// The reductions of the scatter kernels (CPU lib/cpu/index_dim.cpp, CUDA
// lib/cuda/index/scatter.cu): their names, and the identity scatter_reduce_ writes
// first when include_self is false.
#pragma once
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "ember/scalar.h"
#include "kernels/dtype_dispatch.h"

namespace ember {

enum class ScatterReduce { None, Add, Multiply, Max, Min };

// scatter_'s names ("add", "multiply") and scatter_reduce_'s ("sum", "prod", "amax", "amin").
inline ScatterReduce parse_scatter_reduce(const std::string& s) {
  if (s == "add" || s == "sum") return ScatterReduce::Add;
  if (s == "multiply" || s == "prod") return ScatterReduce::Multiply;
  if (s == "amax") return ScatterReduce::Max;
  if (s == "amin") return ScatterReduce::Min;
  return ScatterReduce::None;
}

// What a reduction starts from: 0, 1, the dtype's lowest (amax) or highest (amin) value.
inline Scalar scatter_reduce_identity(ScatterReduce reduce, DType dtype, const char* op) {
  if (reduce == ScatterReduce::Add) return Scalar(0);
  if (reduce == ScatterReduce::Multiply) return Scalar(1);
  const bool max = reduce == ScatterReduce::Max;
  if (is_floating(dtype)) {
    const double inf = std::numeric_limits<double>::infinity();
    return Scalar(max ? -inf : inf);
  }
  if (dtype == kBool) return Scalar(!max);
  Scalar out;
  EMBER_DISPATCH_ALL(dtype, op, [&] {
    if constexpr (std::is_integral_v<scalar_t>) {
      using limits = std::numeric_limits<scalar_t>;
      out = Scalar(static_cast<int64_t>(max ? limits::lowest() : limits::max()));
    }
  });
  return out;
}

}  // namespace ember
