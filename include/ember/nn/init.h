// ember::nn::init: in-place initializers with the names, arguments and
// formulas of torch.nn.init (and torch::nn::init). They run without recording
// autograd and return the tensor. Nonlinearities and modes are strings, as in
// Python: "relu", "leaky_relu", "tanh", "sigmoid", "linear", "conv2d", ...;
// "fan_in" / "fan_out".
#pragma once
#include <optional>
#include <string>
#include <tuple>

#include "ember/tensor.h"

namespace ember::nn::init {

// The recommended gain for a nonlinearity (param: leaky_relu's negative slope,
// 0.01 when absent). ValueError for an unknown name.
double calculate_gain(const std::string& nonlinearity, std::optional<double> param = std::nullopt);
// (fan_in, fan_out) of a weight with at least 2 dims: [out, in, *kernel].
std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor uniform_(Tensor tensor, double a = 0, double b = 1);
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
Tensor constant_(Tensor tensor, double value);
Tensor zeros_(Tensor tensor);
Tensor ones_(Tensor tensor);
Tensor xavier_uniform_(Tensor tensor, double gain = 1);
Tensor xavier_normal_(Tensor tensor, double gain = 1);
// std = gain(nonlinearity, a) / sqrt(fan); bound = sqrt(3) std.
Tensor kaiming_uniform_(Tensor tensor, double a = 0, const std::string& mode = "fan_in",
                        const std::string& nonlinearity = "leaky_relu");
Tensor kaiming_normal_(Tensor tensor, double a = 0, const std::string& mode = "fan_in",
                       const std::string& nonlinearity = "leaky_relu");

}  // namespace ember::nn::init
