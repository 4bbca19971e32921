// Argument helpers shared by the nn backward op functions (lib/ops/nn_backward_*.cpp).
#pragma once
#include "dispatch/op_call.h"
#include "ember/ops/nn_backward.h"
#include "ops/nn_checks.h"

namespace ember::nn_checks {

// grad_out checked to have the shape of `like`, in like's dtype.
inline Tensor grad_like(const Tensor& grad_out, const Tensor& like, const char* op) {
  check_defined(grad_out, op, "grad_output");
  check_floating(grad_out, op, "grad_output");
  EMBER_CHECK(grad_out.sizes() == like.sizes(), op, ": expected grad_output of shape ",
              shape_str(like.sizes()), " (the forward output's), got ", describe(grad_out));
  return grad_out.to(like.dtype());
}

// The `output_mask` of the normalization backwards: three 0/1 ints.
inline DimVector mask_ints(const GradMask& m) { return DimVector{m[0], m[1], m[2]}; }

inline void check_reduction(int64_t reduction, const char* op) {
  EMBER_CHECK_VALUE(reduction >= 0 && reduction <= 2, op, ": reduction must be 0 (none), 1 (mean) or "
                    "2 (sum), got ", reduction);
}

// A reduced loss's grad_output is one value; 'none' gives it the loss's shape.
inline void check_loss_grad(const Tensor& grad, const DimVector& loss_shape, int64_t reduction,
                            const char* op) {
  check_defined(grad, op, "grad_output");
  check_floating(grad, op, "grad_output");
  if (reduction == 0)
    EMBER_CHECK(grad.sizes() == loss_shape, op, ": expected grad_output of shape ",
                shape_str(loss_shape), " (reduction 'none'), got ", describe(grad));
  else
    EMBER_CHECK(grad.numel() == 1, op, ": expected a grad_output of one value for a reduced loss, got ",
                describe(grad));
}

}  // namespace ember::nn_checks
