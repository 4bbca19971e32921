// More activation modules (torch::nn's names and options): ELU, SELU, CELU,
// Hardtanh, ReLU6, Hardsigmoid, Hardswish, Mish, LogSigmoid, Softsign,
// Softshrink, Hardshrink, Tanhshrink, Threshold, GLU, PReLU, RReLU, Softmin,
// Softmax2d, Softplus. Each forward is one ember op (ops/activation.h).
#pragma once
#include "ember/arg.h"
#include "ember/nn/module.h"

namespace ember::nn {

// The declaration of a module FooImpl with options `Options` (or none).
#define EMBER_ACTIVATION_MODULE(Name, ...)                              \
  class Name##Impl : public Module {                                    \
   public:                                                              \
    __VA_OPT__(explicit Name##Impl(const __VA_ARGS__& options = {})     \
               : options(options) {})                                   \
    void pretty_print(std::ostream& stream) const override;             \
    Tensor forward(Tensor input);                                       \
    __VA_OPT__(__VA_ARGS__ options;)                                    \
  };                                                                    \
  EMBER_MODULE(Name)

struct ELUOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;

 private:
  ELUOptions& derived() { return *this; }
};
using CELUOptions = ELUOptions;
EMBER_ACTIVATION_MODULE(ELU, ELUOptions);
EMBER_ACTIVATION_MODULE(CELU, CELUOptions);

// The modules whose only option is inplace.
struct InplaceOptions {
  InplaceOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  EMBER_ARG(bool, inplace);

 private:
  InplaceOptions& derived() { return *this; }
};
using SELUOptions = InplaceOptions;
using ReLU6Options = InplaceOptions;
EMBER_ACTIVATION_MODULE(SELU, SELUOptions);
EMBER_ACTIVATION_MODULE(ReLU6, ReLU6Options);

struct HardtanhOptions {
  EMBER_ARG(double, min_val) = -1.0;
  EMBER_ARG(double, max_val) = 1.0;
  EMBER_ARG(bool, inplace) = false;

 private:
  HardtanhOptions& derived() { return *this; }
};
EMBER_ACTIVATION_MODULE(Hardtanh, HardtanhOptions);

EMBER_ACTIVATION_MODULE(Hardsigmoid);
EMBER_ACTIVATION_MODULE(Hardswish);
EMBER_ACTIVATION_MODULE(Mish);
EMBER_ACTIVATION_MODULE(LogSigmoid);
EMBER_ACTIVATION_MODULE(Softsign);
EMBER_ACTIVATION_MODULE(Tanhshrink);
EMBER_ACTIVATION_MODULE(Softmax2d);

// torch::nn names the option `lambda`; lambd is torch.nn's (Python) name.
struct ShrinkOptions {
  ShrinkOptions(double lambd = 0.5) : lambd_(lambd) {}  // NOLINT
  EMBER_ARG(double, lambd);

 private:
  ShrinkOptions& derived() { return *this; }
};
using SoftshrinkOptions = ShrinkOptions;
using HardshrinkOptions = ShrinkOptions;
EMBER_ACTIVATION_MODULE(Softshrink, SoftshrinkOptions);
EMBER_ACTIVATION_MODULE(Hardshrink, HardshrinkOptions);

struct ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  EMBER_ARG(double, threshold);
  EMBER_ARG(double, value);
  EMBER_ARG(bool, inplace) = false;

 private:
  ThresholdOptions& derived() { return *this; }
};
class ThresholdImpl : public Module {
 public:
  ThresholdImpl(double threshold, double value) : ThresholdImpl(ThresholdOptions(threshold, value)) {}
  explicit ThresholdImpl(const ThresholdOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  ThresholdOptions options;
};
EMBER_MODULE(Threshold);

struct GLUOptions {
  GLUOptions(int64_t dim = -1) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);

 private:
  GLUOptions& derived() { return *this; }
};
EMBER_ACTIVATION_MODULE(GLU, GLUOptions);

// Softmin's dim (required in C++, as torch::nn's).
struct SoftminOptions {
  SoftminOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);

 private:
  SoftminOptions& derived() { return *this; }
};
class SoftminImpl : public Module {
 public:
  explicit SoftminImpl(const SoftminOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  SoftminOptions options;
};
EMBER_MODULE(Softmin);

struct SoftplusOptions {
  EMBER_ARG(double, beta) = 1.0;
  EMBER_ARG(double, threshold) = 20.0;

 private:
  SoftplusOptions& derived() { return *this; }
};
EMBER_ACTIVATION_MODULE(Softplus, SoftplusOptions);

struct RReLUOptions {
  EMBER_ARG(double, lower) = 1.0 / 8;
  EMBER_ARG(double, upper) = 1.0 / 3;
  EMBER_ARG(bool, inplace) = false;

 private:
  RReLUOptions& derived() { return *this; }
};
EMBER_ACTIVATION_MODULE(RReLU, RReLUOptions);  // random slopes when is_training()

struct PReLUOptions {
  EMBER_ARG(int64_t, num_parameters) = 1;
  EMBER_ARG(double, init) = 0.25;

 private:
  PReLUOptions& derived() { return *this; }
};
// weight: [num_parameters], filled with init.
class PReLUImpl : public Module {
 public:
  explicit PReLUImpl(const PReLUOptions& options = {});
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  PReLUOptions options;
  Tensor weight;
};
EMBER_MODULE(PReLU);

#undef EMBER_ACTIVATION_MODULE

}  // namespace ember::nn
