// Kernels that read or write along one dim through an index: gather,
// index_select, scatter_ (tensor or value, optional reduce), scatter_add_,
// index_add_, index_copy_, index_fill_.
//
// Each loops over the positions of every other dim in parallel blocks and, for
// each position, over the index along `dim`. Two positions never touch the same
// element of self, so accumulating kernels need no atomics (as in PyTorch).
// The op functions checked shapes and dtypes; index values are checked here
// (they are data), recorded inside the parallel loop and thrown after it.
#include <cstring>
#include <string>

#include "cpu/dtype_dispatch.h"
#include "cpu/index_loops.h"
#include "ember/ops/factories.h"

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

// out[p, j] = self[p, index[p, j]] along dim, over the positions of index.
void gather_loop(const Tensor& out, const Tensor& self, const Tensor& index, int64_t dim,
                 const char* op) {
  DimOperand o = dim_operand(out, dim), s = dim_operand(self, dim), ix = dim_operand(index, dim);
  const int64_t len = ix.dim_size, size = s.dim_size;
  const bool dim_inner = dim == index.dim() - 1;
  BadIndex bad;
  with_element_size(out.element_size(), [&](auto tag) {
    using T = decltype(tag);
    for_each_block<3>(sizes_without(index, dim), {o.strides, s.strides, ix.strides}, len,
                      [&](int64_t, int64_t n, const std::array<const int64_t*, 3>& offs) {
      auto body = [&](int64_t p, int64_t j) {
        int64_t i = *reinterpret_cast<const int64_t*>(ix.base + offs[2][p] + j * ix.dim_stride);
        if (i < 0 || i >= size) return bad.record(i);
        *reinterpret_cast<T*>(o.base + offs[0][p] + j * o.dim_stride) =
            *reinterpret_cast<const T*>(s.base + offs[1][p] + i * s.dim_stride);
      };
      if (dim_inner) {
        for (int64_t p = 0; p < n; ++p)
          for (int64_t j = 0; j < len; ++j) body(p, j);
      } else {
        for (int64_t j = 0; j < len; ++j)
          for (int64_t p = 0; p < n; ++p) body(p, j);
      }
    });
  });
  if (bad) throw_out_of_bounds(op, false, bad.value, dim, size);
}

void gather_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const Tensor& index = c.in(1);
  Tensor out = empty(index.sizes(), TensorOptions(self.dtype()).device(self.device()));
  if (out.numel()) gather_loop(out, self, index, c.attr(0).to_int(), c.name());
  c.outputs.push_back(out);
}

void index_select_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  int64_t dim = c.attr(0).to_int();
  DimVector sizes = self.sizes();
  sizes[dim] = c.in(1).numel();
  Tensor out = empty(sizes, TensorOptions(self.dtype()).device(self.device()));
  if (out.numel()) gather_loop(out, self, spread_index(c.in(1), out, dim), dim, c.name());
  c.outputs.push_back(out);
}

enum class Reduce { None, Add, Multiply };

Reduce parse_reduce(const std::string& s) {
  return s == "add" ? Reduce::Add : s == "multiply" ? Reduce::Multiply : Reduce::None;
}

// self[p, index[p, j]] (op)= src[p, j] (or value when src is undefined), over
// the positions of index. T is the element type; R the reduction.
template <typename T, Reduce R>
void scatter_loop(const Tensor& self, const Tensor& index, const Tensor& src, T value,
                  int64_t dim, bool wrap, BadIndex& bad) {
  DimOperand s = dim_operand(self, dim), ix = dim_operand(index, dim);
  DimOperand v = src.defined() ? dim_operand(src, dim) : DimOperand{nullptr, ix.strides, 0, 0};
  const bool has_src = src.defined();
  const int64_t len = ix.dim_size, size = s.dim_size;
  for_each_block<3>(sizes_without(index, dim), {s.strides, ix.strides, v.strides}, len,
                    [&](int64_t, int64_t n, const std::array<const int64_t*, 3>& offs) {
    for (int64_t j = 0; j < len; ++j)
      for (int64_t p = 0; p < n; ++p) {
        int64_t i = *reinterpret_cast<const int64_t*>(ix.base + offs[1][p] + j * ix.dim_stride);
        const int64_t given = i;
        if (i < 0 && wrap) i += size;
        if (i < 0 || i >= size) {
          bad.record(given);
          continue;
        }
        T x = has_src ? *reinterpret_cast<const T*>(v.base + offs[2][p] + j * v.dim_stride) : value;
        T* dst = reinterpret_cast<T*>(s.base + offs[0][p] + i * s.dim_stride);
        if constexpr (R == Reduce::None) *dst = x;
        else if constexpr (R == Reduce::Add)
          *dst = convert<T>(static_cast<opmath_t<T>>(*dst) + static_cast<opmath_t<T>>(x));
        else
          *dst = convert<T>(static_cast<opmath_t<T>>(*dst) * static_cast<opmath_t<T>>(x));
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
      if (reduce == Reduce::Add) scatter_loop<scalar_t, Reduce::Add>(self, index, src, v, dim, wrap, bad);
      else scatter_loop<scalar_t, Reduce::Multiply>(self, index, src, v, dim, wrap, bad);
    });
  }
  if (bad) throw_out_of_bounds(op, index_error, bad.value, dim, self.sizes()[dim]);
}

void scatter_kernel(OpCall& c) {
  run_scatter(c.outputs[0], c.in(1), c.in(2), Scalar(), c.attr(0).to_int(),
              parse_reduce(c.attr(1).to_string()), c.name(), false);
}

void scatter_value_kernel(OpCall& c) {
  run_scatter(c.outputs[0], c.in(1), Tensor(), c.attr(1).to_scalar(), c.attr(0).to_int(),
              parse_reduce(c.attr(2).to_string()), c.name(), false);
}

void scatter_add_kernel(OpCall& c) {
  run_scatter(c.outputs[0], c.in(1), c.in(2), Scalar(), c.attr(0).to_int(), Reduce::Add, c.name(),
              false);
}

void index_copy_kernel(OpCall& c) {
  const Tensor& source = c.in(2);
  int64_t dim = c.attr(0).to_int();
  run_scatter(c.outputs[0], spread_index(c.in(1), source, dim), source, Scalar(), dim,
              Reduce::None, c.name(), true);
}

void index_fill_kernel(OpCall& c) {
  const Tensor& self = c.outputs[0];
  int64_t dim = c.attr(0).to_int();
  run_scatter(self, spread_index(c.in(1), self, dim), Tensor(), c.attr(1).to_scalar(), dim,
              Reduce::None, c.name(), true, /*wrap=*/true);
}

// self[.., index[j], ..] += alpha * source[.., j, ..]: the index is read once per j
// and the other dims run innermost, where they are usually contiguous.
void index_add_kernel(OpCall& c) {
  const Tensor& self = c.outputs[0];
  const Tensor& index = c.in(1);
  const Tensor& source = c.in(2);
  const int64_t dim = c.attr(0).to_int();
  const int64_t n_index = index.numel();
  if (n_index == 0 || source.numel() == 0) return;
  const int64_t* idx = index.data_ptr<int64_t>();
  const int64_t idx_stride = index.dim() ? index.strides()[0] : 0;
  DimOperand s = dim_operand(self, dim), v = dim_operand(source, dim);
  BadIndex bad;
  EMBER_DISPATCH_ALL(self.dtype(), c.name(), [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t alpha = c.attr(1).to_scalar().to<acc_t>();
    for_each_block<2>(sizes_without(source, dim), {s.strides, v.strides}, n_index,
                      [&](int64_t, int64_t n, const std::array<const int64_t*, 2>& offs) {
      for (int64_t j = 0; j < n_index; ++j) {
        int64_t i = idx[j * idx_stride];
        if (i < 0 || i >= s.dim_size) {
          bad.record(i);
          continue;
        }
        char* dst = s.base + i * s.dim_stride;
        const char* src = v.base + j * v.dim_stride;
        for (int64_t p = 0; p < n; ++p) {
          scalar_t* d = reinterpret_cast<scalar_t*>(dst + offs[0][p]);
          acc_t x = static_cast<acc_t>(*reinterpret_cast<const scalar_t*>(src + offs[1][p]));
          *d = convert<scalar_t>(static_cast<acc_t>(*d) + alpha * x);
        }
      }
    });
  });
  if (bad) throw_out_of_bounds(c.name(), false, bad.value, dim, s.dim_size);
}

EMBER_REGISTER_KERNEL(gather, CPU, gather_kernel);
EMBER_REGISTER_KERNEL(index_select, CPU, index_select_kernel);
EMBER_REGISTER_KERNEL(scatter_, CPU, scatter_kernel);
EMBER_REGISTER_KERNEL(scatter_value_, CPU, scatter_value_kernel);
EMBER_REGISTER_KERNEL(scatter_add_, CPU, scatter_add_kernel);
EMBER_REGISTER_KERNEL(index_copy_, CPU, index_copy_kernel);
EMBER_REGISTER_KERNEL(index_fill_, CPU, index_fill_kernel);
EMBER_REGISTER_KERNEL(index_add_, CPU, index_add_kernel);

}  // namespace
}  // namespace ember::cpu
