// embedding (rows of a table gathered by index) and one_hot. Both check the
// index values here, where the data is read: sequentially, before any
// parallel region (rule: never throw inside one).
#include <cstring>

#include "cpu/parallel.h"
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"

namespace ember::cpu {
namespace {

template <typename Index>
void check_indices(const Index* idx, int64_t n, int64_t rows) {
  for (int64_t i = 0; i < n; ++i)
    EMBER_CHECK_INDEX(idx[i] >= 0 && idx[i] < rows, "embedding: index ", int64_t(idx[i]),
                      " is out of range for an embedding table of ", rows,
                      " rows (indices must be in [0, ", rows, "))");
}

template <typename Index>
void gather_rows(const char* table, const Index* idx, int64_t n, int64_t row_bytes, char* out) {
  parallel_for(0, n, std::max<int64_t>(1, kGrainSize * 4 / std::max<int64_t>(row_bytes, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t i = b; i < e; ++i)
                   std::memcpy(out + i * row_bytes, table + int64_t(idx[i]) * row_bytes,
                               static_cast<size_t>(row_bytes));
               });
}

void embedding_kernel(OpCall& c) {
  const Tensor weight = c.in(0).contiguous();
  const Tensor idx = c.in(1).contiguous();
  const int64_t rows = weight.size(0), dim = weight.size(1), n = idx.numel();
  DimVector shape = idx.sizes();
  shape.push_back(dim);
  Tensor out = empty(shape, TensorOptions(weight.dtype()));
  const int64_t row_bytes = dim * weight.element_size();
  const char* table = static_cast<const char*>(weight.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  if (idx.dtype() == kInt64) {
    const int64_t* ip = static_cast<const int64_t*>(idx.data_ptr());
    check_indices(ip, n, rows);
    gather_rows(table, ip, n, row_bytes, dst);
  } else {
    const int32_t* ip = static_cast<const int32_t*>(idx.data_ptr());
    check_indices(ip, n, rows);
    gather_rows(table, ip, n, row_bytes, dst);
  }
  c.outputs.push_back(out);
}

void one_hot_kernel(OpCall& c) {
  const Tensor idx = c.in(0).contiguous();
  int64_t num_classes = OneHotArgs::from(c).num_classes;
  const int64_t n = idx.numel();
  const int64_t* ip = static_cast<const int64_t*>(idx.data_ptr());
  int64_t lo = 0, hi = -1;
  for (int64_t i = 0; i < n; ++i) {
    lo = i == 0 ? ip[i] : std::min(lo, ip[i]);
    hi = i == 0 ? ip[i] : std::max(hi, ip[i]);
  }
  if (num_classes == -1) {
    EMBER_CHECK(n > 0, "one_hot: can not infer the total number of classes from an empty tensor");
    num_classes = hi + 1;
  }
  EMBER_CHECK(n == 0 || lo >= 0, "one_hot: class values must be non-negative, got ", lo);
  EMBER_CHECK(n == 0 || hi < num_classes, "one_hot: class values must be smaller than num_classes (",
              num_classes, "), got ", hi);
  DimVector shape = idx.sizes();
  shape.push_back(num_classes);
  Tensor out = zeros(IntList(shape.begin(), shape.end()), TensorOptions(kInt64));
  int64_t* op = static_cast<int64_t*>(out.data_ptr());
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) op[i * num_classes + ip[i]] = 1;
  });
  c.outputs.push_back(out);
}

EMBER_REGISTER_KERNEL(embedding, CPU, embedding_kernel);
EMBER_REGISTER_KERNEL(one_hot, CPU, one_hot_kernel);

}  // namespace
}  // namespace ember::cpu
