// The element-wise reductions of ReduceOp on raw buffers, for backends that take a
// reduction function (Gloo's: out[i] = a[i] (op) b[i]), and AVG's final division.
// Half and bfloat16 reduce in float; bool SUM/MAX/BOR are "or", PRODUCT/MIN/BAND "and".
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

#include "ember/distributed/process_group.h"

namespace ember::distributed::detail {

using ReduceKernel = std::function<void(void*, const void*, const void*, size_t)>;

// AVG reduces as SUM (the division comes after, divide_in_place).
ReduceKernel reduce_kernel(DType dtype, ReduceOp op);
// inputs[0] (op) inputs[1] (op) ... in that order, into out, which is inputs[self]:
// every rank reducing the same inputs this way gets the same bits. The other inputs
// are scratch (inputs[0] may be overwritten).
void reduce_in_rank_order(const ReduceKernel& kernel, void* out, const std::vector<void*>& inputs,
                          int self, size_t count);
// data[i] /= divisor for a floating dtype.
void divide_in_place(void* data, DType dtype, size_t count, int64_t divisor);

}  // namespace ember::distributed::detail
