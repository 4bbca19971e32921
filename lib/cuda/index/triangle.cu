// tril and triu on CUDA: out[..., i, j] = keep(j - i) ? self[..., i, j] : 0, one
// thread per element (lib/cpu/shape.cpp decides the same output). Only moves
// elements: all-zero bits are 0 in every dtype.
#include "cuda/index/positions.cuh"
#include "dispatch/args/shape_index.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/shape_index.h"
#include "ember/ops/factories.h"

namespace ember::cuda {
namespace {

void triangle(OpCall& c, int64_t k, bool lower) {
  const Tensor& self = c.in(0);
  Tensor out = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  c.outputs.push_back(out);
  if (out.numel() == 0) return;
  LaunchContext ctx(out);
  const int64_t nd = self.dim(), rows = self.size(nd - 2), cols = self.size(nd - 1);
  char* const out_base = bytes_of(out);
  EMBER_DISPATCH_ELEMENT_SIZE(out.element_size(), [&] {
    using T = elem_t;
    for_each_position<2>(ctx.stream, out.sizes(), {byte_strides(out), byte_strides(self)},
                         {out_base, bytes_of(self)}, [=] __device__(char* const(&p)[2]) {
      // out is contiguous: its element's linear index gives (i, j).
      const int64_t linear = (p[0] - out_base) / static_cast<int64_t>(sizeof(T));
      const int64_t j = linear % cols, i = (linear / cols) % rows;
      const bool keep = lower ? j - i <= k : j - i >= k;  // |j - i| < 2^62: no overflow
      *reinterpret_cast<T*>(p[0]) = keep ? *reinterpret_cast<const T*>(p[1]) : T(0);
    });
  });
}

void tril_kernel(OpCall& c) { triangle(c, TrilArgs::from(c).diagonal, true); }
void triu_kernel(OpCall& c) { triangle(c, TriuArgs::from(c).diagonal, false); }

EMBER_REGISTER_KERNEL(tril, CUDA, tril_kernel);
EMBER_REGISTER_KERNEL(triu, CUDA, triu_kernel);

}  // namespace
}  // namespace ember::cuda
