// DataLoader: batches of a dataset, in order or shuffled, optionally gathered by
// worker threads, as a range:
//
//   using namespace ember::data;
//   DataLoader loader(TensorDataset(images, labels), DataLoaderOptions(64).shuffle(true).seed(0));
//   for (Example& batch : loader) { ... batch.data, batch.target ... }
//
// Each range-for over the loader is one epoch (a shuffled loader draws a new order).
// With num_workers > 0, that many threads gather batches ahead (at most
// prefetch_factor each) and the loop receives them in order; an exception in a
// worker is rethrown by the loop. Leaving the loop early stops the workers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "ember/data/dataset.h"
#include "ember/data/sampler.h"

namespace ember::data {

class DataLoaderOptions {
 public:
  DataLoaderOptions(int64_t batch_size = 1) { this->batch_size(batch_size); }

  DataLoaderOptions& batch_size(int64_t v);
  DataLoaderOptions& shuffle(bool v) { shuffle_ = v; return *this; }
  DataLoaderOptions& drop_last(bool v) { drop_last_ = v; return *this; }
  DataLoaderOptions& num_workers(int64_t v);
  DataLoaderOptions& prefetch_factor(int64_t v);
  // The shuffle order's seed (without one: drawn from the default generator).
  DataLoaderOptions& seed(uint64_t v) { seed_ = v; return *this; }

  int64_t batch_size() const { return batch_size_; }
  bool shuffle() const { return shuffle_; }
  bool drop_last() const { return drop_last_; }
  int64_t num_workers() const { return num_workers_; }
  int64_t prefetch_factor() const { return prefetch_factor_; }
  std::optional<uint64_t> seed() const { return seed_; }

 private:
  int64_t batch_size_ = 1;
  bool shuffle_ = false;
  bool drop_last_ = false;
  int64_t num_workers_ = 0;
  int64_t prefetch_factor_ = 2;
  std::optional<uint64_t> seed_;
};

class DataLoader {
  struct Epoch;  // one pass: its batches of indices and, with workers, the threads

 public:
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Example;
    using difference_type = std::ptrdiff_t;
    using pointer = Example*;
    using reference = Example&;

    Example& operator*() { return batch_; }
    Example* operator->() { return &batch_; }
    Iterator& operator++();
    bool operator==(const Iterator& other) const { return done() == other.done(); }
    bool operator!=(const Iterator& other) const { return !(*this == other); }

   private:
    friend class DataLoader;
    Iterator() = default;  // the end
    explicit Iterator(std::shared_ptr<Epoch> epoch);
    bool done() const { return !epoch_; }

    std::shared_ptr<Epoch> epoch_;
    Example batch_;
  };

  // sampler: the visiting order (default: sequential, or random when shuffle()).
  DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options = {},
             std::shared_ptr<Sampler> sampler = nullptr);
  // A dataset by value: DataLoader(TensorDataset(x, y), ...).
  template <typename D, typename = std::enable_if_t<std::is_base_of_v<Dataset, std::decay_t<D>>>>
  DataLoader(D&& dataset, DataLoaderOptions options = {}, std::shared_ptr<Sampler> sampler = nullptr)
      : DataLoader(std::make_shared<std::decay_t<D>>(std::forward<D>(dataset)), options, std::move(sampler)) {}

  // Starts an epoch (the sampler draws its order now).
  Iterator begin();
  Iterator end() { return Iterator(); }
  // The number of batches in an epoch.
  int64_t size() const;

  const DataLoaderOptions& options() const { return options_; }
  const std::shared_ptr<Dataset>& dataset() const { return dataset_; }

 private:
  std::shared_ptr<Dataset> dataset_;
  DataLoaderOptions options_;
  std::shared_ptr<Sampler> sampler_;
};

}  // namespace ember::data
