// The operands of a fused optimizer update (lib/dispatch/schema/optim.toml) as
// contiguous memory, for the CPU (lib/cpu/optim.cpp) and CUDA
// (lib/cuda/optim/) kernels alike: a non-contiguous gradient is read through a
// contiguous copy, and a non-contiguous parameter or state tensor is updated in
// a contiguous copy that write_back() copies into it (on the operands' device).
#pragma once
#include "kernels/dtype_dispatch.h"
#include "dispatch/op_call.h"
#include "ember/ops/views.h"

// The dtypes of the optimizer updates: float32 and float64.
#define EMBER_DISPATCH_OPTIM(dtype, op, ...)                    \
  switch (dtype) {                                              \
    EMBER_DTYPE_CASE(Float32, float, __VA_ARGS__)               \
    EMBER_DTYPE_CASE(Float64, double, __VA_ARGS__)              \
    default: ::ember::throw_unsupported_dtype(op, dtype);  \
  }

namespace ember {

class DenseOperands {
 public:
  explicit DenseOperands(const OpCall& c) : call_(c) {
    for (const Tensor& t : c.inputs) dense_.push_back(t.defined() ? t.contiguous() : Tensor());
  }
  // nullptr for an optional input left out.
  template <typename T>
  T* data(size_t i) const {
    return dense_[i].defined() ? static_cast<T*>(dense_[i].data_ptr()) : nullptr;
  }
  int64_t numel() const { return dense_[0].numel(); }
  void write_back() const {
    for (size_t i = 0; i < dense_.size(); ++i) {
      // inputs[1] is the gradient: read only.
      if (i == 1 || !dense_[i].defined() || dense_[i].is_same(call_.in(i))) continue;
      Tensor target = call_.in(i);
      copy_(target, dense_[i]);
    }
  }

 private:
  const OpCall& call_;
  SmallVector<Tensor, 6> dense_;
};

}  // namespace ember
