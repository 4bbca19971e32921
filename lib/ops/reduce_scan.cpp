// Op functions along one dim: the scans cumsum and cumprod, softmax and log_softmax.
#include "dispatch/args/reduce.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"
#include "ember/ops/reduce.h"
#include "ops/reduce_args.h"

namespace ember {

namespace {

// Args: CumsumArgs or CumprodArgs.
template <typename Args>
Tensor scan(const Tensor& self, int64_t dim, std::optional<DType> dtype, const char* name) {
  int64_t d = reduce::normalize_dim(self, dim, name);
  DType out = dtype ? *dtype : is_integral(self.dtype(), true) ? kInt64 : self.dtype();
  return reduce::run(Args::op, self, Args{.dim = d, .dtype = out}.attrs());
}

// Args: SoftmaxArgs or LogSoftmaxArgs.
template <typename Args>
Tensor softmax_like(const Tensor& self, int64_t dim, std::optional<DType> dtype, const char* name) {
  int64_t d = reduce::normalize_dim(self, dim, name);
  DType t = dtype.value_or(self.dtype());
  EMBER_CHECK_AS(NotImplementedError, is_floating(t), name, ": not implemented for '",
                 scalar_type_name(t), "' (expected a floating point input or dtype)");
  return reduce::run(Args::op, self, Args{.dim = d, .dtype = t}.attrs());
}

}  // namespace

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return scan<CumsumArgs>(self, dim, dtype, "cumsum");
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return scan<CumprodArgs>(self, dim, dtype, "cumprod");
}

Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return softmax_like<SoftmaxArgs>(self, dim, dtype, "softmax");
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return softmax_like<LogSoftmaxArgs>(self, dim, dtype, "log_softmax");
}

}  // namespace ember
