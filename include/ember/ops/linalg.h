// Free functions of the linalg group (ember::...): matrix products,
// convolutions and pooling, with PyTorch's names, arguments and rank rules.
#pragma once
#include <optional>
#include <string>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

// ---- matrix products (lib/ops/linalg.cpp) -------------------------------------------
// float32/float64 through BLAS, float16/bfloat16 computed in float32, integers by
// plain loops. Both operands must have the same dtype (PyTorch's rule).
Tensor mm(const Tensor& self, const Tensor& mat2);           // [n,m] @ [m,p]
Tensor bmm(const Tensor& self, const Tensor& mat2);          // [b,n,m] @ [b,m,p]
Tensor mv(const Tensor& self, const Tensor& vec);            // [n,m] @ [m]
Tensor dot(const Tensor& self, const Tensor& other);         // [n] . [n] -> 0-dim
// beta * self + alpha * (mat1 @ mat2); self broadcasts to the product's shape.
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1);
// torch.matmul: dot, mv, mm, or a batched product with broadcast batch dims;
// a 1-d operand gets a dim prepended (left) or appended (right), removed after.
Tensor matmul(const Tensor& self, const Tensor& other);
// self[i] * vec2[j]; promotes dtypes like multiplication.
Tensor outer(const Tensor& self, const Tensor& vec2);
// input @ weight.T + bias; weight [out, in] (or [in]), input [..., in].
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

// ---- convolutions (lib/ops/conv.cpp) ---------------------------------------------------
// Inputs are batched [N, C, ...] or unbatched [C, ...]; weight [C_out, C_in/groups, k...].
// `padding`: sizes ({1} or {1, 2}) or PyTorch's strings "valid" / "same".
struct ConvPadding {
  ConvPadding(IntList p) : sizes(std::move(p)) {}
  ConvPadding(std::initializer_list<int64_t> p) : sizes(p) {}
  ConvPadding(std::string m) : mode(std::move(m)) {}
  ConvPadding(const char* m) : mode(m) {}
  IntList sizes;
  std::string mode;  // "valid" or "same"; empty when sizes are given
};
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              const IntList& stride = {1}, const ConvPadding& padding = {0},
              const IntList& dilation = {1}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              const IntList& stride = {1}, const ConvPadding& padding = {0},
              const IntList& dilation = {1}, int64_t groups = 1);
// weight [C_in, C_out/groups, kh, kw].
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        const IntList& stride = {1}, const IntList& padding = {0},
                        const IntList& output_padding = {0}, int64_t groups = 1,
                        const IntList& dilation = {1});

// ---- pooling (lib/ops/pool.cpp) -----------------------------------------------------------
// Sizes given as one int apply to both dims; an empty stride means stride = kernel_size.
Tensor max_pool2d(const Tensor& input, const IntList& kernel_size, const IntList& stride = {},
                  const IntList& padding = {0}, const IntList& dilation = {1},
                  bool ceil_mode = false);
// Values and int64 indices, each index the flat h * W + w position in its input plane.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const IntList& kernel_size,
                                                   const IntList& stride = {},
                                                   const IntList& padding = {0},
                                                   const IntList& dilation = {1},
                                                   bool ceil_mode = false);
Tensor avg_pool2d(const Tensor& input, const IntList& kernel_size, const IntList& stride = {},
                  const IntList& padding = {0}, bool ceil_mode = false,
                  bool count_include_pad = true, std::optional<int64_t> divisor_override = {});
// output_size: one or two sizes; an entry of nullopt keeps the input's size.
Tensor adaptive_avg_pool2d(const Tensor& input, const std::vector<std::optional<int64_t>>& output_size);
Tensor adaptive_avg_pool2d(const Tensor& input, const IntList& output_size);

}  // namespace ember
