// The sigmoid and tanh the CPU's recurrent kernels (rnn_cell.cpp, rnn_layer.cpp) pass to
// the cell formulas of kernels/rnn_cell_math.h: float32 takes the vectorizable ones of
// vec_math.h (a loop calling std::tanh never vectorizes), other dtypes the standard ones.
#pragma once
#include <type_traits>

#include "cpu/vec_math.h"
#include "kernels/rnn_cell_math.h"

namespace ember::cpu {

struct VecActivations {
  [[gnu::always_inline]] static float sigmoid(float x) { return vec::sigmoid(x); }
  [[gnu::always_inline]] static float tanh(float x) { return vec::tanh(x); }
};

template <typename T>
using ActivationsFor = std::conditional_t<std::is_same_v<T, float>, VecActivations, StdActivations>;

}  // namespace ember::cpu
