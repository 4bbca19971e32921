// The losses over ember::nn::functional's composites (torch::nn's names and options):
// KLDivLoss, HuberLoss, SoftMarginLoss, CosineEmbeddingLoss, MarginRankingLoss,
// HingeEmbeddingLoss, PoissonNLLLoss, GaussianNLLLoss, TripletMarginLoss,
// MultiLabelSoftMarginLoss and MultiMarginLoss. Class weights are buffers.
#pragma once
#include <string>

#include "ember/arg.h"
#include "ember/nn/modules/loss.h"

namespace ember::nn {

struct KLDivLossOptions {
  // "none", "mean", "sum" or "batchmean" (the sum over the batch size).
  EMBER_ARG(std::string, reduction) = "mean";
  EMBER_ARG(bool, log_target) = false;

 private:
  KLDivLossOptions& derived() { return *this; }
};

class KLDivLossImpl : public LossImplBase {
 public:
  explicit KLDivLossImpl(const KLDivLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  KLDivLossOptions options;
};
EMBER_MODULE(KLDivLoss);

struct HuberLossOptions {
  EMBER_ARG(std::string, reduction) = "mean";
  EMBER_ARG(double, delta) = 1.0;

 private:
  HuberLossOptions& derived() { return *this; }
};

class HuberLossImpl : public LossImplBase {
 public:
  explicit HuberLossImpl(const HuberLossOptions& options = {})
      : LossImplBase("HuberLoss", options.reduction()), options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  HuberLossOptions options;
};
EMBER_MODULE(HuberLoss);

using SoftMarginLossOptions = ReductionOptions;

class SoftMarginLossImpl : public LossImplBase {
 public:
  explicit SoftMarginLossImpl(const SoftMarginLossOptions& options = {})
      : LossImplBase("SoftMarginLoss", options.reduction()), options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  SoftMarginLossOptions options;
};
EMBER_MODULE(SoftMarginLoss);

struct CosineEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 0.0;
  EMBER_ARG(std::string, reduction) = "mean";

 private:
  CosineEmbeddingLossOptions& derived() { return *this; }
};

class CosineEmbeddingLossImpl : public LossImplBase {
 public:
  explicit CosineEmbeddingLossImpl(const CosineEmbeddingLossOptions& options = {})
      : LossImplBase("CosineEmbeddingLoss", options.reduction()), options(options) {}
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
  CosineEmbeddingLossOptions options;
};
EMBER_MODULE(CosineEmbeddingLoss);

struct MarginRankingLossOptions {
  EMBER_ARG(double, margin) = 0.0;
  EMBER_ARG(std::string, reduction) = "mean";

 private:
  MarginRankingLossOptions& derived() { return *this; }
};

class MarginRankingLossImpl : public LossImplBase {
 public:
  explicit MarginRankingLossImpl(const MarginRankingLossOptions& options = {})
      : LossImplBase("MarginRankingLoss", options.reduction()), options(options) {}
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
  MarginRankingLossOptions options;
};
EMBER_MODULE(MarginRankingLoss);

struct HingeEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(std::string, reduction) = "mean";

 private:
  HingeEmbeddingLossOptions& derived() { return *this; }
};

class HingeEmbeddingLossImpl : public LossImplBase {
 public:
  explicit HingeEmbeddingLossImpl(const HingeEmbeddingLossOptions& options = {})
      : LossImplBase("HingeEmbeddingLoss", options.reduction()), options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  HingeEmbeddingLossOptions options;
};
EMBER_MODULE(HingeEmbeddingLoss);

struct PoissonNLLLossOptions {
  EMBER_ARG(bool, log_input) = true;
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(std::string, reduction) = "mean";

 private:
  PoissonNLLLossOptions& derived() { return *this; }
};

class PoissonNLLLossImpl : public LossImplBase {
 public:
  explicit PoissonNLLLossImpl(const PoissonNLLLossOptions& options = {})
      : LossImplBase("PoissonNLLLoss", options.reduction()), options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  PoissonNLLLossOptions options;
};
EMBER_MODULE(PoissonNLLLoss);

struct GaussianNLLLossOptions {
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(std::string, reduction) = "mean";

 private:
  GaussianNLLLossOptions& derived() { return *this; }
};

class GaussianNLLLossImpl : public LossImplBase {
 public:
  explicit GaussianNLLLossImpl(const GaussianNLLLossOptions& options = {})
      : LossImplBase("GaussianNLLLoss", options.reduction()), options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var);
  GaussianNLLLossOptions options;
};
EMBER_MODULE(GaussianNLLLoss);

struct TripletMarginLossOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(std::string, reduction) = "mean";

 private:
  TripletMarginLossOptions& derived() { return *this; }
};

class TripletMarginLossImpl : public LossImplBase {
 public:
  explicit TripletMarginLossImpl(const TripletMarginLossOptions& options = {});
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);
  TripletMarginLossOptions options;
};
EMBER_MODULE(TripletMarginLoss);

struct MultiLabelSoftMarginLossOptions {
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(std::string, reduction) = "mean";

 private:
  MultiLabelSoftMarginLossOptions& derived() { return *this; }
};

class MultiLabelSoftMarginLossImpl : public LossImplBase {
 public:
  explicit MultiLabelSoftMarginLossImpl(const MultiLabelSoftMarginLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  MultiLabelSoftMarginLossOptions options;
  Tensor weight;
};
EMBER_MODULE(MultiLabelSoftMarginLoss);

struct MultiMarginLossOptions {
  EMBER_ARG(int64_t, p) = 1;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(std::string, reduction) = "mean";

 private:
  MultiMarginLossOptions& derived() { return *this; }
};

class MultiMarginLossImpl : public LossImplBase {
 public:
  explicit MultiMarginLossImpl(const MultiMarginLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  MultiMarginLossOptions options;
  Tensor weight;
};
EMBER_MODULE(MultiMarginLoss);

}  // namespace ember::nn
