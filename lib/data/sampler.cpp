// SequentialSampler and RandomSampler.
#include "ember/data/sampler.h"

#include <numeric>

#include "ember/ops/factories.h"
#include "ember/ops/random.h"

namespace ember::data {

namespace {

std::vector<int64_t> to_vector(const Tensor& t) {
  const int64_t* p = t.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + t.numel());
}

}  // namespace

std::vector<int64_t> SequentialSampler::epoch(int64_t dataset_size) {
  std::vector<int64_t> order(static_cast<size_t>(dataset_size));
  std::iota(order.begin(), order.end(), int64_t(0));
  return order;
}

RandomSampler::RandomSampler(std::optional<uint64_t> seed) : generator_(nullptr) {
  if (seed) {
    owned_ = std::make_shared<Generator>(*seed);
    generator_ = owned_.get();
  }
}

RandomSampler::RandomSampler(Generator& generator) : generator_(&generator) {}

std::vector<int64_t> RandomSampler::epoch(int64_t dataset_size) {
  if (generator_) return to_vector(randperm(dataset_size, generator_));
  // Unseeded: a generator seeded from the default one, as Python's RandomSampler does,
  // so that the order follows ember::manual_seed.
  Tensor seed = empty(IntList{}, TensorOptions(kInt64));
  random_(seed);
  Generator g(static_cast<uint64_t>(seed.item<int64_t>()));
  return to_vector(randperm(dataset_size, &g));
}

}  // namespace ember::data
