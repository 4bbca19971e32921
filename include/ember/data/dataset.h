// Datasets of the C++ frontend (ember::data), as torch.utils.data's: a dataset
// maps an index in [0, size()) to an Example (data and target tensors).
//
//   auto ds = std::make_shared<ember::data::TensorDataset>(images, labels);
//   ember::data::Example e = ds->get(0);  // e.data = images[0], e.target = labels[0]
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember::data {

// One sample, or (stacked along a new first dimension) one batch. target may be
// undefined for unlabelled data.
struct Example {
  Tensor data;
  Tensor target;
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual Example get(int64_t index) = 0;
  virtual int64_t size() const = 0;
  // The examples at indices, data and targets each stacked along a new first
  // dimension. Datasets that gather a batch at once (TensorDataset) override it.
  // A DataLoader with workers calls get/get_batch from several threads at once.
  virtual Example get_batch(const std::vector<int64_t>& indices);
};

// Example i is (data[i], target[i]); data and target share their first dimension.
class TensorDataset : public Dataset {
 public:
  explicit TensorDataset(Tensor data, Tensor target = Tensor());
  Example get(int64_t index) override;
  int64_t size() const override;
  Example get_batch(const std::vector<int64_t>& indices) override;  // one index_select each

  const Tensor& data() const { return data_; }
  const Tensor& target() const { return target_; }

 private:
  Tensor data_, target_;
};

// The examples of dataset at the given indices, in that order.
class Subset : public Dataset {
 public:
  Subset(std::shared_ptr<Dataset> dataset, std::vector<int64_t> indices);
  Example get(int64_t index) override;
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  Example get_batch(const std::vector<int64_t>& indices) override;

  const std::shared_ptr<Dataset>& dataset() const { return dataset_; }
  const std::vector<int64_t>& indices() const { return indices_; }

 private:
  std::shared_ptr<Dataset> dataset_;
  std::vector<int64_t> indices_;
};

// Splits dataset into non-overlapping subsets of the given lengths (summing to its
// size), drawn with randperm from generator (nullptr: the default generator).
std::vector<std::shared_ptr<Subset>> random_split(std::shared_ptr<Dataset> dataset,
                                                  const std::vector<int64_t>& lengths,
                                                  Generator* generator = nullptr);
// Lengths for fractions of n (each in [0, 1], summing to 1), as random_split(fractions)
// computes them in Python: floor(n * f) each, the remainder spread round-robin.
std::vector<int64_t> split_lengths(int64_t n, const std::vector<double>& fractions);

}  // namespace ember::data
