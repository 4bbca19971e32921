// Loss modules: CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss,
// BCELoss and BCEWithLogitsLoss (torch::nn's options; reduction is "mean",
// "sum" or "none"). Class weights are buffers, as in PyTorch.
#pragma once
#include <string>

#include "ember/arg.h"
#include "ember/nn/module.h"

namespace ember::nn {

// A loss with a reduction only (MSELoss, L1Loss).
struct ReductionOptions {
  ReductionOptions(std::string reduction = "mean") : reduction_(std::move(reduction)) {}  // NOLINT
  ReductionOptions(const char* reduction) : reduction_(reduction) {}  // NOLINT
  EMBER_ARG(std::string, reduction);

 private:
  ReductionOptions& derived() { return *this; }
};
using MSELossOptions = ReductionOptions;
using L1LossOptions = ReductionOptions;

// The base of the losses: checks the reduction string, prints "Name()".
class LossImplBase : public Module {
 public:
  LossImplBase(const char* kind, const std::string& reduction);
  void pretty_print(std::ostream& stream) const override;

 private:
  const char* kind_;
};

class MSELossImpl : public LossImplBase {
 public:
  explicit MSELossImpl(const MSELossOptions& options = {}) : LossImplBase("MSELoss", options.reduction()), options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  MSELossOptions options;
};
EMBER_MODULE(MSELoss);

class L1LossImpl : public LossImplBase {
 public:
  explicit L1LossImpl(const L1LossOptions& options = {}) : LossImplBase("L1Loss", options.reduction()), options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  L1LossOptions options;
};
EMBER_MODULE(L1Loss);

struct SmoothL1LossOptions {
  EMBER_ARG(std::string, reduction) = "mean";
  EMBER_ARG(double, beta) = 1.0;

 private:
  SmoothL1LossOptions& derived() { return *this; }
};

class SmoothL1LossImpl : public LossImplBase {
 public:
  explicit SmoothL1LossImpl(const SmoothL1LossOptions& options = {})
      : LossImplBase("SmoothL1Loss", options.reduction()), options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  SmoothL1LossOptions options;
};
EMBER_MODULE(SmoothL1Loss);

struct CrossEntropyLossOptions {
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(std::string, reduction) = "mean";
  EMBER_ARG(double, label_smoothing) = 0.0;

 private:
  CrossEntropyLossOptions& derived() { return *this; }
};

// input: logits [N, C, *]; target: class indices or class probabilities.
class CrossEntropyLossImpl : public LossImplBase {
 public:
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  CrossEntropyLossOptions options;
  Tensor weight;
};
EMBER_MODULE(CrossEntropyLoss);

struct NLLLossOptions {
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(std::string, reduction) = "mean";

 private:
  NLLLossOptions& derived() { return *this; }
};

// input: log-probabilities [N, C, *]; target: class indices.
class NLLLossImpl : public LossImplBase {
 public:
  explicit NLLLossImpl(const NLLLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  NLLLossOptions options;
  Tensor weight;
};
EMBER_MODULE(NLLLoss);

struct BCELossOptions {
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(std::string, reduction) = "mean";

 private:
  BCELossOptions& derived() { return *this; }
};

// input: probabilities in [0, 1].
class BCELossImpl : public LossImplBase {
 public:
  explicit BCELossImpl(const BCELossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  BCELossOptions options;
  Tensor weight;
};
EMBER_MODULE(BCELoss);

struct BCEWithLogitsLossOptions {
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(std::string, reduction) = "mean";
  EMBER_ARG(Tensor, pos_weight);

 private:
  BCEWithLogitsLossOptions& derived() { return *this; }
};

// input: logits; sigmoid and BCE in one numerically stable step.
class BCEWithLogitsLossImpl : public LossImplBase {
 public:
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  BCEWithLogitsLossOptions options;
  Tensor weight;
  Tensor pos_weight;
};
EMBER_MODULE(BCEWithLogitsLoss);

}  // namespace ember::nn
