// Dataset's default batch gathering, TensorDataset, Subset and random_split.
#include "ember/data/dataset.h"

#include <cmath>
#include <numeric>

#include "ember/error.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"
#include "dispatch/op_ids/reduce.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::data {

namespace {

Tensor index_tensor(const std::vector<int64_t>& indices) {
  return from_vector(indices, IntList{static_cast<int64_t>(indices.size())});
}

}  // namespace

Example Dataset::get_batch(const std::vector<int64_t>& indices) {
  EMBER_CHECK_VALUE(!indices.empty(), "Dataset::get_batch: no indices");
  TensorList data, target;
  for (int64_t i : indices) {
    Example e = get(i);
    data.push_back(e.data);
    if (e.target.defined()) target.push_back(e.target);
  }
  EMBER_CHECK(target.empty() || target.size() == data.size(),
              "Dataset::get_batch: some examples have a target and some do not");
  return {stack(data), target.empty() ? Tensor() : stack(target)};
}

TensorDataset::TensorDataset(Tensor data, Tensor target) : data_(std::move(data)), target_(std::move(target)) {
  EMBER_CHECK_VALUE(data_.defined() && data_.dim() > 0, "TensorDataset: data must be a tensor with a first dimension");
  EMBER_CHECK_VALUE(!target_.defined() || (target_.dim() > 0 && target_.size(0) == data_.size(0)),
                    "TensorDataset: size mismatch between tensors: data has ", data_.size(0),
                    " examples, target ", target_.defined() && target_.dim() > 0 ? target_.size(0) : 0);
}

Example TensorDataset::get(int64_t index) {
  EMBER_CHECK_INDEX(index >= 0 && index < size(), "TensorDataset: index ", index,
                    " is out of range for a dataset of size ", size());
  return {data_.select(0, index), target_.defined() ? target_.select(0, index) : Tensor()};
}

int64_t TensorDataset::size() const { return data_.size(0); }

Example TensorDataset::get_batch(const std::vector<int64_t>& indices) {
  Tensor index = index_tensor(indices);
  return {index_select(data_, 0, index), target_.defined() ? index_select(target_, 0, index) : Tensor()};
}

Subset::Subset(std::shared_ptr<Dataset> dataset, std::vector<int64_t> indices)
    : dataset_(std::move(dataset)), indices_(std::move(indices)) {
  EMBER_CHECK_VALUE(dataset_ != nullptr, "Subset: null dataset");
}

Example Subset::get(int64_t index) {
  EMBER_CHECK_INDEX(index >= 0 && index < size(), "Subset: index ", index,
                    " is out of range for a subset of size ", size());
  return dataset_->get(indices_[static_cast<size_t>(index)]);
}

Example Subset::get_batch(const std::vector<int64_t>& indices) {
  std::vector<int64_t> mapped;
  mapped.reserve(indices.size());
  for (int64_t i : indices) {
    EMBER_CHECK_INDEX(i >= 0 && i < size(), "Subset: index ", i, " is out of range for a subset of size ", size());
    mapped.push_back(indices_[static_cast<size_t>(i)]);
  }
  return dataset_->get_batch(mapped);
}

std::vector<std::shared_ptr<Subset>> random_split(std::shared_ptr<Dataset> dataset,
                                                  const std::vector<int64_t>& lengths, Generator* generator) {
  EMBER_CHECK_VALUE(dataset != nullptr, "random_split: null dataset");
  int64_t total = 0;
  for (int64_t n : lengths) {
    EMBER_CHECK_VALUE(n >= 0, "random_split: lengths must be non-negative, got ", n);
    total += n;
  }
  EMBER_CHECK_VALUE(total == dataset->size(),
                    "random_split: sum of input lengths (", total,
                    ") does not equal the length of the input dataset (", dataset->size(), ")");
  Tensor perm = randperm(total, generator);
  const int64_t* p = perm.data_ptr<int64_t>();
  std::vector<std::shared_ptr<Subset>> out;
  int64_t start = 0;
  for (int64_t n : lengths) {
    out.push_back(std::make_shared<Subset>(dataset, std::vector<int64_t>(p + start, p + start + n)));
    start += n;
  }
  return out;
}

std::vector<int64_t> split_lengths(int64_t n, const std::vector<double>& fractions) {
  EMBER_CHECK_VALUE(!fractions.empty(), "split_lengths: no fractions");
  double sum = 0;
  std::vector<int64_t> lengths;
  for (size_t i = 0; i < fractions.size(); ++i) {
    EMBER_CHECK_VALUE(fractions[i] >= 0 && fractions[i] <= 1, "split_lengths: fraction at index ", i,
                      " is not between 0 and 1");
    sum += fractions[i];
    lengths.push_back(static_cast<int64_t>(std::floor(n * fractions[i])));
  }
  EMBER_CHECK_VALUE(std::abs(sum - 1) < 1e-9, "split_lengths: fractions sum to ", sum, ", not 1");
  int64_t remainder = n - std::accumulate(lengths.begin(), lengths.end(), int64_t(0));
  for (int64_t i = 0; i < remainder; ++i) lengths[static_cast<size_t>(i) % lengths.size()] += 1;
  return lengths;
}

}  // namespace ember::data
