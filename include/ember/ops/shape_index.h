// Free functions of the shape_index group (ember::...): joining and splitting
// (cat, stack, split, chunk), rearranging (repeat, tile, flip, roll, tril/triu,
// diag), gathering and scattering along a dim, masks, sorting, unique, and
// numpy-style indexing (ember::index / index_put_ with TensorIndex values,
// mirroring PyTorch's C++ `x.index({Slice(1, None), None, Ellipsis, idx})`).
#pragma once
#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// ---- joining and splitting (lib/ops/shape_join.cpp) ------------------------------------

// Tensors of shape [0] are skipped (PyTorch's legacy rule); the dtype is their promoted type.
Tensor cat(const TensorList& tensors, int64_t dim = 0);
Tensor concat(const TensorList& tensors, int64_t dim = 0);
Tensor concatenate(const TensorList& tensors, int64_t dim = 0);
Tensor stack(const TensorList& tensors, int64_t dim = 0);
Tensor hstack(const TensorList& tensors);
Tensor vstack(const TensorList& tensors);
// Views of pieces of split_size along dim (the last one may be smaller).
TensorList split(const Tensor& self, int64_t split_size, int64_t dim = 0);
TensorList split(const Tensor& self, const IntList& split_sizes, int64_t dim = 0);
TensorList split_with_sizes(const Tensor& self, const IntList& split_sizes, int64_t dim = 0);
TensorList chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
// numpy.array_split: `sections` nearly equal pieces, or pieces cut at `indices`.
TensorList tensor_split(const Tensor& self, int64_t sections, int64_t dim = 0);
TensorList tensor_split(const Tensor& self, const IntList& indices, int64_t dim = 0);

// ---- rearranging (lib/ops/shape_transform.cpp) ------------------------------------------

Tensor repeat(const Tensor& self, const IntList& repeats);
Tensor tile(const Tensor& self, const IntList& dims);
Tensor flip(const Tensor& self, const IntList& dims);
Tensor fliplr(const Tensor& self);
Tensor flipud(const Tensor& self);
// No dims: rolls the flattened tensor and restores the shape.
Tensor roll(const Tensor& self, const IntList& shifts, const IntList& dims = {});
Tensor tril(const Tensor& self, int64_t diagonal = 0);
Tensor triu(const Tensor& self, int64_t diagonal = 0);
// 1-d -> a square matrix with the vector on a diagonal; 2-d -> that diagonal (a copy).
Tensor diag(const Tensor& self, int64_t diagonal = 0);
// A view of the diagonal of dims dim1 and dim2, appended as the last dim.
Tensor diagonal(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);

// ---- along a dim (lib/ops/index_dim.cpp) ---------------------------------------------

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce = "");
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
               const std::string& reduce = "");
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                 const std::string& reduce = "");
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                 const std::string& reduce = "");
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
// reduce: "sum", "prod", "mean", "amax" or "amin" (index_reduce: all but "sum"); with
// include_self false, self's values at the positions index names are left out.
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self = true);
Tensor& scatter_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        const std::string& reduce, bool include_self = true);
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const std::string& reduce, bool include_self = true);
Tensor& index_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const std::string& reduce, bool include_self = true);
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha = 1);
Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha = 1);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
// value: a 0-dim tensor; one that requires grad gets the gradient of what it filled.
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
// Elements of the flattened tensor at `index`, in index's shape.
Tensor take(const Tensor& self, const Tensor& index);

// ---- masks (lib/ops/index_mask.cpp) ------------------------------------------------------

// value: a number or a 0-dim tensor. The out-of-place form broadcasts self and mask.
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value);
// 1-d: the elements of self (broadcast with mask) where mask is true.
Tensor masked_select(const Tensor& self, const Tensor& mask);
// [n, ndim] int64 coordinates of the nonzero elements, in row-major order.
Tensor nonzero(const Tensor& self);
// One 1-d int64 tensor per dim (nonzero(as_tuple=True)); also where(condition).
TensorList nonzero_tuple(const Tensor& self);
Tensor argwhere(const Tensor& self);
TensorList where(const Tensor& condition);

// ---- sorting (lib/ops/sort.cpp) ------------------------------------------------------------

// (values, indices). NaN sorts as larger than every number, as in PyTorch.
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1, bool descending = false,
                                bool stable = false);
Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false, bool stable = false);
// (values, indices) of the k largest (or smallest) along dim; ties keep the lower index first.
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1,
                                bool largest = true, bool sorted = true);
// (values, inverse, counts); inverse and counts are empty tensors unless asked for.
// Values come out sorted whatever `sorted` says (allowed by PyTorch's contract).
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool sorted = true,
                                          bool return_inverse = false, bool return_counts = false,
                                          std::optional<int64_t> dim = std::nullopt);

// ---- numpy-style indexing (lib/ops/index_tensor.cpp) ---------------------------------------

namespace indexing {
struct EllipsisIndexType {};
inline constexpr EllipsisIndexType Ellipsis{};
// Python's start:stop:step (step > 0).
struct Slice {
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start(start), stop(stop), step(step) {}
  std::optional<int64_t> start, stop, step;
};
inline constexpr std::nullopt_t None = std::nullopt;
}  // namespace indexing

// One entry of an index expression: None, Ellipsis ("..."), an integer, a bool,
// a Slice or a tensor (integer tensors: advanced indexing; bool tensors: masks).
class TensorIndex {
 public:
  enum class Kind : uint8_t { None, Ellipsis, Integer, Boolean, Slice, Tensor };

  TensorIndex(std::nullopt_t) : kind_(Kind::None) {}
  TensorIndex(indexing::EllipsisIndexType) : kind_(Kind::Ellipsis) {}
  TensorIndex(const char* s);  // "..." only
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T i) : kind_(Kind::Integer), integer_(static_cast<int64_t>(i)) {}
  TensorIndex(bool b) : kind_(Kind::Boolean), boolean_(b) {}
  TensorIndex(indexing::Slice s) : kind_(Kind::Slice), slice_(s) {}
  TensorIndex(Tensor t) : kind_(Kind::Tensor), tensor_(std::move(t)) {}

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_ellipsis() const { return kind_ == Kind::Ellipsis; }
  bool is_integer() const { return kind_ == Kind::Integer; }
  bool is_boolean() const { return kind_ == Kind::Boolean; }
  bool is_slice() const { return kind_ == Kind::Slice; }
  bool is_tensor() const { return kind_ == Kind::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const indexing::Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  indexing::Slice slice_;
  Tensor tensor_;
};

// self[indices...] as in Python: ints, slices, None and Ellipsis give a view;
// tensors (and bools) make it advanced indexing, which copies.
Tensor index(const Tensor& self, std::initializer_list<TensorIndex> indices);
Tensor index(const Tensor& self, const std::vector<TensorIndex>& indices);
// The op beneath advanced indexing (PyTorch's aten::index): indices[d] indexes
// dim d (an undefined tensor leaves that dim whole); bool tensors are masks.
Tensor index(const Tensor& self, const TensorList& indices);

// self[indices...] = value (broadcast to the indexed shape, converted to self's dtype).
Tensor& index_put_(Tensor& self, std::initializer_list<TensorIndex> indices, const Tensor& value);
Tensor& index_put_(Tensor& self, const std::vector<TensorIndex>& indices, const Tensor& value);
Tensor& index_put_(Tensor& self, std::initializer_list<TensorIndex> indices, const Scalar& value);
Tensor& index_put_(Tensor& self, const std::vector<TensorIndex>& indices, const Scalar& value);
// The op: self[indices] = values (same dtype), or += when accumulate. With
// repeated indices and accumulate=false, one of the writes wins.
Tensor& index_put_(Tensor& self, const TensorList& indices, const Tensor& values,
                   bool accumulate = false);
Tensor index_put(const Tensor& self, const TensorList& indices, const Tensor& values,
                 bool accumulate = false);

}  // namespace ember
