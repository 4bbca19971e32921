// Layers over ember::nn::functional's composites (torch::nn's names and options):
// CosineSimilarity, PairwiseDistance, PixelShuffle, PixelUnshuffle, the channel
// dropouts Dropout1d/2d/3d and RMSNorm.
#pragma once
#include <optional>

#include "ember/arg.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/dropout.h"

namespace ember::nn {

struct CosineSimilarityOptions {
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-8;

 private:
  CosineSimilarityOptions& derived() { return *this; }
};

class CosineSimilarityImpl : public Module {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& x1, const Tensor& x2);
  CosineSimilarityOptions options;
};
EMBER_MODULE(CosineSimilarity);

struct PairwiseDistanceOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, keepdim) = false;

 private:
  PairwiseDistanceOptions& derived() { return *this; }
};

class PairwiseDistanceImpl : public Module {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& x1, const Tensor& x2);
  PairwiseDistanceOptions options;
};
EMBER_MODULE(PairwiseDistance);

struct PixelShuffleOptions {
  PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}  // NOLINT
  EMBER_ARG(int64_t, upscale_factor);

 private:
  PixelShuffleOptions& derived() { return *this; }
};

class PixelShuffleImpl : public Module {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  PixelShuffleOptions options;
};
EMBER_MODULE(PixelShuffle);

struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(int64_t downscale_factor) : downscale_factor_(downscale_factor) {}  // NOLINT
  EMBER_ARG(int64_t, downscale_factor);

 private:
  PixelUnshuffleOptions& derived() { return *this; }
};

class PixelUnshuffleImpl : public Module {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  PixelUnshuffleOptions options;
};
EMBER_MODULE(PixelUnshuffle);

// Whole channels zeroed with probability p in training (DropoutOptions: p, inplace).
class ChannelDropoutImplBase : public Module {
 public:
  ChannelDropoutImplBase(const DropoutOptions& options, const char* kind, int spatial_dims);
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  DropoutOptions options;

 private:
  const char* kind_;
  int spatial_dims_;
};

class Dropout1dImpl : public ChannelDropoutImplBase {
 public:
  explicit Dropout1dImpl(const DropoutOptions& options = {}) : ChannelDropoutImplBase(options, "Dropout1d", 1) {}
};
EMBER_MODULE(Dropout1d);

class Dropout2dImpl : public ChannelDropoutImplBase {
 public:
  explicit Dropout2dImpl(const DropoutOptions& options = {}) : ChannelDropoutImplBase(options, "Dropout2d", 2) {}
};
EMBER_MODULE(Dropout2d);

class Dropout3dImpl : public ChannelDropoutImplBase {
 public:
  explicit Dropout3dImpl(const DropoutOptions& options = {}) : ChannelDropoutImplBase(options, "Dropout3d", 3) {}
};
EMBER_MODULE(Dropout3d);

struct RMSNormOptions {
  RMSNormOptions(IntList normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}  // NOLINT
  EMBER_ARG(IntList, normalized_shape);
  // nullopt: the input dtype's machine epsilon.
  EMBER_ARG(std::optional<double>, eps) = std::nullopt;
  EMBER_ARG(bool, elementwise_affine) = true;

 private:
  RMSNormOptions& derived() { return *this; }
};

// weight (ones, normalized_shape) when elementwise_affine.
class RMSNormImpl : public Module {
 public:
  explicit RMSNormImpl(const RMSNormOptions& options);
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  RMSNormOptions options;
  Tensor weight;
};
EMBER_MODULE(RMSNorm);

}  // namespace ember::nn
