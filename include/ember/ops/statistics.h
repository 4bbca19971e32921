// Free functions of the order statistics, nan-aware reductions, closeness tests,
// searching and counting (ember::median, ember::quantile, ember::searchsorted, ...),
// with PyTorch's names, defaults and dtype rules. All are composites of other ops
// (sort, gather, scatter_add, comparisons), so they get autograd and tracing from those.
#pragma once
#include <optional>
#include <string>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

// ---- nan-aware reductions (lib/ops/reduce_nan.cpp) ---------------------------------
// NaN counts as zero; empty dim list: every dim.
Tensor nansum(const Tensor& self, const IntList& dim = {}, bool keepdim = false,
              std::optional<DType> dtype = std::nullopt);
// The mean of the non-NaN elements (NaN where there are none); floating inputs only.
Tensor nanmean(const Tensor& self, const IntList& dim = {}, bool keepdim = false,
               std::optional<DType> dtype = std::nullopt);

// ---- order statistics (lib/ops/reduce_order.cpp) -----------------------------------
// The lower median of all elements (NaN if any is NaN); the gradient is shared evenly
// among the elements equal to it, as in PyTorch.
Tensor median(const Tensor& self);
// (values, indices) along dim.
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false);
// As median, NaNs ignored (NaN only where a row is all NaN).
Tensor nanmedian(const Tensor& self);
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim = false);
// The k-th smallest (1-based) along dim, NaN counting as the largest.
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim = -1,
                                    bool keepdim = false);
// The most frequent value along dim (the smallest of equally frequent ones).
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim = -1, bool keepdim = false);
// q: a float in [0, 1] or a 0-/1-d tensor of them (a 1-d q adds a leading dim).
// dim nullopt: over all elements. interpolation: linear, lower, higher, midpoint, nearest.
Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, const std::string& interpolation = "linear");
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, const std::string& interpolation = "linear");
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, const std::string& interpolation = "linear");
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, const std::string& interpolation = "linear");

// ---- scans (lib/ops/scan_composite.cpp) ------------------------------------------------
// Running maximum / minimum along dim with the index of each (the last of equal values;
// once a NaN is met, it and its index stay).
std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim);
// log(cumsum(exp(x))) along dim without overflow.
Tensor logcumsumexp(const Tensor& self, int64_t dim);

// ---- closeness (lib/ops/compare_close.cpp) -------------------------------------------
// |self - other| <= atol + rtol |other|, elementwise (equal infinities are close).
Tensor isclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
               bool equal_nan = false);
bool allclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
              bool equal_nan = false);
// Same sizes and same elements.
bool equal(const Tensor& self, const Tensor& other);

// ---- searching and counting (lib/ops/search_count.cpp) --------------------------------
// Indices where values would be inserted into the innermost dim of sorted_sequence
// (1-d, or with the same leading dims as values) to keep it sorted. side: "left"/"right"
// (overrides right when given); sorter: indices that sort sorted_sequence.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32 = false,
                    bool right = false, const std::optional<std::string>& side = std::nullopt,
                    const Tensor& sorter = {});
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool out_int32 = false,
                    bool right = false, const std::optional<std::string>& side = std::nullopt,
                    const Tensor& sorter = {});
// searchsorted with 1-d boundaries.
Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32 = false,
                 bool right = false);
Tensor bucketize(const Scalar& input, const Tensor& boundaries, bool out_int32 = false,
                 bool right = false);
// A histogram of `bins` equal bins over [min, max] (the data's range when min == max).
Tensor histc(const Tensor& self, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0);
// The count (or summed weight) of each non-negative integer in a 1-d tensor.
Tensor bincount(const Tensor& self, const Tensor& weights = {}, int64_t minlength = 0);

}  // namespace ember
