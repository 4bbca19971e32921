// Free functions that round out PyTorch's tensor API (ember::...), all composites of
// other ops (autograd, tracing and CUDA come through those): more views and
// shape queries, stacking/splitting by axis, diagonal and slice scatters, index
// grids, repeat_interleave, masked_scatter, unique_consecutive, put.
// Defined in lib/ops/tensor_api_shape.cpp and lib/ops/tensor_api_index.cpp.
#pragma once
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/options.h"
#include "ember/tensor.h"

namespace ember {

// ---- views and shape queries (tensor_api_shape.cpp) -----------------------------------

// Moves dims src[i] to dst[i]; the other dims keep their order (a view).
Tensor movedim(const Tensor& self, const IntList& src, const IntList& dst);
Tensor moveaxis(const Tensor& self, const IntList& src, const IntList& dst);
Tensor swapaxes(const Tensor& self, int64_t d0, int64_t d1);
Tensor swapdims(const Tensor& self, int64_t d0, int64_t d1);
// Removes the listed dims that have size 1 (others are left as they are).
Tensor squeeze_dims(const Tensor& self, const IntList& dims);
Tensor ravel(const Tensor& self);
Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor broadcast_to(const Tensor& self, const IntList& shape);
TensorList broadcast_tensors(const TensorList& tensors);
DimVector broadcast_shapes(const std::vector<IntList>& shapes);
// Sums self down to `size` (which self must broadcast from).
Tensor sum_to_size(const Tensor& self, const IntList& size);
Tensor adjoint(const Tensor& self);  // real dtypes: the transpose of the last two dims
bool is_nonzero(const Tensor& self);
bool is_same_size(const Tensor& a, const Tensor& b);

// ---- stacking and splitting by axis (tensor_api_shape.cpp) ----------------------------

Tensor atleast_1d(const Tensor& self);
Tensor atleast_2d(const Tensor& self);
Tensor atleast_3d(const Tensor& self);
TensorList atleast_1d(const TensorList& tensors);
TensorList atleast_2d(const TensorList& tensors);
TensorList atleast_3d(const TensorList& tensors);
Tensor column_stack(const TensorList& tensors);
Tensor row_stack(const TensorList& tensors);
Tensor dstack(const TensorList& tensors);
TensorList hsplit(const Tensor& self, int64_t sections);
TensorList hsplit(const Tensor& self, const IntList& indices);
TensorList vsplit(const Tensor& self, int64_t sections);
TensorList vsplit(const Tensor& self, const IntList& indices);
TensorList dsplit(const Tensor& self, int64_t sections);
TensorList dsplit(const Tensor& self, const IntList& indices);
Tensor rot90(const Tensor& self, int64_t k = 1, const IntList& dims = {0, 1});
// Batches of vectors (last dim) -> batches of matrices with them on a diagonal.
Tensor diag_embed(const Tensor& self, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor diagflat(const Tensor& self, int64_t offset = 0);
Tensor block_diag(const TensorList& tensors);
Tensor vander(const Tensor& x, std::optional<int64_t> N = std::nullopt, bool increasing = false);

// ---- scatters into views, index grids (tensor_api_index.cpp) ----------------------------

// A copy of self with src written into the given view of it.
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset = 0,
                        int64_t dim1 = 0, int64_t dim2 = 1);
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index);
Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim = 0,
                     std::optional<int64_t> start = std::nullopt,
                     std::optional<int64_t> end = std::nullopt, int64_t step = 1);
// [2, n] coordinates of the lower (upper) triangle of a row x col matrix, row-major.
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0, TensorOptions options = kInt64);
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0, TensorOptions options = kInt64);
// indexing: "ij" (matrix) or "xy" (Cartesian: the first two dims swapped).
TensorList meshgrid(const TensorList& tensors, const std::string& indexing = "ij");
Tensor cartesian_prod(const TensorList& tensors);
Tensor combinations(const Tensor& self, int64_t r = 2, bool with_replacement = false);
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats,
                         std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
// repeat_interleave(repeats): index i repeated repeats[i] times.
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);
// No dim: indexes the flattened tensor (as torch does).
Tensor take_along_dim(const Tensor& self, const Tensor& indices,
                      std::optional<int64_t> dim = std::nullopt);
// The elements of self (broadcast with mask) where mask is set, replaced in order by
// the leading elements of source.
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source);
// (values, inverse, counts) of runs of equal consecutive elements (or slices along dim).
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);
// self.flatten()[index] = source (or += when accumulate), in self's shape.
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);
Tensor& put_(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);

// ---- global switches (tensor_api_shape.cpp) ---------------------------------------------

// torch.use_deterministic_algorithms: CUDA ops that accumulate with atomics
// (index_add_, scatter_add_, index_put_ with accumulate) raise while it is on.
void use_deterministic_algorithms(bool mode, bool warn_only = false);
bool are_deterministic_algorithms_enabled();
bool is_deterministic_algorithms_warn_only_enabled();

}  // namespace ember
