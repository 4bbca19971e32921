// Backward of embedding: grad_weight[i] = sum of the grad_output rows whose
// index is i. The positions are sorted by index first (a counting sort,
// stable), so each table row is summed by one thread, in position order:
// no races, no atomics, the same sums on every run. Parts of the sorted
// positions are balanced by count; a part owns the rows that start in it.
#include <cstring>

#include "cpu/nn_backward_common.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"

namespace ember::cpu {
namespace {

// Positions of the n indices sorted by index (padding_idx left out), with
// start[i] .. start[i + 1] the positions of row i. IndexError for an index
// outside [0, rows) (checked here, before any parallel region).
template <typename Index>
void sort_positions(const Index* idx, int64_t n, int64_t rows, int64_t padding_idx,
                    std::vector<int64_t>& start, std::vector<int64_t>& order) {
  start.assign(static_cast<size_t>(rows + 1), 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = static_cast<int64_t>(idx[i]);
    EMBER_CHECK_INDEX(v >= 0 && v < rows, "embedding_dense_backward: index ", v,
                      " is out of range for an embedding table of ", rows, " rows");
    if (v != padding_idx) ++start[v + 1];
  }
  for (int64_t r = 0; r < rows; ++r) start[r + 1] += start[r];
  order.resize(static_cast<size_t>(start[rows]));
  std::vector<int64_t> next(start.begin(), start.end() - 1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = static_cast<int64_t>(idx[i]);
    if (v != padding_idx) order[next[v]++] = i;
  }
}

// Rows whose first sorted position lies in [q0, q1): out[row] = sum of g[pos] (/ count).
template <typename T>
EMBER_CLONES void sum_rows(const T* g, T* out, const int64_t* start, const int64_t* order,
                           const int64_t* rows_by_start, int64_t n_rows, int64_t q0, int64_t q1, int64_t D,
                           bool by_freq, opmath_t<T>* acc) {
  using acc_t = opmath_t<T>;
  // The touched rows are listed by first position; find those starting in [q0, q1).
  const int64_t* first = std::lower_bound(rows_by_start, rows_by_start + n_rows, q0,
                                          [&](int64_t row, int64_t q) { return start[row] < q; });
  for (const int64_t* it = first; it != rows_by_start + n_rows && start[*it] < q1; ++it) {
    const int64_t row = *it, b = start[row], e = start[row + 1];
    for (int64_t d = 0; d < D; ++d) acc[d] = 0;
    for (int64_t q = b; q < e; ++q) {
      const T* gr = g + order[q] * D;
#pragma omp simd
      for (int64_t d = 0; d < D; ++d) acc[d] += static_cast<acc_t>(gr[d]);
    }
    // scale_grad_by_freq: each contribution divided by the index's count.
    const acc_t s = by_freq ? acc_t(1) / static_cast<acc_t>(e - b) : acc_t(1);
    T* o = out + row * D;
#pragma omp simd
    for (int64_t d = 0; d < D; ++d) o[d] = convert<T>(acc[d] * s);
  }
}

template <typename Index>
void embedding_backward_impl(const Tensor& g, const Index* idx, int64_t n, int64_t rows, int64_t padding_idx,
                             bool by_freq, Tensor& out) {
  std::vector<int64_t> start, order;
  sort_positions(idx, n, rows, padding_idx, start, order);
  std::vector<int64_t> touched;  // rows with at least one position, in order of their first
  for (int64_t r = 0; r < rows; ++r)
    if (start[r + 1] > start[r]) touched.push_back(r);
  const int64_t D = out.size(1), m = static_cast<int64_t>(order.size());
  if (m == 0 || D == 0) return;
  EMBER_DISPATCH_FLOATING(g.dtype(), "embedding_dense_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* gp = static_cast<const scalar_t*>(g.data_ptr());
    scalar_t* op = static_cast<scalar_t*>(out.data_ptr());
    const int64_t parts = num_parts(m, std::max<int64_t>(1, kGrainSize / D));
    parallel_parts(m, parts, [&](int64_t, int64_t q0, int64_t q1) {
      std::vector<acc_t> acc(static_cast<size_t>(D));
      sum_rows(gp, op, start.data(), order.data(), touched.data(), static_cast<int64_t>(touched.size()), q0, q1,
               D, by_freq, acc.data());
    });
  });
}

void embedding_backward_kernel(OpCall& c) {
  const Tensor idx = c.in(1).contiguous();
  const EmbeddingBackwardArgs a = EmbeddingBackwardArgs::from(c);
  const int64_t n = idx.numel();
  const int64_t D = c.in(0).size(-1);
  const Tensor g = c.in(0).contiguous();
  Tensor out = zeros({a.num_weights, D}, TensorOptions(g.dtype()));
  if (idx.dtype() == kInt64)
    embedding_backward_impl(g, static_cast<const int64_t*>(idx.data_ptr()), n, a.num_weights,
                            a.padding_idx, a.scale_grad_by_freq, out);
  else
    embedding_backward_impl(g, static_cast<const int32_t*>(idx.data_ptr()), n, a.num_weights,
                            a.padding_idx, a.scale_grad_by_freq, out);
  c.outputs.push_back(out);
}

EMBER_REGISTER_KERNEL(embedding_backward, CPU, embedding_backward_kernel);

}  // namespace
}  // namespace ember::cpu
