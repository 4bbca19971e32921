// Tensor methods of the reduce group: each forwards to the free function.
#include "ember/ops/reduce.h"

namespace ember {

using OptDType = std::optional<DType>;

Tensor Tensor::sum(OptDType dt) const { return ember::sum(*this, dt); }
Tensor Tensor::sum(const IntList& d, bool k, OptDType dt) const { return ember::sum(*this, d, k, dt); }
Tensor Tensor::mean(OptDType dt) const { return ember::mean(*this, dt); }
Tensor Tensor::mean(const IntList& d, bool k, OptDType dt) const { return ember::mean(*this, d, k, dt); }
Tensor Tensor::prod(OptDType dt) const { return ember::prod(*this, dt); }
Tensor Tensor::prod(const IntList& d, bool k, OptDType dt) const { return ember::prod(*this, d, k, dt); }
Tensor Tensor::max() const { return ember::max(*this); }
std::tuple<Tensor, Tensor> Tensor::max(int64_t d, bool k) const { return ember::max(*this, d, k); }
Tensor Tensor::min() const { return ember::min(*this); }
std::tuple<Tensor, Tensor> Tensor::min(int64_t d, bool k) const { return ember::min(*this, d, k); }
Tensor Tensor::amax(const IntList& d, bool k) const { return ember::amax(*this, d, k); }
Tensor Tensor::amin(const IntList& d, bool k) const { return ember::amin(*this, d, k); }
std::tuple<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> d, bool k) const {
  return ember::aminmax(*this, d, k);
}
Tensor Tensor::argmax(std::optional<int64_t> d, bool k) const { return ember::argmax(*this, d, k); }
Tensor Tensor::argmin(std::optional<int64_t> d, bool k) const { return ember::argmin(*this, d, k); }
Tensor Tensor::var(const IntList& d, double c, bool k) const { return ember::var(*this, d, c, k); }
Tensor Tensor::std(const IntList& d, double c, bool k) const { return ember::std(*this, d, c, k); }
Tensor Tensor::norm(double p, const IntList& d, bool k, OptDType dt) const {
  return ember::norm(*this, p, d, k, dt);
}
Tensor Tensor::norm(const std::string& p, const IntList& d, bool k, OptDType dt) const {
  return ember::norm(*this, p, d, k, dt);
}
Tensor Tensor::logsumexp(const IntList& d, bool k) const { return ember::logsumexp(*this, d, k); }
Tensor Tensor::any() const { return ember::any(*this); }
Tensor Tensor::any(const IntList& d, bool k) const { return ember::any(*this, d, k); }
Tensor Tensor::all() const { return ember::all(*this); }
Tensor Tensor::all(const IntList& d, bool k) const { return ember::all(*this, d, k); }
Tensor Tensor::count_nonzero(const IntList& d) const { return ember::count_nonzero(*this, d); }
Tensor Tensor::cumsum(int64_t d, OptDType dt) const { return ember::cumsum(*this, d, dt); }
Tensor Tensor::cumprod(int64_t d, OptDType dt) const { return ember::cumprod(*this, d, dt); }
Tensor Tensor::softmax(int64_t d, OptDType dt) const { return ember::softmax(*this, d, dt); }
Tensor Tensor::log_softmax(int64_t d, OptDType dt) const { return ember::log_softmax(*this, d, dt); }

}  // namespace ember
