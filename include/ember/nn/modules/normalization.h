// BatchNorm1d, BatchNorm2d, LayerNorm and GroupNorm (torch::nn's options,
// initialization, buffers and printing).
#pragma once
#include <optional>

#include "ember/arg.h"
#include "ember/nn/module.h"

namespace ember::nn {

struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  // nullopt: running stats are the cumulative average over the batches seen.
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(bool, track_running_stats) = true;

 private:
  BatchNormOptions& derived() { return *this; }
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;

// Training: normalizes with the batch's statistics and updates running_mean,
// running_var (unbiased) and num_batches_tracked; eval: uses the running stats.
class BatchNormImplBase : public Module {
 public:
  BatchNormImplBase(const BatchNormOptions& options, const char* kind, std::vector<int64_t> input_dims);
  void reset_running_stats();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  BatchNormOptions options;
  Tensor weight;
  Tensor bias;
  Tensor running_mean;
  Tensor running_var;
  Tensor num_batches_tracked;

 private:
  const char* kind_;
  std::vector<int64_t> input_dims_;  // the input ranks this kind accepts
};

class BatchNorm1dImpl : public BatchNormImplBase {
 public:
  explicit BatchNorm1dImpl(const BatchNormOptions& options) : BatchNormImplBase(options, "BatchNorm1d", {2, 3}) {}
};
EMBER_MODULE(BatchNorm1d);

class BatchNorm2dImpl : public BatchNormImplBase {
 public:
  explicit BatchNorm2dImpl(const BatchNormOptions& options) : BatchNormImplBase(options, "BatchNorm2d", {4}) {}
};
EMBER_MODULE(BatchNorm2d);

struct LayerNormOptions {
  LayerNormOptions(IntList normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}  // NOLINT
  EMBER_ARG(IntList, normalized_shape);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, elementwise_affine) = true;

 private:
  LayerNormOptions& derived() { return *this; }
};

class LayerNormImpl : public Module {
 public:
  explicit LayerNormImpl(const LayerNormOptions& options);
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  LayerNormOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(LayerNorm);

struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels) : num_groups_(num_groups), num_channels_(num_channels) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(int64_t, num_channels);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, affine) = true;

 private:
  GroupNormOptions& derived() { return *this; }
};

class GroupNormImpl : public Module {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  GroupNormOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(GroupNorm);

}  // namespace ember::nn
