// Backward primitives of the nn ops: fused kernels that the autograd
// derivative table calls. Names and arguments follow PyTorch's aten ops
// (native_layer_norm_backward, nll_loss_backward, ...); an undefined Tensor
// stands for None. `reduction` is an int: 0 none, 1 mean, 2 sum
// (ember::Reduction). `output_mask` says which gradients to compute; a
// gradient left out is returned undefined.
//
// dtypes: a gradient has the dtype its forward computed in (for the losses,
// the promoted dtype of input and target; for the pointwise losses also their
// broadcast shape); the autograd layer casts and reduces it to the input's.
// float16 / bfloat16 compute in float.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

using GradMask = std::array<bool, 3>;

// ---- normalization -----------------------------------------------------------------
// train: save_mean / save_invstd are native_batch_norm's saved batch statistics
// ([C], opmath dtype). eval: running_mean / running_var are used with eps.
// grad_weight / grad_bias have weight's dtype (input's when weight is None).
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const Tensor& weight, const Tensor& running_mean,
    const Tensor& running_var, const Tensor& save_mean, const Tensor& save_invstd, bool train,
    double eps, GradMask output_mask = {true, true, true});
// mean / rstd: native_layer_norm's (batch dims then ones). bias only gives
// grad_bias its dtype.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(
    const Tensor& grad_out, const Tensor& input, const IntList& normalized_shape, const Tensor& mean,
    const Tensor& rstd, const Tensor& weight, const Tensor& bias,
    GradMask output_mask = {true, true, true});
// mean / rstd: native_group_norm's [N, group]. input holds N * C * HxW values.
std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward(
    const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& rstd,
    const Tensor& weight, int64_t N, int64_t C, int64_t HxW, int64_t group,
    GradMask output_mask = {true, true, true});

// ---- embedding, dropout ----------------------------------------------------------------
// grad_weight [num_weights, D]: row i is the sum of grad_output's rows whose
// index is i (divided by the count of i when scale_grad_by_freq); the row
// padding_idx stays zero (padding_idx < 0: none).
Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx = -1, bool scale_grad_by_freq = false);
// grad_output * mask * scale (mask: native_dropout's bool mask; scale 1 / (1 - p)).
Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double scale);

// ---- padding and resampling ------------------------------------------------------------------
// The gradient of pad(input, pad, mode) wrt input, input_size its shape. Every
// output position adds its gradient into the input position it copied. mode
// "constant" is a pad of grad_output by -pad (no kernel).
Tensor pad_backward(const Tensor& grad_output, const IntList& input_size, const IntList& pad,
                    const std::string& mode);
// The gradient of interpolate wrt an input of shape input_size [N, C, *spatial];
// grad_output [N, C, *out_spatial]. mode: "nearest", or "linear" / "bilinear" /
// "trilinear"; scales: interpolate's per-dim scale factors (nullopt: in / out),
// empty for all nullopt. Same coordinate rules as the forward.
Tensor interpolate_backward(const Tensor& grad_output, const IntList& input_size,
                            const std::string& mode, bool align_corners = false,
                            const std::vector<std::optional<double>>& scales = {});

// ---- losses ---------------------------------------------------------------------------------------
// Gradients wrt input (for the pointwise losses the target's is its negation).
// grad_output: the loss's shape (reduction none) or 0-d.
// total_weight: the mean's denominator (sum of the weights of the targets not
// ignored); undefined: computed here.
Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const Tensor& weight, int64_t reduction, int64_t ignore_index,
                         const Tensor& total_weight = {});
// Gradient wrt the logits of cross_entropy (class indices or class probabilities).
Tensor cross_entropy_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                              const Tensor& weight, int64_t reduction, int64_t ignore_index = -100,
                              double label_smoothing = 0.0);
Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         int64_t reduction);
Tensor l1_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                        int64_t reduction);
Tensor smooth_l1_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                               int64_t reduction, double beta);
Tensor huber_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           int64_t reduction, double delta);
// w (x - t) / max(x (1 - x), 1e-12) g, as PyTorch.
Tensor binary_cross_entropy_backward(const Tensor& grad_output, const Tensor& self,
                                     const Tensor& target, const Tensor& weight, int64_t reduction);
Tensor binary_cross_entropy_with_logits_backward(const Tensor& grad_output, const Tensor& self,
                                                 const Tensor& target, const Tensor& weight,
                                                 const Tensor& pos_weight, int64_t reduction);

// ---- convolution and pooling ------------------------------------------------------------------
// conv2d's gradients as convolutions of their own (stride, padding, dilation:
// one value or a pair; groups as the forward's). grad_output [N, C_out, OH, OW]
// holds the gradient of the first OH x OW windows of the convolution, which must
// lie inside the padded input (conv2d's own output has exactly its windows).
// grad_input [N, C_in, H, W] = input_size: grad_output's windows added back onto
// the input positions they read, through weight [C_out, C_in/groups, kh, kw]
// (this is conv_transpose2d with the output size given).
Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight, const IntList& input_size,
                             const IntList& stride, const IntList& padding, const IntList& dilation,
                             int64_t groups);
// grad_weight of shape weight_size [C_out, C_in/groups, kh, kw]: for each
// window, grad_output times the input values under it, summed over windows and batch.
Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input, const IntList& weight_size,
                              const IntList& stride, const IntList& padding, const IntList& dilation,
                              int64_t groups);
// grad_input of max_pool2d_with_indices: each grad_output value added into
// zeros of input_size [..., H, W] at its plane position `indices` (the forward's
// int64 h * W + w, same shape as grad_output [..., OH, OW]).
Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& indices, const IntList& input_size);
// grad_input of avg_pool2d for an input of input_size [N, C, H, W] or [C, H, W]:
// each window's gradient spread over its input positions, divided as the
// forward divides (the same arguments; an empty stride means kernel_size).
Tensor avg_pool2d_backward(const Tensor& grad_output, const IntList& input_size, const IntList& kernel_size,
                           const IntList& stride = {}, const IntList& padding = {0},
                           bool ceil_mode = false, bool count_include_pad = true,
                           std::optional<int64_t> divisor_override = {});
// grad_input of adaptive_avg_pool2d for an input of input_size [N, C, H, W] or
// [C, H, W]; the output size is grad_output's.
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, const IntList& input_size);

// lstm_cell_fused's backward: the gradients wrt gates [B, 4H] and c [B, H], given those
// wrt h' and c' (either may be undefined: zero) and the forward's gates, c and c'.
std::tuple<Tensor, Tensor> lstm_cell_fused_backward(const Tensor& grad_h, const Tensor& grad_c,
                                                    const Tensor& gates, const Tensor& c,
                                                    const Tensor& c_new);
// gru_cell_fused's backward: the gradients wrt gx, gh (both [B, 3H]) and h [B, H].
std::tuple<Tensor, Tensor, Tensor> gru_cell_fused_backward(const Tensor& grad_h, const Tensor& gx,
                                                           const Tensor& gh, const Tensor& h);

}  // namespace ember
