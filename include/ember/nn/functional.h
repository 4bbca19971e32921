// ember::nn::functional: the functional forms of the layers, by
// torch::nn::functional's names. They are the ember ops themselves (one
// implementation; PyTorch-Python argument lists rather than torch's C++
// FuncOptions structs):
//
//   namespace F = ember::nn::functional;
//   x = F::relu(F::conv2d(x, w, b, {1}, {1}));
//   loss = F::cross_entropy(logits, target);
#pragma once
#include "ember/ops/activation.h"
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/ops/elementwise.h"
#include "ember/ops/linalg.h"
#include "ember/ops/nn.h"
#include "ember/ops/reduce.h"

namespace ember::nn::functional {

// layers
using ember::adaptive_avg_pool2d;
using ember::avg_pool2d;
using ember::batch_norm;
using ember::conv1d;
using ember::conv2d;
using ember::conv_transpose2d;
using ember::dropout;
using ember::embedding;
using ember::group_norm;
using ember::interpolate;
using ember::layer_norm;
using ember::linear;
using ember::max_pool2d;
using ember::max_pool2d_with_indices;
using ember::one_hot;
using ember::pad;
// activations
using ember::gelu;
using ember::leaky_relu;
using ember::log_softmax;
using ember::relu;
using ember::sigmoid;
using ember::silu;
using ember::softmax;
using ember::softplus;
using ember::tanh;
using ember::celu;
using ember::celu_;
using ember::elu;
using ember::elu_;
using ember::glu;
using ember::hardshrink;
using ember::hardsigmoid;
using ember::hardswish;
using ember::hardtanh;
using ember::hardtanh_;
using ember::leaky_relu_;
using ember::logsigmoid;
using ember::mish;
using ember::prelu;
using ember::relu6;
using ember::relu_;
using ember::rrelu;
using ember::rrelu_;
using ember::selu;
using ember::selu_;
using ember::softmin;
using ember::softshrink;
using ember::softsign;
using ember::tanhshrink;
using ember::threshold;
using ember::threshold_;
// losses
using ember::binary_cross_entropy;
using ember::binary_cross_entropy_with_logits;
using ember::cross_entropy;
using ember::huber_loss;
using ember::l1_loss;
using ember::mse_loss;
using ember::nll_loss;
using ember::smooth_l1_loss;

// ---- composites of ember ops (lib/nn/functional_*.cpp), torch.nn.functional's
// arguments and defaults; autograd, tracing and devices come through the ops used.
// reduction: "none", "mean" or "sum" (kl_div also "batchmean"); ValueError otherwise.

// losses (lib/nn/functional_loss.cpp)
Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
              bool log_target = false);
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             double margin = 0.0, const std::string& reduction = "mean");
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           double margin = 0.0, const std::string& reduction = "mean");
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin = 1.0,
                            const std::string& reduction = "mean");
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input = true, bool full = false,
                        double eps = 1e-8, const std::string& reduction = "mean");
// var: input's shape, input's shape without the last dim, or with a last dim of 1.
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full = false,
                         double eps = 1e-6, const std::string& reduction = "mean");
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin = 1.0, double p = 2, double eps = 1e-6, bool swap = false,
                           const std::string& reduction = "mean");
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                   const std::string& reduction = "mean");
// input [N, C] or [C]; target class indices [N] or 0-dim; p 1 or 2.
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p = 1, double margin = 1.0,
                         const Tensor& weight = {}, const std::string& reduction = "mean");

// distances (lib/nn/functional_distance.cpp)
Tensor normalize(const Tensor& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12);
// torch 2.x's formula: each vector divided by its norm clamped to eps, then the dot product.
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6,
                         bool keepdim = false);
// input [N, M]: the N*(N-1)/2 distances between rows i < j, row-major.
Tensor pdist(const Tensor& input, double p = 2.0);

// layers (lib/nn/functional_layers.cpp)
// Channel dropout: whole [*, C] feature maps zeroed with probability p.
Tensor dropout1d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
Tensor dropout2d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
Tensor dropout3d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
// SELU-preserving dropout: dropped values set to -alpha*scale, then an affine correction.
Tensor alpha_dropout(const Tensor& input, double p = 0.5, bool training = false, bool inplace = false);
Tensor feature_alpha_dropout(const Tensor& input, double p = 0.5, bool training = false, bool inplace = false);
Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);
Tensor channel_shuffle(const Tensor& input, int64_t groups);
// Per-sample, per-channel normalization; running stats (if given) updated in place.
Tensor instance_norm(const Tensor& input, const Tensor& running_mean = {}, const Tensor& running_var = {},
                     const Tensor& weight = {}, const Tensor& bias = {}, bool use_input_stats = true,
                     double momentum = 0.1, double eps = 1e-5);
Tensor local_response_norm(const Tensor& input, int64_t size, double alpha = 1e-4, double beta = 0.75,
                           double k = 1.0);
// eps unset: the input dtype's machine epsilon.
Tensor rms_norm(const Tensor& input, const IntList& normalized_shape, const Tensor& weight = {},
                std::optional<double> eps = std::nullopt);
// im2col: [N, C, H, W] (or [C, H, W]) -> [N, C*kh*kw, L].
Tensor unfold(const Tensor& input, const IntList& kernel_size, const IntList& dilation = {1},
              const IntList& padding = {0}, const IntList& stride = {1});
// col2im: [N, C*kh*kw, L] (or [C*kh*kw, L]) -> [N, C, *output_size], overlaps summed.
Tensor fold(const Tensor& input, const IntList& output_size, const IntList& kernel_size,
            const IntList& dilation = {1}, const IntList& padding = {0}, const IntList& stride = {1});

// pooling over [N, C, L] / [C, L] (lib/nn/functional_pool.cpp)
Tensor max_pool1d(const Tensor& input, const IntList& kernel_size, const IntList& stride = {},
                  const IntList& padding = {0}, const IntList& dilation = {1}, bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const IntList& kernel_size,
                                                   const IntList& stride = {}, const IntList& padding = {0},
                                                   const IntList& dilation = {1}, bool ceil_mode = false);
Tensor avg_pool1d(const Tensor& input, const IntList& kernel_size, const IntList& stride = {},
                  const IntList& padding = {0}, bool ceil_mode = false, bool count_include_pad = true);
Tensor adaptive_avg_pool1d(const Tensor& input, const IntList& output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input, const IntList& output_size);
Tensor adaptive_max_pool1d(const Tensor& input, const IntList& output_size);
// output_size entries of nullopt keep the input's size.
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const std::vector<std::optional<int64_t>>& output_size);
Tensor adaptive_max_pool2d(const Tensor& input, const std::vector<std::optional<int64_t>>& output_size);
Tensor lp_pool1d(const Tensor& input, double norm_type, int64_t kernel_size,
                 std::optional<int64_t> stride = std::nullopt, bool ceil_mode = false);
Tensor lp_pool2d(const Tensor& input, double norm_type, const IntList& kernel_size,
                 const IntList& stride = {}, bool ceil_mode = false);

}  // namespace ember::nn::functional
