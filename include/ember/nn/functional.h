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

}  // namespace ember::nn::functional
