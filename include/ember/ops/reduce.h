// Free functions of the reduce group: reductions over all or some dims, scans
// and softmax, with PyTorch's names, defaults and dtype rules:
//   ember::sum(x), ember::sum(x, 1), ember::sum(x, {0, 2}, /*keepdim=*/true, kFloat64)
// An empty dim list means every dim (as PyTorch's dim=None / dim=[]).
// Ints and bool sum (prod, cumsum) to int64 unless dtype is given; mean, var,
// std, norm and softmax need a floating input (or dtype); float16/bfloat16
// compute in float.
#pragma once
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "ember/tensor.h"

namespace ember {

// One dim given as an integer; a template, so that `{}` still means every dim.
template <typename I>
concept ReduceDimIndex = std::is_integral_v<I> && !std::is_same_v<I, bool>;

Tensor sum(const Tensor& self, std::optional<DType> dtype = std::nullopt);
Tensor sum(const Tensor& self, const IntList& dim, bool keepdim = false,
           std::optional<DType> dtype = std::nullopt);
template <ReduceDimIndex I>
Tensor sum(const Tensor& self, I dim, bool keepdim = false, std::optional<DType> dtype = std::nullopt) {
  return sum(self, IntList{static_cast<int64_t>(dim)}, keepdim, dtype);
}

// nan for an empty reduction.
Tensor mean(const Tensor& self, std::optional<DType> dtype = std::nullopt);
Tensor mean(const Tensor& self, const IntList& dim, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
template <ReduceDimIndex I>
Tensor mean(const Tensor& self, I dim, bool keepdim = false, std::optional<DType> dtype = std::nullopt) {
  return mean(self, IntList{static_cast<int64_t>(dim)}, keepdim, dtype);
}

Tensor prod(const Tensor& self, std::optional<DType> dtype = std::nullopt);
Tensor prod(const Tensor& self, const IntList& dim, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
template <ReduceDimIndex I>
Tensor prod(const Tensor& self, I dim, bool keepdim = false, std::optional<DType> dtype = std::nullopt) {
  return prod(self, IntList{static_cast<int64_t>(dim)}, keepdim, dtype);
}

// max(x): the largest value (NaN if any is NaN); max(x, dim): (values, indices)
// with the index of the first occurrence.
Tensor max(const Tensor& self);
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor min(const Tensor& self);
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false);

Tensor amax(const Tensor& self, const IntList& dim = {}, bool keepdim = false);
template <ReduceDimIndex I>
Tensor amax(const Tensor& self, I dim, bool keepdim = false) {
  return amax(self, IntList{static_cast<int64_t>(dim)}, keepdim);
}
Tensor amin(const Tensor& self, const IntList& dim = {}, bool keepdim = false);
template <ReduceDimIndex I>
Tensor amin(const Tensor& self, I dim, bool keepdim = false) {
  return amin(self, IntList{static_cast<int64_t>(dim)}, keepdim);
}
// (min, max) in one call.
std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt,
                                   bool keepdim = false);

// dim none: the index into the flattened tensor.
Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);

// correction = 1 is Bessel's (unbiased) estimate; 0 the population variance.
Tensor var(const Tensor& self, const IntList& dim = {}, double correction = 1, bool keepdim = false);
template <ReduceDimIndex I>
Tensor var(const Tensor& self, I dim, double correction = 1, bool keepdim = false) {
  return var(self, IntList{static_cast<int64_t>(dim)}, correction, keepdim);
}
Tensor std(const Tensor& self, const IntList& dim = {}, double correction = 1, bool keepdim = false);
template <ReduceDimIndex I>
Tensor std(const Tensor& self, I dim, double correction = 1, bool keepdim = false) {
  return std(self, IntList{static_cast<int64_t>(dim)}, correction, keepdim);
}
// (var, mean) and (std, mean) from one pass.
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, const IntList& dim = {},
                                    double correction = 1, bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, const IntList& dim = {},
                                    double correction = 1, bool keepdim = false);

// The vector p-norm (torch.linalg.vector_norm): p = 2, 1, 0 (count of nonzeros),
// +-INFINITY (max / min of |x|) or any other real p.
Tensor norm(const Tensor& self, double p = 2, const IntList& dim = {}, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
// p = "fro" is the 2-norm over dim (at most 2 dims, as in PyTorch).
Tensor norm(const Tensor& self, const std::string& p, const IntList& dim = {},
            bool keepdim = false, std::optional<DType> dtype = std::nullopt);

// log(sum(exp(x))) without overflow; ints compute in the default float dtype.
Tensor logsumexp(const Tensor& self, const IntList& dim, bool keepdim = false);
template <ReduceDimIndex I>
Tensor logsumexp(const Tensor& self, I dim, bool keepdim = false) {
  return logsumexp(self, IntList{static_cast<int64_t>(dim)}, keepdim);
}

// Whether any / every element is nonzero: bool (uint8 for a uint8 input).
Tensor any(const Tensor& self);
Tensor any(const Tensor& self, const IntList& dim, bool keepdim = false);
template <ReduceDimIndex I>
Tensor any(const Tensor& self, I dim, bool keepdim = false) {
  return any(self, IntList{static_cast<int64_t>(dim)}, keepdim);
}
Tensor all(const Tensor& self);
Tensor all(const Tensor& self, const IntList& dim, bool keepdim = false);
template <ReduceDimIndex I>
Tensor all(const Tensor& self, I dim, bool keepdim = false) {
  return all(self, IntList{static_cast<int64_t>(dim)}, keepdim);
}

// The number of nonzero elements (int64).
Tensor count_nonzero(const Tensor& self, const IntList& dim = {});
template <ReduceDimIndex I>
Tensor count_nonzero(const Tensor& self, I dim) {
  return count_nonzero(self, IntList{static_cast<int64_t>(dim)});
}

// Inclusive scans along dim.
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);

// Along dim; with dtype the input is cast to it first.
Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);

}  // namespace ember
