// The activations beyond relu/gelu/silu/softplus/leaky_relu (ops/elementwise.h),
// with PyTorch's names and defaults: torch.nn.functional's (elu, hardtanh, ...)
// and torch's (selu, celu, threshold, hardshrink, prelu, rrelu and their _ forms).
// Fused kernels: elu (selu, celu), hardtanh (relu6), hardsigmoid, hardswish, mish,
// logsigmoid, softshrink, hardshrink, threshold; the rest are composites.
#pragma once
#include <optional>
#include <string>

#include "ember/generator.h"
#include "ember/scalar.h"
#include "ember/generated/elementwise_ops.h"  // this group's structured ops
#include "ember/tensor.h"

namespace ember {

// scale * (x > 0 ? x : alpha * (exp(x * input_scale) - 1)), as torch's elu kernel.
Tensor elu(const Tensor& self, const Scalar& alpha = 1.0, const Scalar& scale = 1,
           const Scalar& input_scale = 1);
Tensor& elu_(Tensor& self, const Scalar& alpha = 1.0, const Scalar& scale = 1,
             const Scalar& input_scale = 1);
Tensor selu(const Tensor& self);
Tensor& selu_(Tensor& self);
Tensor celu(const Tensor& self, const Scalar& alpha = 1.0);
Tensor& celu_(Tensor& self, const Scalar& alpha = 1.0);

// Clamps to [min_val, max_val]; keeps self's dtype (integers too).
Tensor hardtanh(const Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1);
Tensor& hardtanh_(Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1);
Tensor relu6(const Tensor& self);
Tensor& relu6_(Tensor& self);
// hardsigmoid, hardswish, mish, logsigmoid and their backward ops are structured:
// declared in ember/generated/elementwise_ops.h, generated from their rows.


Tensor softsign(const Tensor& self);     // x / (1 + |x|)
Tensor tanhshrink(const Tensor& self);   // x - tanh(x)
Tensor softshrink(const Tensor& self, const Scalar& lambd = 0.5);
Tensor hardshrink(const Tensor& self, const Scalar& lambd = 0.5);

// x > threshold ? x : value; keeps self's dtype.
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value);
Tensor& threshold_(Tensor& self, const Scalar& threshold, const Scalar& value);

// a * sigmoid(b), where a and b are the halves of self along dim.
Tensor glu(const Tensor& self, int64_t dim = -1);
// x > 0 ? x : weight * x; weight has 1 element or one per channel (dim 1 of self).
Tensor prelu(const Tensor& self, const Tensor& weight);
// Leaky relu with slope drawn uniformly from [lower, upper] per element when
// training, (lower + upper) / 2 otherwise.
Tensor rrelu(const Tensor& self, const Scalar& lower = 1.0 / 8, const Scalar& upper = 1.0 / 3,
             bool training = false, Generator* generator = nullptr);
Tensor& rrelu_(Tensor& self, const Scalar& lower = 1.0 / 8, const Scalar& upper = 1.0 / 3,
               bool training = false, Generator* generator = nullptr);
Tensor softmin(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);

// The backward ops (one pass each): grad_output times the derivative at self.
Tensor elu_backward(const Tensor& grad_output, const Tensor& self, const Scalar& alpha,
                    const Scalar& scale, const Scalar& input_scale);
Tensor hardtanh_backward(const Tensor& grad_output, const Tensor& self, const Scalar& min_val,
                         const Scalar& max_val);
// gelu's derivative at self times grad_output, approximate "none" (erf) or "tanh"; CPU only.
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self, const std::string& approximate = "none");
// grad_output where |self| > lambd, else 0 (the backward of softshrink and hardshrink).
Tensor hardshrink_backward(const Tensor& grad_output, const Tensor& self, const Scalar& lambd);

}  // namespace ember
