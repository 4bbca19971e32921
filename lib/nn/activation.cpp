#include "ember/nn/modules/activation.h"

#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"

namespace ember::nn {

void ReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ReLU(" << (options.inplace() ? "inplace=true" : "") << ")";
}
Tensor ReLUImpl::forward(Tensor input) { return options.inplace() ? relu_(input) : relu(input); }

void LeakyReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "LeakyReLU(negative_slope=" << options.negative_slope() << (options.inplace() ? ", inplace=true" : "")
         << ")";
}
Tensor LeakyReLUImpl::forward(Tensor input) {
  return options.inplace() ? leaky_relu_(input, options.negative_slope())
                           : leaky_relu(input, options.negative_slope());
}

void GELUImpl::pretty_print(std::ostream& stream) const {
  stream << "GELU(";
  if (options.approximate() != "none") stream << "approximate='" << options.approximate() << "'";
  stream << ")";
}
Tensor GELUImpl::forward(const Tensor& input) { return gelu(input, options.approximate()); }

void SiLUImpl::pretty_print(std::ostream& stream) const { stream << "SiLU()"; }
Tensor SiLUImpl::forward(const Tensor& input) { return silu(input); }

void SigmoidImpl::pretty_print(std::ostream& stream) const { stream << "Sigmoid()"; }
Tensor SigmoidImpl::forward(const Tensor& input) { return sigmoid(input); }

void TanhImpl::pretty_print(std::ostream& stream) const { stream << "Tanh()"; }
Tensor TanhImpl::forward(const Tensor& input) { return tanh(input); }

void SoftmaxImpl::pretty_print(std::ostream& stream) const { stream << "Softmax(dim=" << options.dim() << ")"; }
Tensor SoftmaxImpl::forward(const Tensor& input) { return softmax(input, options.dim()); }

void LogSoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "LogSoftmax(dim=" << options.dim() << ")";
}
Tensor LogSoftmaxImpl::forward(const Tensor& input) { return log_softmax(input, options.dim()); }

}  // namespace ember::nn
