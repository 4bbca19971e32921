// The numerics switches of the CUDA matrix products and convolutions (ember/cuda.h):
// plain process-wide settings, kept here in core so that they exist, and can be set
// and read, in a build without CUDA too. The kernels read them at each call.
#include <algorithm>
#include <atomic>
#include <cctype>

#include "ember/cuda.h"
#include "ember/error.h"

namespace ember {

namespace {

// torch's Float32MatmulPrecision; TensorFloat-32 is allowed unless kHighest.
enum class MatmulPrecision { kHighest, kHigh, kMedium };

std::atomic<MatmulPrecision> g_matmul_precision{MatmulPrecision::kHighest};
std::atomic<bool> g_cudnn_allow_tf32{true};
std::atomic<bool> g_cudnn_benchmark{false};

}  // namespace

namespace cuda {

bool matmul_allow_tf32() { return g_matmul_precision.load() != MatmulPrecision::kHighest; }
void set_matmul_allow_tf32(bool allow) {
  g_matmul_precision = allow ? MatmulPrecision::kHigh : MatmulPrecision::kHighest;
}
bool cudnn_allow_tf32() { return g_cudnn_allow_tf32.load(); }
void set_cudnn_allow_tf32(bool allow) { g_cudnn_allow_tf32 = allow; }
bool cudnn_benchmark() { return g_cudnn_benchmark.load(); }
void set_cudnn_benchmark(bool benchmark) { g_cudnn_benchmark = benchmark; }

}  // namespace cuda

void set_float32_matmul_precision(const std::string& precision) {
  std::string p = precision;  // torch also accepts "HIGH", "Medium"...
  std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return std::tolower(c); });
  MatmulPrecision value;
  if (p == "highest") value = MatmulPrecision::kHighest;
  else if (p == "high") value = MatmulPrecision::kHigh;
  else if (p == "medium") value = MatmulPrecision::kMedium;
  else
    throw ValueError(detail::str("set_float32_matmul_precision: '", precision,
                                 "' is not one of 'highest', 'high' or 'medium'"));
  g_matmul_precision = value;
}

std::string get_float32_matmul_precision() {
  switch (g_matmul_precision.load()) {
    case MatmulPrecision::kHighest: return "highest";
    case MatmulPrecision::kHigh: return "high";
    case MatmulPrecision::kMedium: return "medium";
  }
  return "highest";
}

}  // namespace ember
