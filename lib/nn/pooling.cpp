#include "ember/nn/modules/pooling.h"

#include "ember/ops/linalg.h"

namespace ember::nn {

void MaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "MaxPool2d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
         << ", padding=" << options.padding() << ", dilation=" << options.dilation()
         << ", ceil_mode=" << std::boolalpha << options.ceil_mode() << ")";
}

Tensor MaxPool2dImpl::forward(const Tensor& input) {
  return max_pool2d(input, *options.kernel_size(), *options.stride(), *options.padding(), *options.dilation(),
                    options.ceil_mode());
}

std::tuple<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return max_pool2d_with_indices(input, *options.kernel_size(), *options.stride(), *options.padding(),
                                 *options.dilation(), options.ceil_mode());
}

void AvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "AvgPool2d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
         << ", padding=" << options.padding() << ")";
}

Tensor AvgPool2dImpl::forward(const Tensor& input) {
  return avg_pool2d(input, *options.kernel_size(), *options.stride(), *options.padding(), options.ceil_mode(),
                    options.count_include_pad(), options.divisor_override());
}

void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveAvgPool2d(output_size=" << options.output_size() << ")";
}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  return adaptive_avg_pool2d(input, *options.output_size());
}

}  // namespace ember::nn
