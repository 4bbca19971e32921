// Kernels that read or write along one dim through an index: gather,
// index_select, scatter_ (tensor or value, optional reduce), scatter_add_,
// scatter_reduce_ (sum, prod, amax, amin), index_add_, index_copy_, index_fill_.
//
// Each loops over the positions of every other dim in parallel blocks and, for
// each position, over the index along `dim`. Two positions never touch the same
// element of self, so accumulating kernels need no atomics (as in PyTorch).
// The op functions checked shapes and dtypes; index values are checked here
// (they are data), recorded inside the parallel loop and thrown after it.
#include <cstring>
#include <string>
#include <type_traits>

#include "kernels/dtype_dispatch.h"
#include "kernels/scatter_reduce.h"
#include "cpu/index_loops.h"
#include "ember/ops/factories.h"
#include "dispatch/args/shape_index.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::cpu {
namespace {

// One operand of an along-dim loop: its base pointer, byte strides over the
// other dims, byte stride along dim and size along dim.
struct DimOperand {
  char* base;
  DimVector strides;
  int64_t dim_stride;
  int64_t dim_size;
};

DimOperand dim_operand(const Tensor& t, int64_t dim) {
  return {static_cast<char*>(t.data_ptr()), byte_strides_without(t, dim),
          t.strides()[dim] * t.element_size(), t.sizes()[dim]};
}

DimVector sizes_without(const Tensor& t, int64_t dim) {
  DimVector out = t.sizes();
  out.erase(out.begin() + dim);
  return out;
}

// The index tensor's view that an "index_*" op implies: index (1-d, n entries)
// laid along `dim` of a tensor of `like`'s other sizes (stride 0 elsewhere).
Tensor spread_index(const Tensor& index, const Tensor& like, int64_t dim) {
  DimVector sizes = like.sizes(), strides(like.dim(), 0);
  sizes[dim] = index.numel();
  strides[dim] = index.dim() ? index.strides()[0] : 0;
  return restride(index, sizes, strides, index.storage_offset());
}

[[noreturn]] void throw_out_of_bounds(const char* op, bool index_error, int64_t value,
                                      int64_t dim, int64_t size) {
  std::string msg = detail::str(op, ": index ", value, " is out of bounds for dimension ", dim,
                                " with size ", size);
  if (index_error) throw IndexError(msg);
  throw Error(msg);
}

// Element strides (a byte stride over sizeof(T)).
template <typename T>
inline int64_t el(int64_t bytes) { return bytes / static_cast<int64_t>(sizeof(T)); }

// out[p, j] = self[p, index[p, j]] along dim, over the positions of index. When
// dim is the innermost dim the j loop runs inside (contiguous), else outside.
void gather_loop(const Tensor& out, const Tensor& self, const Tensor& index, int64_t dim,
                 const char* op, bool index_error) {
  DimOperand o = dim_operand(out, dim), s = dim_operand(self, dim), ix = dim_operand(index, dim);
  const int64_t len = ix.dim_size, size = s.dim_size;
  const bool dim_inner = dim == index.dim() - 1;
  BadIndex bad;
  with_element_size(out.element_size(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t od = el<T>(o.dim_stride), sd = el<T>(s.dim_stride), id = el<int64_t>(ix.dim_stride);
    for_each_run<3>(sizes_without(index, dim), {o.strides, s.strides, ix.strides}, len,
                    [&](int64_t, int64_t n, const std::array<int64_t, 3>& base,
                        const std::array<int64_t, 3>& step) {
      T* op = reinterpret_cast<T*>(o.base + base[0]);
      const T* sp = reinterpret_cast<const T*>(s.base + base[1]);
      const int64_t* ip = reinterpret_cast<const int64_t*>(ix.base + base[2]);
      const int64_t ps = el<T>(step[0]), ss = el<T>(step[1]), is = el<int64_t>(step[2]);
      if (dim_inner) {
        // Branch-free: an index out of range reads element 0 and is reported after the loop.
        for (int64_t p = 0; p < n; ++p) {
          const int64_t* ipp = ip + p * is;
          const T* spp = sp + p * ss;
          T* opp = op + p * ps;
          bool ok = true;
          for (int64_t j = 0; j < len; ++j) {
            const int64_t i = ipp[j * id];
            const bool in = static_cast<uint64_t>(i) < static_cast<uint64_t>(size);
            ok &= in;
            opp[j * od] = spp[(in ? i : 0) * sd];
          }
          if (__builtin_expect(!ok, 0))
            for (int64_t j = 0; j < len; ++j)
              if (static_cast<uint64_t>(ipp[j * id]) >= static_cast<uint64_t>(size)) bad.record(ipp[j * id]);
        }
      } else {
        for (int64_t j = 0; j < len; ++j) {
          if (is == 0) {  // one index for the whole run (index_select, broadcast index): a row copy
            const int64_t i = ip[j * id];
            if (static_cast<uint64_t>(i) >= static_cast<uint64_t>(size)) {
              bad.record(i);
              continue;
            }
            const T* src = sp + i * sd;
            T* dst = op + j * od;
            for (int64_t p = 0; p < n; ++p) dst[p * ps] = src[p * ss];
            continue;
          }
          for (int64_t p = 0; p < n; ++p) {
            const int64_t i = ip[p * is + j * id];
            if (static_cast<uint64_t>(i) >= static_cast<uint64_t>(size)) {
              bad.record(i);
              continue;
            }
            op[p * ps + j * od] = sp[p * ss + i * sd];
          }
        }
      }
    });
  });
  if (bad) throw_out_of_bounds(op, index_error, bad.value, dim, size);
}

void gather_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const Tensor& index = c.in(1);
  const GatherArgs a = GatherArgs::from(c);
  Tensor out = empty(index.sizes(), TensorOptions(self.dtype()).device(self.device()));
  if (out.numel()) gather_loop(out, self, index, a.dim, c.name(), false);
  c.outputs.push_back(out);
}

void index_select_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const IndexSelectArgs a = IndexSelectArgs::from(c);
  DimVector sizes = self.sizes();
  sizes[a.dim] = c.in(1).numel();
  Tensor out = empty(sizes, TensorOptions(self.dtype()).device(self.device()));
  // torch raises IndexError for index_select (RuntimeError for gather).
  if (out.numel()) gather_loop(out, self, spread_index(c.in(1), out, a.dim), a.dim, c.name(), true);
  c.outputs.push_back(out);
}

using Reduce = ScatterReduce;
Reduce parse_reduce(const std::string& s) { return parse_scatter_reduce(s); }

// max/min that propagate NaN from either side (torch's amax/amin do).
template <typename A>
A nan_max(A a, A b) {
  if constexpr (std::is_floating_point_v<A>) if (b != b) return b;
  return b > a ? b : a;
}
template <typename A>
A nan_min(A a, A b) {
  if constexpr (std::is_floating_point_v<A>) if (b != b) return b;
  return b < a ? b : a;
}

// self[p, index[p, j]] (op)= src[p, j] (or value when src is undefined), over
// the positions of index. T is the element type; R the reduction. Positions of
// one run write distinct elements of self, so runs may go in parallel.
template <typename T, Reduce R>
void scatter_loop(const Tensor& self, const Tensor& index, const Tensor& src, T value,
                  int64_t dim, bool wrap, BadIndex& bad) {
  DimOperand s = dim_operand(self, dim), ix = dim_operand(index, dim);
  DimOperand v = src.defined() ? dim_operand(src, dim) : DimOperand{nullptr, ix.strides, 0, 0};
  const bool has_src = src.defined();
  const int64_t len = ix.dim_size, size = s.dim_size;
  const bool dim_inner = dim == index.dim() - 1;
  const int64_t sd = el<T>(s.dim_stride), id = el<int64_t>(ix.dim_stride), vd = el<T>(v.dim_stride);
  for_each_run<3>(sizes_without(index, dim), {s.strides, ix.strides, v.strides}, len,
                  [&](int64_t, int64_t n, const std::array<int64_t, 3>& base,
                      const std::array<int64_t, 3>& step) {
    T* sp = reinterpret_cast<T*>(s.base + base[0]);
    const int64_t* ip = reinterpret_cast<const int64_t*>(ix.base + base[1]);
    const T* vp = has_src ? reinterpret_cast<const T*>(v.base + base[2]) : nullptr;
    const int64_t ss = el<T>(step[0]), is = el<int64_t>(step[1]), vs = el<T>(step[2]);
    auto one = [&](int64_t p, int64_t j) {
      int64_t i = ip[p * is + j * id];
      const int64_t given = i;
      if (i < 0 && wrap) i += size;
      if (__builtin_expect(i < 0 || i >= size, 0)) return bad.record(given);
      T x = has_src ? vp[p * vs + j * vd] : value;
      T* dst = sp + p * ss + i * sd;
      if constexpr (R == Reduce::None) *dst = x;
      else if constexpr (R == Reduce::Add)
        *dst = convert<T>(static_cast<opmath_t<T>>(*dst) + static_cast<opmath_t<T>>(x));
      else if constexpr (R == Reduce::Multiply)
        *dst = convert<T>(static_cast<opmath_t<T>>(*dst) * static_cast<opmath_t<T>>(x));
      else if constexpr (R == Reduce::Max)
        *dst = convert<T>(nan_max(static_cast<opmath_t<T>>(*dst), static_cast<opmath_t<T>>(x)));
      else
        *dst = convert<T>(nan_min(static_cast<opmath_t<T>>(*dst), static_cast<opmath_t<T>>(x)));
    };
    if (dim_inner) {
      for (int64_t p = 0; p < n; ++p)
        for (int64_t j = 0; j < len; ++j) one(p, j);
    } else {
      for (int64_t j = 0; j < len; ++j)
        for (int64_t p = 0; p < n; ++p) one(p, j);
    }
  });
}

// scatter_ / scatter_value_ / scatter_add_ / index_copy_ / index_fill_: one body.
// index_fill_ alone wraps negative indices (as PyTorch does).
void run_scatter(const Tensor& self, const Tensor& index, const Tensor& src, const Scalar& value,
                 int64_t dim, Reduce reduce, const char* op, bool index_error, bool wrap = false) {
  BadIndex bad;
  if (index.numel() == 0) return;
  if (reduce == Reduce::None) {
    with_element_size(self.element_size(), [&](auto tag) {
      using T = decltype(tag);
      T v{};
      if (!src.defined()) {  // the value's bits in self's dtype
        EMBER_DISPATCH_ALL(self.dtype(), op, [&] {
          if constexpr (sizeof(scalar_t) == sizeof(T)) {
            scalar_t typed = value.to<scalar_t>();
            std::memcpy(&v, &typed, sizeof(T));
          }
        });
      }
      scatter_loop<T, Reduce::None>(self, index, src, v, dim, wrap, bad);
    });
  } else {
    EMBER_DISPATCH_ALL(self.dtype(), op, [&] {
      scalar_t v = src.defined() ? scalar_t() : value.to<scalar_t>();
      switch (reduce) {
        case Reduce::Add: scatter_loop<scalar_t, Reduce::Add>(self, index, src, v, dim, wrap, bad); break;
        case Reduce::Multiply: scatter_loop<scalar_t, Reduce::Multiply>(self, index, src, v, dim, wrap, bad); break;
        case Reduce::Max: scatter_loop<scalar_t, Reduce::Max>(self, index, src, v, dim, wrap, bad); break;
        default: scatter_loop<scalar_t, Reduce::Min>(self, index, src, v, dim, wrap, bad); break;
      }
    });
  }
  if (bad) throw_out_of_bounds(op, index_error, bad.value, dim, self.sizes()[dim]);
}

void scatter_kernel(OpCall& c) {
  const ScatterArgs a = ScatterArgs::from(c);
  run_scatter(c.outputs[0], c.in(1), c.in(2), Scalar(), a.dim, parse_reduce(a.reduce), c.name(),
              false);
}

void scatter_value_kernel(OpCall& c) {
  const ScatterValueArgs a = ScatterValueArgs::from(c);
  run_scatter(c.outputs[0], c.in(1), Tensor(), a.value, a.dim, parse_reduce(a.reduce), c.name(),
              false);
}

void scatter_add_kernel(OpCall& c) {
  const ScatterAddArgs a = ScatterAddArgs::from(c);
  run_scatter(c.outputs[0], c.in(1), c.in(2), Scalar(), a.dim, Reduce::Add, c.name(), false);
}

// scatter_reduce_: with include_self false, the positions the index names first
// take the reduction's identity, so that only src's values meet there.
void scatter_reduce_kernel(OpCall& c) {
  const ScatterReduceArgs a = ScatterReduceArgs::from(c);
  const Tensor& self = c.outputs[0];
  const Reduce reduce = parse_reduce(a.reduce);
  if (!a.include_self)
    run_scatter(self, c.in(1), Tensor(), scatter_reduce_identity(reduce, self.dtype(), c.name()),
                a.dim, Reduce::None, c.name(), false);
  run_scatter(self, c.in(1), c.in(2), Scalar(), a.dim, reduce, c.name(), false);
}

void index_copy_kernel(OpCall& c) {
  const Tensor& source = c.in(2);
  const IndexCopyArgs a = IndexCopyArgs::from(c);
  run_scatter(c.outputs[0], spread_index(c.in(1), source, a.dim), source, Scalar(), a.dim,
              Reduce::None, c.name(), true);
}

void index_fill_kernel(OpCall& c) {
  const Tensor& self = c.outputs[0];
  const IndexFillArgs a = IndexFillArgs::from(c);
  run_scatter(self, spread_index(c.in(1), self, a.dim), Tensor(), a.value, a.dim, Reduce::None,
              c.name(), true, /*wrap=*/true);
}

// self[.., index[j], ..] += alpha * source[.., j, ..]: the index is read once per j
// and the other dims run innermost, where they are usually contiguous.
void index_add_kernel(OpCall& c) {
  const Tensor& self = c.outputs[0];
  const Tensor& index = c.in(1);
  const Tensor& source = c.in(2);
  const IndexAddArgs a = IndexAddArgs::from(c);
  const int64_t n_index = index.numel();
  if (n_index == 0 || source.numel() == 0) return;
  const int64_t* idx = index.data_ptr<int64_t>();
  const int64_t idx_stride = index.dim() ? index.strides()[0] : 0;
  DimOperand s = dim_operand(self, a.dim), v = dim_operand(source, a.dim);
  BadIndex bad;
  EMBER_DISPATCH_ALL(self.dtype(), c.name(), [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t alpha = a.alpha.to<acc_t>();
    const int64_t sd = el<scalar_t>(s.dim_stride), vd = el<scalar_t>(v.dim_stride);
    for_each_run<2>(sizes_without(source, a.dim), {s.strides, v.strides}, n_index,
                    [&](int64_t, int64_t n, const std::array<int64_t, 2>& base,
                        const std::array<int64_t, 2>& step) {
      scalar_t* sp = reinterpret_cast<scalar_t*>(s.base + base[0]);
      const scalar_t* vp = reinterpret_cast<const scalar_t*>(v.base + base[1]);
      const int64_t ss = el<scalar_t>(step[0]), vs = el<scalar_t>(step[1]);
      for (int64_t j = 0; j < n_index; ++j) {
        const int64_t i = idx[j * idx_stride];
        if (i < 0 || i >= s.dim_size) {
          bad.record(i);
          continue;
        }
        scalar_t* dst = sp + i * sd;
        const scalar_t* src = vp + j * vd;
        for (int64_t p = 0; p < n; ++p)
          dst[p * ss] = convert<scalar_t>(static_cast<acc_t>(dst[p * ss]) +
                                          alpha * static_cast<acc_t>(src[p * vs]));
      }
    });
  });
  if (bad) throw_out_of_bounds(c.name(), false, bad.value, a.dim, s.dim_size);
}

EMBER_REGISTER_KERNEL(gather, CPU, gather_kernel);
EMBER_REGISTER_KERNEL(index_select, CPU, index_select_kernel);
EMBER_REGISTER_KERNEL(scatter_, CPU, scatter_kernel);
EMBER_REGISTER_KERNEL(scatter_value_, CPU, scatter_value_kernel);
EMBER_REGISTER_KERNEL(scatter_add_, CPU, scatter_add_kernel);
EMBER_REGISTER_KERNEL(scatter_reduce_, CPU, scatter_reduce_kernel);
EMBER_REGISTER_KERNEL(index_copy_, CPU, index_copy_kernel);
EMBER_REGISTER_KERNEL(index_fill_, CPU, index_fill_kernel);
EMBER_REGISTER_KERNEL(index_add_, CPU, index_add_kernel);

}  // namespace
}  // namespace ember::cpu
