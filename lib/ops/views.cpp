// View ops: each op function checks its arguments and normalizes them (negative
// dims, -1 sizes, Python slice bounds), then dispatches; the kernel only builds
// the new geometry over the same storage, so one kernel serves every device.
#include "ember/ops/views.h"

#include <algorithm>
#include <numeric>

#include "autograd/view_tracking.h"
#include "ember/autograd_function.h"
#include "ember/ops/shape_index.h"
#include "dispatch/args/core.h"
#include "dispatch/call_inputs.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"
#include "dispatch/op_ids/shape_index.h"
#include "ops/make_view.h"

namespace ember {

namespace {

Tensor run_view(OpId op, const Tensor& self, SmallVector<Attr, 4> attrs) {
  OpCall call(op, call_inputs(self), std::move(attrs));
  return dispatch_one(call);
}

// Replaces one -1 in shape by the size that makes numel match.
DimVector infer_size(const IntList& shape, int64_t numel, const char* op) {
  DimVector out(shape.begin(), shape.end());
  int64_t known = 1, infer_at = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      EMBER_CHECK(infer_at < 0, op, ": only one dimension can be inferred");
      infer_at = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK(out[i] >= 0, op, ": invalid shape dimension ", out[i]);
      // A product past int64 could wrap around to numel: reject it.
      EMBER_CHECK(!__builtin_mul_overflow(known, out[i], &known), op, ": shape '", shape_str(out),
                  "' is invalid for input of size ", numel);
    }
  }
  if (infer_at >= 0) {
    EMBER_CHECK(known != 0 && numel % known == 0, op, ": shape '", shape_str(out),
                "' is invalid for input of size ", numel);
    out[infer_at] = numel / known;
  } else {
    EMBER_CHECK(known == numel, op, ": shape '", shape_str(out), "' is invalid for input of size ",
                numel);
  }
  return out;
}

// Strides that let `sizes` view a tensor of (old_sizes, old_strides) without a copy,
// or nothing if a new dim would span two non-contiguous chunks (PyTorch's rule).
std::optional<DimVector> view_strides(const DimVector& old_sizes, const DimVector& old_strides,
                                      const DimVector& sizes) {
  DimVector strides(sizes.size());
  int64_t numel = 1;
  for (int64_t s : old_sizes) numel *= s;
  if (numel == 0 || old_sizes.empty()) return contiguous_strides(sizes);
  int64_t view_d = static_cast<int64_t>(sizes.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    bool chunk_end = d == 0 || (old_sizes[d - 1] != 1 &&
                                old_strides[d - 1] != tensor_numel * chunk_base_stride);
    if (chunk_end) {
      while (view_d >= 0 && (view_numel < tensor_numel || sizes[view_d] == 1)) {
        strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return strides;
}

}  // namespace

// ---- op functions -----------------------------------------------------------

Tensor view(const Tensor& self, const IntList& shape) {
  DimVector sizes = infer_size(shape, self.numel(), "view");
  EMBER_CHECK(view_strides(self.sizes(), self.strides(), sizes).has_value(),
              "view: view size ", shape_str(sizes), " is not compatible with the input tensor's "
              "size ", shape_str(self.sizes()), " and stride ", shape_str(self.strides()),
              " (at least one dimension spans across two contiguous subspaces). "
              "Use .reshape(...) instead.");
  return run_view(opid::view, self, ViewArgs{.size = sizes}.attrs());
}

Tensor reshape(const Tensor& self, const IntList& shape) {
  DimVector sizes = infer_size(shape, self.numel(), "reshape");
  if (view_strides(self.sizes(), self.strides(), sizes))
    return run_view(opid::view, self, ViewArgs{.size = sizes}.attrs());
  return run_view(opid::view, contiguous(self), ViewArgs{.size = sizes}.attrs());
}

Tensor transpose(const Tensor& self, int64_t d0, int64_t d1) {
  int64_t n = self.dim();
  d0 = wrap_dim(d0, n, "transpose");
  d1 = wrap_dim(d1, n, "transpose");
  if (n == 0) return alias(self);
  return run_view(opid::transpose, self, TransposeArgs{.dim0 = d0, .dim1 = d1}.attrs());
}

Tensor permute(const Tensor& self, const IntList& dims) {
  int64_t n = self.dim();
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == n, "permute: number of dims don't match: the "
              "tensor has ", n, " dims but ", dims.size(), " were given");
  DimVector wrapped(dims.size());
  std::vector<bool> seen(n, false);
  for (size_t i = 0; i < dims.size(); ++i) {
    wrapped[i] = wrap_dim(dims[i], n, "permute");
    EMBER_CHECK(n == 0 || !seen[wrapped[i]], "permute: dim ", dims[i], " appears more than once");
    if (n) seen[wrapped[i]] = true;
  }
  return run_view(opid::permute, self, PermuteArgs{.dims = wrapped}.attrs());
}

Tensor t(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, "t: expects a tensor with <= 2 dimensions, but self is ",
              self.dim(), "D");
  return self.dim() < 2 ? alias(self) : transpose(self, 0, 1);
}

Tensor expand(const Tensor& self, const IntList& shape) {
  int64_t n = static_cast<int64_t>(shape.size()), own = self.dim();
  EMBER_CHECK(n >= own, "expand: the number of sizes provided (", n, ") must be greater or equal "
              "to the number of dimensions in the tensor (", own, ")");
  DimVector sizes(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t j = i - (n - own);
    int64_t cur = j >= 0 ? self.sizes()[j] : 1;
    int64_t want = shape[i];
    if (want == -1) {
      EMBER_CHECK(j >= 0, "expand: -1 is not allowed in a leading, non-existing dimension ", i);
      want = cur;
    }
    EMBER_CHECK(want >= 0, "expand: invalid size ", want, " at dimension ", i);
    EMBER_CHECK(cur == want || cur == 1, "expand: the expanded size of the tensor (", want,
                ") must match the existing size (", cur, ") at non-singleton dimension ", i,
                ". Target sizes: ", shape_str(DimVector(shape.begin(), shape.end())),
                ". Tensor sizes: ", shape_str(self.sizes()));
    sizes[i] = want;
  }
  return run_view(opid::expand, self, ExpandArgs{.size = sizes}.attrs());
}

Tensor squeeze(const Tensor& self) {
  DimVector dims;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (self.sizes()[d] == 1) dims.push_back(d);
  return run_view(opid::squeeze, self, SqueezeArgs{.dim = dims}.attrs());
}

Tensor squeeze(const Tensor& self, int64_t dim) {
  int64_t d = wrap_dim(dim, self.dim(), "squeeze");
  DimVector dims;
  if (self.dim() > 0 && self.sizes()[d] == 1) dims.push_back(d);
  return run_view(opid::squeeze, self, SqueezeArgs{.dim = dims}.attrs());
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  int64_t d = wrap_dim(dim, self.dim() + 1, "unsqueeze");
  return run_view(opid::unsqueeze, self, UnsqueezeArgs{.dim = d}.attrs());
}

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  if (self.dim() == 0) {  // a 0-d tensor has dims -1 and 0 (PyTorch's rule) and becomes 1-d
    wrap_dim(start_dim, 1, "flatten");
    wrap_dim(end_dim, 1, "flatten");
    return reshape(self, {1});
  }
  int64_t s = wrap_dim(start_dim, self.dim(), "flatten");
  int64_t e = wrap_dim(end_dim, self.dim(), "flatten");
  EMBER_CHECK(s <= e, "flatten: start_dim (", start_dim, ") cannot come after end_dim (", end_dim,
              ")");
  IntList shape;
  for (int64_t d = 0; d < s; ++d) shape.push_back(self.sizes()[d]);
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= self.sizes()[d];
  shape.push_back(merged);
  for (int64_t d = e + 1; d < self.dim(); ++d) shape.push_back(self.sizes()[d]);
  return reshape(self, shape);
}

Tensor unflatten(const Tensor& self, int64_t dim, const IntList& sizes) {
  int64_t d = wrap_dim(dim, self.dim(), "unflatten");
  EMBER_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  IntList shape(self.sizes().begin(), self.sizes().begin() + d);
  IntList inner = sizes;
  DimVector inferred = infer_size(inner, self.sizes()[d], "unflatten");
  shape.insert(shape.end(), inferred.begin(), inferred.end());
  shape.insert(shape.end(), self.sizes().begin() + d + 1, self.sizes().end());
  return view(self, shape);
}

Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> end, int64_t step) {
  EMBER_CHECK(self.dim() > 0, "slice: cannot slice a 0-dim tensor");
  int64_t d = wrap_dim(dim, self.dim(), "slice");
  EMBER_CHECK_VALUE(step > 0, "slice: step must be greater than zero, got ", step);
  int64_t size = self.sizes()[d];
  auto clamp = [size](int64_t v) {
    if (v < 0) v += size;
    return std::clamp<int64_t>(v, 0, size);
  };
  int64_t s = start ? clamp(*start) : 0;
  int64_t e = end ? clamp(*end) : size;
  if (e < s) e = s;
  return run_view(opid::slice, self, SliceArgs{.dim = d, .start = s, .end = e, .step = step}.attrs());
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  EMBER_CHECK(self.dim() > 0, "narrow: cannot be applied to a 0-dim tensor");
  int64_t d = wrap_dim(dim, self.dim(), "narrow");
  int64_t size = self.sizes()[d];
  if (start < 0) start += size;
  EMBER_CHECK_INDEX(start >= 0 && start <= size, "narrow: start (", start,
                    ") out of range for dimension ", d, " of size ", size);
  EMBER_CHECK(length >= 0 && start + length <= size, "narrow: start (", start, ") + length (",
              length, ") exceeds dimension size (", size, ")");
  return run_view(opid::slice, self,
                  SliceArgs{.dim = d, .start = start, .end = start + length, .step = 1}.attrs());
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  EMBER_CHECK_INDEX(self.dim() > 0, "select: invalid index of a 0-dim tensor");
  int64_t d = wrap_dim(dim, self.dim(), "select");
  int64_t size = self.sizes()[d];
  EMBER_CHECK_INDEX(index >= -size && index < size, "index ", index,
                    " is out of bounds for dimension ", d, " with size ", size);
  if (index < 0) index += size;
  return run_view(opid::select, self, SelectArgs{.dim = d, .index = index}.attrs());
}

namespace {

TensorList select_all(const Tensor& self, int64_t d) {
  TensorList out;
  for (int64_t i = 0; i < self.sizes()[d]; ++i) out.push_back(select(self, d, i));
  return out;
}

// Under autograd, unbind's outputs share one backward node that stacks their
// gradients (PyTorch's UnbindBackward0). Each select view's own backward would
// build a gradient the size of the whole input: O(n^2) work for n outputs, which
// is what a loop over the time steps of a sequence pays.
struct Unbind : autograd::Function<Unbind> {
  static constexpr const char* node_name = "UnbindBackward0";
  static TensorList forward(autograd::AutogradContext* ctx, const Tensor& self, int64_t d) {
    ctx->saved_data["dim"] = d;
    return select_all(self, d);
  }
  static TensorList backward(autograd::AutogradContext* ctx, TensorList grads) {
    return {stack(grads, ctx->saved_data["dim"].to_int()), Tensor()};
  }
};

}  // namespace

TensorList unbind(const Tensor& self, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "unbind: cannot unbind a 0-dim tensor");
  int64_t d = wrap_dim(dim, self.dim(), "unbind");
  bool record = is_grad_enabled() && self.requires_grad() && self.size(d) > 1;
  TensorList out = record ? Unbind::apply(self, d) : select_all(self, d);
  autograd::mark_multi_output_views(out, "unbind");  // no in-place through them, as in PyTorch
  return out;
}

Tensor as_strided(const Tensor& self, const IntList& sizes, const IntList& strides,
                  std::optional<int64_t> storage_offset) {
  EMBER_CHECK(sizes.size() == strides.size(), "as_strided: got ", sizes.size(), " sizes but ",
              strides.size(), " strides");
  int64_t offset = storage_offset.value_or(self.storage_offset());
  EMBER_CHECK(offset >= 0, "as_strided: negative storage offset ", offset);
  int64_t max_index = offset;
  bool empty = false, overflow = false;  // a reach past int64 is past any storage
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0, "as_strided: negative size ", sizes[i]);
    EMBER_CHECK(strides[i] >= 0, "as_strided: negative stride ", strides[i]);
    int64_t reach = 0;
    if (sizes[i] == 0) empty = true;
    else overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) ||
                     __builtin_add_overflow(max_index, reach, &max_index);
  }
  int64_t storage_elems =
      static_cast<int64_t>(self.impl()->storage()->nbytes() / itemsize(self.dtype()));
  EMBER_CHECK(empty || (!overflow && max_index < storage_elems), "as_strided: setStorage: sizes ",
              shape_str(DimVector(sizes.begin(), sizes.end())), ", strides ",
              shape_str(DimVector(strides.begin(), strides.end())), " and storage offset ", offset,
              " reach element ", max_index, " of a storage of only ", storage_elems, " elements");
  return run_view(opid::as_strided, self,
                  AsStridedArgs{.size = DimVector(sizes.begin(), sizes.end()),
                                .stride = DimVector(strides.begin(), strides.end()),
                                .storage_offset = offset}
                      .attrs());
}

Tensor movedim(const Tensor& self, int64_t src, int64_t dst) {
  int64_t n = self.dim();
  src = wrap_dim(src, n, "movedim");
  dst = wrap_dim(dst, n, "movedim");
  if (n == 0) return alias(self);
  IntList order;
  for (int64_t d = 0; d < n; ++d)
    if (d != src) order.push_back(d);
  order.insert(order.begin() + dst, src);
  return permute(self, order);
}

Tensor alias(const Tensor& self) { return run_view(opid::alias, self, {}); }

// ---- kernels: geometry only -------------------------------------------------

namespace {

void view_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const ViewArgs a = ViewArgs::from(c);
  auto strides = view_strides(self.sizes(), self.strides(), a.size);
  EMBER_CHECK(strides, "view: incompatible strides");  // the op function checked this
  c.outputs.push_back(make_view(self, a.size, *strides, self.storage_offset()));
}

void as_strided_kernel(OpCall& c) {
  const AsStridedArgs a = AsStridedArgs::from(c);
  c.outputs.push_back(make_view(c.in(0), a.size, a.stride, a.storage_offset));
}

void transpose_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const TransposeArgs a = TransposeArgs::from(c);
  DimVector sizes = self.sizes(), strides = self.strides();
  std::swap(sizes[a.dim0], sizes[a.dim1]);
  std::swap(strides[a.dim0], strides[a.dim1]);
  c.outputs.push_back(make_view(self, sizes, strides, self.storage_offset()));
}

void permute_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const PermuteArgs a = PermuteArgs::from(c);
  DimVector sizes(a.dims.size()), strides(a.dims.size());
  for (size_t i = 0; i < a.dims.size(); ++i) {
    sizes[i] = self.sizes()[a.dims[i]];
    strides[i] = self.strides()[a.dims[i]];
  }
  c.outputs.push_back(make_view(self, sizes, strides, self.storage_offset()));
}

void expand_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const ExpandArgs a = ExpandArgs::from(c);
  int64_t lead = static_cast<int64_t>(a.size.size()) - self.dim();
  DimVector strides(a.size.size(), 0);
  for (int64_t i = lead; i < static_cast<int64_t>(a.size.size()); ++i)
    strides[i] = self.sizes()[i - lead] == a.size[i] ? self.strides()[i - lead] : 0;
  c.outputs.push_back(make_view(self, a.size, strides, self.storage_offset()));
}

void squeeze_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const SqueezeArgs a = SqueezeArgs::from(c);
  DimVector sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (std::find(a.dim.begin(), a.dim.end(), d) != a.dim.end()) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  c.outputs.push_back(make_view(self, sizes, strides, self.storage_offset()));
}

void unsqueeze_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const UnsqueezeArgs a = UnsqueezeArgs::from(c);
  DimVector sizes = self.sizes(), strides = self.strides();
  int64_t stride = a.dim < self.dim() ? sizes[a.dim] * strides[a.dim] : 1;
  sizes.insert(sizes.begin() + a.dim, 1);
  strides.insert(strides.begin() + a.dim, stride);
  c.outputs.push_back(make_view(self, sizes, strides, self.storage_offset()));
}

void slice_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const SliceArgs a = SliceArgs::from(c);
  DimVector sizes = self.sizes(), strides = self.strides();
  int64_t offset = self.storage_offset() + (sizes[a.dim] > 0 ? a.start * strides[a.dim] : 0);
  // ceil((end - start) / step), no overflow for a huge step
  sizes[a.dim] = a.end > a.start ? (a.end - a.start - 1) / a.step + 1 : 0;
  strides[a.dim] *= a.step;
  c.outputs.push_back(make_view(self, sizes, strides, offset));
}

void select_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const SelectArgs a = SelectArgs::from(c);
  DimVector sizes = self.sizes(), strides = self.strides();
  int64_t offset = self.storage_offset() + a.index * strides[a.dim];
  sizes.erase(sizes.begin() + a.dim);
  strides.erase(strides.begin() + a.dim);
  c.outputs.push_back(make_view(self, sizes, strides, offset));
}

void alias_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  c.outputs.push_back(make_view(self, self.sizes(), self.strides(), self.storage_offset()));
}

#define EMBER_REGISTER_VIEW(op, fn)   \
  EMBER_REGISTER_KERNEL(op, CPU, fn); \
  EMBER_REGISTER_KERNEL(op, CUDA, fn)
EMBER_REGISTER_VIEW(view, view_kernel);
EMBER_REGISTER_VIEW(as_strided, as_strided_kernel);
EMBER_REGISTER_VIEW(transpose, transpose_kernel);
EMBER_REGISTER_VIEW(permute, permute_kernel);
EMBER_REGISTER_VIEW(expand, expand_kernel);
EMBER_REGISTER_VIEW(squeeze, squeeze_kernel);
EMBER_REGISTER_VIEW(unsqueeze, unsqueeze_kernel);
EMBER_REGISTER_VIEW(slice, slice_kernel);
EMBER_REGISTER_VIEW(select, select_kernel);
EMBER_REGISTER_VIEW(alias, alias_kernel);

}  // namespace

}  // namespace ember
