// Dropout and Embedding (torch::nn's options, initialization and printing).
#pragma once
#include <optional>

#include "ember/arg.h"
#include "ember/nn/module.h"

namespace ember::nn {

struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT
  EMBER_ARG(double, p);
  EMBER_ARG(bool, inplace) = false;

 private:
  DropoutOptions& derived() { return *this; }
};

// Training: zeroes elements with probability p and scales the others by
// 1 / (1 - p); eval: returns the input.
class DropoutImpl : public Module {
 public:
  explicit DropoutImpl(const DropoutOptions& options = {});
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);

  DropoutOptions options;
};
EMBER_MODULE(Dropout);

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  // The row that gets no gradient; initialized to zeros. Negative counts from the end.
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;

 private:
  EmbeddingOptions& derived() { return *this; }
};

// weight [num_embeddings, embedding_dim], standard normal.
class EmbeddingImpl : public Module {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(const EmbeddingOptions& options);
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& indices);

  EmbeddingOptions options;
  Tensor weight;
};
EMBER_MODULE(Embedding);

}  // namespace ember::nn
