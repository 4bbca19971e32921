// Activation modules: ReLU, LeakyReLU, GELU, SiLU, Sigmoid, Tanh, Softmax and
// LogSoftmax (torch::nn's options and printing).
#pragma once
#include <string>

#include "ember/arg.h"
#include "ember/nn/module.h"

namespace ember::nn {

struct ReLUOptions {
  ReLUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  EMBER_ARG(bool, inplace);

 private:
  ReLUOptions& derived() { return *this; }
};

class ReLUImpl : public Module {
 public:
  explicit ReLUImpl(const ReLUOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  ReLUOptions options;
};
EMBER_MODULE(ReLU);

struct LeakyReLUOptions {
  EMBER_ARG(double, negative_slope) = 0.01;
  EMBER_ARG(bool, inplace) = false;

 private:
  LeakyReLUOptions& derived() { return *this; }
};

class LeakyReLUImpl : public Module {
 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  LeakyReLUOptions options;
};
EMBER_MODULE(LeakyReLU);

struct GELUOptions {
  EMBER_ARG(std::string, approximate) = "none";  // or "tanh"

 private:
  GELUOptions& derived() { return *this; }
};

class GELUImpl : public Module {
 public:
  explicit GELUImpl(const GELUOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  GELUOptions options;
};
EMBER_MODULE(GELU);

// Activations without options.
class SiLUImpl : public Module {
 public:
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(SiLU);

class SigmoidImpl : public Module {
 public:
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Sigmoid);

class TanhImpl : public Module {
 public:
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Tanh);

struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);

 private:
  SoftmaxOptions& derived() { return *this; }
};
using LogSoftmaxOptions = SoftmaxOptions;

class SoftmaxImpl : public Module {
 public:
  explicit SoftmaxImpl(const SoftmaxOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  SoftmaxOptions options;
};
EMBER_MODULE(Softmax);

class LogSoftmaxImpl : public Module {
 public:
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  LogSoftmaxOptions options;
};
EMBER_MODULE(LogSoftmax);

}  // namespace ember::nn
