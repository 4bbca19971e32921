// MaxPool2d, AvgPool2d and AdaptiveAvgPool2d (torch::nn's options and printing).
#pragma once
#include <optional>

#include "ember/arg.h"
#include "ember/nn/expanding_array.h"
#include "ember/nn/module.h"

namespace ember::nn {

struct MaxPool2dOptions {
  // stride defaults to kernel_size.
  MaxPool2dOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, stride);
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(bool, ceil_mode) = false;

 private:
  MaxPool2dOptions& derived() { return *this; }
};

class MaxPool2dImpl : public Module {
 public:
  explicit MaxPool2dImpl(const MaxPool2dOptions& options) : options(options) {}
  explicit MaxPool2dImpl(ExpandingArray<2> kernel_size) : MaxPool2dImpl(MaxPool2dOptions(kernel_size)) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  // (values, int64 indices of the maxima in each flattened input plane).
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);

  MaxPool2dOptions options;
};
EMBER_MODULE(MaxPool2d);

struct AvgPool2dOptions {
  AvgPool2dOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, stride);
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  EMBER_ARG(bool, count_include_pad) = true;
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;

 private:
  AvgPool2dOptions& derived() { return *this; }
};

class AvgPool2dImpl : public Module {
 public:
  explicit AvgPool2dImpl(const AvgPool2dOptions& options) : options(options) {}
  explicit AvgPool2dImpl(ExpandingArray<2> kernel_size) : AvgPool2dImpl(AvgPool2dOptions(kernel_size)) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  AvgPool2dOptions options;
};
EMBER_MODULE(AvgPool2d);

struct AdaptiveAvgPool2dOptions {
  AdaptiveAvgPool2dOptions(ExpandingArray<2> output_size) : output_size_(output_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<2>, output_size);

 private:
  AdaptiveAvgPool2dOptions& derived() { return *this; }
};

class AdaptiveAvgPool2dImpl : public Module {
 public:
  explicit AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& options) : options(options) {}
  explicit AdaptiveAvgPool2dImpl(ExpandingArray<2> output_size) : AdaptiveAvgPool2dImpl(AdaptiveAvgPool2dOptions(output_size)) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  AdaptiveAvgPool2dOptions options;
};
EMBER_MODULE(AdaptiveAvgPool2d);

}  // namespace ember::nn
