// Building an OpCall's input list.
#pragma once
#include "ember/small_vector.h"
#include "ember/tensor.h"

namespace ember {

// The inputs of a call, each tensor copied once. An initializer list
// (`SmallVector<Tensor, 4>{a, b}`) copies every tensor twice, and each copy is an
// atomic reference count: a measurable part of a small op's time.
template <typename... Ts>
SmallVector<Tensor, 4> call_inputs(const Ts&... tensors) {
  SmallVector<Tensor, 4> in;
  (in.push_back(tensors), ...);
  return in;
}

}  // namespace ember
