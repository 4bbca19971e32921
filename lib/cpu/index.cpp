// Kernels of advanced indexing and masks: index (x[i, j]), index_put_
// (x[i, j] = v), take, nonzero, masked_fill_.
//
// index and index_put_ follow Note [Advanced indexing geometry]: the index
// tensors first become one int64 element offset per index position (checking
// bounds), then one loop over the result's shape reads (or writes) self at
// "unindexed part + offset", with self restrided so that the indexed dims
// have stride 0 and the offsets broadcast over the unindexed dims.
#include <memory>

#include "kernels/dtype_dispatch.h"
#include "cpu/index_loops.h"
#include "kernels/index_plan.h"
#include "cpu/loops.h"
#include "ember/ops/factories.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::cpu {

namespace {

// Self restrided over the result shape (indexed dims with stride 0) and the
// offsets tensor spread over it (stride 0 over the unindexed dims).
struct IndexPlan {
  AdvancedIndexGeometry geo;
  Tensor self_view;
  Tensor offsets_view;
};

// Element offsets sum_k index_k * stride_k over the index shape; negative
// indices count from the end. Throws IndexError for an index out of bounds.
Tensor index_offsets(const Tensor& self, const TensorList& indices,
                     const AdvancedIndexGeometry& g) {
  Tensor offsets = empty(g.index_shape, TensorOptions(kInt64).device(self.device()));
  int64_t* off = offsets.data_ptr<int64_t>();
  for (int64_t k = 0; k < g.count; ++k) {
    const int64_t d = g.perm[g.before + k];
    const Tensor& idx = indices[d];
    const int64_t size = self.sizes()[d], stride = self.strides()[d];
    const char* base = static_cast<const char*>(idx.data_ptr());
    BadIndex bad;
    for_each_run<1>(g.index_shape, {byte_strides_without(idx, -1)}, 1,
                    [&](int64_t first, int64_t n, const std::array<int64_t, 1>& at,
                        const std::array<int64_t, 1>& step) {
      const int64_t* ip = reinterpret_cast<const int64_t*>(base + at[0]);
      const int64_t is = step[0] / 8;
      for (int64_t p = 0; p < n; ++p) {
        int64_t i = ip[p * is];
        const int64_t given = i;
        if (i < 0) i += size;
        if (i < 0 || i >= size) {
          bad.record(given);
          i = 0;
        }
        off[first + p] = (k == 0 ? 0 : off[first + p]) + i * stride;
      }
    });
    if (bad)
      throw IndexError(detail::str("index ", bad.value, " is out of bounds for dimension ", d,
                                   " with size ", size));
  }
  return offsets;
}

IndexPlan plan_index(const Tensor& self, const TensorList& indices) {
  IndexPlan plan;
  plan.geo = advanced_index_geometry(self.sizes(), indices);
  IndexViews views = index_views(self, index_offsets(self, indices, plan.geo), plan.geo);
  plan.self_view = views.self_view;
  plan.offsets_view = views.offsets_view;
  return plan;
}

TensorList index_tensors(const OpCall& c, size_t first) {
  TensorList out;
  for (size_t i = first; i < c.inputs.size(); ++i) out.push_back(c.inputs[i]);
  return out;
}

void index_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  IndexPlan plan = plan_index(self, index_tensors(c, 1));
  Tensor out = empty(plan.geo.result_shape, TensorOptions(self.dtype()).device(self.device()));
  if (out.numel()) {
    auto g = make_geometry<3>(out, {&plan.self_view, &plan.offsets_view});
    with_element_size(out.element_size(), [&](auto tag) {
      using T = decltype(tag);
      for_each_row<3>(g, kGrainSize, [](char** p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          int64_t off = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
          *reinterpret_cast<T*>(p[0] + i * s[0]) =
              reinterpret_cast<const T*>(p[1] + i * s[1])[off];
        }
      });
    });
  }
  c.outputs.push_back(out);
}

// Repeated indices: without accumulate one write wins; with it every value is
// added, so that loop runs on one thread.
void index_put_kernel(OpCall& c) {
  const Tensor& self = c.outputs[0];
  const Tensor& values = c.in(1);
  const IndexPutArgs a = IndexPutArgs::from(c);
  IndexPlan plan = plan_index(self, index_tensors(c, 2));
  if (plan.self_view.numel() == 0) return;
  auto g = make_geometry<3>(plan.self_view, {&values, &plan.offsets_view});
  if (!a.accumulate) {
    with_element_size(self.element_size(), [&](auto tag) {
      using T = decltype(tag);
      for_each_row<3>(g, kGrainSize, [](char** p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          int64_t off = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
          reinterpret_cast<T*>(p[0] + i * s[0])[off] = *reinterpret_cast<const T*>(p[1] + i * s[1]);
        }
      });
    });
    return;
  }
  EMBER_DISPATCH_ALL(self.dtype(), "index_put_", [&] {
    using acc_t = opmath_t<scalar_t>;
    for_each_row<3>(g, INT64_MAX, [](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        int64_t off = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
        scalar_t* d = reinterpret_cast<scalar_t*>(p[0] + i * s[0]) + off;
        *d = convert<scalar_t>(static_cast<acc_t>(*d) +
                               static_cast<acc_t>(*reinterpret_cast<const scalar_t*>(p[1] + i * s[1])));
      }
    });
  });
}

// out[i] = self.flatten()[index[i]], negative indices from the end.
void take_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const Tensor& index = c.in(1);
  Tensor out = empty(index.sizes(), TensorOptions(self.dtype()).device(self.device()));
  const int64_t numel = self.numel(), nd = self.dim();
  const bool contiguous = self.is_contiguous();
  const DimVector sizes = self.sizes(), strides = self.strides();
  BadIndex bad;
  if (out.numel()) {
    with_element_size(out.element_size(), [&](auto tag) {
      using T = decltype(tag);
      const T* src = static_cast<const T*>(self.data_ptr());
      cpu_kernel(out, {&index}, [&](int64_t i) -> T {
        int64_t given = i;
        if (i < 0) i += numel;
        if (i < 0 || i >= numel) {
          bad.record(given);
          return T{};
        }
        if (contiguous) return src[i];
        int64_t off = 0;
        for (int64_t d = nd - 1; d >= 0; --d) {
          off += (i % sizes[d]) * strides[d];
          i /= sizes[d];
        }
        return src[off];
      });
    });
  }
  if (bad)
    throw IndexError(detail::str("take: out of range: tried to access index ", bad.value,
                                 " on a tensor of ", numel, " elements."));
  c.outputs.push_back(out);
}

// Two passes over fixed chunks of self (row-major): count the nonzeros of each
// chunk, then write each chunk's coordinates from its prefix-sum offset.
void nonzero_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const int64_t nd = self.dim(), numel = self.numel();
  constexpr int64_t kChunk = 16384;
  const int64_t chunks = (numel + kChunk - 1) / kChunk;
  std::vector<int64_t> counts(static_cast<size_t>(chunks) + 1, 0);
  const DimVector& sizes = self.sizes();
  const RunGeometry<1> geo = coalesce<1>(sizes, {byte_strides_without(self, -1)});
  const char* base = static_cast<const char*>(self.data_ptr());
  Tensor out;
  EMBER_DISPATCH_ALL(self.dtype(), "nonzero", [&] {
    auto for_chunk = [&](int64_t ch, auto&& on_nonzero) {
      int64_t b = ch * kChunk, e = std::min(numel, b + kChunk);
      for_each_run_in<1>(geo, b, e, [&](int64_t first, int64_t n, const std::array<int64_t, 1>& at,
                                        const std::array<int64_t, 1>& step) {
        const scalar_t* x = reinterpret_cast<const scalar_t*>(base + at[0]);
        const int64_t xs = step[0] / static_cast<int64_t>(sizeof(scalar_t));
        for (int64_t p = 0; p < n; ++p)
          if (convert<bool>(x[p * xs])) on_nonzero(first + p);
      });
    };
    parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t ch = b; ch < e; ++ch) for_chunk(ch, [&](int64_t) { ++counts[ch + 1]; });
    });
    for (int64_t ch = 0; ch < chunks; ++ch) counts[ch + 1] += counts[ch];
    out = empty(IntList{counts[chunks], nd}, TensorOptions(kInt64).device(self.device()));
    int64_t* o = out.data_ptr<int64_t>();
    parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t ch = b; ch < e; ++ch) {
        int64_t row = counts[ch];
        for_chunk(ch, [&](int64_t pos) {
          for (int64_t d = nd - 1; d >= 0; --d) {
            o[row * nd + d] = pos % sizes[d];
            pos /= sizes[d];
          }
          ++row;
        });
      }
    });
  });
  c.outputs.push_back(out);
}

void masked_fill_kernel(OpCall& c) {
  const Tensor& self = c.outputs[0];
  const Tensor& mask = c.in(1);
  const MaskedFillArgs a = MaskedFillArgs::from(c);
  EMBER_DISPATCH_ALL(self.dtype(), "masked_fill_", [&] {
    scalar_t value = a.value.to<scalar_t>();
    cpu_kernel(self, {&self, &mask}, [value](scalar_t x, bool m) -> scalar_t { return m ? value : x; });
  });
}

EMBER_REGISTER_KERNEL(index, CPU, index_kernel);
EMBER_REGISTER_KERNEL(index_put_, CPU, index_put_kernel);
EMBER_REGISTER_KERNEL(take, CPU, take_kernel);
EMBER_REGISTER_KERNEL(nonzero, CPU, nonzero_kernel);
EMBER_REGISTER_KERNEL(masked_fill_, CPU, masked_fill_kernel);

}  // namespace
}  // namespace ember::cpu
