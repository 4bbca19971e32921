// Joining and splitting: cat (an op) and the composites stack, hstack, vstack,
// split, chunk, tensor_split (views made with narrow/slice).
#include "autograd/view_tracking.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/reduce.h"
#include "dispatch/op_ids/shape_index.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"

namespace ember {

namespace {
// PyTorch's legacy rule: a 1-d tensor of size 0 is skipped by cat whatever its shape.
bool legacy_empty(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

void check_defined(const TensorList& tensors, const char* op) {
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].defined(), op, ": tensor ", i, " of the list is undefined");
}
}  // namespace

Tensor cat(const TensorList& tensors, int64_t dim) {
  EMBER_CHECK_VALUE(!tensors.empty(), "cat: expected a non-empty list of Tensors");
  check_defined(tensors, "cat");
  DType dtype = tensors[0].dtype();
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    dtype = promote_types(dtype, t.dtype());
    EMBER_CHECK(t.dim() > 0, "cat: zero-dimensional tensor (at position ", i,
                ") cannot be concatenated");
    EMBER_CHECK(t.device() == tensors[0].device(), "cat: expected all tensors to be on the same "
                "device, but got ", tensors[0].device().str(), " and ", t.device().str());
    if (!ref && !legacy_empty(t)) ref = &t;
  }
  if (!ref) return empty(IntList{0}, TensorOptions(dtype).device(tensors[0].device()));
  const int64_t d = wrap_dim(dim, ref->dim(), "cat");
  SmallVector<Tensor, 4> inputs;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (legacy_empty(t)) continue;
    EMBER_CHECK(t.dim() == ref->dim(), "cat: Tensors must have same number of dimensions: got ",
                ref->dim(), " and ", t.dim());
    for (int64_t k = 0; k < t.dim(); ++k)
      EMBER_CHECK(k == d || t.sizes()[k] == ref->sizes()[k], "cat: Sizes of tensors must match "
                  "except in dimension ", d, ". Expected size ", ref->sizes()[k], " but got size ",
                  t.sizes()[k], " for tensor number ", i, " in the list (shapes ",
                  shape_str(ref->sizes()), " and ", shape_str(t.sizes()), ")");
    inputs.push_back(t);
  }
  OpCall call(opid::cat, std::move(inputs), CatArgs{.dim = d, .dtype = dtype}.attrs());
  return dispatch_one(call);
}

Tensor concat(const TensorList& tensors, int64_t dim) { return cat(tensors, dim); }
Tensor concatenate(const TensorList& tensors, int64_t dim) { return cat(tensors, dim); }

Tensor stack(const TensorList& tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  check_defined(tensors, "stack");
  const DimVector& shape = tensors[0].sizes();
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  TensorList parts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].sizes() == shape, "stack expects each tensor to be equal size, but got ",
                shape_str(shape), " at entry 0 and ", shape_str(tensors[i].sizes()), " at entry ",
                i);
    parts.push_back(unsqueeze(tensors[i], d));
  }
  return cat(parts, d);
}

namespace {
Tensor at_least(const Tensor& t, int64_t nd) {
  if (t.dim() >= nd) return t;
  if (t.dim() == 0) return reshape(t, IntList(nd, 1));
  return reshape(t, {1, t.sizes()[0]});  // 1-d to 2-d: a row
}
}  // namespace

Tensor hstack(const TensorList& tensors) {
  EMBER_CHECK(!tensors.empty(), "hstack expects a non-empty TensorList");
  check_defined(tensors, "hstack");
  TensorList parts;
  for (const Tensor& t : tensors) parts.push_back(at_least(t, 1));
  return cat(parts, parts[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(const TensorList& tensors) {
  EMBER_CHECK(!tensors.empty(), "vstack expects a non-empty TensorList");
  check_defined(tensors, "vstack");
  TensorList parts;
  for (const Tensor& t : tensors) parts.push_back(at_least(t, 2));
  return cat(parts, 0);
}

TensorList split(const Tensor& self, int64_t split_size, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "split expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "split");
  const int64_t size = self.sizes()[d];
  EMBER_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=",
              split_size);
  EMBER_CHECK(split_size > 0 || size == 0, "split: split_size can only be 0 if dimension size is "
              "0, but got dimension size of ", size);
  const int64_t pieces = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  TensorList out;
  for (int64_t i = 0; i < pieces; ++i) {
    int64_t start = i * split_size;
    out.push_back(narrow(self, d, start, std::min(split_size, size - start)));
  }
  autograd::mark_multi_output_views(out, "split");  // no in-place through them, as in PyTorch
  return out;
}

TensorList split_with_sizes(const Tensor& self, const IntList& split_sizes, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "split_with_sizes expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "split_with_sizes");
  const int64_t size = self.sizes()[d];
  int64_t sum = 0;
  DimVector sizes(split_sizes.begin(), split_sizes.end());
  for (int64_t s : split_sizes) {
    EMBER_CHECK(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, "
                "but got split_sizes=", shape_str(sizes));
    sum += s;
  }
  EMBER_CHECK(sum == size, "split_with_sizes expects split_sizes to sum exactly to ", size,
              " (input tensor's size at dimension ", d, "), but got split_sizes=", shape_str(sizes));
  TensorList out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(narrow(self, d, start, s));
    start += s;
  }
  autograd::mark_multi_output_views(out, "split_with_sizes");
  return out;
}

TensorList split(const Tensor& self, const IntList& split_sizes, int64_t dim) {
  return split_with_sizes(self, split_sizes, dim);
}

TensorList chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = wrap_dim(dim, self.dim(), "chunk");
  const int64_t size = self.sizes()[d];
  const int64_t split_size = (size + chunks - 1) / chunks;
  // An empty dim still gives `chunks` (empty) pieces, as in PyTorch.
  if (split_size == 0 && size == 0) return split_with_sizes(self, IntList(chunks, 0), d);
  return split(self, split_size, d);
}

TensorList tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a "
              "tensor with 0 dims");
  EMBER_CHECK(sections > 0, "tensor_split: number of sections must be larger than 0, got ",
              sections);
  const int64_t d = wrap_dim(dim, self.dim(), "tensor_split");
  const int64_t size = self.sizes()[d], base = size / sections, extra = size % sections;
  TensorList out;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    int64_t len = base + (i < extra ? 1 : 0);
    out.push_back(narrow(self, d, start, len));
    start += len;
  }
  return out;
}

TensorList tensor_split(const Tensor& self, const IntList& indices, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a "
              "tensor with 0 dims");
  const int64_t d = wrap_dim(dim, self.dim(), "tensor_split");
  TensorList out;
  std::optional<int64_t> start = 0;
  for (int64_t i : indices) {
    out.push_back(slice(self, d, start, i));
    start = i;
  }
  out.push_back(slice(self, d, start, std::nullopt));
  return out;
}

// ---- methods ------------------------------------------------------------------------------

TensorList Tensor::split(int64_t split_size, int64_t dim) const { return ember::split(*this, split_size, dim); }
TensorList Tensor::split(const IntList& sizes, int64_t dim) const { return ember::split(*this, sizes, dim); }
TensorList Tensor::chunk(int64_t chunks, int64_t dim) const { return ember::chunk(*this, chunks, dim); }
TensorList Tensor::tensor_split(int64_t sections, int64_t dim) const {
  return ember::tensor_split(*this, sections, dim);
}
TensorList Tensor::tensor_split(const IntList& indices, int64_t dim) const {
  return ember::tensor_split(*this, indices, dim);
}

}  // namespace ember
