// pad: every mode is an index map per padded dim (output index -> source
// index, or -1 for "the constant"), so one loop serves constant, reflect,
// replicate and circular padding, any dtype (moved as raw bits of its size)
// and any input strides. Rows of the last dim run the inner loop.
#include <algorithm>
#include <cstring>

#include "kernels/dtype_dispatch.h"
#include "kernels/pad_index.h"
#include "cpu/parallel.h"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/factories.h"

namespace ember::cpu {
namespace {

// The output range [lo, hi) of the last dim that copies the input straight
// (map[o] == o - left): the row's interior, moved with one memcpy.
std::pair<int64_t, int64_t> interior(const std::vector<int64_t>& map, int64_t left) {
  const int64_t n = static_cast<int64_t>(map.size());
  int64_t lo = 0;
  while (lo < n && !(map[lo] >= 0 && map[lo] == lo - left)) ++lo;
  int64_t hi = lo;
  while (hi < n && map[hi] >= 0 && map[hi] == hi - left) ++hi;
  return {lo, hi};
}

template <typename Bits>
void pad_rows(const Tensor& x, const Tensor& out, const std::vector<std::vector<int64_t>>& maps,
              int64_t last_left, Bits fill) {
  const int64_t nd = out.dim();
  const int64_t inner = out.size(nd - 1), rows = out.numel() / std::max<int64_t>(inner, 1);
  const std::vector<int64_t>& last = maps[nd - 1];
  // Plain variables, not a structured binding: the row lambda below captures
  // them, which clang accepts only from version 16 (the fuzz build uses 14).
  const std::pair<int64_t, int64_t> span = interior(last, last_left);
  const int64_t lo = span.first, hi = span.second;
  const int64_t last_stride = x.stride(nd - 1);
  const Bits* src = static_cast<const Bits*>(x.data_ptr());
  Bits* dst = static_cast<Bits*>(out.data_ptr());
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(inner, 1)),
               [&](int64_t r0, int64_t r1) {
    DimVector idx(static_cast<size_t>(std::max<int64_t>(nd - 1, 1)), 0);  // the row's outer indices
    for (int64_t d = nd - 2, rem = r0; d >= 0; --d) {
      idx[d] = rem % out.size(d);
      rem /= out.size(d);
    }
    for (int64_t r = r0; r < r1; ++r) {
      Bits* row = dst + r * inner;
      int64_t offset = 0;
      bool constant_row = false;
      for (int64_t d = 0; d + 1 < nd; ++d) {
        const int64_t j = maps[d][idx[d]];
        constant_row = constant_row || j < 0;
        offset += j * x.stride(d);
      }
      for (int64_t d = nd - 2; d >= 0 && ++idx[d] == out.size(d); --d) idx[d] = 0;  // next row
      if (constant_row) {
        std::fill(row, row + inner, fill);
        continue;
      }
      const Bits* in_row = src + offset;
      for (int64_t o = 0; o < lo; ++o) row[o] = last[o] < 0 ? fill : in_row[last[o] * last_stride];
      if (last_stride == 1) {
        std::memcpy(row + lo, in_row + (lo - last_left), static_cast<size_t>(hi - lo) * sizeof(Bits));
      } else {
        for (int64_t o = lo; o < hi; ++o) row[o] = in_row[(o - last_left) * last_stride];
      }
      for (int64_t o = hi; o < inner; ++o) row[o] = last[o] < 0 ? fill : in_row[last[o] * last_stride];
    }
  });
}

void pad_kernel(OpCall& c) {
  const Tensor& x = c.in(0);
  const PadArgs a = PadArgs::from(c);
  const int64_t nd = x.dim(), k = static_cast<int64_t>(a.pad.size()) / 2;
  DimVector out_sizes = x.sizes();
  std::vector<std::vector<int64_t>> maps(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t i = nd - 1 - d;  // pad pairs run from the last dim backwards
    const int64_t left = i < k ? a.pad[2 * i] : 0, right = i < k ? a.pad[2 * i + 1] : 0;
    out_sizes[d] = x.size(d) + left + right;
    maps[d].resize(static_cast<size_t>(out_sizes[d]));
    for (int64_t o = 0; o < out_sizes[d]; ++o) maps[d][o] = pad_source(o, x.size(d), left, right, a.mode);
  }
  Tensor out = empty(out_sizes, TensorOptions(x.dtype()));
  c.outputs.push_back(out);
  if (out.numel() == 0) return;
  if (nd == 0) {
    std::memcpy(out.data_ptr(), x.data_ptr(), static_cast<size_t>(x.element_size()));
    return;
  }
  uint64_t fill = 0;  // the value's bits in the output dtype
  EMBER_DISPATCH_ALL(x.dtype(), "pad", [&] {
    scalar_t v = a.value.to<scalar_t>();
    std::memcpy(&fill, &v, sizeof v);
  });
  const int64_t last_left = k > 0 ? a.pad[0] : 0;
  switch (x.element_size()) {
    case 1: pad_rows<uint8_t>(x, out, maps, last_left, static_cast<uint8_t>(fill)); break;
    case 2: pad_rows<uint16_t>(x, out, maps, last_left, static_cast<uint16_t>(fill)); break;
    case 4: pad_rows<uint32_t>(x, out, maps, last_left, static_cast<uint32_t>(fill)); break;
    default: pad_rows<uint64_t>(x, out, maps, last_left, fill); break;
  }
}

EMBER_REGISTER_KERNEL(pad, CPU, pad_kernel);

}  // namespace
}  // namespace ember::cpu
