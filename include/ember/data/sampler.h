// Samplers: the order in which a DataLoader visits a dataset, one epoch at a time.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ember/generator.h"

namespace ember::data {

class Sampler {
 public:
  virtual ~Sampler() = default;
  // The indices of one epoch over a dataset of dataset_size examples. Each call is
  // a new epoch (a random sampler draws a new order).
  virtual std::vector<int64_t> epoch(int64_t dataset_size) = 0;
};

// 0, 1, ..., size - 1.
class SequentialSampler : public Sampler {
 public:
  std::vector<int64_t> epoch(int64_t dataset_size) override;
};

// A new random permutation each epoch, from its own generator seeded with seed (or,
// without one, from the default generator, so ember::manual_seed decides), or from
// a generator the caller owns and keeps alive.
class RandomSampler : public Sampler {
 public:
  explicit RandomSampler(std::optional<uint64_t> seed = std::nullopt);
  explicit RandomSampler(Generator& generator);
  std::vector<int64_t> epoch(int64_t dataset_size) override;

 private:
  std::shared_ptr<Generator> owned_;
  Generator* generator_;
};

}  // namespace ember::data
