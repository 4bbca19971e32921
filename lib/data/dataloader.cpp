// DataLoader: an epoch's batches of indices, gathered in the loop's thread or by
// worker threads that run ahead of it.
#include "ember/data/dataloader.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "ember/error.h"
#include "ember/threads.h"

namespace ember::data {

DataLoaderOptions& DataLoaderOptions::batch_size(int64_t v) {
  EMBER_CHECK_VALUE(v > 0, "DataLoaderOptions: batch_size should be a positive integer, got ", v);
  batch_size_ = v;
  return *this;
}

DataLoaderOptions& DataLoaderOptions::num_workers(int64_t v) {
  EMBER_CHECK_VALUE(v >= 0, "DataLoaderOptions: num_workers should be non-negative, got ", v);
  num_workers_ = v;
  return *this;
}

DataLoaderOptions& DataLoaderOptions::prefetch_factor(int64_t v) {
  EMBER_CHECK_VALUE(v > 0, "DataLoaderOptions: prefetch_factor should be positive, got ", v);
  prefetch_factor_ = v;
  return *this;
}

// One pass over the dataset. Without workers, take() gathers each batch when asked.
// With workers, batch k is claimed by one worker thread once k < next + window (so
// at most `window` batches wait in memory), stored in slots[k], and handed out by
// take() in order; a worker's exception travels in its slot.
struct DataLoader::Epoch {
  struct Slot {
    Example batch;
    std::exception_ptr error;
    bool ready = false;
  };

  std::shared_ptr<Dataset> dataset;
  std::vector<std::vector<int64_t>> batches;
  size_t next = 0;  // the batch take() returns next

  size_t window = 0;
  size_t next_to_claim = 0;
  bool stopping = false;
  std::vector<Slot> slots;
  std::mutex mutex;
  std::condition_variable claimable, ready;
  std::vector<std::thread> workers;

  Epoch(std::shared_ptr<Dataset> ds, std::vector<std::vector<int64_t>> b, const DataLoaderOptions& o)
      : dataset(std::move(ds)), batches(std::move(b)) {
    if (o.num_workers() == 0) return;
    window = static_cast<size_t>(o.num_workers() * o.prefetch_factor());
    slots.resize(batches.size());
    for (int64_t i = 0; i < o.num_workers(); ++i) workers.emplace_back([this] { work(); });
  }

  ~Epoch() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    claimable.notify_all();
    for (std::thread& t : workers) t.join();  // each finishes at most the batch it is on
  }

  bool finished() const { return next == batches.size(); }

  void work() {
    set_num_threads(1);  // the workers share the cores between them
    for (;;) {
      size_t k;
      {
        std::unique_lock<std::mutex> lock(mutex);
        claimable.wait(lock, [&] {
          return stopping || next_to_claim == batches.size() || next_to_claim < next + window;
        });
        if (stopping || next_to_claim == batches.size()) return;
        k = next_to_claim++;
      }
      Slot result;
      try {
        result.batch = dataset->get_batch(batches[k]);
      } catch (...) {
        result.error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        slots[k] = std::move(result);
        slots[k].ready = true;
      }
      ready.notify_all();
    }
  }

  Example take() {
    if (workers.empty()) return dataset->get_batch(batches[next++]);
    Slot slot;
    {
      std::unique_lock<std::mutex> lock(mutex);
      ready.wait(lock, [&] { return slots[next].ready; });
      slot = std::move(slots[next]);
      slots[next] = Slot();
      ++next;
    }
    claimable.notify_all();
    if (slot.error) std::rethrow_exception(slot.error);
    return std::move(slot.batch);
  }
};

DataLoader::Iterator::Iterator(std::shared_ptr<Epoch> epoch) : epoch_(std::move(epoch)) { ++*this; }

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  if (!epoch_ || epoch_->finished()) {
    epoch_.reset();  // the end; the last owner joins the workers
    batch_ = Example();
    return *this;
  }
  batch_ = epoch_->take();
  return *this;
}

DataLoader::DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options,
                       std::shared_ptr<Sampler> sampler)
    : dataset_(std::move(dataset)), options_(options), sampler_(std::move(sampler)) {
  EMBER_CHECK_VALUE(dataset_ != nullptr, "DataLoader: null dataset");
  EMBER_CHECK_VALUE(!(sampler_ && options_.shuffle()), "DataLoader: sampler option is mutually exclusive with shuffle");
  if (!sampler_) {
    if (options_.shuffle()) sampler_ = std::make_shared<RandomSampler>(options_.seed());
    else sampler_ = std::make_shared<SequentialSampler>();
  }
}

DataLoader::Iterator DataLoader::begin() {
  std::vector<int64_t> order = sampler_->epoch(dataset_->size());
  const size_t bs = static_cast<size_t>(options_.batch_size());
  std::vector<std::vector<int64_t>> batches;
  for (size_t start = 0; start < order.size(); start += bs) {
    size_t end = std::min(order.size(), start + bs);
    if (end - start < bs && options_.drop_last()) break;
    batches.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(start),
                         order.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return Iterator(std::make_shared<Epoch>(dataset_, std::move(batches), options_));
}

int64_t DataLoader::size() const {
  const int64_t n = dataset_->size(), bs = options_.batch_size();
  return options_.drop_last() ? n / bs : (n + bs - 1) / bs;
}

}  // namespace ember::data
