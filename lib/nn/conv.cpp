#include "ember/nn/modules/conv.h"

#include <cmath>

#include "ember/nn/init.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"

namespace ember::nn {

void ConvModuleBase::check_channels(const char* kind, int64_t in, int64_t out, int64_t groups) const {
  EMBER_CHECK_VALUE(groups > 0, kind, ": groups must be a positive integer, got ", groups);
  EMBER_CHECK_VALUE(in % groups == 0, kind, ": in_channels must be divisible by groups, got ", in, " and ",
                    groups);
  EMBER_CHECK_VALUE(out % groups == 0, kind, ": out_channels must be divisible by groups, got ", out,
                    " and ", groups);
}

void ConvModuleBase::register_weight_and_bias(const IntList& weight_shape, int64_t out_channels,
                                              bool with_bias) {
  weight = register_parameter("weight", empty(weight_shape));
  bias = register_parameter("bias", with_bias ? empty({out_channels}) : Tensor(), with_bias);
  reset_parameters();
}

void ConvModuleBase::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(weight);
    double bound = fan_in > 0 ? 1 / std::sqrt(static_cast<double>(fan_in)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

void ConvModuleBase::print_head(std::ostream& stream, const char* kind, int64_t in, int64_t out) const {
  stream << kind << "(" << in << ", " << out;
}

namespace {

// Weight shape [a, b / groups, k...].
IntList conv_weight_shape(int64_t a, int64_t b, int64_t groups, const IntList& kernel) {
  IntList shape{a, b / groups};
  shape.insert(shape.end(), kernel.begin(), kernel.end());
  return shape;
}

}  // namespace

template <size_t D>
ConvNdImpl<D>::ConvNdImpl(const ConvOptions<D>& options_) : options(options_) {
  const char* kind = D == 1 ? "Conv1d" : "Conv2d";
  check_channels(kind, options.in_channels(), options.out_channels(), options.groups());
  register_weight_and_bias(
      conv_weight_shape(options.out_channels(), options.in_channels(), options.groups(), *options.kernel_size()),
      options.out_channels(), options.bias());
}

template <size_t D>
void ConvNdImpl<D>::pretty_print(std::ostream& stream) const {
  print_head(stream, D == 1 ? "Conv1d" : "Conv2d", options.in_channels(), options.out_channels());
  stream << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (!options.padding().is_zero()) stream << ", padding=" << options.padding();
  if (options.dilation() != ExpandingArray<D>(1)) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

template <size_t D>
Tensor ConvNdImpl<D>::forward(const Tensor& input) {
  if constexpr (D == 1) {
    return conv1d(input, weight, bias, *options.stride(), options.padding().value(), *options.dilation(),
                  options.groups());
  } else {
    return conv2d(input, weight, bias, *options.stride(), options.padding().value(), *options.dilation(),
                  options.groups());
  }
}

template class ConvNdImpl<1>;
template class ConvNdImpl<2>;

ConvTranspose2dImpl::ConvTranspose2dImpl(const ConvTranspose2dOptions& options_) : options(options_) {
  check_channels("ConvTranspose2d", options.in_channels(), options.out_channels(), options.groups());
  register_weight_and_bias(
      conv_weight_shape(options.in_channels(), options.out_channels(), options.groups(), *options.kernel_size()),
      options.out_channels(), options.bias());
}

void ConvTranspose2dImpl::pretty_print(std::ostream& stream) const {
  print_head(stream, "ConvTranspose2d", options.in_channels(), options.out_channels());
  stream << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (options.padding() != ExpandingArray<2>(0)) stream << ", padding=" << options.padding();
  if (options.dilation() != ExpandingArray<2>(1)) stream << ", dilation=" << options.dilation();
  if (options.output_padding() != ExpandingArray<2>(0))
    stream << ", output_padding=" << options.output_padding();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

Tensor ConvTranspose2dImpl::forward(const Tensor& input) {
  return conv_transpose2d(input, weight, bias, *options.stride(), *options.padding(), *options.output_padding(),
                          options.groups(), *options.dilation());
}

}  // namespace ember::nn
