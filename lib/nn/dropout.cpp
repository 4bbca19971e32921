#include "ember/nn/modules/dropout.h"

#include "ember/autograd.h"
#include "ember/nn/init.h"
#include "ember/ops/factories.h"
#include "ember/ops/nn.h"

namespace ember::nn {

DropoutImpl::DropoutImpl(const DropoutOptions& options_) : options(options_) {
  EMBER_CHECK_VALUE(options.p() >= 0 && options.p() <= 1,
                    "dropout probability has to be between 0 and 1, but got ", options.p());
}

void DropoutImpl::pretty_print(std::ostream& stream) const {
  stream << "Dropout(p=" << options.p() << ", inplace=" << std::boolalpha << options.inplace() << ")";
}

Tensor DropoutImpl::forward(Tensor input) { return dropout(input, options.p(), is_training(), options.inplace()); }

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options_) : options(options_) {
  if (auto idx = options.padding_idx()) {
    int64_t n = options.num_embeddings();
    EMBER_CHECK_VALUE(*idx < n && *idx >= -n, "Padding_idx must be within num_embeddings");
    if (*idx < 0) options.padding_idx(*idx + n);
  }
  weight = register_parameter("weight", empty({options.num_embeddings(), options.embedding_dim()}));
  reset_parameters();
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (auto idx = options.padding_idx()) {
    NoGradGuard no_grad;
    weight.select(0, *idx).zero_();
  }
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << "Embedding(num_embeddings=" << options.num_embeddings() << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  stream << ")";
}

Tensor EmbeddingImpl::forward(const Tensor& indices) { return embedding(indices, weight, options.padding_idx()); }

}  // namespace ember::nn
