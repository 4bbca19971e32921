// Conv1d, Conv2d and ConvTranspose2d (torch::nn's options, initialization
// and printing). Sizes are one number or one per spatial dim.
#pragma once
#include "ember/arg.h"
#include "ember/nn/expanding_array.h"
#include "ember/nn/module.h"

namespace ember::nn {

template <size_t D>
struct ConvOptions {
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ConvPaddingOption<D>, padding) = int64_t{0};
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;

 private:
  ConvOptions& derived() { return *this; }
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;

template <size_t D>
struct ConvTransposeOptions {
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;

 private:
  ConvTransposeOptions& derived() { return *this; }
};
using ConvTranspose2dOptions = ConvTransposeOptions<2>;

// What the convolutions share: the weight and bias, their default
// initialization (uniform in +-1/sqrt(fan_in)) and the printing.
class ConvModuleBase : public Module {
 public:
  void reset_parameters();
  Tensor weight;
  Tensor bias;

 protected:
  // weight_shape: [out, in / groups, k...] (transposed: [in, out / groups, k...]).
  void register_weight_and_bias(const IntList& weight_shape, int64_t out_channels, bool with_bias);
  // "Conv2d(1, 16, kernel_size=[3, 3], stride=[1, 1]", then the options that are not defaults.
  void print_head(std::ostream& stream, const char* kind, int64_t in, int64_t out) const;
  void check_channels(const char* kind, int64_t in, int64_t out, int64_t groups) const;
};

template <size_t D>
class ConvNdImpl : public ConvModuleBase {
 public:
  ConvNdImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : ConvNdImpl(ConvOptions<D>(in_channels, out_channels, std::move(kernel_size))) {}
  explicit ConvNdImpl(const ConvOptions<D>& options);
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  ConvOptions<D> options;
};

class Conv1dImpl : public ConvNdImpl<1> {
 public:
  using ConvNdImpl::ConvNdImpl;
};
EMBER_MODULE(Conv1d);

class Conv2dImpl : public ConvNdImpl<2> {
 public:
  using ConvNdImpl::ConvNdImpl;
};
EMBER_MODULE(Conv2d);

class ConvTranspose2dImpl : public ConvModuleBase {
 public:
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(in_channels, out_channels, std::move(kernel_size))) {}
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions& options);
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  ConvTranspose2dOptions options;
};
EMBER_MODULE(ConvTranspose2d);

}  // namespace ember::nn
