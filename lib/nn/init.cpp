// torch.nn.init's formulas.
#include "ember/nn/init.h"

#include <cmath>

#include "ember/autograd.h"
#include "ember/ops/random.h"

namespace ember::nn::init {

double calculate_gain(const std::string& nonlinearity, std::optional<double> param) {
  static const char* const linear_fns[] = {"linear",           "conv1d", "conv2d", "conv3d",
                                           "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"};
  for (const char* name : linear_fns)
    if (nonlinearity == name) return 1;
  if (nonlinearity == "sigmoid") return 1;
  if (nonlinearity == "tanh") return 5.0 / 3;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") {
    double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1 + slope * slope));
  }
  if (nonlinearity == "selu") return 3.0 / 4;
  throw ValueError("Unsupported nonlinearity " + nonlinearity);
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK_VALUE(tensor.dim() >= 2,
                    "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

namespace {

int64_t fan_for(const Tensor& tensor, const std::string& mode) {
  EMBER_CHECK_VALUE(mode == "fan_in" || mode == "fan_out", "Mode ", mode,
                    " not supported, please use one of fan_in, fan_out");
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  return mode == "fan_in" ? fan_in : fan_out;
}

double kaiming_std(const Tensor& tensor, double a, const std::string& mode, const std::string& nonlinearity) {
  int64_t fan = fan_for(tensor, mode);
  return calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
}

double xavier_std(const Tensor& tensor, double gain) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  return gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
}

}  // namespace

Tensor uniform_(Tensor tensor, double a, double b) {
  NoGradGuard no_grad;
  return ember::uniform_(tensor, a, b);
}

Tensor normal_(Tensor tensor, double mean, double std) {
  NoGradGuard no_grad;
  return ember::normal_(tensor, mean, std);
}

Tensor constant_(Tensor tensor, double value) {
  NoGradGuard no_grad;
  return tensor.fill_(value);
}

Tensor zeros_(Tensor tensor) { return constant_(tensor, 0); }
Tensor ones_(Tensor tensor) { return constant_(tensor, 1); }

Tensor xavier_uniform_(Tensor tensor, double gain) {
  double bound = std::sqrt(3.0) * xavier_std(tensor, gain);
  return init::uniform_(tensor, -bound, bound);
}

Tensor xavier_normal_(Tensor tensor, double gain) { return init::normal_(tensor, 0, xavier_std(tensor, gain)); }

Tensor kaiming_uniform_(Tensor tensor, double a, const std::string& mode, const std::string& nonlinearity) {
  if (tensor.numel() == 0) return tensor;  // a no-op, as in PyTorch
  double bound = std::sqrt(3.0) * kaiming_std(tensor, a, mode, nonlinearity);
  return init::uniform_(tensor, -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, const std::string& mode, const std::string& nonlinearity) {
  if (tensor.numel() == 0) return tensor;  // a no-op, as in PyTorch
  return init::normal_(tensor, 0, kaiming_std(tensor, a, mode, nonlinearity));
}

}  // namespace ember::nn::init
