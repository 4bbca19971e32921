// Tensors over memory that ember does not own: a numpy array, a buffer handed
// over through DLPack, a C++ user's array. No copy is made; the owner is told
// through a deleter when the last tensor viewing the memory goes away.
#pragma once
#include <functional>

#include "ember/options.h"
#include "ember/storage.h"
#include "ember/tensor.h"

namespace ember {

// A tensor viewing `data` with the given sizes and strides (in elements, all
// non-negative; dims of size 0 or 1 may have any non-negative stride). The
// deleter (may be null for memory the caller keeps alive itself) is called as
// deleter(ctx, data) exactly once: when the last tensor using the memory is
// destroyed, or before from_blob returns if it throws (a bad shape, a bad device).
Tensor from_blob(void* data, const IntList& sizes, const IntList& strides, DType dtype,
                 Device device, StorageDeleter deleter, void* ctx);

// The same for C++ callers, like torch::from_blob: row-major when strides are
// not given, and any callable as the deleter (called with the data pointer).
Tensor from_blob(void* data, const IntList& sizes, std::function<void(void*)> deleter,
                 TensorOptions options = {});
Tensor from_blob(void* data, const IntList& sizes, const IntList& strides,
                 std::function<void(void*)> deleter, TensorOptions options = {});

}  // namespace ember
