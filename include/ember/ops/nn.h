// Free functions of the nn group: normalization, dropout, embedding, padding,
// resampling and losses, with torch.nn.functional's names, arguments and
// defaults (an undefined Tensor stands for None).
#pragma once
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// ---- normalization -------------------------------------------------------------
// input [N, C, *]. training: normalizes with the batch statistics and, when the
// running stats are given, updates them in place (running_var with the unbiased
// variance, as PyTorch). eval: normalizes with running_mean / running_var.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = {}, const Tensor& bias = {}, bool training = false,
                  double momentum = 0.1, double eps = 1e-5);
// (output, save_mean, save_invstd), as torch.native_batch_norm (argument order too).
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const Tensor& weight,
                                                     const Tensor& bias, const Tensor& running_mean,
                                                     const Tensor& running_var, bool training,
                                                     double momentum, double eps);
// Normalizes over the trailing dims given by normalized_shape.
Tensor layer_norm(const Tensor& input, const IntList& normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);
// (output, mean, rstd); mean and rstd have input's batch dims then ones.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input,
                                                     const IntList& normalized_shape,
                                                     const Tensor& weight, const Tensor& bias,
                                                     double eps);
// input [N, C, *]; statistics per (sample, group of C / num_groups channels).
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);
// (output, mean [N, G], rstd [N, G]).
std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, int64_t num_groups,
                                                     const Tensor& weight, const Tensor& bias,
                                                     double eps);

// ---- dropout, embedding, one_hot ---------------------------------------------------
// Zeroes each element with probability p and scales the rest by 1 / (1 - p).
// Returns input itself when !training or p == 0 (as PyTorch).
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
// (output, mask): mask is bool, true where the element was kept.
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, bool train);
// weight[input]: input holds int64 or int32 indices of any shape; weight is [V, D].
// padding_idx only matters for the gradient (it is checked here).
// scale_grad_by_freq: weight's gradient rows are divided by how often their index
// occurs in input (the forward is the same).
Tensor embedding(const Tensor& input, const Tensor& weight,
                 std::optional<int64_t> padding_idx = std::nullopt, bool scale_grad_by_freq = false);
// int64 tensor of shape input.shape + [num_classes]; num_classes -1: max(input) + 1.
Tensor one_hot(const Tensor& input, int64_t num_classes = -1);

// ---- padding and resampling -----------------------------------------------------------
// pad = (last_left, last_right, second_last_left, ...). mode: "constant" (negative
// pads crop), "reflect", "replicate", "circular". value only for "constant".
Tensor pad(const Tensor& input, const IntList& pad, const std::string& mode = "constant",
           std::optional<Scalar> value = std::nullopt);
// F.interpolate for 3-d, 4-d and 5-d inputs [N, C, *spatial]; modes "nearest",
// "linear" (3-d), "bilinear" (4-d), "trilinear" (5-d). One of size / scale_factor;
// a single value applies to every spatial dim.
Tensor interpolate(const Tensor& input, const std::optional<IntList>& size = std::nullopt,
                   const std::optional<std::vector<double>>& scale_factor = std::nullopt,
                   const std::string& mode = "nearest",
                   std::optional<bool> align_corners = std::nullopt,
                   std::optional<bool> recompute_scale_factor = std::nullopt);

// ---- losses ---------------------------------------------------------------------------
// reduction: "none", "mean" or "sum".
enum class Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };
// Throws ValueError for any other string.
Reduction reduction_from_string(const std::string& reduction);

// input: logits [N, C], [N, C, d1, ...] or [C]. target: class indices (int64, shape
// without the class dim) or class probabilities (floating, input's shape).
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                     int64_t ignore_index = -100, const std::string& reduction = "mean",
                     double label_smoothing = 0.0);
// input: log-probabilities, shapes as cross_entropy with class indices.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                int64_t ignore_index = -100, const std::string& reduction = "mean");
Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const std::string& reduction = "mean", double beta = 1.0);
Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                  double delta = 1.0);
// input: probabilities in [0, 1]; log terms are clamped to >= -100 (as PyTorch).
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                            const std::string& reduction = "mean");
// input: logits; numerically stable for any magnitude. pos_weight broadcasts
// against the trailing (class) dims.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight = {},
                                        const std::string& reduction = "mean",
                                        const Tensor& pos_weight = {});

}  // namespace ember
